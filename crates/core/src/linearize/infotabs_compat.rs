//! The INFOTABS-code-compatible paragraph: the exact text `scripts/preprocess/json_to_para.py`
//! (utahnlp/infotabs-code at commit d405cbb4f3de422a81c49068e9796ae225dcaa87) wrote for each
//! table, because published INFOTABS models were trained on it. Each quirk is reproduced on
//! purpose and named where it happens.

use super::{find_iso_date, is_valid_iso_date, LinearizeError, PremiseUnits};
use crate::data::table::KeyValueTable;

/// The reference paragraph for a key–value table, byte for byte.
///
/// Quirks kept: the plural test (`inflect.plural_noun(key)`) is truthy for every non-empty
/// key, so the verb is always `are` (only an empty key with one value takes `is`); every
/// sentence ends with `". "`, including the last; values and keys are used as stored; the
/// ISO-date rule looks at the concatenation of all values; a two-valued row reads
/// `a, and b`. The title is the table's title, which the INFOTABS importer takes from the
/// first entry of the file's `title` list, as the script does (`data["title"][0]`).
pub fn infotabs_compat_paragraph(table: &KeyValueTable) -> Result<String, LinearizeError> {
    Ok(infotabs_compat_units(table)?.text)
}

/// [`infotabs_compat_paragraph`] with each row's sentence as a unit (its `". "` separator
/// outside the unit, so the units end with the sentence's period).
pub fn infotabs_compat_units(table: &KeyValueTable) -> Result<PremiseUnits, LinearizeError> {
    let title = table.title.as_str();
    let mut sentences = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let key = row.key.as_str();
        let values = &row.values;
        let Some(last) = values.last() else {
            return Err(LinearizeError::EmptyRow {
                table: table.id.clone(),
                key: key.to_string(),
            });
        };
        // `inflect.plural_noun("")` returns "" (falsy); any other key gets a plural form.
        let plural_test = !key.is_empty();
        let sentence = if values.len() > 1 || plural_test {
            let joined: String = values.concat();
            let mut s = if date_in(table, key, &joined)? {
                format!("{title} was {key} on ")
            } else {
                format!("The {key} of {title} are ")
            };
            for v in &values[..values.len() - 1] {
                s.push_str(v);
                s.push_str(", ");
            }
            if values.len() > 1 {
                s.push_str("and ");
            }
            s.push_str(last);
            s.push('.');
            s
        } else if date_in(table, key, last)? {
            format!("{title} was {key} on {last}.")
        } else {
            format!("The {key} of {title} is {last}.")
        };
        sentences.push(sentence);
    }
    // The script appends ". " after every sentence: "." ends each unit, " " joins them and
    // follows the last.
    Ok(PremiseUnits::joined(&sentences, " ", " "))
}

/// `is_date` of the script: the first `\d{4}-\d{2}-\d{2}` match decides; a match that is not
/// a real date made the script crash, which we report instead.
fn date_in(table: &KeyValueTable, key: &str, text: &str) -> Result<bool, LinearizeError> {
    match find_iso_date(text) {
        None => Ok(false),
        Some(d) if is_valid_iso_date(d) => Ok(true),
        Some(d) => Err(LinearizeError::InvalidIsoDate {
            table: table.id.clone(),
            key: key.to_string(),
            text: d.to_string(),
        }),
    }
}
