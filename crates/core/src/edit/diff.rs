//! An edited table against its original (docs/using-the-site.md#the-table-editor): which rows were added, removed, changed
//! or moved, and whether the title changed. Rows are matched by the provenance the editor
//! recorded; for two tables without it (a share link) rows are matched by key.

use std::collections::{HashMap, VecDeque};

use crate::data::table::Table;
use crate::probe::edit_table::row_key;

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
/// as a [`crate::edit::TableDraft`] keeps it). O(n log n) in the rows: a shared table may
/// hold up to [`crate::share::MAX_SHARE_ROWS`] rows, an imported one more.
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
    let mut on_run = vec![false; kept.len()];
    for k in longest_increasing(&kept.iter().map(|(_, f)| *f).collect::<Vec<_>>()) {
        on_run[k] = true;
    }
    let mut moved = vec![false; n];
    for (k, (i, _)) in kept.iter().enumerate() {
        moved[*i] = !on_run[k];
    }
    let mut still_there = vec![false; original.row_count()];
    for (_, f) in &kept {
        still_there[*f] = true;
    }
    let removed = (0..original.row_count())
        .filter(|&f| !still_there[f])
        .collect();
    TableDiff {
        title_changed: original.title() != edited.title(),
        rows,
        moved,
        removed,
    }
}

/// Compares two tables without recorded provenance: each edited row is matched to the first
/// unmatched original row with the same key (relational: the same first cell). Linear: the
/// original's rows are indexed by key once (a queue per key, in row order).
pub fn diff_tables(original: &Table, edited: &Table) -> TableDiff {
    let mut by_key: HashMap<String, VecDeque<usize>> = HashMap::new();
    for f in 0..original.row_count() {
        by_key.entry(row_key(original, f)).or_default().push_back(f);
    }
    let origin: Vec<Option<usize>> = (0..edited.row_count())
        .map(|i| {
            by_key
                .get_mut(&row_key(edited, i))
                .and_then(VecDeque::pop_front)
        })
        .collect();
    diff_with_origin(original, edited, &origin)
}

/// Positions (into `xs`) of one longest strictly increasing subsequence, in O(n log n).
/// Ties prefer the earliest positions, so a single moved row is the one reported: the run
/// ends at the first position reaching the greatest length, and each step goes back to the
/// earliest position one shorter with a smaller value (the choice the quadratic scan makes).
fn longest_increasing(xs: &[usize]) -> Vec<usize> {
    // levels[l]: positions whose longest run ending there has length l + 1, in position
    // order; their values strictly decrease along each level (a later, larger value would
    // extend the earlier one's run), so each level can be binary-searched.
    let mut levels: Vec<Vec<usize>> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; xs.len()];
    for (i, &x) in xs.iter().enumerate() {
        // The longest level whose last (smallest) value is below x.
        let l = levels.partition_point(|lv| lv.last().is_some_and(|&j| xs[j] < x));
        if l > 0 {
            let below = &levels[l - 1];
            // The earliest position in that level with a value below x.
            prev[i] = below.get(below.partition_point(|&j| xs[j] >= x)).copied();
        }
        match levels.get_mut(l) {
            Some(level) => level.push(i),
            None => levels.push(vec![i]),
        }
    }
    let Some(&end) = levels.last().and_then(|lv| lv.first()) else {
        return Vec::new();
    };
    let mut out = vec![end];
    let mut at = end;
    while let Some(p) = prev[at] {
        out.push(p);
        at = p;
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::table::{KeyValueRow, KeyValueTable};
    use crate::edit::TableDraft;

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

    /// The quadratic scan `longest_increasing` replaced: the reference for its tie-breaking.
    fn longest_increasing_quadratic(xs: &[usize]) -> Vec<usize> {
        let n = xs.len();
        if n == 0 {
            return Vec::new();
        }
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
        while let Some(p) = prev[*out.last().unwrap()] {
            out.push(p);
        }
        out.reverse();
        out
    }

    #[test]
    fn longest_increasing_matches_the_quadratic_scan() {
        let mut rng = crate::rng::Rng::new(12);
        for n in 0..40 {
            for _ in 0..50 {
                // Distinct values (row origins are distinct), shuffled, some dropped.
                let mut xs: Vec<usize> = (0..n + 5).collect();
                rng.shuffle(&mut xs);
                xs.truncate(n);
                assert_eq!(
                    longest_increasing(&xs),
                    longest_increasing_quadratic(&xs),
                    "{xs:?}"
                );
            }
        }
    }

    /// 200,000 rows, every 1,000th moved to the end and every 7th edited: the quadratic diff
    /// took minutes on this; it must give the exact marks.
    #[test]
    fn large_tables_diff_exactly() {
        let n = 200_000;
        let original = Table::KeyValue(KeyValueTable {
            id: "big".into(),
            title: "big".into(),
            rows: (0..n)
                .map(|i| KeyValueRow {
                    key: format!("k{i}"),
                    values: vec![format!("v{i}")],
                })
                .collect(),
        });
        let mut order: Vec<usize> = (0..n).filter(|i| i % 1000 != 0).collect();
        order.extend((0..n).step_by(1000));
        let Table::KeyValue(o) = &original else {
            unreachable!()
        };
        let edited = Table::KeyValue(KeyValueTable {
            rows: order
                .iter()
                .map(|&i| {
                    let mut r = o.rows[i].clone();
                    if i % 7 == 0 {
                        r.values[0].push('!');
                    }
                    r
                })
                .collect(),
            ..o.clone()
        });
        let diff = diff_tables(&original, &edited);
        assert_eq!(diff.removed, Vec::<usize>::new());
        assert_eq!(diff.moved_count(), n / 1000);
        for (pos, &i) in order.iter().enumerate() {
            let want = if i % 7 == 0 {
                RowChange::Changed { from: i }
            } else {
                RowChange::Same { from: i }
            };
            assert_eq!(diff.rows[pos], want);
            assert_eq!(diff.moved[pos], i % 1000 == 0, "row {i}");
        }
        // Every row under one key: matched in order, nothing moved.
        let same_key = |t: &Table| match t {
            Table::KeyValue(t) => Table::KeyValue(KeyValueTable {
                rows: t
                    .rows
                    .iter()
                    .map(|r| KeyValueRow {
                        key: String::new(),
                        values: r.values.clone(),
                    })
                    .collect(),
                ..t.clone()
            }),
            t => t.clone(),
        };
        let diff = diff_tables(&same_key(&original), &same_key(&original));
        assert!(diff.is_empty());
    }

    #[test]
    fn longest_increasing_run() {
        assert_eq!(longest_increasing(&[3, 1, 2]), vec![1, 2]);
        assert_eq!(longest_increasing(&[0, 1, 2]), vec![0, 1, 2]);
        assert_eq!(longest_increasing(&[2, 1, 0]), vec![0]);
        assert!(longest_increasing(&[]).is_empty());
    }
}
