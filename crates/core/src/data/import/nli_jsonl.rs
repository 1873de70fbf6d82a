//! MNLI/SNLI JSON lines as published: one object per line with `sentence1` (premise),
//! `sentence2` (hypothesis) and `gold_label` (`entailment`/`neutral`/`contradiction`; `-` when
//! the annotators had no majority — such lines are skipped and counted). `pairID` becomes the
//! example id when present.

use serde_json::Value;

use super::{numbered_lines, ImportError};
use crate::data::dataset::Example;
use crate::data::label::Label;

/// The examples read and the lines skipped for a `-` gold label.
#[derive(Debug, Clone, PartialEq)]
pub struct NliLines {
    /// Examples with a text premise and the given split.
    pub examples: Vec<Example>,
    /// 1-based lines whose gold label was `-`.
    pub no_majority: Vec<usize>,
}

/// Reads JSON lines into examples of `split`.
pub fn parse(file: &str, split: &str, text: &str) -> Result<NliLines, ImportError> {
    let mut out = NliLines {
        examples: Vec::new(),
        no_majority: Vec::new(),
    };
    for (n, line) in numbered_lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("line {n}");
        let v: Value = serde_json::from_str(line).map_err(|e| {
            ImportError::new(
                file,
                format!("line {n}, column {}", e.column()),
                format!(
                    "not valid JSON: {}; expected one JSON object per line",
                    super::json_message(&e)
                ),
            )
        })?;
        let field = |key: &str| -> Result<&str, ImportError> {
            v.get(key).and_then(Value::as_str).ok_or_else(|| {
                ImportError::new(
                    file,
                    format!("{at}, $.{key}"),
                    format!("expected \"{key}\" (a string)"),
                )
            })
        };
        let premise = field("sentence1")?;
        let hypothesis = field("sentence2")?;
        let gold = field("gold_label")?;
        if gold == "-" {
            out.no_majority.push(n);
            continue;
        }
        let label = Label::from_alias(gold).ok_or_else(|| {
            ImportError::new(
                file,
                format!("{at}, $.gold_label"),
                format!("unknown label {gold:?}; expected entailment, neutral, contradiction or -"),
            )
        })?;
        if hypothesis.trim().is_empty() {
            return Err(ImportError::new(
                file,
                format!("{at}, $.sentence2"),
                "empty hypothesis; expected the hypothesis text",
            ));
        }
        if premise.trim().is_empty() {
            return Err(ImportError::new(
                file,
                format!("{at}, $.sentence1"),
                "empty premise; expected the premise text",
            ));
        }
        let id = v
            .get("pairID")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("{split}-{n}"));
        let mut e = Example::plain(id, hypothesis.to_string(), label, split);
        e.premise = Some(premise.to_string());
        out.examples.push(e);
    }
    Ok(out)
}
