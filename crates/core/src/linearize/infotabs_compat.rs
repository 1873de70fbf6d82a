//! The INFOTABS-code-compatible paragraph: the exact text `scripts/preprocess/json_to_para.py`
//! (utahnlp/infotabs-code) wrote for each table, because published INFOTABS models were
//! trained on it. Each quirk is reproduced on purpose and named where it happens.

use super::{find_iso_date, is_valid_iso_date, LinearizeError};
use crate::table::KeyValueTable;

/// The reference paragraph for a key–value table, byte for byte.
///
/// Quirks kept: the plural test (`inflect.plural_noun(key)`) is truthy for every non-empty
/// key, so the verb is always `are` (only an empty key with one value takes `is`); every
/// sentence ends with `". "`, including the last; values and keys are used as stored; the
/// ISO-date rule looks at the concatenation of all values; a two-valued row reads
/// `a, and b`.
pub fn infotabs_compat_paragraph(table: &KeyValueTable) -> Result<String, LinearizeError> {
    let title = table.title.as_str();
    let mut para = String::new();
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
        if values.len() > 1 || plural_test {
            let joined: String = values.concat();
            if date_in(table, key, &joined)? {
                para.push_str(&format!("{title} was {key} on "));
            } else {
                para.push_str(&format!("The {key} of {title} are "));
            }
            for v in &values[..values.len() - 1] {
                para.push_str(v);
                para.push_str(", ");
            }
            if values.len() > 1 {
                para.push_str("and ");
            }
            para.push_str(last);
            para.push_str(". ");
        } else if date_in(table, key, last)? {
            para.push_str(&format!("{title} was {key} on {last}. "));
        } else {
            para.push_str(&format!("The {key} of {title} is {last}. "));
        }
    }
    Ok(para)
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
