//! A table being edited by hand: the table itself plus, for each row, the original row it
//! came from (so the diff knows what was added, changed or moved without guessing) and
//! whether the user marked it as relevant evidence.

use crate::data::table::{KeyValueRow, Table};

/// An edited table with row provenance and relevance marks. Every operation keeps
/// `origin` and `relevant` aligned with the table's rows.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDraft {
    /// The table as edited.
    pub table: Table,
    /// For each row: the index of the original row it came from, `None` for an added row.
    pub origin: Vec<Option<usize>>,
    /// For each row: marked as relevant evidence (§5.2 annotation).
    pub relevant: Vec<bool>,
    /// How many rows the original table had.
    pub original_rows: usize,
}

impl TableDraft {
    /// A draft equal to `table`, with `relevant_rows` (indices; unknown ones ignored) marked.
    pub fn new(table: Table, relevant_rows: &[usize]) -> TableDraft {
        let n = table.row_count();
        TableDraft {
            table,
            origin: (0..n).map(Some).collect(),
            relevant: (0..n).map(|i| relevant_rows.contains(&i)).collect(),
            original_rows: n,
        }
    }

    /// The marked rows as 0-based indices into the edited table.
    pub fn relevant_rows(&self) -> Vec<usize> {
        (0..self.relevant.len())
            .filter(|&i| self.relevant[i])
            .collect()
    }

    /// Replaces the title (key–value) or caption (relational).
    pub fn set_title(&mut self, title: &str) {
        match &mut self.table {
            Table::KeyValue(t) => t.title = title.to_string(),
            Table::Relational(t) => t.caption = title.to_string(),
        }
    }

    /// Replaces the key of row `row` (key–value tables; ignored for relational ones, whose
    /// rows have no key of their own).
    pub fn set_key(&mut self, row: usize, key: &str) {
        if let Table::KeyValue(t) = &mut self.table {
            if let Some(r) = t.rows.get_mut(row) {
                r.key = key.to_string();
            }
        }
    }

    /// Replaces value `index` of row `row` (key–value: the row's `index`-th value;
    /// relational: the cell in column `index`).
    pub fn set_value(&mut self, row: usize, index: usize, value: &str) {
        let cell = match &mut self.table {
            Table::KeyValue(t) => t.rows.get_mut(row).and_then(|r| r.values.get_mut(index)),
            Table::Relational(t) => t.rows.get_mut(row).and_then(|r| r.get_mut(index)),
        };
        if let Some(c) = cell {
            *c = value.to_string();
        }
    }

    /// Renames column `col` of a relational table (its "key", docs/data-formats.md#tables); ignored for
    /// key–value tables.
    pub fn set_column(&mut self, col: usize, name: &str) {
        if let Table::Relational(t) = &mut self.table {
            if let Some(h) = t.header.get_mut(col) {
                *h = name.to_string();
            }
        }
    }

    /// Whether every row is still the original row at its original place (values may have
    /// changed): then the relevance marks also describe the original table.
    pub fn rows_in_place(&self) -> bool {
        self.origin.iter().enumerate().all(|(i, o)| *o == Some(i))
            && self.origin.len() == self.original_rows
    }

    /// Appends an empty value to a key–value row (a multi-valued cell grows by one).
    pub fn add_value(&mut self, row: usize) {
        if let Table::KeyValue(t) = &mut self.table {
            if let Some(r) = t.rows.get_mut(row) {
                r.values.push(String::new());
            }
        }
    }

    /// Removes value `index` of a key–value row, keeping at least one value.
    pub fn remove_value(&mut self, row: usize, index: usize) {
        if let Table::KeyValue(t) = &mut self.table {
            if let Some(r) = t.rows.get_mut(row) {
                if r.values.len() > 1 && index < r.values.len() {
                    r.values.remove(index);
                }
            }
        }
    }

    /// Inserts an empty row at `at` (clamped to the end): an empty key with one empty value,
    /// or a record of empty cells.
    pub fn insert_row(&mut self, at: usize) {
        let at = at.min(self.table.row_count());
        match &mut self.table {
            Table::KeyValue(t) => t.rows.insert(
                at,
                KeyValueRow {
                    key: String::new(),
                    values: vec![String::new()],
                },
            ),
            Table::Relational(t) => t.rows.insert(at, vec![String::new(); t.header.len()]),
        }
        self.origin.insert(at, None);
        self.relevant.insert(at, false);
    }

    /// Deletes row `row` (ignored when out of range).
    pub fn delete_row(&mut self, row: usize) {
        if row >= self.table.row_count() {
            return;
        }
        match &mut self.table {
            Table::KeyValue(t) => {
                t.rows.remove(row);
            }
            Table::Relational(t) => {
                t.rows.remove(row);
            }
        }
        self.origin.remove(row);
        self.relevant.remove(row);
    }

    /// Moves row `from` so that it ends up at index `to` (both clamped to the table).
    pub fn move_row(&mut self, from: usize, to: usize) {
        let n = self.table.row_count();
        if from >= n || n == 0 {
            return;
        }
        let to = to.min(n - 1);
        if from == to {
            return;
        }
        fn shift<T>(v: &mut Vec<T>, from: usize, to: usize) {
            let x = v.remove(from);
            v.insert(to, x);
        }
        match &mut self.table {
            Table::KeyValue(t) => shift(&mut t.rows, from, to),
            Table::Relational(t) => shift(&mut t.rows, from, to),
        }
        shift(&mut self.origin, from, to);
        shift(&mut self.relevant, from, to);
    }

    /// Marks or unmarks row `row` as relevant evidence.
    pub fn toggle_relevant(&mut self, row: usize) {
        if let Some(r) = self.relevant.get_mut(row) {
            *r = !*r;
        }
    }

    /// What must be fixed before the draft can be saved into a dataset (see
    /// [`table_problems`]).
    pub fn problems(&self) -> Vec<String> {
        table_problems(&self.table)
    }
}

/// What keeps a hand-edited table out of a dataset: an empty title, empty or repeated keys
/// (INFOTABS keys are unique within a table). Each entry names the row (1-based).
pub fn table_problems(table: &Table) -> Vec<String> {
    let mut out = Vec::new();
    if table.title().trim().is_empty() {
        out.push("the title is empty".to_string());
    }
    if let Table::KeyValue(t) = table {
        for (i, r) in t.rows.iter().enumerate() {
            if r.key.trim().is_empty() {
                out.push(format!("row {} has no key", i + 1));
            } else if t.rows[..i].iter().any(|p| p.key == r.key) {
                out.push(format!(
                    "row {}: the key {:?} is already used above",
                    i + 1,
                    r.key
                ));
            }
        }
    }
    // The dataset file's own rules, so a saved table always loads back.
    for p in crate::data::validate::table_rule_problems(table) {
        out.push(format!("{} {}: {}", p.kind.describe(), p.path, p.message));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::table::{KeyValueTable, RelationalTable};

    fn kv(rows: &[(&str, &[&str])]) -> Table {
        Table::KeyValue(KeyValueTable {
            id: "T".into(),
            title: "Breakfast in America".into(),
            rows: rows
                .iter()
                .map(|(k, vs)| KeyValueRow {
                    key: k.to_string(),
                    values: vs.iter().map(|v| v.to_string()).collect(),
                })
                .collect(),
        })
    }

    #[test]
    fn operations_keep_origin_and_relevance_aligned() {
        let t = kv(&[
            ("Released", &["1979"]),
            ("Genre", &["Pop", "art rock"]),
            ("Length", &["46:06"]),
        ]);
        let mut d = TableDraft::new(t, &[2]);
        assert_eq!(d.relevant_rows(), vec![2]);
        d.insert_row(1);
        assert_eq!(d.origin, vec![Some(0), None, Some(1), Some(2)]);
        assert_eq!(d.relevant_rows(), vec![3]);
        d.move_row(3, 0); // Length to the top
        assert_eq!(d.origin, vec![Some(2), Some(0), None, Some(1)]);
        assert_eq!(d.relevant_rows(), vec![0]);
        d.delete_row(1);
        assert_eq!(d.origin, vec![Some(2), None, Some(1)]);
        d.toggle_relevant(2);
        assert_eq!(d.relevant_rows(), vec![0, 2]);
        d.set_key(1, "Label");
        d.set_value(1, 0, "A&M");
        d.add_value(2);
        d.set_value(2, 2, "soft rock");
        d.remove_value(2, 0);
        let Table::KeyValue(t) = &d.table else {
            panic!()
        };
        assert_eq!(t.rows[1].key, "Label");
        assert_eq!(t.rows[1].values, vec!["A&M"]);
        assert_eq!(t.rows[2].values, vec!["art rock", "soft rock"]);
        // The last value of a row is never removed.
        d.remove_value(1, 0);
        let Table::KeyValue(t) = &d.table else {
            panic!()
        };
        assert_eq!(t.rows[1].values, vec!["A&M"]);
    }

    #[test]
    fn problems_name_the_row() {
        let mut d = TableDraft::new(kv(&[("Genre", &["Pop"]), ("Label", &["A&M"])]), &[]);
        assert!(d.problems().is_empty());
        d.set_key(1, "Genre");
        d.insert_row(0);
        d.set_title(" ");
        assert_eq!(
            d.problems(),
            vec![
                "the title is empty".to_string(),
                "row 1 has no key".to_string(),
                "row 3: the key \"Genre\" is already used above".to_string(),
            ]
        );
    }

    #[test]
    fn relational_rows_are_records() {
        let t = Table::Relational(RelationalTable {
            id: "R".into(),
            caption: "c".into(),
            header: vec!["a".into(), "b".into()],
            rows: vec![vec!["1".into(), "2".into()]],
        });
        let mut d = TableDraft::new(t, &[]);
        assert!(d.rows_in_place());
        d.set_value(0, 0, "one");
        assert!(d.rows_in_place(), "a changed value keeps rows in place");
        d.insert_row(5);
        assert!(!d.rows_in_place());
        d.set_value(1, 1, "x");
        d.set_title("caption");
        d.set_column(1, "b2");
        let Table::Relational(t) = &d.table else {
            panic!()
        };
        assert_eq!(t.header, vec!["a".to_string(), "b2".into()]);
        assert_eq!(
            t.rows,
            vec![
                vec!["one".to_string(), "2".into()],
                vec!["".into(), "x".into()]
            ]
        );
        assert_eq!(t.caption, "caption");
    }
}
