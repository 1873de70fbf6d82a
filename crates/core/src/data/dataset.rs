//! The product's dataset JSON, version 1 (docs/data-formats.md#the-dataset-json): tables of both shapes and examples that
//! refer to them (or carry a plain-text premise). `validate` turns text into these types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::data::label::{Label, LabelSet};
use crate::data::review::Review;
use crate::data::table::Table;

/// The value of the `format` field that marks a tabprobe dataset.
pub const FORMAT_MARKER: &str = "tabprobe-dataset";
/// The dataset format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// A whole dataset: what the site loads and the CLI writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "tabprobe dataset, version 1")]
pub struct Dataset {
    /// Always `"tabprobe-dataset"`.
    #[schemars(extend("const" = "tabprobe-dataset"))]
    pub format: String,
    /// Always `1` for this version of the format.
    #[schemars(extend("const" = 1))]
    pub version: u32,
    /// A short name shown in the site's header.
    #[serde(default)]
    pub name: String,
    /// Free text: where the data comes from, its licence, how it was built.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Which labels the examples use (default: three-way).
    #[serde(default)]
    pub label_set: LabelSet,
    /// The tables examples refer to by `id`.
    #[serde(default)]
    pub tables: Vec<Table>,
    /// Premise/hypothesis/label triples.
    #[serde(default)]
    pub examples: Vec<Example>,
    /// Reviewers' decisions on generated probe items (accept with a label, or reject), keyed
    /// by the stable item id `<example id>/<probe>/<n>`; applied whenever a probe set is built.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reviews: Vec<Review>,
}

/// One NLI example: a table (by id) or a plain-text premise, a hypothesis and a gold label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// Unique within the dataset when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The id of the table that is the premise. Exactly one of `table` and `premise` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// A plain-text premise (MNLI/SNLI style). Exactly one of `table` and `premise` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub premise: Option<String>,
    /// The hypothesis; must not be empty.
    pub hypothesis: String,
    /// The gold label.
    pub label: Label,
    /// e.g. `train`, `dev`, `alpha1`, `alpha2`, `alpha3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// Human-annotated evidence rows: 0-based indices into the table's rows (§5.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevant_rows: Option<Vec<usize>>,
    /// Each annotator's relevant-row ballot, when the votes were imported (§5.2):
    /// `relevant_rows` is their strict majority; the ballots give the agreement figures
    /// (Fleiss' κ, the share of examples where ≥ 3 annotators marked the same rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance_votes: Option<Vec<RelevanceBallot>>,
    /// Reasoning categories (INFOTABS' and TaxiNLI's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// Who wrote the hypothesis (INFOTABS annotator id), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotator: Option<String>,
    /// For a perturbed example shipped with a dataset: the id of the example it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_from: Option<String>,
    /// For a perturbed example: the operation that made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

impl Example {
    /// An example of `split` with an id, a hypothesis and a gold label, and nothing else yet:
    /// the caller sets its table or premise (and whatever else its format carries).
    pub fn plain(id: String, hypothesis: String, label: Label, split: &str) -> Example {
        Example {
            id: Some(id),
            table: None,
            premise: None,
            hypothesis,
            label,
            split: Some(split.to_string()),
            relevant_rows: None,
            relevance_votes: None,
            categories: Vec::new(),
            annotator: None,
            derived_from: None,
            operation: None,
        }
    }
}

/// One annotator's relevant-row ballot for one example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelevanceBallot {
    /// Who voted, as named in the votes file.
    pub annotator: String,
    /// The rows this annotator marked relevant: 0-based indices into the table's rows.
    pub rows: Vec<usize>,
}

impl Dataset {
    /// An empty dataset with the current format marker and version.
    pub fn new(name: impl Into<String>) -> Dataset {
        Dataset {
            format: FORMAT_MARKER.to_string(),
            version: FORMAT_VERSION,
            name: name.into(),
            description: String::new(),
            label_set: LabelSet::ThreeWay,
            tables: Vec::new(),
            examples: Vec::new(),
            reviews: Vec::new(),
        }
    }

    /// The table with this id, if any.
    pub fn table(&self, id: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.id() == id)
    }

    /// Pretty JSON, as written to disk and exported from the site.
    pub fn to_json_pretty(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }
}
