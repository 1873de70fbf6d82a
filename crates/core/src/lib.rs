//! tabprobe's pure core: the dataset format and its validation, importers, and (in later
//! modules) probes and metrics. No web APIs and no tensors live here, so everything is
//! testable natively and gives the same result in the browser.

pub mod align;
pub mod counterfactual;
pub mod dataset;
pub mod edit;
pub mod export;
pub mod glossary;
pub mod import;
pub mod inoculation;
pub mod json;
pub mod label;
pub mod linearize;
pub mod metrics;
pub mod models_manifest;
pub mod pace;
pub mod probe;
pub mod report;
pub mod review;
pub mod rng;
pub mod rules;
pub mod run;
pub mod schema;
pub mod score_plot;
pub mod scoring;
pub mod sentences;
pub mod shard;
pub mod share;
pub mod summary;
pub mod table;
pub mod transitions;
pub mod validate;
pub mod wordorder;

pub use dataset::{Dataset, Example, FORMAT_MARKER, FORMAT_VERSION};
pub use label::{Label, LabelSet};
pub use table::{KeyValueRow, KeyValueTable, RelationalTable, Table};
pub use validate::{parse_dataset, DatasetError, Problem, ProblemKind};
