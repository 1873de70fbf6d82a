//! What a probe item changed, in words, for people: rows are named by key and 1-based number,
//! `deleted: Starring (row 3)`, the same way in every view (drill-down lists, the editor's
//! origin line). Indices stay 0-based in run files and item ids.

use super::edit_table::{row_name, table_row_name};
use super::Edit;
use crate::data::table::Table;

/// `edit` in words; `original` (the example's table) names the rows a permutation moved.
pub fn describe_edit(edit: &Edit, original: Option<&Table>) -> String {
    match edit {
        Edit::RowsDeleted { rows, keys } => {
            let named: Vec<String> = rows
                .iter()
                .enumerate()
                .map(|(k, &i)| row_name(keys.get(k).map(String::as_str).unwrap_or(""), i))
                .collect();
            format!("deleted: {}", named.join(", "))
        }
        Edit::RowInserted {
            at,
            key,
            values,
            from_table,
        } => format!(
            "inserted {}: {} (from {from_table})",
            row_name(key, *at),
            values.join("; ")
        ),
        Edit::ValueUpdated {
            row,
            key,
            before,
            after,
            ..
        } => format!("{}: {before} → {after}", row_name(key, *row)),
        Edit::RowsPermuted { order } => {
            let named: Vec<String> = order
                .iter()
                .map(|&i| match original {
                    Some(t) => table_row_name(t, i),
                    None => row_name("", i),
                })
                .collect();
            format!("rows reordered: {}", named.join(", "))
        }
        Edit::DeletedThenInserted {
            deleted_row,
            deleted_key,
            inserted_key,
            ..
        } => format!(
            "deleted {}, inserted {inserted_key}",
            row_name(deleted_key, *deleted_row)
        ),
        Edit::PremiseRemoved => "premise removed".into(),
        Edit::HypothesisSpan { before, after, .. } => format!("“{before}” → “{after}”"),
        Edit::TitleSwapped { before, after, .. } => format!("title: {before} → {after}"),
        Edit::RowsSwapped {
            keys, other_table, ..
        } => format!("{} moved to {other_table}", keys.join(", ")),
        Edit::Counterfactual { example } => format!("hand-made counterfactual {example}"),
        Edit::WordsPermuted { bleu2, .. } => format!("words permuted (BLEU-2 {bleu2:.2})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::table::{KeyValueRow, KeyValueTable};

    fn film() -> Table {
        let row = |k: &str| KeyValueRow {
            key: k.into(),
            values: vec!["x".into()],
        };
        Table::KeyValue(KeyValueTable {
            id: "T".into(),
            title: "Film".into(),
            rows: vec![row("Directed by"), row("Starring"), row("Length")],
        })
    }

    #[test]
    fn rows_are_named_by_key_and_counted_from_one() {
        let del = Edit::RowsDeleted {
            rows: vec![1],
            keys: vec!["Starring".into()],
        };
        assert_eq!(describe_edit(&del, None), "deleted: Starring (row 2)");
        let perm = Edit::RowsPermuted {
            order: vec![2, 0, 1],
        };
        assert_eq!(
            describe_edit(&perm, Some(&film())),
            "rows reordered: Length (row 3), Directed by (row 1), Starring (row 2)"
        );
        assert_eq!(
            describe_edit(&perm, None),
            "rows reordered: row 3, row 1, row 2"
        );
        let dti = Edit::DeletedThenInserted {
            deleted_row: 0,
            deleted_key: "Directed by".into(),
            inserted_key: "Budget".into(),
            values: vec![],
            from_table: "T2".into(),
        };
        assert_eq!(
            describe_edit(&dti, None),
            "deleted Directed by (row 1), inserted Budget"
        );
        let ins = Edit::RowInserted {
            at: 3,
            key: "Budget".into(),
            values: vec!["$1".into()],
            from_table: "T2".into(),
        };
        assert_eq!(
            describe_edit(&ins, None),
            "inserted Budget (row 4): $1 (from T2)"
        );
    }
}
