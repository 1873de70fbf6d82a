//! The seam between probes and models (DESIGN.md "core ↔ model"): score premise/hypothesis
//! pairs into label probabilities. `core` never sees a tensor; the `model` crate implements
//! [`PairScorer`] and tests use deterministic fakes.
//!
//! Scoring in the browser is asynchronous (WebGPU readback), so probe runs do not call a
//! scorer themselves in the browser: they hand out batches of [`Pair`]s and take back
//! [`PairScore`]s. [`PairScorer`] is the synchronous form for native code and tests.

use serde::{Deserialize, Serialize};

use crate::data::label::{Label, LabelSet};

/// Which text the model reads first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairOrder {
    /// `<s> premise </s></s> hypothesis </s>` (INFOTABS, MNLI).
    #[default]
    PremiseFirst,
    /// `<s> hypothesis </s></s> premise </s>` (Table-BERT's "statement first").
    HypothesisFirst,
}

impl PairOrder {
    /// Whether this is the default order (lets serde leave it out of run files).
    pub fn is_premise_first(&self) -> bool {
        *self == PairOrder::PremiseFirst
    }
}

/// One premise/hypothesis pair as text, after linearization.
///
/// `premise` is always the premise, whatever the order: a model truncates the premise (never
/// the hypothesis) when the pair is too long, so it must know which text is which.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pair {
    /// The premise text (a linearized table or a plain premise); empty for hypothesis-only.
    pub premise: String,
    /// The hypothesis text.
    pub hypothesis: String,
    /// Which text the model reads first. Left out of JSON when premise-first, so run files
    /// and worker messages without it (all of them before this field) read as before.
    #[serde(default, skip_serializing_if = "PairOrder::is_premise_first")]
    pub order: PairOrder,
}

/// What a model says about one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairScore {
    /// Probabilities in canonical label order (ENTAIL, NEUTRAL, CONTRADICT). A two-way model
    /// puts 0 on NEUTRAL.
    pub probs: [f32; 3],
    /// Raw logits in the model's own label order (`id2label`).
    pub logits: Vec<f32>,
    /// Whether the premise was truncated to fit the model's maximum length.
    pub truncated: bool,
    /// How many premise tokens truncation dropped.
    pub premise_tokens_dropped: usize,
}

impl PairScore {
    /// The predicted label: the most probable one; ties go to the earlier canonical label.
    pub fn predicted(&self) -> Label {
        let mut best = 0;
        for i in 1..3 {
            if self.probs[i] > self.probs[best] {
                best = i;
            }
        }
        Label::ALL[best]
    }
}

/// Identifies a model in results and share links.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelId {
    /// A human name, e.g. the checkpoint folder name.
    pub name: String,
    /// Lower-case hex SHA-256 of the weight file's bytes.
    pub weights_sha256: String,
    /// The labels the model predicts.
    pub label_set: LabelSet,
}

impl ModelId {
    /// How the model is named on screen: its name and the first 8 hex digits of its weight
    /// hash (two checkpoints picked as files are both called "model").
    pub fn label(&self) -> String {
        let hash: String = self.weights_sha256.chars().take(8).collect();
        format!("{} ({hash})", self.name)
    }
}

/// A model failure while scoring, as text a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("scoring failed: {0}")]
pub struct ScoreError(pub String);

/// Synchronous scoring of a batch of pairs; one [`PairScore`] per pair, in order.
pub trait PairScorer {
    /// Scores `pairs`; the result has exactly `pairs.len()` entries.
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError>;
    /// Which model this is.
    fn model_id(&self) -> ModelId;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_order_is_left_out_of_json_when_premise_first() {
        let p = Pair {
            premise: "P".into(),
            hypothesis: "H".into(),
            order: PairOrder::PremiseFirst,
        };
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"premise":"P","hypothesis":"H"}"#);
        assert_eq!(serde_json::from_str::<Pair>(&json).unwrap(), p);
        let h = Pair {
            order: PairOrder::HypothesisFirst,
            ..p
        };
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(
            json,
            r#"{"premise":"P","hypothesis":"H","order":"hypothesis_first"}"#
        );
        assert_eq!(serde_json::from_str::<Pair>(&json).unwrap(), h);
    }

    #[test]
    fn model_label_is_the_name_and_eight_hash_digits() {
        let m = ModelId {
            name: "model".into(),
            weights_sha256: "0123456789abcdef".into(),
            label_set: LabelSet::ThreeWay,
        };
        assert_eq!(m.label(), "model (01234567)");
    }

    #[test]
    fn prediction_is_argmax_with_canonical_tie_break() {
        let s = |probs| PairScore {
            probs,
            logits: vec![],
            truncated: false,
            premise_tokens_dropped: 0,
        };
        assert_eq!(s([0.2, 0.5, 0.3]).predicted(), Label::Neutral);
        assert_eq!(s([0.1, 0.1, 0.8]).predicted(), Label::Contradict);
        assert_eq!(s([0.4, 0.2, 0.4]).predicted(), Label::Entail);
    }
}
