//! INFOTABS' "table as a paragraph" (Gupta et al. 2020, §2 of the main paper), as docs/data-formats.md#linearization
//! states it: `The <key> of <title> is <value>.`, `… are <v1>, <v2>, and <vn>.`, and
//! `<title> was <key> on <value>.` for ISO dates. Relational tables get one sentence per record.

use super::{find_iso_date, PremiseUnits};
use crate::data::table::{KeyValueTable, RelationalTable, Table};

/// The clean paragraph of either table shape. Sentences are separated by one space, with no
/// trailing space; values are trimmed; rows with no (non-empty) value are skipped.
pub fn paragraph(table: &Table) -> String {
    paragraph_units(table).text
}

/// [`paragraph`] with each sentence (one per row, or per record) as a unit.
pub fn paragraph_units(table: &Table) -> PremiseUnits {
    let sentences = match table {
        Table::KeyValue(t) => key_value_sentences(t),
        Table::Relational(t) => relational_sentences(t),
    };
    PremiseUnits::joined(&sentences, " ", "")
}

/// `a`, `a and b`, `a, b, and c`.
pub(crate) fn english_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [a] => (*a).to_string(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}

fn key_value_sentences(t: &KeyValueTable) -> Vec<String> {
    let title = t.title.trim();
    let mut sentences = Vec::new();
    for row in &t.rows {
        let key = row.key.trim();
        let values: Vec<&str> = row
            .values
            .iter()
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .collect();
        if values.is_empty() {
            continue;
        }
        let list = english_list(&values);
        let sentence = if values.iter().any(|v| find_iso_date(v).is_some()) {
            format!("{title} was {key} on {list}.")
        } else if values.len() == 1 {
            format!("The {key} of {title} is {list}.")
        } else {
            format!("The {key} of {title} are {list}.")
        };
        sentences.push(sentence);
    }
    sentences
}

/// One sentence per record: `In row 1 of <caption>, the <col> is <cell> and the <col> is <cell>.`
fn relational_sentences(t: &RelationalTable) -> Vec<String> {
    let caption = t.caption.trim();
    let mut sentences = Vec::new();
    for (i, record) in t.rows.iter().enumerate() {
        let parts: Vec<String> = t
            .header
            .iter()
            .zip(record)
            .filter(|(_, c)| !c.trim().is_empty())
            .map(|(h, c)| format!("the {} is {}", h.trim(), c.trim()))
            .collect();
        if parts.is_empty() {
            continue;
        }
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        sentences.push(format!(
            "In row {} of {caption}, {}.",
            i + 1,
            english_list(&refs)
        ));
    }
    sentences
}
