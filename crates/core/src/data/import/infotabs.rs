//! INFOTABS as published (Gupta et al., 2020; Apache-2.0): one JSON file per table,
//! `{"title": ["…"], "<key>": ["value", …], …}`, and split TSVs with a header row and the
//! columns `annotater_id table_id hypothesis label` (labels `E`/`N`/`C`, no quoting).

use serde_json::Value;

use super::ImportError;
use crate::data::dataset::Example;
use crate::data::label::Label;
use crate::data::table::{KeyValueRow, KeyValueTable};

/// Reads one INFOTABS table file. `id` is the table id (the file stem, e.g. `T1264`); key
/// order is kept, and the `title` entry becomes the table's title rather than a row: its first
/// entry, as the INFOTABS preprocessing script reads it (`data["title"][0]`); further
/// entries (none in the published tables) are dropped.
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
            // The INFOTABS script takes `data["title"][0]`: the first entry names the table
            // (published INFOTABS models read that title in every sentence).
            title = Some(values.into_iter().next().unwrap_or_default());
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
        if hypothesis.trim().is_empty() {
            return Err(ImportError::new(
                file,
                format!("line {}", i + 1),
                "empty hypothesis; expected the hypothesis text in the third column",
            ));
        }
        examples.push(Example {
            id: Some(format!("{split}-{}", examples.len() + 1)),
            table: Some(table.to_string()),
            premise: None,
            hypothesis: hypothesis.to_string(),
            label,
            split: Some(split.to_string()),
            relevant_rows: None,
            relevance_votes: None,
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

/// The split an INFOTABS file name stands for: `infotabs_dev.tsv` → `dev`,
/// `infotabs_test_alpha1.tsv` → `alpha1`, `infotabs_valid_dev.tsv` → `dev`; any other name
/// gives its stem.
pub fn split_name(file: &str) -> String {
    let stem = super::stem(file);
    let s = stem.strip_prefix("infotabs_").unwrap_or(stem);
    let s = s.strip_prefix("valid_").unwrap_or(s);
    s.strip_prefix("test_").unwrap_or(s).to_string()
}

/// One row of an INFOTABS validation TSV: five fresh annotators relabelled a hypothesis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationRow {
    /// 1-based line in the file.
    pub line: usize,
    /// The table id.
    pub table: String,
    /// The hypothesis text, as in the split TSV.
    pub hypothesis: String,
    /// The majority of the validation labels (`majoritylabel`).
    pub majority: Label,
    /// The five validation labels (`other_human_labels`).
    pub votes: Vec<Label>,
}

const VALIDATION_HEADER: [&str; 7] = [
    "table_id",
    "hypothesis",
    "orignal_worker_id",
    "first_human_label",
    "majoritylabel",
    "other_human_labels",
    "other_worker_id",
];

/// INFOTABS validation files code labels as digits: 0 = E, 1 = N, 2 = C.
fn validation_label(code: &str) -> Option<Label> {
    match code.trim() {
        "0" => Some(Label::Entail),
        "1" => Some(Label::Neutral),
        "2" => Some(Label::Contradict),
        _ => None,
    }
}

/// Reads a validation TSV (`table_id hypothesis orignal_worker_id first_human_label
/// majoritylabel other_human_labels other_worker_id`, labels 0/1/2, votes as `[1, 0, 2, 1, 1]`).
pub fn parse_validation_tsv(file: &str, text: &str) -> Result<Vec<ValidationRow>, ImportError> {
    let mut lines = super::numbered_lines(text);
    match lines.next() {
        Some((_, h)) if h.split('\t').eq(VALIDATION_HEADER) => {}
        _ => {
            return Err(ImportError::new(
                file,
                "line 1",
                format!("expected the header {:?}", VALIDATION_HEADER.join("\t")),
            ))
        }
    }
    let mut rows = Vec::new();
    for (n, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("line {n}");
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() != VALIDATION_HEADER.len() {
            return Err(ImportError::new(
                file,
                at,
                format!("expected 7 tab-separated columns, found {}", cols.len()),
            ));
        }
        let majority = validation_label(cols[4]).ok_or_else(|| {
            ImportError::new(
                file,
                &at,
                format!(
                    "majoritylabel {:?}: expected 0 (E), 1 (N) or 2 (C)",
                    cols[4]
                ),
            )
        })?;
        let votes = cols[5]
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .filter(|v| !v.trim().is_empty())
            .map(|v| {
                validation_label(v).ok_or_else(|| {
                    ImportError::new(
                        file,
                        &at,
                        format!(
                            "other_human_labels {:?}: expected a list of 0, 1 and 2",
                            cols[5]
                        ),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        rows.push(ValidationRow {
            line: n,
            table: cols[0].to_string(),
            hypothesis: cols[1].to_string(),
            majority,
            votes,
        });
    }
    Ok(rows)
}
