//! The paper-style report of a run, recomputed from the run file alone — Table 1 accuracy
//! per split beside the hypothesis-only figure and the majority baseline, Table 4 / 7 scores,
//! the invalid-transition tables (5, 6, 13–17) and transition-graph edge percentages (one per
//! [`TransitionSet`]: Table 6's single and all-relevant-rows deletions apart, the
//! label-preserving rule's hypothesis and counterfactual sets, `n/a` where a two-way model
//! cannot meet a rule), evidence selection (§5.3, complete examples only), agreement of
//! relevance annotations (§5.2), word-order metrics (UNLI §4) and Table 8 (NEUTRAL left out,
//! label-flipping and label-preserving counterfactuals apart) — each also split by split and
//! by reasoning category (docs/probes-and-metrics.md#breakdown-by-split-and-category), as [`Section`]s of cells. The command line prints them
//! (`tabprobe report`) and writes each as CSV with [`render_csv`]; the site shows the same
//! sections and downloads the same CSV, so both agree by construction.
//!
//! Every figure is computed by [`crate::metrics`]; this module only lays them out.

mod figures;
mod full;
pub mod glossary;
pub mod score_plot;
mod section;
mod select;

pub use figures::{
    figures, figures_by_group, set_figures, transition_sets, word_order_figures, Figures,
    GraphFigure, InvalidFigure, Marked, OmegaPoint, SetFigures, WordOrderFigures,
};
pub use full::{FullReport, Table8Report, Table8Unavailable};
pub use score_plot::ScoreBars;
pub use section::{csv_text, neutralised, render_csv, render_text, Row, Section, SectionId};
pub use select::ItemSelector;

use crate::data::label::Label;
use crate::metrics::invalid::NOT_APPLICABLE_TWO_WAY;
use crate::metrics::transition_report::heuristic_left_out;
use crate::metrics::Group;
use crate::metrics::{
    evidence_selection, groups, incomplete_evidence, omega_curve_x, paired_table,
    perturbation_scores, relevance_agreement, run_word_order_metrics, CounterfactualClass,
    EvidenceSelection, ExampleSet, LeftOut, MeanSd, PairedError, PairedRow, PerturbationScores,
    RelevanceAgreement, SampleOptions, ScoreView, TransitionSet, WordOrderMetrics,
};
use crate::probe::review::ReviewState;
use crate::probe::rules::Operation;
use crate::probe::Expectation;
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;

/// The group name of figures over every example.
pub const ALL: &str = "all";

/// The counterfactual probes of Table 7 and Table 8.
pub const COUNTERFACTUAL: [ProbeKind; 3] = crate::metrics::transition_report::COUNTERFACTUAL_PROBES;

/// A percentage or other figure with two decimals.
pub fn num(x: f64) -> String {
    format!("{x:.2}")
}

/// A fraction in 0..=1 with four decimals (UNLI reports fractions).
pub fn frac(x: f64) -> String {
    format!("{x:.4}")
}

/// A share in 0..=1 as a percentage with two decimals: the report gives every share in %
/// (UNLI's word-order fractions too), so one unit reads everywhere.
pub fn pct(x: f64) -> String {
    num(100.0 * x)
}

/// An optional figure; empty when absent.
pub fn opt(x: Option<f64>, f: fn(f64) -> String) -> String {
    x.map(f).unwrap_or_default()
}

/// The operation's snake_case name, as in run files.
pub fn operation_name(op: Operation) -> String {
    serde_json::to_value(op)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{op:?}"))
}

/// The paper table an operation's invalid-transition table mirrors.
pub fn paper_table(op: Operation) -> &'static str {
    match op {
        Operation::RowDeletion => "Table 5",
        Operation::RelevantRowDeletion => "Table 6",
        Operation::IrrelevantRowDeletion => "Table 16",
        Operation::RowInsertion => "Table 13",
        Operation::RowValueUpdate => "Table 14",
        Operation::RowPermutation => "Table 15",
        Operation::DeleteThenInsert => "Table 17",
        Operation::LabelPreserving => "§4, §6",
        Operation::PremiseRemoval => "not in the paper",
    }
}

/// Choices a reader makes about the report (the CLI's `tabprobe report` flags and the
/// results view's switches). The default is the paper's reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportOptions {
    /// Count heuristic items nobody has reviewed in Tables 4 and 7 (left out by default, and
    /// then counted in the `heuristic_left_out` column), in Table 8 and in the label-preserving
    /// transition sets (judged by their generated expectation; a note says how many).
    pub include_heuristic: bool,
    /// Tables 4 and 7 draw one item per original example *and per column* (preserved,
    /// flipped) instead of the paper's one item per example ([`SampleOptions::per_column`]).
    pub per_column: bool,
}

/// The label-preserving counterfactuals of Table 7 (§6: row and title swaps).
pub const LABEL_PRESERVING_COUNTERFACTUAL: [ProbeKind; 2] =
    [ProbeKind::RowSwap, ProbeKind::TitleSwap];

/// The sampling used for Tables 4 and 7: the paper's 100 samples of 80%, seeded by the run.
pub fn sample_options(run: &RunResult) -> SampleOptions {
    sample_options_with(run, &ReportOptions::default())
}

/// [`sample_options`] under the reader's [`ReportOptions`].
pub fn sample_options_with(run: &RunResult, opts: &ReportOptions) -> SampleOptions {
    SampleOptions {
        seed: run.settings.seed,
        include_heuristic: opts.include_heuristic,
        per_column: opts.per_column,
        ..SampleOptions::default()
    }
}

/// Every section of the report, in paper order, with the default [`ReportOptions`].
pub fn sections(run: &RunResult) -> Vec<Section> {
    sections_with(run, &ReportOptions::default())
}

/// The probes among `kinds` whose items have an expected label: the rows of a score table
/// (Table 4 for the hypothesis probes, Table 7 for the counterfactual ones).
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

/// Whether [`sections_with`] gives `run` a score table (Table 4 or 7), without computing
/// them.
pub fn has_score_tables(run: &RunResult) -> bool {
    !score_table_probes(run, &ProbeKind::HYPOTHESIS).is_empty()
        || !score_table_probes(run, &COUNTERFACTUAL).is_empty()
}

/// Every section of the report, in paper order.
pub fn sections_with(run: &RunResult, ropts: &ReportOptions) -> Vec<Section> {
    let mut out = vec![overview(run), table1_section(&[run])];
    let present = |k: ProbeKind| run.items.iter().any(|it| it.probe == k);
    out.extend(score_sections(run, ropts));
    // The label-preserving sets and Table 8 count certain and accepted items; on request they
    // count the unreviewed heuristic items too (judged by their generated expectation), and
    // each such section says how many it included.
    let counted = ropts.include_heuristic.then(|| heuristic_counted(run));
    let judged = counted.as_ref().unwrap_or(run);
    for set in TransitionSet::ALL {
        let included = if counted.is_some() {
            heuristic_left_out(run, set)
        } else {
            0
        };
        if let Some(mut s) = invalid_section(judged, set, ropts.include_heuristic) {
            s.notes.extend(included_note(included));
            out.push(s);
        }
        if let Some(mut s) = graph_section(judged, set, ropts.include_heuristic) {
            s.notes.extend(included_note(included));
            out.push(s);
        }
    }
    if present(ProbeKind::RowDeletion) {
        out.extend(evidence_sections(run));
    }
    if let Some(s) = agreement_section(run) {
        out.push(s);
    }
    if present(ProbeKind::WordOrder) {
        out.extend(word_order_sections(run));
    }
    out.extend(table8_sections_in(run, judged, ropts));
    out
}

/// The score tables of the report (Table 4 for the hypothesis probes, Table 7 for the
/// counterfactual ones; none when no probe of theirs ran): what [`sections_with`] holds of
/// them, without computing the rest.
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

/// The Table 8 sections of the report (one per class of counterfactuals the run has): what
/// [`sections_with`] holds of them, without computing the rest.
pub fn table8_sections(run: &RunResult, ropts: &ReportOptions) -> Vec<Section> {
    let counted = ropts.include_heuristic.then(|| heuristic_counted(run));
    table8_sections_in(run, counted.as_ref().unwrap_or(run), ropts)
}

/// Table 8 of `run`, judged on `judged` (`run` itself, or [`heuristic_counted`] of it when
/// heuristic items are included).
fn table8_sections_in(run: &RunResult, judged: &RunResult, ropts: &ReportOptions) -> Vec<Section> {
    let mut out = Vec::new();
    for class in CounterfactualClass::ALL {
        if run
            .items
            .iter()
            .any(|it| CounterfactualClass::of(run, it) == Some(class))
        {
            let mut s = paired_section(judged, class, ropts.include_heuristic);
            if ropts.include_heuristic {
                let included = paired_table(run, class, None)
                    .map(|t| t.heuristic_left_out)
                    .unwrap_or(0);
                s.notes.extend(included_note(included));
            }
            out.push(s);
        }
    }
    out
}

/// `run` with every heuristic item nobody has reviewed counted as if certain (judged by its
/// generated expectation): what "include heuristic items" means for the figures that count
/// certain and accepted items only. Rejected items stay out.
pub fn heuristic_counted(run: &RunResult) -> RunResult {
    let mut r = run.clone();
    for it in &mut r.items {
        if it.review == ReviewState::HeuristicUnreviewed {
            it.review = ReviewState::Certain;
        }
    }
    r
}

/// The note a section gets when heuristic items were included on request.
fn included_note(included: usize) -> Option<String> {
    (included > 0).then(|| {
        format!(
            "{included} heuristic item(s) nobody has reviewed are INCLUDED on request (judged by their generated expectation, which may be wrong)"
        )
    })
}

fn overview(run: &RunResult) -> Section {
    let mut s = Section::new(SectionId::Run, "Run", &["field", "value"]);
    let s_ = &run.settings;
    let probes: Vec<&str> = s_.probes.iter().map(|p| p.as_str()).collect();
    let kv = |s: &mut Section, k: &str, v: String| s.push(vec![k.to_string(), v]);
    kv(&mut s, "model", run.model.name.clone());
    kv(&mut s, "weights_sha256", run.model.weights_sha256.clone());
    kv(
        &mut s,
        "precision",
        run.model.precision.as_str().to_string(),
    );
    kv(&mut s, "model_labels", format!("{:?}", run.model.label_set));
    kv(&mut s, "dataset_labels", format!("{:?}", run.label_set));
    kv(&mut s, "seed", s_.seed.to_string());
    kv(&mut s, "probes", probes.join(" "));
    kv(
        &mut s,
        "linearization",
        s_.linearization.strategy.as_str().to_string(),
    );
    kv(
        &mut s,
        "pair_order",
        format!("{:?}", s_.linearization.order),
    );
    kv(&mut s, "examples", run.examples.len().to_string());
    kv(&mut s, "items", run.items.len().to_string());
    if let Some(r) = s.rows.last_mut() {
        r.items = Some(ItemSelector::All);
    }
    // Review states (issue 11 §4): how many items rest on a heuristic nobody checked.
    let state_count = |name: &str| {
        run.items
            .iter()
            .filter(|it| it.review.as_str() == name)
            .count()
    };
    for name in ["certain", "heuristic_unreviewed", "accepted", "rejected"] {
        kv(
            &mut s,
            &format!("items_{name}"),
            state_count(name).to_string(),
        );
    }
    kv(&mut s, "pairs", run.pairs.len().to_string());
    kv(&mut s, "skipped", run.skipped.len().to_string());
    if !run.unapplied_reviews.is_empty() {
        s.notes.push(format!(
            "{} review(s) of the dataset were not applied: the item they name is now a different perturbation ({})",
            run.unapplied_reviews.len(),
            run.unapplied_reviews.join(" ")
        ));
    }
    let truncated = run.pairs.iter().filter(|p| p.score.truncated).count();
    kv(&mut s, "truncated_pairs", truncated.to_string());
    if let Some(r) = s.rows.last_mut() {
        r.items = Some(ItemSelector::Truncated);
    }
    if truncated > 0 {
        s.notes.push(format!(
            "{truncated} pair(s) had their premise truncated: a probe that edits a part the model never saw is not evidence of anything"
        ));
    }
    s
}

fn mean_sd_cells(m: &Option<MeanSd>) -> [String; 3] {
    match m {
        Some(m) => [m.n.to_string(), num(m.mean), num(m.sd)],
        None => [String::new(), String::new(), String::new()],
    }
}

fn score_row(group: &str, probe: &str, model: &str, s: &PerturbationScores) -> Vec<String> {
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

/// The `model` cell of a Prem+Hypo row of Tables 4 and 7.
pub const PREM_HYPO: &str = "prem+hypo";
/// The `model` cell of a hypothesis-only row read from the same model with an empty premise.
pub const HYPO_ONLY_VIEW: &str = "hypo-only view";
/// The `model` cell of a hypothesis-only row read from a second (hypothesis-only) model.
pub const HYPO_ONLY_MODEL: &str = "hypo-only model";

/// The columns of Tables 4 and 7 (and their CSV): per group, probe and model view, the
/// originals', label-preserving and label-flipping items' count, mean and sd, then the items
/// left out.
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

/// Rows `(group, probe, model)`: one block per entry of `rows` (the `probe` cell and the
/// probes it pools), over every example, then per split and category; each first with the
/// full model, then — when the run has hypothesis-only scores — with the hypothesis alone.
/// `probes` are all the table's probes (for its notes).
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
        HYPO_ONLY_MODEL
    } else {
        HYPO_ONLY_VIEW
    };
    if hypo_only {
        s.notes.push(hypothesis_only_note(run, probes));
    }
    // The score tables list their groups by name (`category:…` before `split:…`), as their
    // CSV always has.
    let mut by_label = groups(run);
    by_label.sort_by_key(Group::label);
    let mut rows_for = |probe_name: &str, kinds: &[ProbeKind]| {
        let mut views = vec![(ScoreView::PremiseAndHypothesis, PREM_HYPO)];
        if hypo_only {
            views.push((ScoreView::HypothesisOnly, hypo_label));
        }
        for (view, model) in views {
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
                model: model.to_string(),
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
            "{HYPO_ONLY_MODEL} rows: {}, a second model's run on the same items (its scores of each hypothesis alone)",
            m.name
        ),
        None => format!(
            "{HYPO_ONLY_VIEW} rows: {} itself with an empty premise (docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view), not a separately trained hypothesis-only model",
            run.model.name
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

/// Table 1: for each split (then all examples), each run's accuracy on the original
/// examples beside its hypothesis-only accuracy and the majority baseline (the share of the
/// split's most frequent gold label; ties go to the earlier canonical label). `runs` are
/// models run on the same probe set; the site passes every loaded model, `sections` one.
pub fn table1_section(runs: &[&RunResult]) -> Section {
    let mut s = Section::new(
        SectionId::Table1,
        "Table 1 — accuracy per split beside the hypothesis-only figure and the majority baseline (%)",
        &[
            "split",
            "model",
            "examples",
            "accuracy",
            "hypothesis_only",
            "majority_label",
            "majority_baseline",
        ],
    );
    s.notes.push(
        "accuracy: % of the original examples the model labels correctly; majority_baseline: % of the split's gold labels that are its most frequent label"
            .to_string(),
    );
    for r in runs {
        s.notes.push(
            match (&r.hypothesis_only_model, r.hypothesis_only_pairs.is_empty()) {
                (_, true) => format!(
                    "{}: no hypothesis-only scores (probe with --hypothesis-only)",
                    r.model.name
                ),
                (Some(m), false) => format!(
                    "{}: hypothesis_only is the second model {}",
                    r.model.name, m.name
                ),
                (None, false) => format!(
                    "{}: hypothesis_only is this model with an empty premise (docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view)",
                    r.model.name
                ),
            },
        );
    }
    let Some(first) = runs.first() else {
        return s;
    };
    let mut splits: Vec<&str> = first
        .examples
        .iter()
        .filter_map(|e| e.split.as_deref())
        .collect();
    splits.sort_unstable();
    splits.dedup();
    // One split holding every example is named once, by its name, not again as `all`.
    let single = splits.len() == 1
        && runs
            .iter()
            .all(|r| r.examples.iter().all(|e| e.split.is_some()));
    let all_row = (!single).then_some(None);
    let groups = splits.into_iter().map(Some).chain(all_row);
    for split in groups {
        for r in runs {
            let keep = |e: &&crate::probe::ProbeExample| {
                split.is_none_or(|sp| e.split.as_deref() == Some(sp))
            };
            let picked: Vec<(usize, &crate::probe::ProbeExample)> = r
                .examples
                .iter()
                .enumerate()
                .filter(|(_, e)| keep(e))
                .collect();
            let n = picked.len();
            let pct = |k: usize| num(100.0 * k as f64 / n as f64);
            let right = picked
                .iter()
                .filter(|(_, e)| r.original_prediction(e) == e.gold)
                .count();
            let hypo = (r.hypothesis_only_pairs.len() == r.examples.len() && n > 0).then(|| {
                picked
                    .iter()
                    .filter(|(i, e)| r.predicted(r.hypothesis_only_pairs[*i]) == e.gold)
                    .count()
            });
            let counts = Label::ALL.map(|l| picked.iter().filter(|(_, e)| e.gold == l).count());
            let mut best = 0;
            for i in 1..3 {
                if counts[i] > counts[best] {
                    best = i;
                }
            }
            // A model that reads the hypothesis alone says so.
            let model = if r.reads_hypothesis_only() {
                format!("{} (hypothesis only)", r.model.name)
            } else {
                r.model.name.clone()
            };
            s.push(if n == 0 {
                vec![
                    split.unwrap_or(ALL).to_string(),
                    model,
                    "0".to_string(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]
            } else {
                vec![
                    split.unwrap_or(ALL).to_string(),
                    model,
                    n.to_string(),
                    pct(right),
                    hypo.map(pct).unwrap_or_default(),
                    Label::ALL[best].to_string(),
                    pct(counts[best]),
                ]
            });
        }
    }
    s
}

/// The rows of one invalid-transition table, each listing the invalid items of its `before`
/// label (the Average row: of any label) over the figure's group, as the figure selects them.
fn invalid_rows(group: &str, f: &InvalidFigure) -> Vec<Row> {
    let t = &f.table;
    let mut rows = Vec::new();
    for (i, r) in t.rows.iter().enumerate() {
        let mut row = vec![group.to_string(), r.label.to_string()];
        if r.not_applicable {
            // Never a percentage: it would read as 100% invalid.
            row.extend(r.per_split.iter().map(|_| NOT_APPLICABLE_CELL.to_string()));
            row.push(NOT_APPLICABLE_CELL.to_string());
        } else {
            row.extend(r.per_split.iter().map(|v| opt(*v, num)));
            row.push(opt(r.mean, num));
        }
        rows.push(counting_if_any(Row::new(row), f.row_items(Some(i))));
    }
    let mut avg = vec![group.to_string(), "Average".to_string()];
    if t.not_applicable {
        avg.extend(t.average.iter().map(|_| NOT_APPLICABLE_CELL.to_string()));
        avg.push(NOT_APPLICABLE_CELL.to_string());
    } else {
        avg.extend(t.average.iter().map(|v| opt(*v, num)));
        avg.push(opt(t.mean_average, num));
    }
    rows.push(counting_if_any(Row::new(avg), f.row_items(None)));
    rows
}

/// `row` listing `items` when the figure has any (a row not applicable to the model has none).
fn counting_if_any(row: Row, items: Option<&ItemSelector>) -> Row {
    match items {
        Some(items) => row.counting(items.clone()),
        None => row,
    }
}

/// The cell of a figure a two-way model cannot be judged on (see
/// [`crate::probe::rules::ValidityRule::applicable`]).
pub const NOT_APPLICABLE_CELL: &str = "n/a";

/// The rule's valid transitions in one line: `ENTAIL→{NEUTRAL} … (source)`.
pub(crate) fn rule_note(run: &RunResult, op: Operation) -> Option<String> {
    let rule = run.rules.get(op)?;
    let valid: Vec<String> = rule
        .valid
        .iter()
        .map(|(b, a)| {
            let a: Vec<&str> = a.iter().map(|l| l.as_str()).collect();
            format!("{b}→{{{}}}", a.join(","))
        })
        .collect();
    Some(format!(
        "valid ({} rule): {} ({})",
        operation_name(op),
        valid.join(" "),
        rule.source
    ))
}

/// Notes shared by a set's table and graph: heuristic items left out of the label-preserving
/// sets.
fn set_notes(run: &RunResult, set: TransitionSet) -> Vec<String> {
    let mut notes = Vec::new();
    if matches!(
        set,
        TransitionSet::LabelPreservingHypothesis | TransitionSet::LabelPreservingCounterfactual
    ) {
        notes.push(
            "before = the model's prediction on the original, after = on the edited pair; the rule asks the model to keep its own label".to_string(),
        );
        let left = heuristic_left_out(run, set);
        if left > 0 {
            notes.push(format!(
                "{left} heuristic label-preserving item(s) left out: their expected label needs a person's review"
            ));
        }
    }
    notes
}

/// The invalid-transition table of a [`TransitionSet`]: one column per split and their mean;
/// the rows over every example first, then one block per category. Category blocks keep the
/// overall split columns (a split a category lacks is left empty) so the CSV stays
/// rectangular. Rows a two-way model cannot be judged on read `n/a`, with a note.
/// `include_heuristic`: whether `run` counts heuristic items nobody reviewed (the rows' items
/// are then selected the same way).
fn invalid_section(
    run: &RunResult,
    set: TransitionSet,
    include_heuristic: bool,
) -> Option<Section> {
    let f = set_figures(run, set, None, include_heuristic).table?;
    let t = &f.table;
    let name = set.as_str();
    let mut header = vec!["group", "before"];
    header.extend(t.splits.iter().map(String::as_str));
    header.push("mean");
    let mut s = Section::new(
        SectionId::Invalid(set),
        &format!(
            "{} — {name} ({}): % invalid transitions by label predicted before",
            set.paper_table(),
            set.describe()
        ),
        &header,
    );
    s.notes.extend(rule_note(run, set.operation()));
    s.notes.extend(set_notes(run, set));
    s.notes.extend(t.notes.iter().cloned());
    s.rows.extend(invalid_rows(ALL, &f));
    for group in groups(run) {
        let Group::Category(_) = &group else { continue };
        let Some(cf) = set_figures(run, set, Some(&group), include_heuristic).table else {
            continue;
        };
        let ct = &cf.table;
        for mut row in invalid_rows(&group.label(), &cf) {
            // Re-align the category's split columns under the overall ones.
            let cells: Vec<String> = t
                .splits
                .iter()
                .map(|sp| {
                    ct.splits
                        .iter()
                        .position(|c| c == sp)
                        .map(|i| row.cell(2 + i).to_string())
                        .unwrap_or_default()
                })
                .collect();
            let mean = row.cells.pop().unwrap_or_default();
            row.cells.truncate(2);
            row.cells.extend(cells);
            row.cells.push(mean);
            s.rows.push(row);
        }
    }
    Some(s)
}

/// The `split` cell of a graph's edge rows over every split.
pub const POOLED: &str = "pooled";

/// The transition graph of a [`TransitionSet`] as edge rows (per split, then pooled); an
/// edge out of a label a two-way model cannot meet the rule from reads `n/a`, not `INVALID`.
/// `include_heuristic` as for [`invalid_section`].
fn graph_section(run: &RunResult, set: TransitionSet, include_heuristic: bool) -> Option<Section> {
    let f = set_figures(run, set, None, include_heuristic);
    let pooled = f.pooled.as_ref().filter(|g| !g.edges.is_empty())?;
    let name = set.as_str();
    let mut s = Section::new(
        SectionId::Graph(set),
        &format!(
            "Transition graph — {name} ({}): edge % of its source node (invalid edges marked)",
            set.describe()
        ),
        &["split", "from", "to", "count", "percent", "valid"],
    );
    s.notes.extend(f.rule.clone());
    s.notes.extend(set_notes(run, set));
    if !f.not_applicable.is_empty() {
        let from: Vec<&str> = f.not_applicable.iter().map(|l| l.as_str()).collect();
        s.notes.push(format!(
            "edges out of {} are {NOT_APPLICABLE_TWO_WAY} (n/a): the rule's only valid target is NEUTRAL, which it never predicts",
            from.join(", ")
        ));
    }
    for g in f.splits.iter().chain([pooled]) {
        for Marked { value: e, items } in &g.edges {
            let cells = vec![
                g.caption().to_string(),
                e.from.to_string(),
                e.to.to_string(),
                e.count.to_string(),
                num(e.percent),
                if e.not_applicable {
                    NOT_APPLICABLE_CELL
                } else if e.valid {
                    "valid"
                } else {
                    "INVALID"
                }
                .to_string(),
            ];
            s.rows.push(Row::new(cells).counting(items.clone()));
        }
    }
    Some(s)
}

fn evidence_row(group: &str, e: &EvidenceSelection) -> Vec<String> {
    vec![
        group.to_string(),
        e.examples.to_string(),
        e.incomplete.len().to_string(),
        num(e.precision),
        num(e.recall),
        num(e.all),
        num(e.some),
        num(e.none),
        opt(e.ignores_premise_within_none, num),
        num(e.ignores_premise),
        num(e.correct_all),
        num(e.correct_some),
        num(e.correct_none),
    ]
}

/// A group whose qualifying examples are all incomplete: its counts, every figure empty.
fn evidence_row_incomplete(group: &str, incomplete: usize) -> Vec<String> {
    let mut row = vec![group.to_string(), "0".to_string(), incomplete.to_string()];
    row.resize(13, String::new());
    row
}

/// Evidence selection (§5.3): the summary over every example, per split and category, and
/// the per-example comparison. Examples whose rows were not all deleted are counted in the
/// `incomplete` column and listed (with `uses` = `incomplete`) but enter no figure.
fn evidence_sections(run: &RunResult) -> Vec<Section> {
    let mut s = Section::new(
        SectionId::Evidence,
        "Evidence selection (§5.3) — % of ENTAIL/CONTRADICT examples with relevant rows",
        &[
            "group",
            "examples",
            "incomplete",
            "precision",
            "recall",
            "all",
            "some",
            "none",
            "ignores_premise_within_none",
            "ignores_premise",
            "correct_all",
            "correct_some",
            "correct_none",
        ],
    );
    let all = evidence_selection(run, None);
    let incomplete = match &all {
        Some(e) => e.incomplete.clone(),
        None => incomplete_evidence(run, None),
    };
    if !incomplete.is_empty() {
        s.notes.push(format!(
            "{} example(s) left out as incomplete: not every row of their table was deleted (a per-example or per-run cap, or a cancelled run), so a relevant row may never have been tested; precision, recall and the all/some/none shares count only examples whose every row was deleted",
            incomplete.len()
        ));
    }
    match &all {
        Some(all) => s.rows.push(
            Row::new(evidence_row(ALL, all))
                .counting(ItemSelector::EvidenceCompared { group: None }),
        ),
        None if !incomplete.is_empty() => {
            s.push(evidence_row_incomplete(ALL, incomplete.len()));
        }
        None => {
            s.notes.push(
                "no ENTAIL/CONTRADICT example with annotated relevant rows was row-deleted"
                    .to_string(),
            );
            return vec![s];
        }
    }
    for g in groups(run) {
        match evidence_selection(run, Some(&g)) {
            Some(e) => s.rows.push(Row::new(evidence_row(&g.label(), &e)).counting(
                ItemSelector::EvidenceCompared {
                    group: Some(g.clone()),
                },
            )),
            None => {
                let n = incomplete_evidence(run, Some(&g)).len();
                if n > 0 {
                    s.push(evidence_row_incomplete(&g.label(), n));
                }
            }
        }
    }
    let mut per = Section::new(
        SectionId::EvidenceExamples,
        "Evidence selection per example",
        &[
            "example",
            "human_rows",
            "model_rows",
            "precision",
            "recall",
            "uses",
            "ignores_premise",
            "correct",
            "rows_deleted",
        ],
    );
    // Rows named for people, by key and 1-based number: `Length (row 5); Born (row 2)`.
    let table_of = |id: &str| {
        run.examples
            .iter()
            .find(|x| x.id == id)
            .and_then(|x| match &x.input.premise {
                crate::probe::Premise::Table(t) => Some(t),
                _ => None,
            })
    };
    let rows = |id: &str, v: &[usize]| {
        v.iter()
            .map(|&i| match table_of(id) {
                Some(t) => crate::probe::edit_table::table_row_name(t, i),
                None => crate::probe::edit_table::row_name("", i),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut listed: Vec<(String, Vec<String>)> = Vec::new();
    for e in all.iter().flat_map(|a| &a.per_example) {
        let n = table_of(&e.example)
            .map(|t| t.row_count())
            .unwrap_or_default();
        listed.push((
            e.example.clone(),
            vec![
                e.example.clone(),
                rows(&e.example, &e.human),
                rows(&e.example, &e.model),
                num(100.0 * e.precision),
                num(100.0 * e.recall),
                format!("{:?}", e.uses).to_lowercase(),
                e.ignores_premise.to_string(),
                e.correct.to_string(),
                format!("{n}/{n}"),
            ],
        ));
    }
    for i in &incomplete {
        let human = run
            .examples
            .iter()
            .find(|x| x.id == i.example)
            .and_then(|x| x.relevant_rows.clone())
            .unwrap_or_default();
        listed.push((
            i.example.clone(),
            vec![
                i.example.clone(),
                rows(&i.example, &human),
                String::new(),
                String::new(),
                String::new(),
                "incomplete".to_string(),
                String::new(),
                String::new(),
                format!("{}/{}", i.deleted, i.rows),
            ],
        ));
    }
    // Run order, so the list reads like the dataset.
    let order = |id: &str| run.examples.iter().position(|x| x.id == id);
    listed.sort_by_key(|(id, _)| order(id));
    per.rows = listed
        .into_iter()
        .map(|(id, r)| Row::new(r).counting(ItemSelector::EvidenceExample { example: id }))
        .collect();
    vec![s, per]
}

fn agreement_row(group: &str, a: &RelevanceAgreement) -> Vec<String> {
    let annotators: Vec<String> = a
        .annotators
        .iter()
        .map(|(n, count)| format!("{n}×{count}"))
        .collect();
    vec![
        group.to_string(),
        a.examples.to_string(),
        annotators.join(" "),
        a.items.to_string(),
        opt(a.kappa, frac),
        opt(a.kappa_per_example_mean, frac),
        opt(a.kappa_per_example_sd, frac),
        a.kappa_per_example_n.to_string(),
        a.examples_three_or_more.to_string(),
        opt(a.same_rows_three, num),
    ]
}

/// Agreement of the relevant-row annotations (§5.2), when the run's examples carry each
/// annotator's ballot: over every example, then per split and category.
fn agreement_section(run: &RunResult) -> Option<Section> {
    let all = relevance_agreement(run, None)?;
    let mut s = Section::new(
        SectionId::Agreement,
        "Relevant-row annotations (§5.2) — inter-annotator agreement",
        &[
            "group",
            "examples",
            "annotators",
            "items",
            "fleiss_kappa",
            "kappa_per_example_mean",
            "kappa_per_example_sd",
            "kappa_per_example_n",
            "examples_3plus",
            "same_rows_3plus",
        ],
    );
    s.notes.push(
        "Fleiss' κ over (example, row) items rated relevant / not relevant by the example's annotators (pooled), and the mean ± sd of each example's own κ over its rows (the paper's \"average Fleiss' kappa\"; undefined for an example whose votes are all alike)".to_string(),
    );
    s.notes.push(
        "same_rows_3plus: % of examples with ≥ 3 annotators where ≥ 3 of them marked exactly the same set of rows (paper: \"at least 3 out of 5 annotators marked the same relevant rows\", 82.4%); annotators: examples by number of ballots (n×examples)".to_string(),
    );
    s.push(agreement_row(ALL, &all));
    // Groups without ballots are left out.
    for g in groups(run) {
        if let Some(a) = relevance_agreement(run, Some(&g)) {
            s.push(agreement_row(&g.label(), &a));
        }
    }
    Some(s)
}

fn word_order_row(group: &str, m: &WordOrderMetrics) -> Vec<String> {
    vec![
        group.to_string(),
        m.examples.to_string(),
        m.skipped.to_string(),
        pct(m.accuracy),
        pct(m.omega_max),
        pct(m.omega_rand),
        opt(m.p_c, pct),
        opt(m.p_c_accepted_only, pct),
        opt(m.p_f, pct),
        opt(m.mean_entropy_accepted, frac),
        opt(m.mean_entropy_c, frac),
        opt(m.mean_entropy_f, frac),
    ]
}

fn word_order_sections(run: &RunResult) -> Vec<Section> {
    let mut s = Section::new(
        SectionId::WordOrder,
        "Word order (UNLI §4) — % of examples (entropy in nats)",
        &[
            "group",
            "examples",
            "skipped",
            "accuracy",
            "omega_max",
            "omega_rand",
            "p_c",
            "p_c_accepted_only",
            "p_f",
            "entropy_accepted",
            "entropy_c",
            "entropy_f",
        ],
    );
    s.notes.push(
        "p_c: P^c of UNLI Eq. 3, the mean share of accepted permutations over all originally right examples (D^c); \
         p_c_accepted_only: the same over D^c examples with at least one accepted permutation (UNLU's released code), not P^c; \
         p_f: P^f over D^f, the originally wrong examples with at least one accepted permutation"
            .to_string(),
    );
    s.notes.push(
        "entropy in nats: each example's mean over its accepted permutations, averaged over the examples with at least one"
            .to_string(),
    );
    if run.model.label_only {
        s.notes.push(
            "entropy: n/a — the model's scores file gives some pairs a label without probabilities (docs/scoring-elsewhere.md#what-label-only-scores-cannot-show)"
                .to_string(),
        );
    }
    let mut bleu = Section::new(
        SectionId::WordOrderBleu,
        "Word order — acceptance by BLEU-2 of the permutation (UNLI Figure 3)",
        &[
            "group",
            "bleu2_from",
            "bleu2_to",
            "permutations",
            "accepted",
            "rate",
        ],
    );
    let mut curve = Section::new(
        SectionId::WordOrderOmega,
        "Word order — Ω_x curve: share of examples giving the gold label to more than x of their permutations (UNLI Eq. 2, Figure 8)",
        &["group", "x", "omega_x"],
    );
    curve
        .notes
        .push("x = 0 is Ω_max; the site's Ω_x chart plots the same points".to_string());
    // Each column of the summary is computed over its own set of examples (ExampleSet), so
    // each cell carries its own items.
    let header = s.header.clone();
    let mut add = |name: &str, group: Option<Group>, m: &WordOrderMetrics| {
        let mut row = Row::new(word_order_row(name, m));
        row.cell_items = header
            .iter()
            .enumerate()
            .filter_map(|(i, column)| {
                let set = ExampleSet::of_column(column)?;
                let group = group.clone();
                Some((i, ItemSelector::WordOrder { group, set }))
            })
            .collect();
        s.rows.push(row);
        let figures = WordOrderFigures::of(m, group.as_ref());
        for Marked { value: p, items } in figures.omega {
            curve
                .rows
                .push(Row::new(vec![name.to_string(), num(p.x), pct(p.omega)]).counting(items));
        }
        for Marked { value: b, items } in figures.bleu {
            let cells = vec![
                name.to_string(),
                num(b.lo),
                num(b.hi),
                b.total.to_string(),
                b.accepted.to_string(),
                opt(b.rate, pct),
            ];
            bleu.rows.push(Row::new(cells).counting(items));
        }
    };
    let xs = omega_curve_x();
    add(ALL, None, &run_word_order_metrics(run, &xs, None));
    // Groups with neither permuted nor skipped examples are left out.
    for g in groups(run) {
        let m = run_word_order_metrics(run, &xs, Some(&g));
        if m.examples > 0 || m.skipped > 0 {
            add(&g.label(), Some(g), &m);
        }
    }
    vec![s, bleu, curve]
}

/// Table 8's rows of one group (`None` = every example), each listing its combination's items.
fn paired_rows(
    group: Option<&Group>,
    rows: &[PairedRow],
    class: CounterfactualClass,
    include_heuristic: bool,
) -> Vec<Row> {
    let mark = |b: bool| if b { "right" } else { "wrong" }.to_string();
    let name = group.map(Group::label).unwrap_or_else(|| ALL.to_string());
    rows.iter()
        .map(|r| {
            let items = ItemSelector::Paired {
                class,
                group: group.cloned(),
                include_heuristic,
                c_thp: r.c_thp,
                o_thp: r.o_thp,
                o_hypo: r.o_hypo,
            };
            Row::new(vec![
                name.clone(),
                mark(r.c_thp),
                mark(r.o_thp),
                mark(r.o_hypo),
                r.count.to_string(),
                num(r.percent),
                if r.in_paper { "yes" } else { "no" }.to_string(),
            ])
            .counting(items)
        })
        .collect()
}

/// Table 8 of one class of counterfactuals (`table8_paired_label_flipping`, the paper's, and
/// `table8_paired_label_preserving`), overall then per split and category; NEUTRAL left out.
/// `include_heuristic`: whether `run` counts heuristic items nobody reviewed (the rows' items
/// are then selected the same way).
fn paired_section(run: &RunResult, class: CounterfactualClass, include_heuristic: bool) -> Section {
    let what = match class {
        CounterfactualClass::LabelFlipping => {
            "label-flipping counterfactuals (hand-made, imported pairs)"
        }
        CounterfactualClass::LabelPreserving => {
            "label-preserving counterfactuals (row swap, title swap, same-label counterfactuals)"
        }
    };
    let mut s = Section::new(
        SectionId::Table8(class),
        &format!("Table 8 — paired analysis of {what} (% of items, NEUTRAL left out)"),
        &[
            "group", "c_thp", "o_thp", "o_hypo", "count", "percent", "in_paper",
        ],
    );
    s.notes.push(match &run.hypothesis_only_model {
        Some(m) => format!(
            "O-Hypo is the second model, {} ({}), on the hypothesis alone; C-THP and O-THP are {}",
            m.name,
            m.weights_sha256.chars().take(8).collect::<String>(),
            run.model.name
        ),
        None => "O-Hypo is this model with an empty premise (docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view), not a separately trained hypothesis-only model"
            .to_string(),
    });
    if class == CounterfactualClass::LabelPreserving {
        s.notes.push(
            "the paper's Table 8 is over label-flipping counterfactuals; this one applies its checks to the label-preserving ones"
                .to_string(),
        );
    }
    match paired_table(run, class, None) {
        Ok(t) => {
            if t.heuristic_left_out > 0 {
                s.notes.push(format!(
                    "{} heuristic item(s) left out: their expected label needs a person's review",
                    t.heuristic_left_out
                ));
            }
            if t.neutral_left_out > 0 {
                s.notes.push(format!(
                    "{} NEUTRAL item(s) left out (the original's or the expected label is NEUTRAL; paper §6)",
                    t.neutral_left_out
                ));
            }
            s.rows
                .extend(paired_rows(None, &t.rows, class, include_heuristic));
        }
        Err(PairedError::NoHypothesisOnly) => {
            s.notes.push(
                "not computed: the run has no hypothesis-only scores; run `tabprobe probe` with --hypothesis-only"
                    .to_string(),
            );
            return s;
        }
        Err(e) => {
            s.notes.push(format!("not computed: {e}"));
            return s;
        }
    }
    // The run has hypothesis-only scores (or it would have returned above), so a group fails
    // only for having no item of the class, and is then left out.
    for g in groups(run) {
        if let Ok(t) = paired_table(run, class, Some(&g)) {
            s.rows
                .extend(paired_rows(Some(&g), &t.rows, class, include_heuristic));
        }
    }
    s
}
