//! The tabprobe counterfactual TSV (utahnlp/table_probing, `cf_training_anonymized.tsv`):
//! hand-made pairs where the table is edited and the label flips. Columns: `s.no worker_id
//! original_tableid original_hypothesis original_label modified_tableid modified_hypothesis
//! modified_label`, header row, no quoting.

use serde::{Deserialize, Serialize};

use crate::data::dataset::{Dataset, Example};
use crate::data::label::Label;
use crate::data::table::Table;

/// One hand-made counterfactual pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterfactualPair {
    /// 1-based line number in the file.
    pub line: usize,
    /// Annotator id.
    pub worker: String,
    /// Original table id, e.g. `T80`.
    pub original_table: String,
    /// Hypothesis on the original table.
    pub original_hypothesis: String,
    /// Its label.
    pub original_label: Label,
    /// Edited table id, e.g. `T80_mod_1`.
    pub modified_table: String,
    /// Hypothesis on the edited table (usually unchanged).
    pub modified_hypothesis: String,
    /// Its label.
    pub modified_label: Label,
}

/// A problem in a counterfactual TSV.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CounterfactualError {
    /// Wrong header.
    #[error("{file}, line 1: expected the header {expected:?}")]
    Header {
        /// File name.
        file: String,
        /// Expected header.
        expected: String,
    },
    /// A malformed row.
    #[error("{file}, line {line}: {message}")]
    Row {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A table the pairs name is missing.
    #[error("counterfactual pair on line {line} names table {table:?}, which was not loaded")]
    MissingTable {
        /// 1-based line.
        line: usize,
        /// Table id.
        table: String,
    },
}

const HEADER: [&str; 8] = [
    "s.no",
    "worker_id",
    "original_tableid",
    "original_hypothesis",
    "original_label",
    "modified_tableid",
    "modified_hypothesis",
    "modified_label",
];

/// Parses the TSV.
pub fn parse_counterfactual_tsv(
    file: &str,
    text: &str,
) -> Result<Vec<CounterfactualPair>, CounterfactualError> {
    let mut lines = text.lines();
    let header_ok = lines
        .next()
        .is_some_and(|h| h.trim_end_matches('\r').split('\t').eq(HEADER));
    if !header_ok {
        return Err(CounterfactualError::Header {
            file: file.to_string(),
            expected: HEADER.join("\t"),
        });
    }
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        let line_no = i + 2;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let row_err = |message: String| CounterfactualError::Row {
            file: file.to_string(),
            line: line_no,
            message,
        };
        if c.len() != 8 {
            return Err(row_err(format!(
                "expected 8 tab-separated columns, found {}",
                c.len()
            )));
        }
        let label = |s: &str| {
            Label::from_alias(s)
                .ok_or_else(|| row_err(format!("unknown label {s:?}; expected E, N or C")))
        };
        out.push(CounterfactualPair {
            line: line_no,
            worker: c[1].to_string(),
            original_table: c[2].to_string(),
            original_hypothesis: c[3].to_string(),
            original_label: label(c[4])?,
            modified_table: c[5].to_string(),
            modified_hypothesis: c[6].to_string(),
            modified_label: label(c[7])?,
        });
    }
    Ok(out)
}

/// A dataset holding each pair as two examples: the original (`cf<line>-orig`) and the
/// counterfactual (`cf<line>`, `derived_from` the original, `operation: "label_flip"`), with
/// every table they need (originals and edited tables, each once).
pub fn counterfactual_dataset(
    name: &str,
    pairs: &[CounterfactualPair],
    tables: &[Table],
) -> Result<Dataset, CounterfactualError> {
    let mut d = Dataset::new(name);
    let find = |id: &str, line: usize| {
        tables
            .iter()
            .find(|t| t.id() == id)
            .cloned()
            .ok_or(CounterfactualError::MissingTable {
                line,
                table: id.to_string(),
            })
    };
    for p in pairs {
        for id in [&p.original_table, &p.modified_table] {
            if d.table(id).is_none() {
                d.tables.push(find(id, p.line)?);
            }
        }
        d.examples.extend(pair_examples(p));
    }
    Ok(d)
}

/// The two examples of a pair: the original (`cf<line>-orig`, split `counterfactual`) and the
/// counterfactual (`cf<line>`, `derived_from` the original, `operation: "label_flip"`).
pub fn pair_examples(p: &CounterfactualPair) -> [Example; 2] {
    let orig_id = format!("cf{}-orig", p.line);
    let base = Example {
        id: Some(orig_id.clone()),
        table: Some(p.original_table.clone()),
        premise: None,
        hypothesis: p.original_hypothesis.clone(),
        label: p.original_label,
        split: Some("counterfactual".to_string()),
        relevant_rows: None,
        relevance_votes: None,
        categories: Vec::new(),
        annotator: Some(p.worker.clone()),
        derived_from: None,
        operation: None,
    };
    let mut cf = base.clone();
    cf.id = Some(format!("cf{}", p.line));
    cf.table = Some(p.modified_table.clone());
    cf.hypothesis = p.modified_hypothesis.clone();
    cf.label = p.modified_label;
    cf.derived_from = Some(orig_id);
    cf.operation = Some(LABEL_FLIP.to_string());
    [base, cf]
}

/// The `operation` of hand-made label-flipping counterfactual examples.
pub const LABEL_FLIP: &str = "label_flip";
