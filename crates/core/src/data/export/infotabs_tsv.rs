//! INFOTABS-style TSV (`annotater_id table_id hypothesis label`, labels E/N/C, header row, no
//! quoting — the way the INFOTABS split files are written and read) for any set of examples,
//! and the tables in their published shapes.

use serde_json::{Map, Value};

use crate::data::dataset::Example;
use crate::data::label::Label;
use crate::data::table::{KeyValueTable, RelationalTable};

/// A TSV export and what could not go into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TsvExport {
    /// The TSV text, header first, `\n` line endings.
    pub text: String,
    /// Examples written.
    pub written: usize,
    /// Examples left out because they have a text premise rather than a table (INFOTABS TSV
    /// names a table).
    pub without_table: usize,
    /// Hypotheses whose tabs or line breaks were replaced by spaces (the format has no quoting).
    pub flattened: usize,
}

/// The INFOTABS TSV of `examples`. The annotator column is empty when unknown.
pub fn to_infotabs_tsv<'a>(examples: impl IntoIterator<Item = &'a Example>) -> TsvExport {
    let mut out = TsvExport {
        text: "annotater_id\ttable_id\thypothesis\tlabel\n".to_string(),
        written: 0,
        without_table: 0,
        flattened: 0,
    };
    for e in examples {
        let Some(table) = &e.table else {
            out.without_table += 1;
            continue;
        };
        let (hypothesis, changed) = flatten(&e.hypothesis);
        let (annotator, _) = flatten(e.annotator.as_deref().unwrap_or(""));
        let (table, _) = flatten(table);
        out.flattened += usize::from(changed);
        let label = match e.label {
            Label::Entail => "E",
            Label::Neutral => "N",
            Label::Contradict => "C",
        };
        out.text
            .push_str(&format!("{annotator}\t{table}\t{hypothesis}\t{label}\n"));
        out.written += 1;
    }
    out
}

/// Tabs and line breaks → spaces; whether anything changed.
fn flatten(s: &str) -> (String, bool) {
    if s.contains(['\t', '\n', '\r']) {
        (s.replace(['\t', '\n', '\r'], " "), true)
    } else {
        (s.to_string(), false)
    }
}

/// A key–value table as an INFOTABS table file, `{"title": [...], "<key>": [...]}`.
pub fn key_value_table_json(t: &KeyValueTable) -> String {
    let mut map = Map::new();
    map.insert("title".into(), Value::from(vec![t.title.clone()]));
    for r in &t.rows {
        map.insert(r.key.clone(), Value::from(r.values.clone()));
    }
    Value::Object(map).to_string()
}

/// A relational table as a TabFact CSV: `#`-delimited, header line, `\n` endings. `#` inside a
/// cell (which the format cannot hold) becomes a space.
pub fn relational_table_csv(t: &RelationalTable) -> String {
    let line = |cells: &[String]| {
        cells
            .iter()
            .map(|c| c.replace(['#', '\n', '\r'], " "))
            .collect::<Vec<_>>()
            .join("#")
    };
    let mut out = line(&t.header);
    out.push('\n');
    for r in &t.rows {
        out.push_str(&line(r));
        out.push('\n');
    }
    out
}
