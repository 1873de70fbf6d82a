//! Table-BERT's TSV (`processed_datasets/tsv_data_horizontal/*.tsv` of TabFact): no header,
//! six tab-separated columns `table_id n_cols linked_columns linearized_table statement label`,
//! label 1 = ENTAILED, 0 = REFUTED. The linearized table is kept as a plain-text premise for
//! statements whose table file is not among the inputs.

use super::{numbered_lines, ImportError};
use crate::data::label::Label;

/// One Table-BERT row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableBertRow {
    /// 1-based line.
    pub line: usize,
    /// The table file name, e.g. `2-17933602-1.html.csv`.
    pub table: String,
    /// Table-BERT's linearization of the linked columns.
    pub linearized: String,
    /// The statement.
    pub statement: String,
    /// ENTAIL (1) or CONTRADICT (0).
    pub label: Label,
}

/// Reads a Table-BERT TSV.
pub fn parse(file: &str, text: &str) -> Result<Vec<TableBertRow>, ImportError> {
    let mut rows = Vec::new();
    for (n, line) in numbered_lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("line {n}");
        let cols: Vec<&str> = line.split('\t').collect();
        let [table, n_cols, _columns, linearized, statement, label] = cols[..] else {
            return Err(ImportError::new(
                file,
                at,
                format!(
                    "expected 6 tab-separated columns (table_id, n_cols, columns, linearized table, statement, label), found {}",
                    cols.len()
                ),
            ));
        };
        if n_cols.parse::<usize>().is_err() {
            return Err(ImportError::new(
                file,
                at,
                format!("column 2 {n_cols:?}: expected the number of linked columns"),
            ));
        }
        let label = match label.trim() {
            "1" => Label::Entail,
            "0" => Label::Contradict,
            other => {
                return Err(ImportError::new(
                    file,
                    at,
                    format!("unknown label {other:?}; expected 1 (ENTAILED) or 0 (REFUTED)"),
                ))
            }
        };
        if statement.trim().is_empty() {
            return Err(ImportError::new(
                file,
                at,
                "empty statement; expected the statement in column 5",
            ));
        }
        rows.push(TableBertRow {
            line: n,
            table: table.to_string(),
            linearized: linearized.to_string(),
            statement: statement.to_string(),
            label,
        });
    }
    Ok(rows)
}
