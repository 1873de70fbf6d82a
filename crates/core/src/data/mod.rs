//! The dataset, the pipeline's first stage: the product's JSON format (docs/data-formats.md#the-dataset-json) and its
//! validation, tables and labels, the counts a person reads first, and the importers and
//! exporters of published formats.

pub mod dataset;
pub mod export;
pub mod import;
pub mod json;
pub mod label;
pub mod review;
pub mod schema;
pub mod summary;
pub mod table;
pub mod validate;
