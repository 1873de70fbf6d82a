//! Agreement of the relevant-row annotations (§5.2): Fleiss' κ and the share of examples
//! where three annotators marked the same rows, over every example then per group.

use crate::metrics::{groups, relevance_agreement, RelevanceAgreement};
use crate::report::{frac, num, opt, Section, SectionId, ALL};
use crate::run::RunResult;

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
pub(crate) fn agreement_section(run: &RunResult) -> Option<Section> {
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
