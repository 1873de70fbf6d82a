//! Probes (docs/probes-and-metrics.md#probes): controlled edits of a table or a hypothesis whose correct effect on the
//! label is known. Every item records the operation, what changed, the expectation and
//! whether that expectation is certain or heuristic.

pub mod basis;
pub mod build;
pub mod counterfactual;
pub mod describe;
pub mod edit_table;
pub mod hypothesis;
pub mod permutation;
pub mod phrase;
pub mod relevance;
pub mod review;
pub mod rules;
mod scope;
mod sentence;
pub mod table_probes;
pub mod word_order;
pub mod words;

use serde::{Deserialize, Serialize};

use crate::data::label::Label;
use crate::data::table::Table;
use crate::probe::review::ReviewState;
use crate::probe::rules::Operation;
use crate::probe_kind::ProbeKind;

pub use basis::Basis;
pub use build::{build_probe_set, Caps, ProbeCounts, ProbeError, ProbeSet, ProbeSettings};

/// What the premise is: a table, plain text, or nothing (hypothesis only / premise removed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Premise {
    /// A table, linearized with the run's strategy.
    Table(Table),
    /// Plain text (MNLI/SNLI, or a word-permuted linearization).
    Text(String),
    /// No premise: the model sees an empty first segment.
    Empty,
}

/// A premise with its hypothesis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeInput {
    /// The premise.
    pub premise: Premise,
    /// The hypothesis.
    pub hypothesis: String,
}

/// What a probe changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Edit {
    /// Rows deleted (0-based indices into the original rows) and their keys.
    RowsDeleted {
        /// Deleted row indices, ascending.
        rows: Vec<usize>,
        /// Their keys (relational tables: the record's first cell).
        keys: Vec<String>,
    },
    /// A row appended: a new key (or, for a relational table, a record) from another table.
    RowInserted {
        /// Position of the new row in the perturbed table.
        at: usize,
        /// The new key (relational: the record's first cell).
        key: String,
        /// Its values (relational: the record's cells).
        values: Vec<String>,
        /// The table it was taken from.
        from_table: String,
    },
    /// One value (relational: one cell) replaced by a same-key (same-column) value elsewhere.
    ValueUpdated {
        /// Row index.
        row: usize,
        /// The key (relational: the column name).
        key: String,
        /// Index of the value within the row (relational: the column index).
        value_index: usize,
        /// Value before.
        before: String,
        /// Value after.
        after: String,
        /// The table the new value came from.
        from_table: String,
    },
    /// Rows reordered: `order[i]` is the original index of the row now at position `i`.
    RowsPermuted {
        /// The new order.
        order: Vec<usize>,
    },
    /// A row deleted, then a row with a new key appended.
    DeletedThenInserted {
        /// Deleted row index.
        deleted_row: usize,
        /// Deleted key.
        deleted_key: String,
        /// Inserted key.
        inserted_key: String,
        /// Inserted values.
        values: Vec<String>,
        /// Where the inserted row came from.
        from_table: String,
    },
    /// The premise was removed.
    PremiseRemoved,
    /// A span of the hypothesis replaced (byte offsets into the original hypothesis; an
    /// insertion has `start == end`).
    HypothesisSpan {
        /// Start byte.
        start: usize,
        /// End byte (exclusive).
        end: usize,
        /// The span's text before.
        before: String,
        /// Its replacement.
        after: String,
    },
    /// The table's title replaced by another table's, and the hypothesis's title expression.
    TitleSwapped {
        /// Title before.
        before: String,
        /// Title after.
        after: String,
        /// The table the title came from.
        from_table: String,
    },
    /// Rows' values moved into another table, the hypothesis moved with them.
    RowsSwapped {
        /// The keys whose values moved.
        keys: Vec<String>,
        /// The table that received them (the perturbed premise is that table, edited).
        other_table: String,
        /// The hypothesis's title expression before.
        title_before: String,
        /// …and after.
        title_after: String,
    },
    /// A counterfactual example shipped with the dataset.
    Counterfactual {
        /// Its example id.
        example: String,
    },
    /// Words permuted: per-sentence orders (`order[i]` = original index of the word now at `i`).
    WordsPermuted {
        /// What was permuted.
        target: word_order::PermutationTarget,
        /// The hypothesis's order, when permuted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hypothesis_order: Option<Vec<usize>>,
        /// Each premise sentence's order, when permuted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        premise_orders: Option<Vec<Vec<usize>>>,
        /// BLEU-2 of the permuted hypothesis (or premise, when only it is permuted).
        bleu2: f64,
    },
}

/// What a correct model does on the perturbed input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Expectation {
    /// Judge the model's own `before → after` transition by the run's rule for `operation`.
    Transition {
        /// The rule's operation.
        operation: Operation,
    },
    /// The perturbed input's label is one of `labels` (usually one).
    Label {
        /// Acceptable labels for the perturbed input.
        labels: Vec<Label>,
    },
}

/// Whether an expectation follows from the rule, or needs a person to check it (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Certainty {
    /// Follows from the rule.
    Certain,
    /// Likely but not guaranteed; marked for review.
    Heuristic,
}

/// One perturbed example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredProbeItem")]
pub struct ProbeItem {
    /// Stable id: `<example id>/<probe>/<n>`.
    pub id: String,
    /// Index into [`ProbeSet::examples`].
    pub example: usize,
    /// The probe that made it.
    pub probe: ProbeKind,
    /// What changed.
    pub edit: Edit,
    /// The perturbed input.
    pub perturbed: ProbeInput,
    /// What a correct model does.
    pub expectation: Expectation,
    /// Certain or heuristic, as generated.
    pub certainty: Certainty,
    /// Why it is certain, or what a reviewer has to decide (absent in run files written
    /// before items carried it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<Basis>,
    /// Where review stands: generated as certain or heuristic-unreviewed, then accepted or
    /// rejected by the dataset's reviews (see [`crate::probe::review`]). Score tables read this, not
    /// `certainty`.
    pub review: ReviewState,
    /// Index of the original pair in [`ProbeSet::pairs`].
    pub original_pair: usize,
    /// Index of the perturbed pair in [`ProbeSet::pairs`].
    pub perturbed_pair: usize,
    /// Index of the perturbed hypothesis with an empty premise in [`ProbeSet::pairs`] (the
    /// hypothesis-only view, when `settings.hypothesis_only_items`, or a second model's
    /// hypothesis-only score after [`crate::run::RunResult::with_hypothesis_model`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypothesis_only_pair: Option<usize>,
}

impl ProbeItem {
    /// The labels the item is scored against: the reviewer's label for an accepted item,
    /// the generated expectation's otherwise; `None` for items judged by a transition rule.
    pub fn scored_labels(&self) -> Option<Vec<Label>> {
        match (&self.review, &self.expectation) {
            (ReviewState::Accepted { label }, _) => Some(vec![*label]),
            (_, Expectation::Label { labels }) => Some(labels.clone()),
            (_, Expectation::Transition { .. }) => None,
        }
    }
}

/// A [`ProbeItem`] as read from a file: run files written before review states existed lack
/// `review`, which then follows from `certainty` (heuristic reads as heuristic-unreviewed).
#[derive(Deserialize)]
struct StoredProbeItem {
    id: String,
    example: usize,
    probe: ProbeKind,
    edit: Edit,
    perturbed: ProbeInput,
    expectation: Expectation,
    certainty: Certainty,
    #[serde(default)]
    basis: Option<Basis>,
    #[serde(default)]
    review: Option<ReviewState>,
    original_pair: usize,
    perturbed_pair: usize,
    #[serde(default)]
    hypothesis_only_pair: Option<usize>,
}

impl From<StoredProbeItem> for ProbeItem {
    fn from(s: StoredProbeItem) -> ProbeItem {
        ProbeItem {
            id: s.id,
            example: s.example,
            probe: s.probe,
            edit: s.edit,
            perturbed: s.perturbed,
            expectation: s.expectation,
            certainty: s.certainty,
            basis: s.basis,
            review: s
                .review
                .unwrap_or_else(|| ReviewState::from_certainty(s.certainty)),
            original_pair: s.original_pair,
            perturbed_pair: s.perturbed_pair,
            hypothesis_only_pair: s.hypothesis_only_pair,
        }
    }
}

/// An original example as a run sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeExample {
    /// Index in the dataset's `examples`.
    pub index: usize,
    /// The example's id, or `#<index>` when it has none.
    pub id: String,
    /// The original input.
    pub input: ProbeInput,
    /// The gold label.
    pub gold: Label,
    /// Split, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// Reasoning categories.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// Human-annotated relevant rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevant_rows: Option<Vec<usize>>,
    /// Each annotator's relevant-row ballot, when imported (for the agreement section).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance_votes: Option<Vec<crate::data::dataset::RelevanceBallot>>,
    /// Index of the original pair in [`ProbeSet::pairs`].
    pub pair: usize,
}

/// A perturbation before it is linearized and numbered: what a probe generator returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Perturbation {
    /// The probe.
    pub probe: ProbeKind,
    /// What changed.
    pub edit: Edit,
    /// The perturbed input.
    pub perturbed: ProbeInput,
    /// The expectation.
    pub expectation: Expectation,
    /// Certain or heuristic.
    pub certainty: Certainty,
    /// Why (see [`Basis`]).
    pub basis: Basis,
}
