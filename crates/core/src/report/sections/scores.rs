//! Tables 4 and 7 (hypothesis probes; counterfactual tables): accuracy on the originals, on
//! label-preserving and on label-flipping items, mean ± sd over the samples, over every example
//! then per group, first as the full model sees them, then with the hypothesis alone when the
//! run has hypothesis-only scores. Each section also carries its `all` rows as numbers
//! ([`ScoreBars`]) for the score plot.

use crate::metrics::{
    groups, perturbation_scores, Group, LeftOut, MeanSd, PerturbationScores, ScoreView,
};
use crate::probe::Expectation;
use crate::probe_kind::ProbeKind;
use crate::report::{
    num, sample_options_with, score_plot::ModelView, ItemSelector, ReportOptions, Row, ScoreBars,
    Section, SectionId, ALL, COUNTERFACTUAL,
};
use crate::run::RunResult;

/// The label-preserving counterfactuals of Table 7 (§6: row and title swaps).
pub const LABEL_PRESERVING_COUNTERFACTUAL: [ProbeKind; 2] =
    [ProbeKind::RowSwap, ProbeKind::TitleSwap];

/// The probes among `kinds` whose items have an expected label: the rows of a score table (Table 4
/// for the hypothesis probes, Table 7 for the counterfactual ones).
fn score_table_probes(run: &RunResult, kinds: &[ProbeKind]) -> Vec<ProbeKind> {
    kinds
        .iter()
        .copied()
        .filter(|&k| {
            run.items
                .iter()
                .any(|it| it.probe == k && matches!(it.expectation, Expectation::Label { .. }))
        })
        .collect()
}

/// Whether [`sections_with`](crate::report::sections_with) gives `run` a score table (Table 4 or
/// 7), without computing them.
pub fn has_score_tables(run: &RunResult) -> bool {
    !score_table_probes(run, &ProbeKind::HYPOTHESIS).is_empty()
        || !score_table_probes(run, &COUNTERFACTUAL).is_empty()
}

/// The score tables of the report (Table 4 for the hypothesis probes, Table 7 for the
/// counterfactual ones; none when no probe of theirs ran): what
/// [`sections_with`](crate::report::sections_with) holds of them, without computing the rest.
pub fn score_sections(run: &RunResult, ropts: &ReportOptions) -> Vec<Section> {
    let mut out = Vec::new();
    let label_probes = |kinds: &[ProbeKind]| score_table_probes(run, kinds);
    let t4 = label_probes(&ProbeKind::HYPOTHESIS);
    if !t4.is_empty() {
        // One row per probe, then every hypothesis probe pooled, as the paper reports them.
        let mut rows: Vec<(&str, Vec<ProbeKind>)> =
            t4.iter().map(|&k| (k.as_str(), vec![k])).collect();
        if t4.len() > 1 {
            rows.push((ALL, t4.clone()));
        }
        out.push(scores_section(
            run,
            ropts,
            SectionId::Table4,
            "Table 4 — hypothesis probes: accuracy (mean ± sd over 100 samples of 80%)",
            &t4,
            &rows,
        ));
    }
    let t7 = label_probes(&COUNTERFACTUAL);
    if !t7.is_empty() {
        // Label-preserving swaps and label-flipping hand-made counterfactuals are never
        // pooled (§6): the swaps, then their pooled row when both are present, then the
        // hand-made counterfactuals.
        let swaps: Vec<ProbeKind> = t7
            .iter()
            .copied()
            .filter(|k| LABEL_PRESERVING_COUNTERFACTUAL.contains(k))
            .collect();
        let mut rows: Vec<(&str, Vec<ProbeKind>)> =
            swaps.iter().map(|&k| (k.as_str(), vec![k])).collect();
        if swaps.len() > 1 {
            rows.push(("label_preserving", swaps.clone()));
        }
        rows.extend(
            t7.iter()
                .filter(|k| !swaps.contains(k))
                .map(|&k| (k.as_str(), vec![k])),
        );
        out.push(scores_section(
            run,
            ropts,
            SectionId::Table7,
            "Table 7 — counterfactual tables: accuracy (mean ± sd over 100 samples of 80%)",
            &t7,
            &rows,
        ));
    }
    out
}

fn mean_sd_cells(m: &Option<MeanSd>) -> [String; 3] {
    match m {
        Some(m) => [m.n.to_string(), num(m.mean), num(m.sd)],
        None => [String::new(), String::new(), String::new()],
    }
}

fn score_row(group: &str, probe: &str, model: ModelView, s: &PerturbationScores) -> Vec<String> {
    let mut row = vec![group.to_string(), probe.to_string(), model.to_string()];
    for m in [&s.original, &s.label_preserved, &s.label_flipped] {
        row.extend(mean_sd_cells(m));
    }
    let LeftOut {
        heuristic_unreviewed,
        rejected,
        neutral,
        ..
    } = s.left_out;
    row.extend([heuristic_unreviewed, rejected, neutral].map(|n| n.to_string()));
    row
}

/// The columns of Tables 4 and 7 (and their CSV): per group, probe and model view, the originals',
/// label-preserving and label-flipping items' count, mean and sd, then the items left out.
pub const SCORE_COLUMNS: [&str; 15] = [
    "group",
    "probe",
    "model",
    "original_n",
    "original_mean",
    "original_sd",
    "preserved_n",
    "preserved_mean",
    "preserved_sd",
    "flipped_n",
    "flipped_mean",
    "flipped_sd",
    "heuristic_left_out",
    "rejected_left_out",
    "neutral_left_out",
];

/// Rows `(group, probe, model)`: one block per entry of `rows` (the `probe` cell and the probes it
/// pools), over every example, then per split and category; each first with the full model, then —
/// when the run has hypothesis-only scores — with the hypothesis alone. `probes` are all the
/// table's probes (for its notes).
fn scores_section(
    run: &RunResult,
    ropts: &ReportOptions,
    id: SectionId,
    title: &str,
    probes: &[ProbeKind],
    rows: &[(&str, Vec<ProbeKind>)],
) -> Section {
    let mut s = Section::new(id, title, &SCORE_COLUMNS);
    let mut opts = sample_options_with(run, ropts);
    // Table 7 samples the counterfactual items themselves (§6: "100 sets of 80% randomly
    // sampled counterfactual examples"); the one-per-gold-example rule is Table 4's (§4).
    opts.one_per_example = id != SectionId::Table7;
    s.notes.push(if !opts.one_per_example {
        format!(
            "every counted counterfactual item, as the paper (§6: 80% samples of the \
             counterfactual examples); sampling seed {}",
            opts.seed
        )
    } else if opts.per_column {
        format!(
            "one perturbation sampled per original example and column (preserved, flipped; \
             not the paper's reading: an example may count in both columns); sampling seed {}",
            opts.seed
        )
    } else {
        format!(
            "one perturbation sampled per original example, as the paper (§4): its expected \
             label puts it in the preserved or the flipped column; sampling seed {}",
            opts.seed
        )
    });
    let total =
        perturbation_scores(run, probes, &opts, ScoreView::PremiseAndHypothesis, None).left_out;
    s.notes.push(review_note(&total, ropts));
    s.notes.push(format!(
        "w/o NEUTRAL, as the paper: {} item(s) of NEUTRAL examples left out",
        total.neutral
    ));
    let hypo_only = !run.hypothesis_only_pairs.is_empty();
    let hypo_label = if run.hypothesis_only_model.is_some() {
        ModelView::HypothesisOnlyModel
    } else {
        ModelView::HypothesisOnlyView
    };
    if hypo_only {
        s.notes.push(hypothesis_only_note(run, probes));
    }
    // The score tables list their groups by name (`category:…` before `split:…`), as their
    // CSV always has.
    let mut by_label = groups(run);
    by_label.sort_by_key(Group::label);
    let mut rows_for = |probe_name: &str, kinds: &[ProbeKind]| {
        let mut models = vec![ModelView::PremiseAndHypothesis];
        if hypo_only {
            models.push(hypo_label);
        }
        for model in models {
            let view = model.score_view();
            let items = |group: Option<Group>| ItemSelector::Scored {
                probes: kinds.to_vec(),
                group,
                include_heuristic: ropts.include_heuristic,
                hypothesis_only: view == ScoreView::HypothesisOnly,
            };
            let all = perturbation_scores(run, kinds, &opts, view, None);
            s.rows
                .push(Row::new(score_row(ALL, probe_name, model, &all)).counting(items(None)));
            s.bars.push(ScoreBars {
                probe: probe_name.to_string(),
                model,
                accuracy: [all.original, all.label_preserved, all.label_flipped],
            });
            for g in &by_label {
                let sc = perturbation_scores(run, kinds, &opts, view, Some(g));
                let row = Row::new(score_row(&g.label(), probe_name, model, &sc));
                s.rows.push(row.counting(items(Some(g.clone()))));
            }
        }
    };
    for (name, kinds) in rows {
        rows_for(name, kinds);
    }
    s
}

/// What the score table did with items by review state.
fn review_note(total: &LeftOut, ropts: &ReportOptions) -> String {
    let heuristic = if ropts.include_heuristic {
        format!(
            "{} heuristic item(s) nobody has reviewed are INCLUDED on request, scored against their generated label",
            total.heuristic_included
        )
    } else {
        format!(
            "{} heuristic item(s) nobody has reviewed are left out (column heuristic_left_out; include them with `tabprobe report --include-heuristic`)",
            total.heuristic_unreviewed
        )
    };
    format!(
        "counts certain items and reviewer-accepted ones (scored against the reviewer's label); {heuristic}; {} rejected item(s) left out",
        total.rejected
    )
}

/// Which hypothesis-only predictions the hypo-only rows read.
fn hypothesis_only_note(run: &RunResult, probes: &[ProbeKind]) -> String {
    let source = match &run.hypothesis_only_model {
        Some(m) => format!(
            "{} rows: {}, a second model's run on the same items (its scores of each hypothesis alone)",
            ModelView::HypothesisOnlyModel,
            m.name
        ),
        None => format!(
            "{} rows: {} itself with an empty premise (docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view), not a separately trained hypothesis-only model",
            ModelView::HypothesisOnlyView,
            run.model.name_with_precision()
        ),
    };
    let items_scored = run
        .items
        .iter()
        .any(|it| probes.contains(&it.probe) && it.hypothesis_only_pair.is_some());
    if items_scored {
        source
    } else {
        format!(
            "{source}; only the originals have hypothesis-only scores: probe with hypothesis_only_items (`tabprobe probe --hypothesis-only-items`) to score the perturbed hypotheses too"
        )
    }
}
