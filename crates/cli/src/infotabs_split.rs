//! INFOTABS splits as premise/hypothesis text pairs, for `tabprobe train-tokenizer`,
//! `tabprobe train` and `tabprobe evaluate`: the premise is a table through one of core's
//! linearizations, or empty (core's hypothesis-only premise mode, named `none`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use tabprobe_core::data::import::infotabs::{parse_split_tsv, parse_table};
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::{Label, Table};

use crate::io;

/// INFOTABS split names as the files spell them (`infotabs_<name>.tsv`).
pub const SPLITS: [&str; 5] = ["train", "dev", "test_alpha1", "test_alpha2", "test_alpha3"];

/// The premise a `--linearization` name gives (`none` or a strategy of core's), premise first.
pub fn parse_premise(name: &str) -> Result<LinearizeSettings, String> {
    LinearizeSettings::from_name(name).ok_or_else(|| {
        format!(
            "--linearization: unknown {name:?}; expected one of {}",
            LinearizeSettings::names().join(", ")
        )
    })
}

/// One INFOTABS pair as text.
#[derive(Debug, Clone, Serialize)]
pub struct TextPair {
    /// The premise text ("" for hypothesis-only).
    pub premise: String,
    /// The hypothesis.
    pub hypothesis: String,
    /// The gold label.
    pub label: Label,
}

/// Reads an INFOTABS split (`train`, `dev`, `test_alpha1`, …) as premise/hypothesis pairs,
/// linearizing every table once. `limit` keeps the first pairs in file order.
pub fn read_split(
    infotabs: &Path,
    split: &str,
    premise: LinearizeSettings,
    limit: Option<usize>,
) -> Result<Vec<TextPair>, String> {
    let path = infotabs.join(format!("maindata/infotabs_{split}.tsv"));
    let mut examples = parse_split_tsv(&path.display().to_string(), split, &io::read_text(&path)?)
        .map_err(|e| e.to_string())?;
    if let Some(n) = limit {
        examples.truncate(n);
    }
    let mut premises: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::with_capacity(examples.len());
    for e in examples {
        let text = match &e.table {
            // No table is read at all for a model that reads no premise.
            _ if premise.hypothesis_only() => String::new(),
            Some(id) => match premises.get(id) {
                Some(t) => t.clone(),
                None => {
                    let table_path = infotabs.join(format!("tables/json/{id}.json"));
                    let table = parse_table(
                        &table_path.display().to_string(),
                        id,
                        &io::read_text(&table_path)?,
                    )
                    .map_err(|e| e.to_string())?;
                    let t = premise
                        .premise_text(&Table::KeyValue(table))
                        .map_err(|e| format!("{}: {e}", table_path.display()))?;
                    premises.insert(id.clone(), t.clone());
                    t
                }
            },
            None => return Err(format!("{}: a pair has no table id", path.display())),
        };
        out.push(TextPair {
            premise: text,
            hypothesis: e.hypothesis,
            label: e.label,
        });
    }
    Ok(out)
}

/// Accuracy of one split next to the majority baseline.
#[derive(Debug, Serialize, serde::Deserialize)]
pub struct SplitResult {
    /// Split name.
    pub split: String,
    /// Pairs scored.
    pub pairs: usize,
    /// Fraction predicted right (argmax of the probabilities).
    pub accuracy: f64,
    /// Fraction of pairs whose gold label is train's most frequent label.
    pub majority_baseline: f64,
}
