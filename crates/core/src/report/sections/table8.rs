//! Table 8, the paired analysis of counterfactuals (§6): one section per class (label-flipping,
//! the paper's; label-preserving), NEUTRAL left out, over every example then per group.

use crate::metrics::{groups, paired_table, CounterfactualClass, Group, PairedError, PairedRow};
use crate::report::{
    heuristic_counted, included_note, num, ItemSelector, ReportOptions, Row, Section, SectionId,
    ALL,
};
use crate::run::RunResult;

/// The Table 8 sections of the report (one per class of counterfactuals the run has): what
/// [`sections_with`](crate::report::sections_with) holds of them, without computing the rest.
pub fn table8_sections(run: &RunResult, ropts: &ReportOptions) -> Vec<Section> {
    let counted = ropts.include_heuristic.then(|| heuristic_counted(run));
    table8_sections_in(run, counted.as_ref().unwrap_or(run), ropts)
}

/// Table 8 of `run`, judged on `judged` (`run` itself, or
/// [`heuristic_counted`](crate::report::heuristic_counted) of it when heuristic items are
/// included).
pub(crate) fn table8_sections_in(
    run: &RunResult,
    judged: &RunResult,
    ropts: &ReportOptions,
) -> Vec<Section> {
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
/// `include_heuristic`: whether `run` counts heuristic items nobody reviewed (the rows' items are
/// then selected the same way).
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
            run.model.name_with_precision()
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
