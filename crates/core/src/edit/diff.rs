//! An edited table against its original (SPEC §5): which rows were added, removed, changed
//! or moved, and whether the title changed. Rows are matched by the provenance the editor
//! recorded; for two tables without it (a share link) rows are matched by key.

use crate::probe::edit_table::row_key;
use crate::table::Table;

/// What happened to one row of the edited table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowChange {
    /// New: no original row.
    Added,
    /// From original row `from`, content equal.
    Same {
        /// Original row index.
        from: usize,
    },
    /// From original row `from`, key or values edited.
    Changed {
        /// Original row index.
        from: usize,
    },
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDiff {
    /// Whether the title (caption) differs.
    pub title_changed: bool,
    /// One entry per row of the edited table, in its order.
    pub rows: Vec<RowChange>,
    /// For each edited row: whether it moved relative to the other kept rows (it is not on a
    /// longest run of kept rows in their original order).
    pub moved: Vec<bool>,
    /// Original rows that are gone, ascending.
    pub removed: Vec<usize>,
}

impl TableDiff {
    /// Added rows.
    pub fn added(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r, RowChange::Added))
            .count()
    }

    /// Changed rows.
    pub fn changed(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r, RowChange::Changed { .. }))
            .count()
    }

    /// Moved rows.
    pub fn moved_count(&self) -> usize {
        self.moved.iter().filter(|m| **m).count()
    }

    /// Whether the tables are the same.
    pub fn is_empty(&self) -> bool {
        !self.title_changed
            && self.removed.is_empty()
            && self.moved_count() == 0
            && self
                .rows
                .iter()
                .all(|r| matches!(r, RowChange::Same { .. }))
    }

    /// `1 changed · 1 added · 2 removed · 1 moved · title changed`, or `no changes`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (n, what) in [
            (self.changed(), "changed"),
            (self.added(), "added"),
            (self.removed.len(), "removed"),
            (self.moved_count(), "moved"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        if self.title_changed {
            parts.push("title changed".to_string());
        }
        if parts.is_empty() {
            "no changes".to_string()
        } else {
            parts.join(" · ")
        }
    }
}

/// Row `i`'s content as comparable cells (key first for key–value rows).
fn row_cells(table: &Table, i: usize) -> Option<Vec<String>> {
    match table {
        Table::KeyValue(t) => t.rows.get(i).map(|r| {
            std::iter::once(r.key.clone())
                .chain(r.values.iter().cloned())
                .collect()
        }),
        Table::Relational(t) => t.rows.get(i).cloned(),
    }
}

/// Compares `edited` with `original`, given each edited row's original index (`origin`,
/// as a [`crate::edit::TableDraft`] keeps it).
pub fn diff_with_origin(original: &Table, edited: &Table, origin: &[Option<usize>]) -> TableDiff {
    let n = edited.row_count();
    let rows: Vec<RowChange> = (0..n)
        .map(|i| match origin.get(i).copied().flatten() {
            Some(from) if from < original.row_count() => {
                if row_cells(original, from) == row_cells(edited, i) {
                    RowChange::Same { from }
                } else {
                    RowChange::Changed { from }
                }
            }
            _ => RowChange::Added,
        })
        .collect();
    let kept: Vec<(usize, usize)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r {
            RowChange::Same { from } | RowChange::Changed { from } => Some((i, *from)),
            RowChange::Added => None,
        })
        .collect();
    let in_order = longest_increasing(&kept.iter().map(|(_, f)| *f).collect::<Vec<_>>());
    let mut moved = vec![false; n];
    for (k, (i, _)) in kept.iter().enumerate() {
        moved[*i] = !in_order.contains(&k);
    }
    let removed = (0..original.row_count())
        .filter(|f| !kept.iter().any(|(_, g)| g == f))
        .collect();
    TableDiff {
        title_changed: original.title() != edited.title(),
        rows,
        moved,
        removed,
    }
}

/// Compares two tables without recorded provenance: each edited row is matched to the first
/// unmatched original row with the same key (relational: the same first cell).
pub fn diff_tables(original: &Table, edited: &Table) -> TableDiff {
    let mut taken = vec![false; original.row_count()];
    let origin: Vec<Option<usize>> = (0..edited.row_count())
        .map(|i| {
            let key = row_key(edited, i);
            let hit = (0..original.row_count()).find(|&f| !taken[f] && row_key(original, f) == key);
            if let Some(f) = hit {
                taken[f] = true;
            }
            hit
        })
        .collect();
    diff_with_origin(original, edited, &origin)
}

/// Positions (into `xs`) of one longest strictly increasing subsequence; O(n²), tables are
/// small. Ties prefer the earliest positions, so a single moved row is the one reported.
fn longest_increasing(xs: &[usize]) -> Vec<usize> {
    let n = xs.len();
    if n == 0 {
        return Vec::new();
    }
    // len[i]: length of the longest increasing run ending at i; prev[i]: its predecessor.
    let mut len = vec![1usize; n];
    let mut prev = vec![None; n];
    for i in 0..n {
        for j in 0..i {
            if xs[j] < xs[i] && len[j] + 1 > len[i] {
                len[i] = len[j] + 1;
                prev[i] = Some(j);
            }
        }
    }
    let mut end = 0;
    for i in 1..n {
        if len[i] > len[end] {
            end = i;
        }
    }
    let mut out = vec![end];
    while let Some(p) = prev[*out.last().unwrap_or(&end)] {
        out.push(p);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::TableDraft;
    use crate::table::{KeyValueRow, KeyValueTable};

    fn breakfast() -> Table {
        let rows = [
            ("Released", vec!["29 March 1979"]),
            ("Genre", vec!["Pop", "art rock", "soft rock"]),
            ("Length", vec!["46:06"]),
            ("Label", vec!["A&M"]),
        ];
        Table::KeyValue(KeyValueTable {
            id: "T1264".into(),
            title: "Breakfast in America".into(),
            rows: rows
                .into_iter()
                .map(|(k, v)| KeyValueRow {
                    key: k.into(),
                    values: v.into_iter().map(String::from).collect(),
                })
                .collect(),
        })
    }

    #[test]
    fn hand_worked_edit_of_breakfast_in_america() {
        // Change Length, delete Released, add a row at the end, move Label above Genre.
        let mut d = TableDraft::new(breakfast(), &[]);
        d.set_value(2, 0, "56:06"); // Length
        d.delete_row(0); // Released: rows are now Genre, Length, Label
        d.insert_row(3);
        d.set_key(3, "Producer");
        d.set_value(3, 0, "Peter Henderson");
        d.move_row(2, 0); // Label, Genre, Length, Producer
        let diff = diff_with_origin(&breakfast(), &d.table, &d.origin);
        assert_eq!(
            diff.rows,
            vec![
                RowChange::Same { from: 3 },
                RowChange::Same { from: 1 },
                RowChange::Changed { from: 2 },
                RowChange::Added,
            ]
        );
        // Kept origins in edited order: 3, 1, 2. The longest increasing run is 1, 2, so the
        // row from 3 (Label) is the one that moved.
        assert_eq!(diff.moved, vec![true, false, false, false]);
        assert_eq!(diff.removed, vec![0]);
        assert!(!diff.title_changed);
        assert_eq!(diff.summary(), "1 changed · 1 added · 1 removed · 1 moved");
    }

    #[test]
    fn matching_by_key_finds_the_same_changes() {
        let mut d = TableDraft::new(breakfast(), &[]);
        d.set_value(1, 2, "disco");
        d.delete_row(3);
        d.set_title("Crime of the Century");
        let diff = diff_tables(&breakfast(), &d.table);
        assert_eq!(
            diff.rows,
            vec![
                RowChange::Same { from: 0 },
                RowChange::Changed { from: 1 },
                RowChange::Same { from: 2 },
            ]
        );
        assert_eq!(diff.removed, vec![3]);
        assert_eq!(diff.summary(), "1 changed · 1 removed · title changed");
        assert!(diff_tables(&breakfast(), &breakfast()).is_empty());
        assert_eq!(
            diff_tables(&breakfast(), &breakfast()).summary(),
            "no changes"
        );
    }

    #[test]
    fn longest_increasing_run() {
        assert_eq!(longest_increasing(&[3, 1, 2]), vec![1, 2]);
        assert_eq!(longest_increasing(&[0, 1, 2]), vec![0, 1, 2]);
        assert_eq!(longest_increasing(&[2, 1, 0]), vec![0]);
        assert!(longest_increasing(&[]).is_empty());
    }
}
