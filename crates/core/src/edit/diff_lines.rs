//! A [`TableDiff`] as the lines a person reads (docs/using-the-site.md#the-table-editor): one per edited row with its mark —
//! added, changed, moved, removed or unchanged — and the row's content before and after,
//! then one per removed original row. The editor and the share page render these lines.

use super::diff::{RowChange, TableDiff};
use crate::data::table::Table;

/// What happened to the row a line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffMark {
    /// Unchanged and in place.
    Same,
    /// New in the edited table.
    Added,
    /// Content edited, in place.
    Changed,
    /// Content edited and moved.
    ChangedMoved,
    /// Unchanged but moved.
    Moved,
    /// An original row that is gone.
    Removed,
}

impl DiffMark {
    /// The mark as a CSS class / test id word (`same`, `added`, `changed moved`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            DiffMark::Same => "same",
            DiffMark::Added => "added",
            DiffMark::Changed => "changed",
            DiffMark::ChangedMoved => "changed moved",
            DiffMark::Moved => "moved",
            DiffMark::Removed => "removed",
        }
    }

    /// The mark as shown beside the row (`+ added`; empty for an unchanged row).
    pub fn label(self) -> &'static str {
        match self {
            DiffMark::Same => "",
            DiffMark::Added => "+ added",
            DiffMark::Changed => "~ changed",
            DiffMark::ChangedMoved => "~ changed, moved",
            DiffMark::Moved => "↕ moved",
            DiffMark::Removed => "− removed",
        }
    }
}

/// One comparison line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// What happened to the row.
    pub mark: DiffMark,
    /// The row's key (relational: its first cell).
    pub key: String,
    /// The original row's content (empty for an added row).
    pub before: String,
    /// The edited row's content (empty for a removed row).
    pub after: String,
}

/// `key` and the values (or a record's cells) of row `i`, for display.
pub fn row_text(table: &Table, i: usize) -> (String, String) {
    match table {
        Table::KeyValue(t) => t
            .rows
            .get(i)
            .map(|r| (r.key.clone(), r.values.join(" ; ")))
            .unwrap_or_default(),
        Table::Relational(t) => t
            .rows
            .get(i)
            .map(|r| (r.first().cloned().unwrap_or_default(), r.join(" | ")))
            .unwrap_or_default(),
    }
}

/// The lines of `diff`, which must describe `edited` against `original`: edited rows in
/// their order, then removed rows. Linear in the rows.
pub fn diff_lines(original: &Table, edited: &Table, diff: &TableDiff) -> Vec<DiffLine> {
    let mut out = Vec::with_capacity(diff.rows.len().saturating_add(diff.removed.len()));
    for (i, change) in diff.rows.iter().enumerate() {
        let (key, after) = row_text(edited, i);
        let moved = diff.moved.get(i).copied().unwrap_or(false);
        let (mark, before) = match change {
            RowChange::Added => (DiffMark::Added, String::new()),
            RowChange::Changed { from } => (
                if moved {
                    DiffMark::ChangedMoved
                } else {
                    DiffMark::Changed
                },
                row_text(original, *from).1,
            ),
            RowChange::Same { from } => (
                if moved {
                    DiffMark::Moved
                } else {
                    DiffMark::Same
                },
                row_text(original, *from).1,
            ),
        };
        out.push(DiffLine {
            mark,
            key,
            before,
            after,
        });
    }
    for &from in &diff.removed {
        let (key, before) = row_text(original, from);
        out.push(DiffLine {
            mark: DiffMark::Removed,
            key,
            before,
            after: String::new(),
        });
    }
    out
}
