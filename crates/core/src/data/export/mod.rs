//! Writing data out for other tools. The product's own JSON is [`crate::Dataset::to_json_pretty`];
//! this module adds the published formats other tools read: INFOTABS-style TSV for any example
//! set (perturbed ones included) with INFOTABS table JSON, and TabFact's `#`-delimited CSV.

pub mod infotabs_tsv;

pub use infotabs_tsv::{key_value_table_json, relational_table_csv, to_infotabs_tsv, TsvExport};
