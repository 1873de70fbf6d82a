//! TabPert as published (Jain et al., 2021; `utahnlp/tabpert`, `final_dataset/`): tables like
//! INFOTABS' but with every value an object `{"<value>": "<edit mask>"}`, and hypotheses TSVs
//! with CSV quoting: `[index] table_id hypothesis label strategies table_rows`, where
//! `table_rows` is a Python list literal of the row keys annotators marked relevant
//! (`['Died', 'Born']`). A few label cells are empty; those rows are skipped.

use serde_json::Value;

use super::ImportError;
use crate::data::label::Label;
use crate::data::table::{KeyValueRow, KeyValueTable};

/// Reads a TabPert table (already parsed as JSON). `id` is the file stem, e.g. `T1464A`.
pub fn parse_table(file: &str, id: &str, root: &Value) -> Result<KeyValueTable, ImportError> {
    let Value::Object(map) = root else {
        return Err(ImportError::new(
            file,
            "$",
            "expected an object of key → list of {value: mask} objects",
        ));
    };
    let mut title = None;
    let mut rows = Vec::new();
    for (key, value) in map {
        let at = format!("$[{}]", Value::String(key.clone()));
        let items = value
            .as_array()
            .ok_or_else(|| ImportError::new(file, &at, "expected a list"))?;
        let mut values = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => values.push(s.clone()),
                Value::Object(o) => values.extend(o.keys().cloned()),
                _ => {
                    return Err(ImportError::new(
                        file,
                        format!("{at}[{i}]"),
                        "expected a string or an object {\"<value>\": \"<edit mask>\"}",
                    ))
                }
            }
        }
        if key == "title" {
            // The INFOTABS script takes `data["title"][0]`: the first entry names the table
            // (published INFOTABS models read that title in every sentence).
            title = Some(values.into_iter().next().unwrap_or_default());
        } else {
            rows.push(KeyValueRow {
                key: key.clone(),
                values,
            });
        }
    }
    let title = title.ok_or_else(|| {
        ImportError::new(
            file,
            "$.title",
            "missing; TabPert tables have a \"title\" entry",
        )
    })?;
    Ok(KeyValueTable {
        id: id.to_string(),
        title,
        rows,
    })
}

/// One TabPert hypothesis row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabpertRow {
    /// 1-based line where the record starts.
    pub line: usize,
    /// The (perturbed) table id, e.g. `T1464A`.
    pub table: String,
    /// The hypothesis.
    pub hypothesis: String,
    /// The label; `None` when the cell is empty (a known quirk of the release).
    pub label: Option<Label>,
    /// The keys of the rows annotators marked relevant; `None` when the cell is not a list
    /// literal (the release has a few cut off, e.g. `['President'`).
    pub relevant_keys: Option<Vec<String>>,
}

/// Reads a TabPert hypotheses TSV (CSV quoting, header naming at least `table_id hypothesis
/// label table_rows`).
pub fn parse_hypotheses(file: &str, text: &str) -> Result<Vec<TabpertRow>, ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| ImportError::new(file, "line 1", format!("cannot read the header: {e}")))?
        .clone();
    let col = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            ImportError::new(
                file,
                "line 1",
                format!("expected a column {name:?} (table_id, hypothesis, label, table_rows)"),
            )
        })
    };
    let (c_table, c_hyp, c_label, c_rows) = (
        col("table_id")?,
        col("hypothesis")?,
        col("label")?,
        col("table_rows")?,
    );
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            ImportError::new(file, format!("line {line}"), format!("malformed row: {e}"))
        })?;
        let line = record.position().map(|p| p.line() as usize).unwrap_or(0);
        let at = format!("line {line}");
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let cell = |i: usize| record.get(i).unwrap_or("");
        if record.len() != header.len() {
            return Err(ImportError::new(
                file,
                at,
                format!("expected {} columns, found {}", header.len(), record.len()),
            ));
        }
        let label = match cell(c_label).trim() {
            "" => None,
            l => Some(Label::from_alias(l).ok_or_else(|| {
                ImportError::new(
                    file,
                    &at,
                    format!("unknown label {l:?}; expected E, N or C"),
                )
            })?),
        };
        let relevant_keys = parse_python_list(cell(c_rows));
        out.push(TabpertRow {
            line,
            table: cell(c_table).to_string(),
            hypothesis: cell(c_hyp).to_string(),
            label,
            relevant_keys,
        });
    }
    Ok(out)
}

/// Reads a Python list literal of strings, `['a', "b's"]` (or NumPy's `['a' 'b']`); an empty
/// cell is an empty list.
/// Backslash escapes are taken literally except `\\'`, `\\"` and `\\\\`.
pub fn parse_python_list(s: &str) -> Option<Vec<String>> {
    let s = s.trim();
    if s.is_empty() {
        return Some(Vec::new());
    }
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(quote) = chars.next() else {
            return Some(out);
        };
        if quote != '\'' && quote != '"' {
            return None;
        }
        let mut item = String::new();
        loop {
            match chars.next()? {
                '\\' => match chars.next()? {
                    c @ ('\'' | '"' | '\\') => item.push(c),
                    c => {
                        item.push('\\');
                        item.push(c);
                    }
                },
                c if c == quote => break,
                c => item.push(c),
            }
        }
        out.push(item);
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        // Items are separated by a comma (Python) or by white space alone (NumPy's repr,
        // which some TabPert rows have: `['Birth name' 'Born']`).
        if chars.peek() == Some(&',') {
            chars.next();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_lists() {
        assert_eq!(
            parse_python_list("['Died', 'Born']"),
            Some(vec!["Died".to_string(), "Born".to_string()])
        );
        assert_eq!(
            parse_python_list(r#"["Author's note", 'a\'b']"#),
            Some(vec!["Author's note".to_string(), "a'b".to_string()])
        );
        assert_eq!(parse_python_list("[]"), Some(vec![]));
        assert_eq!(parse_python_list(""), Some(vec![]));
        assert_eq!(
            parse_python_list("['Birth name' 'Born']"),
            Some(vec!["Birth name".to_string(), "Born".to_string()])
        );
        assert_eq!(parse_python_list("['a' b]"), None);
        assert_eq!(parse_python_list("Died"), None);
    }
}
