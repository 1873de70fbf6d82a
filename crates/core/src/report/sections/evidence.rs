//! Evidence selection (§5.3): the summary over every example and per group, and the
//! per-example comparison of the model's relevant rows with the human's.

use crate::metrics::{
    evidence_selection, groups, incomplete_evidence, EvidenceSelection, IncompleteEvidence,
};
use crate::probe::edit_table::{row_name, table_row_name};
use crate::probe::Premise;
use crate::report::{num, opt, ItemSelector, Row, Section, SectionId, ALL};
use crate::run::RunResult;

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
pub(crate) fn evidence_sections(run: &RunResult) -> Vec<Section> {
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
    vec![s, examples_section(run, all.as_ref(), &incomplete)]
}

/// The per-example comparison: each compared example's human and model rows, then each
/// incomplete one with the rows deleted so far, in run order.
fn examples_section(
    run: &RunResult,
    all: Option<&EvidenceSelection>,
    incomplete: &[IncompleteEvidence],
) -> Section {
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
                Premise::Table(t) => Some(t),
                _ => None,
            })
    };
    let rows = |id: &str, v: &[usize]| {
        v.iter()
            .map(|&i| match table_of(id) {
                Some(t) => table_row_name(t, i),
                None => row_name("", i),
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
    for i in incomplete {
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
    per
}
