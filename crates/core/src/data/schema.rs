//! The JSON Schema of the dataset format, generated from the Rust types so it cannot drift.
//! The site serves it at `schema/dataset-v1.json`; a test checks the committed copy is current.

use crate::data::dataset::Dataset;

/// The JSON Schema (draft 2020-12) of dataset format version 1, pretty-printed.
pub fn dataset_schema_json() -> Result<String, serde_json::Error> {
    let schema = schemars::schema_for!(Dataset);
    serde_json::to_string_pretty(&schema).map(|mut s| {
        s.push('\n');
        s
    })
}
