//! TabFact as published (Chen et al., 2020): statements JSON keyed by table file,
//! `{"2-1859269-1.html.csv": [["statement", …], [1, 0, …], "caption"]}` (the raw
//! `collected_data/*.json` and the tokenized `tokenized_data/*.json` alike; the latter's entity
//! links `#text;row,col#` are reduced to `text`), one `#`-delimited CSV per table with a header
//! line (`data/all_csv/*.html.csv`, CRLF endings), and split lists (`data/{train,val,test}_id.json`,
//! JSON lists of table file names). Labels: 1 = ENTAILED, 0 = REFUTED.

use serde_json::Value;

use super::{numbered_lines, ImportError};
use crate::data::label::Label;
use crate::data::table::RelationalTable;

/// The statements about one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableStatements {
    /// The table file name, e.g. `2-1859269-1.html.csv` (the table id).
    pub table: String,
    /// The table's caption.
    pub caption: String,
    /// Each statement with its label, in file order.
    pub statements: Vec<(String, Label)>,
}

/// `$["<key>"]` with the key escaped as JSON.
fn key_path(key: &str) -> String {
    format!("$[{}]", Value::String(key.to_string()))
}

/// Reads a statements document (already parsed as JSON).
pub fn parse_statements(file: &str, root: &Value) -> Result<Vec<TableStatements>, ImportError> {
    let Value::Object(map) = root else {
        return Err(ImportError::new(
            file,
            "$",
            "expected an object keyed by table file name (`\"2-1859269-1.html.csv\": [[statements], [labels], caption]`)",
        ));
    };
    let mut out = Vec::with_capacity(map.len());
    for (table, entry) in map {
        let at = key_path(table);
        let parts = entry.as_array().filter(|a| a.len() >= 2).ok_or_else(|| {
            ImportError::new(
                file,
                &at,
                "expected a list [[statements], [labels], caption]",
            )
        })?;
        let texts = parts[0].as_array().ok_or_else(|| {
            ImportError::new(file, format!("{at}[0]"), "expected a list of statements")
        })?;
        let labels = parts[1].as_array().ok_or_else(|| {
            ImportError::new(file, format!("{at}[1]"), "expected a list of 1/0 labels")
        })?;
        if texts.len() != labels.len() {
            return Err(ImportError::new(
                file,
                &at,
                format!(
                    "expected one label per statement; found {} statements and {} labels",
                    texts.len(),
                    labels.len()
                ),
            ));
        }
        let caption = match parts.get(2) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(ImportError::new(
                    file,
                    format!("{at}[2]"),
                    "expected the caption as a string",
                ))
            }
        };
        let mut statements = Vec::with_capacity(texts.len());
        for (i, (t, l)) in texts.iter().zip(labels).enumerate() {
            let text = t.as_str().ok_or_else(|| {
                ImportError::new(file, format!("{at}[0][{i}]"), "expected a string")
            })?;
            let text = strip_entity_links(text);
            if text.trim().is_empty() {
                return Err(ImportError::new(
                    file,
                    format!("{at}[0][{i}]"),
                    "empty statement; expected the statement text",
                ));
            }
            let label = match l.as_i64() {
                Some(1) => Label::Entail,
                Some(0) => Label::Contradict,
                _ => {
                    return Err(ImportError::new(
                        file,
                        format!("{at}[1][{i}]"),
                        format!("unknown label {l}; expected 1 (ENTAILED) or 0 (REFUTED)"),
                    ))
                }
            };
            statements.push((text, label));
        }
        out.push(TableStatements {
            table: table.clone(),
            caption,
            statements,
        });
    }
    Ok(out)
}

/// Reduces TabFact's entity-link markup `#text;row,col#` to `text`; other `#` are kept.
pub fn strip_entity_links(s: &str) -> String {
    if !s.contains('#') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find('#') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let link = after.find('#').and_then(|end| {
            let inner = &after[..end];
            let (text, pos) = inner.rsplit_once(';')?;
            let (r, c) = pos.split_once(',')?;
            let num = |x: &str| {
                let x = x.strip_prefix('-').unwrap_or(x);
                !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit())
            };
            (num(r) && num(c)).then_some((text, end))
        });
        match link {
            Some((text, end)) => {
                out.push_str(text);
                rest = &after[end + 1..];
            }
            None => {
                out.push('#');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Reads one `#`-delimited table (`id` is its file name). The caption comes from the
/// statements file, so it is empty here.
pub fn parse_csv_table(file: &str, id: &str, text: &str) -> Result<RelationalTable, ImportError> {
    let mut lines = numbered_lines(text).filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(ImportError::new(
            file,
            "line 1",
            "empty file; expected a `#`-delimited header line",
        ));
    };
    let header: Vec<String> = header.split('#').map(str::to_string).collect();
    let mut rows = Vec::new();
    for (n, line) in lines {
        let cells: Vec<String> = line.split('#').map(str::to_string).collect();
        if cells.len() != header.len() {
            return Err(ImportError::new(
                file,
                format!("line {n}"),
                format!(
                    "expected {} `#`-separated cells (one per header column), found {}",
                    header.len(),
                    cells.len()
                ),
            ));
        }
        rows.push(cells);
    }
    Ok(RelationalTable {
        id: id.to_string(),
        caption: String::new(),
        header,
        rows,
    })
}

/// The split a list file names: `train_id.json` → `train`, `small_test_id.json` → `small_test`.
pub fn split_of_id_file(file: &str) -> String {
    let stem = super::stem(file);
    stem.strip_suffix("_id").unwrap_or(stem).to_string()
}

/// Reads a split list: a JSON list of table file names.
pub fn parse_split_ids(file: &str, root: &Value) -> Result<Vec<String>, ImportError> {
    let items = root
        .as_array()
        .ok_or_else(|| ImportError::new(file, "$", "expected a list of table file names"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_str().map(str::to_string).ok_or_else(|| {
                ImportError::new(
                    file,
                    format!("$[{i}]"),
                    "expected a table file name (string)",
                )
            })
        })
        .collect()
}

/// Priority of a split when a table is in several lists: the three main splits first (the
/// `small_test`/`simple_test`/`complex_test` lists are subsets of `test`).
pub fn split_rank(split: &str) -> usize {
    match split {
        "train" => 0,
        "val" => 1,
        "test" => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_links_reduce_to_their_text() {
        assert_eq!(
            strip_entity_links("#the wildcats;-1,-1# kept #2;3,4# points # here"),
            "the wildcats kept 2 points # here"
        );
        assert_eq!(strip_entity_links("no links"), "no links");
        assert_eq!(strip_entity_links("#a;b#"), "#a;b#");
    }
}
