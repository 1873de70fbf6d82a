//! Telling what a file is from its content (its name only breaks ties): the header row of a
//! TSV/CSV, the shape of a JSON document, the magic bytes of a zip.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{base_name, decode_text, ImportError};

/// Every input format the importers read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// The product's own dataset JSON (`"format": "tabprobe-dataset"`).
    ProductJson,
    /// One INFOTABS table, `{"title": [...], "<key>": [...]}` (also the probing paper's tables).
    InfotabsTable,
    /// An INFOTABS split TSV, `annotater_id table_id hypothesis label`.
    InfotabsSplitTsv,
    /// An INFOTABS reasoning-category TSV (`… consensus expert1 expert2 expert3`).
    InfotabsReasoningTsv,
    /// An INFOTABS validation TSV (five human labels, 0=E 1=N 2=C).
    InfotabsValidationTsv,
    /// TabFact statements, `{"<table>.html.csv": [[statements], [1/0 labels], caption]}`.
    TabfactStatements,
    /// One TabFact table: `#`-delimited CSV with a header line.
    TabfactCsv,
    /// A TabFact split list (`train_id.json` …): a JSON list of table file names.
    TabfactSplitIds,
    /// Table-BERT's TSV: `table_id n_cols columns linearized_table statement label`.
    TableBertTsv,
    /// MNLI/SNLI JSON lines (`sentence1`, `sentence2`, `gold_label`).
    NliJsonl,
    /// The probing paper's counterfactual pairs (`cf_training_anonymized.tsv`).
    TabprobeCounterfactualTsv,
    /// A TabPert table: like INFOTABS, each value an object `{"<value>": "<edit mask>"}`.
    TabpertTable,
    /// TabPert hypotheses (`table_id hypothesis label strategies table_rows`, CSV quoting).
    TabpertHypothesesTsv,
    /// Human relevant-row votes, CSV `table_id,hypothesis,annotator,votes`.
    RelevanceCsv,
    /// A zip archive of any of the above.
    Zip,
    /// Nothing tabprobe reads.
    Unrecognised,
}

impl Format {
    /// A short description a person reads in the import summary.
    pub fn describe(self) -> &'static str {
        match self {
            Format::ProductJson => "tabprobe dataset JSON",
            Format::InfotabsTable => "INFOTABS table JSON",
            Format::InfotabsSplitTsv => "INFOTABS split TSV",
            Format::InfotabsReasoningTsv => "INFOTABS reasoning-category TSV",
            Format::InfotabsValidationTsv => "INFOTABS validation TSV",
            Format::TabfactStatements => "TabFact statements JSON",
            Format::TabfactCsv => "TabFact table CSV",
            Format::TabfactSplitIds => "TabFact split id list",
            Format::TableBertTsv => "Table-BERT TSV",
            Format::NliJsonl => "MNLI/SNLI JSON lines",
            Format::TabprobeCounterfactualTsv => "probing-paper counterfactual pairs TSV",
            Format::TabpertTable => "TabPert table JSON",
            Format::TabpertHypothesesTsv => "TabPert hypotheses TSV",
            Format::RelevanceCsv => "relevant-row votes CSV",
            Format::Zip => "zip archive",
            Format::Unrecognised => "not recognised",
        }
    }
}

/// The formats a user can give, listed in the error for a file nothing recognises.
pub const EXPECTED_FORMATS: &str = "a tabprobe dataset JSON, INFOTABS table JSON / split, reasoning or validation TSV, TabFact statements JSON / `#`-delimited table CSV / *_id.json, Table-BERT TSV, MNLI/SNLI JSON lines, the probing paper's counterfactual TSV, TabPert tables / hypotheses, relevant-row votes CSV, or a zip of these";

/// What `name` with content `bytes` is. JSON is parsed to see its shape; use
/// [`detect_json`] when the value is already at hand.
pub fn detect(name: &str, bytes: &[u8]) -> Format {
    if is_zip(name, bytes) {
        return Format::Zip;
    }
    let Ok(text) = decode_text(name, bytes) else {
        return Format::Unrecognised;
    };
    if looks_like_json(text) {
        if looks_like_jsonl(name, text) {
            return Format::NliJsonl;
        }
        return match serde_json::from_str::<Value>(text) {
            Ok(v) => detect_json(name, &v),
            Err(_) if name.ends_with(".json") => Format::ProductJson,
            Err(_) => Format::Unrecognised,
        };
    }
    detect_text(name, text)
}

/// Zip by magic bytes (local header or the end record of an empty archive) or by name.
pub fn is_zip(name: &str, bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04")
        || bytes.starts_with(b"PK\x05\x06")
        || name.to_ascii_lowercase().ends_with(".zip")
}

/// The text starts (after white space) with `{` or `[`.
pub fn looks_like_json(text: &str) -> bool {
    matches!(text.trim_start().chars().next(), Some('{' | '['))
}

/// JSON lines: a `.jsonl` name, or a first line that is a whole object with `sentence2`.
pub fn looks_like_jsonl(name: &str, text: &str) -> bool {
    if name.ends_with(".jsonl") {
        return true;
    }
    let first = text.trim_start().lines().next().unwrap_or("");
    serde_json::from_str::<Value>(first)
        .ok()
        .and_then(|v| v.as_object().map(|o| o.contains_key("sentence2")))
        .unwrap_or(false)
}

/// What a parsed JSON document is, by its shape.
pub fn detect_json(name: &str, v: &Value) -> Format {
    match v {
        Value::Array(items) if items.iter().all(Value::is_string) => Format::TabfactSplitIds,
        Value::Object(map) => {
            if map.contains_key("format") || map.contains_key("examples") {
                return Format::ProductJson;
            }
            if map.contains_key("title") {
                let tabpert = map
                    .values()
                    .filter_map(Value::as_array)
                    .any(|a| a.first().is_some_and(Value::is_object));
                return if tabpert {
                    Format::TabpertTable
                } else {
                    Format::InfotabsTable
                };
            }
            let statements = !map.is_empty()
                && map.values().all(|x| {
                    x.as_array()
                        .and_then(|a| a.first())
                        .is_some_and(Value::is_array)
                });
            if statements {
                Format::TabfactStatements
            } else if name.ends_with(".json") && map.keys().any(|k| k.ends_with(".csv")) {
                // Keyed by table files but malformed: let the TabFact reader say where.
                Format::TabfactStatements
            } else {
                Format::Unrecognised
            }
        }
        _ => Format::Unrecognised,
    }
}

/// What a non-JSON text file is, from its first line and its name.
pub fn detect_text(name: &str, text: &str) -> Format {
    let header = text.lines().next().unwrap_or("").trim_end_matches('\r');
    let cols: Vec<&str> = header.split('\t').collect();
    let starts = |prefix: &[&str]| cols.len() >= prefix.len() && cols[..prefix.len()] == *prefix;
    if starts(&[
        "annotater_id",
        "table_id",
        "hypothesis",
        "label",
        "consensus",
    ]) {
        return Format::InfotabsReasoningTsv;
    }
    if cols == ["annotater_id", "table_id", "hypothesis", "label"] {
        return Format::InfotabsSplitTsv;
    }
    if starts(&["table_id", "hypothesis", "orignal_worker_id"]) {
        return Format::InfotabsValidationTsv;
    }
    if starts(&["s.no", "worker_id", "original_tableid"]) {
        return Format::TabprobeCounterfactualTsv;
    }
    if ["table_id", "hypothesis", "label", "table_rows"]
        .iter()
        .all(|c| cols.contains(c))
    {
        return Format::TabpertHypothesesTsv;
    }
    let csv_cols: Vec<&str> = header.split(',').map(str::trim).collect();
    if csv_cols.starts_with(&["table_id", "hypothesis"]) && csv_cols.contains(&"votes") {
        return Format::RelevanceCsv;
    }
    let lower = base_name(name).to_ascii_lowercase();
    if cols.len() == 6 && cols[1].parse::<usize>().is_ok() && matches!(cols[5], "0" | "1") {
        return Format::TableBertTsv;
    }
    if lower.ends_with(".csv") && (header.contains('#') || lower.ends_with(".html.csv")) {
        return Format::TabfactCsv;
    }
    Format::Unrecognised
}

/// Why a file nothing recognises is passed over, for the summary.
pub fn unrecognised_reason(name: &str) -> &'static str {
    let lower = base_name(name).to_ascii_lowercase();
    if lower.ends_with(".html") || lower.ends_with(".htm") {
        "HTML tables are not read (INFOTABS publishes T2245 only as HTML)"
    } else if lower.starts_with('.') || name.contains("__MACOSX") {
        "hidden or system file"
    } else if lower.ends_with(".md")
        || lower.ends_with(".txt")
        || lower.starts_with("license")
        || lower.starts_with("readme")
    {
        "documentation, not data"
    } else {
        "not a format tabprobe reads"
    }
}

/// The error for a set of inputs in which nothing was recognised, naming the first file.
pub fn nothing_recognised(first: &str) -> ImportError {
    ImportError::new(
        first,
        "line 1",
        format!("not a format tabprobe reads; expected {EXPECTED_FORMATS}"),
    )
}
