//! INFOTABS as published (Gupta et al., 2020; Apache-2.0): one JSON file per table,
//! `{"title": ["…"], "<key>": ["value", …], …}`, and split TSVs with a header row and the
//! columns `annotater_id table_id hypothesis label` (labels `E`/`N`/`C`, no quoting).

use serde_json::Value;

use super::ImportError;
use crate::dataset::Example;
use crate::label::Label;
use crate::table::{KeyValueRow, KeyValueTable};

/// Reads one INFOTABS table file. `id` is the table id (the file stem, e.g. `T1264`); key
/// order is kept, and the `title` entry becomes the table's title rather than a row.
pub fn parse_table(file: &str, id: &str, text: &str) -> Result<KeyValueTable, ImportError> {
    let root: Value = serde_json::from_str(text).map_err(|e| {
        ImportError::new(
            file,
            format!("line {}, column {}", e.line(), e.column()),
            format!("not valid JSON: {e}"),
        )
    })?;
    let Value::Object(map) = root else {
        return Err(ImportError::new(
            file,
            "$",
            "expected an object of key → list of strings",
        ));
    };
    let mut title = None;
    let mut rows = Vec::new();
    for (key, value) in map {
        let values = string_list(&value).ok_or_else(|| {
            ImportError::new(file, format!("$[{key:?}]"), "expected a list of strings")
        })?;
        if key == "title" {
            title = Some(values.join(" "));
        } else {
            rows.push(KeyValueRow { key, values });
        }
    }
    let title = title.ok_or_else(|| {
        ImportError::new(
            file,
            "$.title",
            "missing; INFOTABS tables have a \"title\" entry",
        )
    })?;
    Ok(KeyValueTable {
        id: id.to_string(),
        title,
        rows,
    })
}

fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

/// Reads an INFOTABS split TSV into examples with `table`, `hypothesis`, `label`, `annotator`
/// and the given `split`. Ids are `<split>-<row number>` (1-based, header excluded).
pub fn parse_split_tsv(file: &str, split: &str, text: &str) -> Result<Vec<Example>, ImportError> {
    let mut lines = text.lines().enumerate();
    let expected_header = ["annotater_id", "table_id", "hypothesis", "label"];
    match lines.next() {
        Some((_, header))
            if header
                .trim_end_matches('\r')
                .split('\t')
                .eq(expected_header) => {}
        Some((_, header)) => {
            return Err(ImportError::new(
                file,
                "line 1",
                format!(
                    "expected the header {:?}, found {header:?}",
                    expected_header.join("\t")
                ),
            ))
        }
        None => {
            return Err(ImportError::new(
                file,
                "line 1",
                "empty file; expected a header row",
            ))
        }
    }
    let mut examples = Vec::new();
    for (i, line) in lines {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [annotator, table, hypothesis, label] = cols[..] else {
            return Err(ImportError::new(
                file,
                format!("line {}", i + 1),
                format!("expected 4 tab-separated columns, found {}", cols.len()),
            ));
        };
        let label = Label::from_alias(label).ok_or_else(|| {
            ImportError::new(
                file,
                format!("line {}", i + 1),
                format!("unknown label {label:?}; expected E, N or C"),
            )
        })?;
        examples.push(Example {
            id: Some(format!("{split}-{}", examples.len() + 1)),
            table: Some(table.to_string()),
            premise: None,
            hypothesis: hypothesis.to_string(),
            label,
            split: Some(split.to_string()),
            relevant_rows: None,
            categories: Vec::new(),
            annotator: Some(annotator.to_string()),
            derived_from: None,
            operation: None,
        });
    }
    Ok(examples)
}

/// One row of an INFOTABS reasoning TSV: which categories the experts agreed on for a hypothesis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasoningRow {
    /// The table id.
    pub table: String,
    /// The hypothesis text, as in the split TSV.
    pub hypothesis: String,
    /// The `consensus` column split on commas, e.g. `["multirowreasoning", "simplelookup"]`.
    pub categories: Vec<String>,
}

/// Reads a reasoning-category TSV (`annotater_id table_id hypothesis label consensus expert1..3`).
pub fn parse_reasoning_tsv(file: &str, text: &str) -> Result<Vec<ReasoningRow>, ImportError> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.split('\t').nth(4) == Some("consensus") => {}
        _ => {
            return Err(ImportError::new(
                file,
                "line 1",
                "expected a header whose fifth column is \"consensus\"",
            ))
        }
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 5 {
            return Err(ImportError::new(
                file,
                format!("line {}", i + 1),
                format!(
                    "expected at least 5 tab-separated columns, found {}",
                    cols.len()
                ),
            ));
        }
        rows.push(ReasoningRow {
            table: cols[1].to_string(),
            hypothesis: cols[2].to_string(),
            categories: cols[4]
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect(),
        });
    }
    Ok(rows)
}

/// Puts reasoning categories onto the examples with the same table and hypothesis; returns how
/// many examples received categories.
pub fn apply_reasoning(examples: &mut [Example], rows: &[ReasoningRow]) -> usize {
    let mut applied = 0;
    for ex in examples.iter_mut() {
        let found = rows.iter().find(|r| {
            Some(r.table.as_str()) == ex.table.as_deref() && r.hypothesis == ex.hypothesis
        });
        if let Some(r) = found {
            ex.categories = r.categories.clone();
            applied += 1;
        }
    }
    applied
}
