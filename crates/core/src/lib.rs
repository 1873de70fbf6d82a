//! tabprobe's pure core: everything between a dataset file and a report, with no web APIs and
//! no tensors, so it is testable natively and gives the same bytes in the browser.
//!
//! The modules follow the pipeline, one room per stage:
//!
//! | stage | module | holds |
//! |---|---|---|
//! | 1. data | [`data`] | the dataset format and its validation, tables, labels, summaries, importers ([`data::import`]) and exporters |
//! | 2. premise text | [`linearize`] | how a table (or a plain premise) becomes the text a model reads, and its sentence units |
//! | 3. probes | [`probe`] | probe items and probe sets, validity rules ([`probe::rules`]), review states, counterfactual tables, word-order permutations |
//! | 4. editing | [`edit`] | the editor's and rewriter's pure logic: drafts, history, diffs, hand-made examples |
//! | 5. running | [`run`] | the step-wise run and its file, shards, pace, aligning runs, the bundled models' manifest |
//! | 6. metrics | [`metrics`] | every figure: transitions, invalid tables, scores, evidence, word order, Table 8, agreement |
//! | 7. report | [`report`] | the paper-style sections (one file each in `report/sections/`) with their item selectors, the drawn figures, the score plot, the glossary |
//! | 8. sharing | [`share`] | share links for one probe result |
//! | 9. inoculation | [`inoculation`] | fine-tuning plans, progress and Tables 9–12 |
//! | — | [`checkpoint`] | a Hugging Face checkpoint folder's files: one type and one rule for the page, the worker and the CLI |
//! | — | [`scoring`] | the seam to the model crate: pairs, scores, the `PairScorer` trait (docs/ARCHITECTURE.md#the-seam-between-core-and-model) |
//! | — | [`rng`] | the one seeded random generator |
//! | — | [`probe_kind`] | which probe made an item: the probes' names, for the dataset's reviews as for probe sets and run files |
//! | — | [`display`] | how names and sizes read to people |
//!
//! A stage's code uses only the stages above it and the unnumbered modules, never a later
//! stage: the dataset keeps reviewers' decisions keyed by item id, so the item id's format
//! ([`data::review::item_id`]) is the dataset's and the probes' names are unnumbered; what
//! reviews do to probe sets is [`probe::review`]'s. `tests/architecture/stages.test.mjs` reads
//! this table and fails on a `crate::` path that names a later stage.

#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod data;
pub mod display;
pub mod edit;
pub mod inoculation;
pub mod linearize;
pub mod metrics;
pub mod probe;
pub mod probe_kind;
pub mod report;
pub mod rng;
pub mod run;
pub mod scoring;
pub mod share;

pub use data::dataset::{Dataset, Example, FORMAT_MARKER, FORMAT_VERSION};
pub use data::label::{Label, LabelSet};
pub use data::table::{KeyValueRow, KeyValueTable, RelationalTable, Table};
pub use data::validate::{parse_dataset, DatasetError, Problem, ProblemKind};
