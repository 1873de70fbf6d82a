//! Row-level edits of either table shape (docs/data-formats.md#tables): every table probe is built from these.
//! A key–value row is a key with its values; a relational row is a record, and "the same key
//! in another table" means "the same column name".

use std::collections::BTreeMap;

use crate::data::table::{KeyValueRow, Table};

/// The table without the rows at `rows` (indices into the original; unknown ones ignored).
pub fn delete_rows(table: &Table, rows: &[usize]) -> Table {
    let keep = |i: &usize| !rows.contains(i);
    match table {
        Table::KeyValue(t) => {
            let mut t = t.clone();
            t.rows = t
                .rows
                .into_iter()
                .enumerate()
                .filter(|(i, _)| keep(i))
                .map(|(_, r)| r)
                .collect();
            Table::KeyValue(t)
        }
        Table::Relational(t) => {
            let mut t = t.clone();
            t.rows = t
                .rows
                .into_iter()
                .enumerate()
                .filter(|(i, _)| keep(i))
                .map(|(_, r)| r)
                .collect();
            Table::Relational(t)
        }
    }
}

/// The table with rows in `order` (`order[i]` = original index of the row at `i`).
pub fn permute_rows(table: &Table, order: &[usize]) -> Table {
    match table {
        Table::KeyValue(t) => {
            let mut out = t.clone();
            out.rows = order
                .iter()
                .filter_map(|&i| t.rows.get(i).cloned())
                .collect();
            Table::KeyValue(out)
        }
        Table::Relational(t) => {
            let mut out = t.clone();
            out.rows = order
                .iter()
                .filter_map(|&i| t.rows.get(i).cloned())
                .collect();
            Table::Relational(out)
        }
    }
}

/// The key of row `i`: its key, or a record's first cell.
pub fn row_key(table: &Table, i: usize) -> String {
    match table {
        Table::KeyValue(t) => t.rows.get(i).map(|r| r.key.clone()).unwrap_or_default(),
        Table::Relational(t) => t
            .rows
            .get(i)
            .and_then(|r| r.first().cloned())
            .unwrap_or_default(),
    }
}

/// How every view names a row for people: its key and its 1-based position, `Length (row 5)`
/// (`row 5` alone when it has no key). Indices stay 0-based in files and item ids.
pub fn row_name(key: &str, index: usize) -> String {
    if key.is_empty() {
        format!("row {}", index + 1)
    } else {
        format!("{key} (row {})", index + 1)
    }
}

/// [`row_name`] of row `i` of `table`.
pub fn table_row_name(table: &Table, i: usize) -> String {
    row_name(&row_key(table, i), i)
}

/// Appends a row: a key–value row, or a record (`values` are its cells). Shapes that do not
/// match leave the table unchanged and return `None`.
pub fn append_row(table: &Table, key: &str, values: &[String]) -> Option<Table> {
    match table {
        Table::KeyValue(t) => {
            if t.rows.iter().any(|r| r.key == key) {
                return None; // never change an existing key (Appendix, footnote 12)
            }
            let mut t = t.clone();
            t.rows.push(KeyValueRow {
                key: key.to_string(),
                values: values.to_vec(),
            });
            Some(Table::KeyValue(t))
        }
        Table::Relational(t) => {
            if values.len() != t.header.len() {
                return None;
            }
            let mut t = t.clone();
            t.rows.push(values.to_vec());
            Some(Table::Relational(t))
        }
    }
}

/// Replaces value `value_index` of row `row` (relational: cell `value_index` of record `row`).
pub fn replace_value(table: &Table, row: usize, value_index: usize, value: &str) -> Option<Table> {
    let mut out = table.clone();
    let slot = match &mut out {
        Table::KeyValue(t) => t.rows.get_mut(row)?.values.get_mut(value_index)?,
        Table::Relational(t) => t.rows.get_mut(row)?.get_mut(value_index)?,
    };
    *slot = value.to_string();
    Some(out)
}

/// Where each key (key–value) or column (relational, with its header) occurs across tables:
/// the pool that insertion and value update draw from.
#[derive(Debug, Clone, Default)]
pub struct KeyIndex {
    /// key → `(table id, values)` for every key–value table that has the key, in dataset order.
    pub keys: BTreeMap<String, Vec<(String, Vec<String>)>>,
    /// column name → `(table id, cell)` for every cell of every relational table.
    pub columns: BTreeMap<String, Vec<(String, String)>>,
    /// header (joined by `\u{1f}`) → `(table id, record)` for every record.
    pub records: BTreeMap<String, Vec<(String, Vec<String>)>>,
}

impl KeyIndex {
    /// Every value of `key` in key–value tables other than `table`, with the id of the table
    /// it comes from, in dataset order: the donors of value updates and entity swaps.
    pub fn values_elsewhere<'a>(
        &'a self,
        key: &str,
        table: &'a str,
    ) -> impl Iterator<Item = (&'a String, &'a String)> + 'a {
        self.keys
            .get(key)
            .into_iter()
            .flatten()
            .filter(move |(id, _)| id != table)
            .flat_map(|(id, vs)| vs.iter().map(move |v| (id, v)))
    }

    /// Indexes `tables`.
    pub fn new(tables: &[Table]) -> KeyIndex {
        let mut ix = KeyIndex::default();
        for t in tables {
            match t {
                Table::KeyValue(kv) => {
                    for r in &kv.rows {
                        ix.keys
                            .entry(r.key.clone())
                            .or_default()
                            .push((kv.id.clone(), r.values.clone()));
                    }
                }
                Table::Relational(rt) => {
                    for rec in &rt.rows {
                        for (h, c) in rt.header.iter().zip(rec) {
                            ix.columns
                                .entry(h.clone())
                                .or_default()
                                .push((rt.id.clone(), c.clone()));
                        }
                        ix.records
                            .entry(header_key(&rt.header))
                            .or_default()
                            .push((rt.id.clone(), rec.clone()));
                    }
                }
            }
        }
        ix
    }
}

/// The map key for a header.
pub fn header_key(header: &[String]) -> String {
    header.join("\u{1f}")
}
