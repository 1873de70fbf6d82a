//! The seam between probes and models (docs/ARCHITECTURE.md#the-seam-between-core-and-model): score premise/hypothesis
//! pairs into label probabilities. `core` never sees a tensor; the `model` crate implements
//! [`PairScorer`] and tests use deterministic fakes.
//!
//! Scoring in the browser is asynchronous (WebGPU readback), so probe runs do not call a
//! scorer themselves in the browser: they hand out batches of [`Pair`]s and take back
//! [`PairScore`]s. [`PairScorer`] is the synchronous form for native code and tests.

use serde::{Deserialize, Serialize};

use crate::data::label::{Label, LabelSet};

/// Pairs per forward pass unless a caller chooses otherwise: the model crate's, the CLI's and
/// the page's default (a GPU path may take more; the worker says how many it ran).
pub const DEFAULT_BATCH_SIZE: usize = 8;

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
    /// Whether every logit and probability is a finite number (what a run file can hold).
    pub fn is_finite(&self) -> bool {
        self.logits.iter().chain(&self.probs).all(|x| x.is_finite())
    }

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

/// The arithmetic a model's forward pass ran in (docs/model-families.md#precision). The same weights at
/// another precision give other numbers, so a precision is part of a model's identity in
/// results, run files, shares and merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Precision {
    /// Everything in f32.
    #[default]
    #[serde(rename = "f32")]
    F32,
    /// f16 weights and matmul inputs, f32 accumulation; embeddings, softmax, layer norms,
    /// biases, the classification head's output and the logits in f32 (what PyTorch's
    /// autocast keeps in f32). Only on a GPU whose adapter has `shader-f16`.
    #[serde(rename = "f16-mixed")]
    F16Mixed,
    /// The transformer body's dense layers in int8: weights quantized per output channel,
    /// activations per row as they arrive, integer products summed in i32 and scaled back to
    /// f32; everything else (embeddings, attention's products, softmax, layer norms, the
    /// classification head) in f32. Only on the CPU path.
    #[serde(rename = "int8")]
    Int8,
}

impl Precision {
    /// Whether this is f32 (lets serde leave it out of run files and links, so files written
    /// before precisions existed read as f32 and f32 files keep their bytes).
    pub fn is_f32(&self) -> bool {
        *self == Precision::F32
    }

    /// Its name in run files, links and command lines: `f32`, `f16-mixed` or `int8`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F16Mixed => "f16-mixed",
            Precision::Int8 => "int8",
        }
    }

    /// Reads [`Precision::as_str`]'s names.
    pub fn parse(name: &str) -> Option<Precision> {
        match name {
            "f32" => Some(Precision::F32),
            "f16-mixed" => Some(Precision::F16Mixed),
            "int8" => Some(Precision::Int8),
            _ => None,
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
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
    /// The arithmetic it ran in; absent from JSON when f32.
    #[serde(default, skip_serializing_if = "Precision::is_f32")]
    pub precision: Precision,
    /// Scores imported from a file (`run::scores_file`) that gave some pairs a label without
    /// probabilities: the figures that need probabilities (word order's entropies) are not
    /// computed. Absent from JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub label_only: bool,
    /// The scores were imported from a scores file (docs/scoring-elsewhere.md), not computed
    /// by tabprobe: `weights_sha256` is then the SHA-256 of that file. Absent from JSON when
    /// false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scores_file: bool,
}

impl ModelId {
    /// An f32 model's identity.
    pub fn new(
        name: impl Into<String>,
        weights_sha256: impl Into<String>,
        label_set: LabelSet,
    ) -> ModelId {
        ModelId {
            name: name.into(),
            weights_sha256: weights_sha256.into(),
            label_set,
            precision: Precision::F32,
            label_only: false,
            scores_file: false,
        }
    }

    /// Its name, with its precision when it is not f32 (`model (int8)`): how a table's model
    /// column names it, so a figure made at a reduced precision says so.
    pub fn name_with_precision(&self) -> String {
        match self.precision {
            Precision::F32 => self.name.clone(),
            p => format!("{} ({p})", self.name),
        }
    }

    /// How the model is named on screen: its name and the first 8 hex digits of its weight
    /// hash (two checkpoints picked as files are both called "model"), and its precision
    /// when it is not f32.
    pub fn label(&self) -> String {
        let hash: String = self.weights_sha256.chars().take(8).collect();
        match self.precision {
            Precision::F32 => format!("{} ({hash})", self.name),
            p => format!("{} ({hash}, {p})", self.name),
        }
    }
}

/// A model failure while scoring.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScoreError {
    /// The model could not score (tokenizer, device, readback), as text a user can act on.
    #[error("scoring failed: {0}")]
    Failed(String),
    /// The model scored, but a logit or probability is NaN or infinite.
    #[error(transparent)]
    NonFinite(#[from] NonFinite),
}

/// How many characters of a hypothesis a [`NonFinite`] error quotes.
const HYPOTHESIS_QUOTE_CHARS: usize = 60;

/// A score no tool can use: a NaN or infinite logit or probability. JSON has no NaN, so such
/// a score would reach a run file as `null` and never read back; every scorer refuses it where
/// the model scores ([`NonFinite::check`]), and callers that know more about the pair (its
/// position in the whole job, the example or item it belongs to) add it with
/// [`NonFinite::offset`] and [`NonFinite::owned_by`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.message())]
pub struct NonFinite {
    /// The model's name ([`ModelId::name`]); empty when the caller did not know it.
    pub model: String,
    /// The pair's position in the job (0-based).
    pub index: usize,
    /// The pair's hypothesis, when the scorer saw text (not only token ids).
    pub hypothesis: Option<String>,
    /// What the pair belongs to, e.g. `example e1` or `item e1/row_deletion/0`.
    pub owner: Option<String>,
    /// The pair's logits as the model gave them.
    pub logits: Vec<f32>,
}

impl NonFinite {
    /// `Err` for the first score in `scores` with a non-finite logit or probability, at its
    /// position in `scores`; `pairs`, when given, are the scored pairs in the same order.
    pub fn check(
        model: &str,
        pairs: Option<&[Pair]>,
        scores: &[PairScore],
    ) -> Result<(), NonFinite> {
        let Some(k) = first_non_finite(scores) else {
            return Ok(());
        };
        Err(NonFinite {
            model: model.to_string(),
            index: k,
            hypothesis: pairs.and_then(|p| p.get(k)).map(|p| p.hypothesis.clone()),
            owner: None,
            logits: scores[k].logits.clone(),
        })
    }

    /// The same error for a job in which the checked pairs started at position `by`.
    pub fn offset(mut self, by: usize) -> Self {
        self.index += by;
        self
    }

    /// The same error naming what the pair belongs to (kept when `owner` is `None`).
    pub fn owned_by(mut self, owner: Option<String>) -> Self {
        self.owner = owner.or(self.owner);
        self
    }

    /// The same error with the pair's hypothesis (kept when `hypothesis` is `None`).
    pub fn with_hypothesis(mut self, hypothesis: Option<&str>) -> Self {
        self.hypothesis = hypothesis.map(str::to_string).or(self.hypothesis);
        self
    }

    fn message(&self) -> String {
        let model = if self.model.is_empty() {
            "the model".to_string()
        } else {
            format!("model {:?}", self.model)
        };
        let mut about = Vec::new();
        if let Some(owner) = &self.owner {
            about.push(owner.clone());
        }
        if let Some(h) = &self.hypothesis {
            let mut quote: String = h.chars().take(HYPOTHESIS_QUOTE_CHARS).collect();
            if quote.len() < h.len() {
                quote.push('…');
            }
            about.push(format!("hypothesis {quote:?}"));
        }
        let about = if about.is_empty() {
            String::new()
        } else {
            format!(" ({})", about.join(", "))
        };
        format!(
            "{model} gave non-finite outputs (logits {:?}) on pair {}{about}; scoring stopped and \
             nothing was written for it — the checkpoint's weights are probably broken (NaN or \
             infinite values)",
            self.logits,
            self.index + 1
        )
    }
}

/// The position in `scores` of the first score with a NaN or infinite logit or probability.
pub fn first_non_finite(scores: &[PairScore]) -> Option<usize> {
    scores.iter().position(|s| !s.is_finite())
}

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
            precision: Precision::F32,
            label_only: false,
            scores_file: false,
        };
        assert_eq!(m.label(), "model (01234567)");
        let half = ModelId {
            precision: Precision::F16Mixed,
            ..m.clone()
        };
        assert_eq!(half.label(), "model (01234567, f16-mixed)");
        assert_eq!(half.name_with_precision(), "model (f16-mixed)");
    }

    #[test]
    fn precision_is_left_out_of_json_when_f32_and_read_back_when_not() {
        let m = ModelId::new("m", "ab", LabelSet::ThreeWay);
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(
            json,
            r#"{"name":"m","weights_sha256":"ab","label_set":"three_way"}"#
        );
        assert_eq!(serde_json::from_str::<ModelId>(&json).unwrap(), m);
        let half = ModelId {
            precision: Precision::F16Mixed,
            ..m
        };
        let json = serde_json::to_string(&half).unwrap();
        assert!(json.ends_with(r#","precision":"f16-mixed"}"#), "{json}");
        assert_eq!(serde_json::from_str::<ModelId>(&json).unwrap(), half);
        assert_eq!(Precision::parse("f16-mixed"), Some(Precision::F16Mixed));
        assert_eq!(Precision::parse("int8"), Some(Precision::Int8));
        assert_eq!(
            serde_json::to_string(&Precision::Int8).ok().as_deref(),
            Some("\"int8\"")
        );
        assert_eq!(Precision::parse("f16"), None);
    }

    #[test]
    fn a_non_finite_score_is_named_by_model_pair_owner_and_hypothesis() {
        let s = |logits: Vec<f32>| PairScore {
            probs: [0.2, 0.3, 0.5],
            logits,
            truncated: false,
            premise_tokens_dropped: 0,
        };
        let pair = |h: &str| Pair {
            premise: "P".into(),
            hypothesis: h.into(),
            order: PairOrder::PremiseFirst,
        };
        let pairs = [pair("a"), pair("b"), pair(&"x".repeat(70))];
        let good = vec![s(vec![0.1, -2.0, 3.0]); 3];
        assert_eq!(NonFinite::check("m", Some(&pairs), &good), Ok(()));
        let mut bad = good.clone();
        bad[2].logits[1] = f32::INFINITY;
        let err = NonFinite::check("m", Some(&pairs), &bad).unwrap_err();
        assert_eq!(err.index, 2);
        // Found at position 2 of a chunk that started at pair 10 of the job: pair 13, 1-based.
        let err = err.offset(10).owned_by(Some("example e7".into()));
        assert_eq!(
            err.to_string(),
            format!(
                "model \"m\" gave non-finite outputs (logits [0.1, inf, 3.0]) on pair 13 \
                 (example e7, hypothesis \"{}…\"); scoring stopped and nothing was written for \
                 it — the checkpoint's weights are probably broken (NaN or infinite values)",
                "x".repeat(60)
            )
        );
        // A NaN probability alone is caught too; without pairs or a name the message still reads.
        let mut bad_probs = good;
        bad_probs[0].probs[0] = f32::NAN;
        let err = NonFinite::check("", None, &bad_probs).unwrap_err();
        assert!(err
            .to_string()
            .starts_with("the model gave non-finite outputs (logits [0.1, -2.0, 3.0]) on pair 1;"));
        assert_eq!(first_non_finite(&bad_probs), Some(0));
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
