//! Share links (docs/share-links.md, issue 6 item 7): one probe result — tables, hypotheses, operation,
//! rule, expectation, model name and weight hash, predictions and linearization — packed into
//! a URL fragment (`#/share/v1.<data>`) that opens with no dataset loaded. Results too large
//! for a link go into a small JSON result file instead.

pub mod budget;
mod codec;
mod error;
pub mod from_run;
pub mod limits;
pub mod view;

use serde::{Deserialize, Serialize};

use crate::data::label::Label;
use crate::data::table::Table;
use crate::linearize::LinearizeSettings;
use crate::probe::rules::ValidityRule;
use crate::probe::{Certainty, Expectation};
use crate::scoring::{ModelId, PairScore};

pub use budget::{MAX_LINK_JSON_BYTES, MAX_LINK_TEXT_CHARS, MAX_RESULT_FILE_BYTES};
pub use codec::{
    check_file_size, decode, encode, from_file, to_file, Decoding, FILE_FORMAT, LINK_VERSION,
    STEP_BYTES,
};
pub use error::ShareError;
pub use from_run::from_run_item;
pub use limits::{
    MAX_SHARE_CELLS, MAX_SHARE_CHARS, MAX_SHARE_LABELS, MAX_SHARE_MODELS, MAX_SHARE_ROWS,
    MAX_SHARE_TEXT_CHARS,
};

/// Links longer than this (whole URL, in characters) are offered as a result file instead:
/// some chat tools, mail clients and servers cut URLs past about 2,000 characters.
pub const MAX_LINK_CHARS: usize = 2000;

/// What precedes the link text in a share URL: `<page address>#/share/<link text>`.
pub const SHARE_FRAGMENT: &str = "#/share/";

/// Characters in the share URL `<base>#/share/<payload>`, counted with checked arithmetic so
/// the length check never depends on overflow checks (release builds have none, and `usize`
/// is 32 bits in wasm32); `None` when the count would overflow, which no link fits.
pub fn link_chars(base: &str, payload: &str) -> Option<usize> {
    base.chars()
        .count()
        .checked_add(SHARE_FRAGMENT.len())?
        .checked_add(payload.chars().count())
}

/// Whether a URL of `chars` characters (from [`link_chars`]) may be offered as a link.
pub fn fits_in_link(chars: Option<usize>) -> bool {
    chars.is_some_and(|n| n <= MAX_LINK_CHARS)
}

/// One shared probe result: the item before and after the edit and what a model made of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedResult {
    /// What produced it, for a person (e.g. `hand edit of H1`, `row deletion: Genre`).
    pub origin: String,
    /// The dataset example it derives from, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example_id: Option<String>,
    /// The operation: a probe name (`row_deletion`, `negation`, …) or `hand_edit_table` /
    /// `hand_rewrite_hypothesis`.
    pub operation: String,
    /// The original item.
    pub before: SharedInput,
    /// The edited item. Its `table` is left out when the table did not change.
    pub after: SharedInput,
    /// The original's gold label, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<Label>,
    /// The validity rule judging the transition (table operations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<ValidityRule>,
    /// What a correct model does on the edited item (an expected label, or "judge by the rule").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expectation: Option<Expectation>,
    /// Whether that expectation is certain or heuristic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certainty: Option<Certainty>,
    /// Why the expectation is certain, or what a reviewer decides (absent from links made
    /// before issue 43, and for hand edits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<crate::probe::Basis>,
    /// The model that made the predictions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelId>,
    /// Its predictions before and after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions: Option<SharedPredictions>,
    /// Other models' predictions on the same two items (a result shared from a drill-down
    /// that lines up several runs); absent from links made before issue 18.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_models: Vec<SharedModelPredictions>,
    /// How tables became premise text for those predictions.
    pub linearization: LinearizeSettings,
}

/// A premise (table or text) and a hypothesis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedInput {
    /// The premise table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Table>,
    /// A plain-text premise (when there is no table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub premise: Option<String>,
    /// The hypothesis.
    pub hypothesis: String,
}

/// Predictions on the original and on the edited item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedPredictions {
    /// On the original.
    pub before: SharedScore,
    /// On the edited item.
    pub after: SharedScore,
}

/// Another model's predictions on the original and on the edited item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedModelPredictions {
    /// The model.
    pub model: ModelId,
    /// Its predictions.
    pub predictions: SharedPredictions,
}

/// One prediction, as much of a [`PairScore`] as a reader needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedScore {
    /// Probabilities in canonical order (ENTAIL, NEUTRAL, CONTRADICT).
    pub probs: [f32; 3],
    /// Whether the premise was truncated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// How many premise tokens truncation dropped.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub premise_tokens_dropped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl SharedScore {
    /// The predicted label (argmax, ties to the earlier canonical label, as [`PairScore`]).
    pub fn predicted(&self) -> Label {
        self.to_pair_score().predicted()
    }

    /// As a [`PairScore`] without logits (a link does not carry them).
    pub fn to_pair_score(&self) -> PairScore {
        PairScore {
            probs: self.probs,
            logits: Vec::new(),
            truncated: self.truncated,
            premise_tokens_dropped: self.premise_tokens_dropped,
        }
    }
}

impl From<&PairScore> for SharedScore {
    fn from(s: &PairScore) -> SharedScore {
        SharedScore {
            probs: s.probs,
            truncated: s.truncated,
            premise_tokens_dropped: s.premise_tokens_dropped,
        }
    }
}

impl SharedResult {
    /// The edited item's table: its own, or the original's when it was left out.
    pub fn after_table(&self) -> Option<&Table> {
        self.after.table.as_ref().or(self.before.table.as_ref())
    }

    /// The result with the edited table left out when it equals the original (smaller links).
    pub fn compact(mut self) -> SharedResult {
        if self.after.table.is_some() && self.after.table == self.before.table {
            self.after.table = None;
        }
        self
    }
}
