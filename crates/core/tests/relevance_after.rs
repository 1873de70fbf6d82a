//! A probe item's perturbed table carries its example's relevant rows through its own edit
//! (`probe::relevance::relevant_rows_after`): the rows it names in the perturbed table are the
//! example's relevant rows that survived, by key — never the rows that moved into their place.

mod common;

use common::*;
use tabprobe_core::data::table::Table;
use tabprobe_core::probe::relevance::relevant_rows_after;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, Edit, Premise, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;

fn keys(t: &Table, rows: &[usize]) -> Vec<String> {
    match t {
        Table::KeyValue(t) => rows.iter().map(|&r| t.rows[r].key.clone()).collect(),
        Table::Relational(_) => unreachable!("the running example is key-value"),
    }
}

/// By hand on Breakfast in America (H1's evidence is Genre, row 3, and Length, row 4).
#[test]
fn each_table_edit_moves_the_relevant_rows_by_hand() {
    let rel = [3, 4];
    let deleted = |rows: Vec<usize>| Edit::RowsDeleted {
        keys: vec![String::new(); rows.len()],
        rows,
    };
    // Deleting Recorded (row 1) moves Genre and Length up one: rows 2 and 3.
    assert_eq!(
        relevant_rows_after(&deleted(vec![1]), &rel),
        Some(vec![2, 3])
    );
    // Deleting Genre itself leaves Length, now row 3.
    assert_eq!(relevant_rows_after(&deleted(vec![3]), &rel), Some(vec![3]));
    // Deleting a row after them changes nothing.
    assert_eq!(
        relevant_rows_after(&deleted(vec![6]), &rel),
        Some(vec![3, 4])
    );
    // Deleting Released then appending a new key: Genre and Length at 2 and 3.
    let dti = Edit::DeletedThenInserted {
        deleted_row: 0,
        deleted_key: "Released".into(),
        inserted_key: "Director".into(),
        values: vec!["x".into()],
        from_table: "T996".into(),
    };
    assert_eq!(relevant_rows_after(&dti, &rel), Some(vec![2, 3]));
    // The order [6, 4, 0, 1, 2, 3, 5] puts Length (4) at 1 and Genre (3) at 5.
    let perm = Edit::RowsPermuted {
        order: vec![6, 4, 0, 1, 2, 3, 5],
    };
    assert_eq!(relevant_rows_after(&perm, &rel), Some(vec![1, 5]));
    // An appended row (at 7) moves nothing; a row inserted at 0 moves both down.
    let ins = |at: usize| Edit::RowInserted {
        at,
        key: "Director".into(),
        values: vec!["x".into()],
        from_table: "T996".into(),
    };
    assert_eq!(relevant_rows_after(&ins(7), &rel), Some(vec![3, 4]));
    assert_eq!(relevant_rows_after(&ins(0), &rel), Some(vec![4, 5]));
    // No premise, or another table: the annotation says nothing.
    assert_eq!(relevant_rows_after(&Edit::PremiseRemoved, &rel), None);
}

/// Every table-probe item of the running example: the mapped rows of the perturbed table hold
/// exactly the keys of the relevant rows the edit kept.
#[test]
fn every_table_probe_item_keeps_the_relevant_keys() {
    let d = running_example();
    let mut s = ProbeSettings::new(ProbeKind::TABLE.to_vec(), 5);
    s.caps.per_example = None;
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    let mut checked = 0;
    for it in &set.items {
        let ex = &set.examples[it.example];
        let (Some(rel), Premise::Table(orig), Premise::Table(after)) = (
            ex.relevant_rows.as_ref(),
            &ex.input.premise,
            &it.perturbed.premise,
        ) else {
            continue;
        };
        let mapped = relevant_rows_after(&it.edit, rel).expect("a table edit maps its rows");
        let gone: Vec<usize> = match &it.edit {
            Edit::RowsDeleted { rows, .. } => rows.clone(),
            Edit::DeletedThenInserted { deleted_row, .. } => vec![*deleted_row],
            _ => vec![],
        };
        let kept: Vec<usize> = rel.iter().copied().filter(|r| !gone.contains(r)).collect();
        let mut want = keys(orig, &kept);
        let mut got = keys(after, &mapped);
        want.sort();
        got.sort();
        assert_eq!(got, want, "{}", it.id);
        checked += 1;
    }
    assert!(checked > 50, "only {checked} items checked");
}
