//! Table-BERT's linearizations (TabFact, Chen et al. 2020, §3.2): the horizontal and vertical
//! templates and plain concatenation. A key–value table is read as one row per key whose
//! single "column" is the key, so the same code serves both shapes.

use std::collections::HashMap;

use super::PremiseUnits;
use crate::data::table::Table;

/// Rows as `(column name, cell)` lists: records of a relational table, or one
/// `(key, values joined by ", ")` entry per key of a key–value table.
fn cells(table: &Table) -> Vec<Vec<(String, String)>> {
    match table {
        Table::KeyValue(t) => t
            .rows
            .iter()
            .map(|r| vec![(r.key.trim().to_string(), join_values(&r.values))])
            .collect(),
        Table::Relational(t) => t
            .rows
            .iter()
            .map(|rec| {
                t.header
                    .iter()
                    .zip(rec)
                    .map(|(h, c)| (h.trim().to_string(), c.trim().to_string()))
                    .collect()
            })
            .collect(),
    }
}

fn join_values(values: &[String]) -> String {
    values
        .iter()
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `title is : <title> . row 1 is : <col> is <cell> ; <col> is <cell> . row 2 is : … .`
/// (the title prefix is ours: INFOTABS hypotheses name the title, so the model needs it).
pub fn horizontal_template(table: &Table) -> String {
    horizontal_template_units(table).text
}

/// [`horizontal_template`] with the title sentence and each row's sentence as units.
pub fn horizontal_template_units(table: &Table) -> PremiseUnits {
    let mut parts = vec![format!("title is : {} .", table.title().trim())];
    for (i, row) in cells(table).iter().enumerate() {
        let body: Vec<String> = row.iter().map(|(c, v)| format!("{c} is {v}")).collect();
        parts.push(format!("row {} is : {} .", i + 1, body.join(" ; ")));
    }
    PremiseUnits::joined(&parts, " ", "")
}

/// `title is : <title> . <col> is : row 1 is <cell> ; row 2 is <cell> . …`, one sentence per
/// column in order of first appearance.
pub fn vertical_template(table: &Table) -> String {
    vertical_template_units(table).text
}

/// [`vertical_template`] with the title sentence and each column's sentence as units.
pub fn vertical_template_units(table: &Table) -> PremiseUnits {
    let rows = cells(table);
    let mut columns: Vec<(String, Vec<String>)> = Vec::new();
    // Column name → its index in `columns`: a key–value table has one column per key, so a
    // linear search here made large tables quadratic.
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, row) in rows.into_iter().enumerate() {
        for (c, v) in row {
            let entry = format!("row {} is {v}", i + 1);
            match index.get(&c) {
                Some(&k) => columns[k].1.push(entry),
                None => {
                    index.insert(c.clone(), columns.len());
                    columns.push((c, vec![entry]));
                }
            }
        }
    }
    let mut parts = vec![format!("title is : {} .", table.title().trim())];
    for (c, list) in columns {
        parts.push(format!("{c} is : {} .", list.join(" ; ")));
    }
    PremiseUnits::joined(&parts, " ", "")
}

/// [`concatenation`] as units: the whole text is one unit, since the concatenation has no
/// sentences (a row alone, e.g. `Length | 46:06`, would be too short to permute).
pub fn concatenation_units(table: &Table) -> PremiseUnits {
    PremiseUnits::single(concatenation(table))
}

/// The title, then every column name and cell, separated by ` | ` (Table-BERT's
/// `[SEP]`-joined cells; the separator is plain text so any tokenizer reads it).
pub fn concatenation(table: &Table) -> String {
    let mut parts = vec![table.title().trim().to_string()];
    if let Table::Relational(t) = table {
        parts.extend(t.header.iter().map(|h| h.trim().to_string()));
        for rec in &t.rows {
            parts.extend(rec.iter().map(|c| c.trim().to_string()));
        }
    } else {
        for row in cells(table) {
            for (c, v) in row {
                parts.push(c);
                parts.push(v);
            }
        }
    }
    parts.join(" | ")
}
