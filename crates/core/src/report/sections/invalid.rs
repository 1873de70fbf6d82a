//! The invalid-transition tables (Tables 5, 6, 13–17; one per [`TransitionSet`]) and the notes
//! a set's table and graph share: the rule's valid transitions and what the label-preserving
//! sets leave out.

use crate::metrics::transition_report::heuristic_left_out;
use crate::metrics::{groups, Group, SplitColumn, TransitionSet};
use crate::report::figures::rule_note;
use crate::report::{
    num, opt, set_figures, InvalidFigure, ItemSelector, Row, Section, SectionId, ALL,
};
use crate::run::RunResult;

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

/// Notes shared by a set's table and graph: heuristic items left out of the label-preserving
/// sets.
pub(crate) fn set_notes(run: &RunResult, set: TransitionSet) -> Vec<String> {
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
pub(crate) fn invalid_section(
    run: &RunResult,
    set: TransitionSet,
    include_heuristic: bool,
) -> Option<Section> {
    let f = set_figures(run, set, None, include_heuristic).table?;
    let t = &f.table;
    let name = set.as_str();
    let mut header = vec!["group", "before"];
    header.extend(t.splits.iter().map(SplitColumn::name));
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
