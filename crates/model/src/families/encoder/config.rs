//! The `config.json` of the BERT-style encoder families, mirroring Hugging Face
//! `RobertaConfig` key for key (`BertConfig`, `XLMRobertaConfig` and `ElectraConfig` share the
//! keys; DistilBERT's own keys are translated into it by [`crate::families::encoder::distilbert`]), and the
//! mapping from the model's own label order to tabprobe's canonical labels.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::blocks::activation::HiddenAct;
use crate::error::LoadError;
use crate::families::family::Family;
use crate::families::labels::{label_count, LabelMap};
use crate::families::limits::{
    check_below_vocab, check_layer_norm_eps, encoder_sizes, unsupported, Limit, Size,
};

/// `config.json` of a BERT-style encoder checkpoint (`transformers.RobertaConfig` and the
/// configs with its keys: BERT, XLM-RoBERTa, ELECTRA; DistilBERT after translation).
///
/// Defaults are `RobertaConfig`'s own, so a config that omits a key means what it means to
/// `transformers`. Keys that only matter for training (dropouts, `initializer_range`) are read
/// and kept so the struct round-trips, but inference ignores them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobertaConfig {
    /// Size of the token embedding table.
    #[serde(default = "defaults::vocab_size")]
    pub vocab_size: usize,
    /// Width of every hidden state.
    #[serde(default = "defaults::hidden_size")]
    pub hidden_size: usize,
    /// ELECTRA only: width of the embeddings, projected to `hidden_size` when they differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_size: Option<usize>,
    /// Number of encoder layers.
    #[serde(default = "defaults::num_hidden_layers")]
    pub num_hidden_layers: usize,
    /// Number of attention heads per layer; divides `hidden_size`.
    #[serde(default = "defaults::num_attention_heads")]
    pub num_attention_heads: usize,
    /// Width of the feed-forward block.
    #[serde(default = "defaults::intermediate_size")]
    pub intermediate_size: usize,
    /// Feed-forward activation; `gelu` is the exact erf form.
    #[serde(default)]
    pub hidden_act: HiddenAct,
    /// Dropout after embeddings and dense layers (training only).
    #[serde(default = "defaults::dropout")]
    pub hidden_dropout_prob: f64,
    /// Dropout on attention probabilities (training only).
    #[serde(default = "defaults::dropout")]
    pub attention_probs_dropout_prob: f64,
    /// Dropout in the classification head; `null` means `hidden_dropout_prob` (training only).
    #[serde(default)]
    pub classifier_dropout: Option<f64>,
    /// Rows of the position embedding table; RoBERTa uses `pad_token_id + 1` of them as offset,
    /// so the longest input is `max_position_embeddings - pad_token_id - 1` tokens.
    #[serde(default = "defaults::max_position_embeddings")]
    pub max_position_embeddings: usize,
    /// Rows of the token-type table (1 for RoBERTa checkpoints; type id 0 is always used).
    #[serde(default = "defaults::type_vocab_size")]
    pub type_vocab_size: usize,
    /// Standard deviation of the initialiser (training only).
    #[serde(default = "defaults::initializer_range")]
    pub initializer_range: f64,
    /// Epsilon of every LayerNorm.
    #[serde(default = "defaults::layer_norm_eps")]
    pub layer_norm_eps: f64,
    /// Padding token id; also RoBERTa's `padding_idx` for position ids.
    #[serde(default = "defaults::pad_token_id")]
    pub pad_token_id: usize,
    /// `<s>` token id.
    #[serde(default)]
    pub bos_token_id: Option<usize>,
    /// `</s>` token id.
    #[serde(default)]
    pub eos_token_id: Option<usize>,
    /// Only `absolute` position embeddings are RoBERTa's; others are refused.
    #[serde(default = "defaults::position_embedding_type")]
    pub position_embedding_type: String,
    /// Model type as `transformers` names it (`roberta`, `xlm-roberta`, `camembert`, …).
    #[serde(default)]
    pub model_type: Option<String>,
    /// Architecture class names, e.g. `["RobertaForSequenceClassification"]`.
    #[serde(default)]
    pub architectures: Option<Vec<String>>,
    /// Output index (as a JSON string key) → label name, in the model's own order.
    #[serde(default)]
    pub id2label: Option<BTreeMap<String, String>>,
    /// Label name → output index.
    #[serde(default)]
    pub label2id: Option<BTreeMap<String, usize>>,
    /// Number of outputs when `id2label` is absent (`transformers` then names them `LABEL_i`).
    #[serde(default)]
    pub num_labels: Option<usize>,
    /// `single_label_classification` etc. (training only).
    #[serde(default)]
    pub problem_type: Option<String>,
    /// The dtype the checkpoint was saved in (informational; older key).
    #[serde(default)]
    pub torch_dtype: Option<String>,
    /// The dtype the checkpoint was saved in (informational; newer key).
    #[serde(default)]
    pub dtype: Option<String>,
    /// `transformers` version that wrote the file (informational).
    #[serde(default)]
    pub transformers_version: Option<String>,
    /// The family the file was read as (not a key of the file): it decides the position rule,
    /// the tensor names and the head.
    #[serde(skip)]
    pub family: Family,
}

/// `transformers`' defaults of a family where they differ from `RobertaConfig`'s (only keys a
/// config may omit; `save_pretrained` writes them all).
fn family_defaults(family: Family) -> Vec<(&'static str, serde_json::Value)> {
    use serde_json::json;
    match family {
        Family::Bert => vec![("vocab_size", json!(30522)), ("pad_token_id", json!(0))],
        Family::XlmRoberta => vec![("vocab_size", json!(30522))],
        Family::Electra => vec![
            ("vocab_size", json!(30522)),
            ("pad_token_id", json!(0)),
            ("embedding_size", json!(128)),
            ("hidden_size", json!(256)),
            ("num_attention_heads", json!(4)),
            ("intermediate_size", json!(1024)),
        ],
        _ => Vec::new(),
    }
}

mod defaults {
    pub fn vocab_size() -> usize {
        50265
    }
    pub fn hidden_size() -> usize {
        768
    }
    pub fn num_hidden_layers() -> usize {
        12
    }
    pub fn num_attention_heads() -> usize {
        12
    }
    pub fn intermediate_size() -> usize {
        3072
    }
    pub fn dropout() -> f64 {
        0.1
    }
    pub fn max_position_embeddings() -> usize {
        512
    }
    pub fn type_vocab_size() -> usize {
        2
    }
    pub fn initializer_range() -> f64 {
        0.02
    }
    pub fn layer_norm_eps() -> f64 {
        1e-12
    }
    pub fn pad_token_id() -> usize {
        1
    }
    pub fn position_embedding_type() -> String {
        "absolute".to_string()
    }
}

impl RobertaConfig {
    /// Parses and checks `config.json`: every size is positive and within its limit
    /// ([`MAX_HIDDEN_SIZE`] and the other `MAX_*` constants), heads divide the hidden size, the
    /// special ids are inside the vocabulary, and the position table fits a pair. Nothing is
    /// allocated from a size before it is checked.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        Self::from_json_bytes_as(bytes, Family::Roberta)
    }

    /// [`RobertaConfig::from_json_bytes`] for one of the families with these keys (RoBERTa,
    /// XLM-RoBERTa, BERT, ELECTRA). A key the file omits takes that family's `transformers`
    /// default (BERT's vocabulary of 30,522 with padding id 0, say, not RoBERTa's).
    pub fn from_json_bytes_as(bytes: &[u8], family: Family) -> Result<Self, LoadError> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        Self::from_json_value(value, family)
    }

    /// [`RobertaConfig::from_json_bytes_as`] from parsed JSON (DistilBERT's translated keys).
    pub fn from_json_value(
        mut value: serde_json::Value,
        family: Family,
    ) -> Result<Self, LoadError> {
        if let Some(map) = value.as_object_mut() {
            for (key, default) in family_defaults(family) {
                map.entry(key.to_string()).or_insert(default);
            }
        }
        let mut config: RobertaConfig =
            serde_json::from_value(value).map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        config.family = family;
        config.validate()?;
        Ok(config)
    }

    /// Width of the embedding tables: `embedding_size` (ELECTRA), else `hidden_size`.
    pub fn embedding_width(&self) -> usize {
        self.embedding_size.unwrap_or(self.hidden_size)
    }

    /// Head width (`hidden_size / num_attention_heads`).
    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }

    /// The longest token sequence (specials included) the position table allows. RoBERTa's
    /// positions start after `pad_token_id`, so `max_position_embeddings - pad_token_id - 1`
    /// (0 when the table is too short; checked arithmetic, whatever the values); the other
    /// families count from 0, so all of `max_position_embeddings`.
    pub fn max_tokens(&self) -> usize {
        if !self.family.positions_after_padding() {
            return self.max_position_embeddings;
        }
        self.pad_token_id
            .checked_add(1)
            .and_then(|offset| self.max_position_embeddings.checked_sub(offset))
            .unwrap_or(0)
    }

    /// Number of classifier outputs: `id2label`'s size, else `num_labels`, else 2
    /// (`transformers`' default).
    pub fn num_labels(&self) -> usize {
        label_count(self.id2label.as_ref(), self.num_labels)
    }

    fn validate(&self) -> Result<(), LoadError> {
        let common = encoder_sizes!(self);
        let more = [
            Size::positive("type_vocab_size", self.type_vocab_size, Limit::TypeVocab),
            Size::at_most(
                "max_position_embeddings",
                self.max_position_embeddings,
                Limit::Positions,
            ),
        ];
        common.check(&more, Size::labels(self.id2label.as_ref(), self.num_labels))?;
        // Special ids index the embedding table (pad also offsets the positions), so each must
        // have a row; checked before any arithmetic on them.
        for (key, id) in [
            ("pad_token_id", Some(self.pad_token_id)),
            ("bos_token_id", self.bos_token_id),
            ("eos_token_id", self.eos_token_id),
        ] {
            if let Some(id) = id {
                check_below_vocab(key, id, self.vocab_size)?;
            }
        }
        if self.max_tokens() < 4 {
            return Err(unsupported(
                "max_position_embeddings",
                self.max_position_embeddings.to_string(),
                &format!(
                    "must exceed pad_token_id + 4 = {} to fit <s> P </s></s> H </s>",
                    self.pad_token_id.saturating_add(4)
                ),
            ));
        }
        if self.position_embedding_type != "absolute" {
            return Err(unsupported(
                "position_embedding_type",
                self.position_embedding_type.clone(),
                "only RoBERTa's absolute position embeddings are implemented",
            ));
        }
        check_layer_norm_eps(self.layer_norm_eps)
    }
}

impl LabelMap {
    /// Maps `id2label` through [`Label::from_alias`] (docs/data-formats.md#labels). A three-output model must name
    /// each of ENTAIL, NEUTRAL, CONTRADICT once; a two-output model ENTAIL and CONTRADICT once.
    pub fn from_config(config: &RobertaConfig) -> Result<Self, LoadError> {
        Self::from_labels(config.id2label.as_ref(), config.num_labels)
    }
}

#[cfg(test)]
mod tests {
    use tabprobe_core::data::label::LabelSet;

    use super::*;

    fn cfg(json: &str) -> Result<RobertaConfig, LoadError> {
        RobertaConfig::from_json_bytes(json.as_bytes())
    }

    #[test]
    fn defaults_are_roberta_base() {
        let c = cfg("{}").unwrap();
        assert_eq!(
            (
                c.hidden_size,
                c.num_hidden_layers,
                c.vocab_size,
                c.max_tokens()
            ),
            (768, 12, 50265, 510)
        );
        assert_eq!(c.hidden_act, HiddenAct::Gelu);
    }

    #[test]
    fn unknown_activation_is_refused_with_the_key() {
        let e = cfg(r#"{"hidden_act": "swish"}"#).unwrap_err();
        assert!(
            matches!(&e, LoadError::ConfigParse(m) if m.contains("swish")),
            "{e}"
        );
    }

    #[test]
    fn heads_must_divide_hidden() {
        let e = cfg(r#"{"hidden_size": 30, "num_attention_heads": 4}"#).unwrap_err();
        assert!(
            matches!(e, LoadError::UnsupportedConfig { ref key, .. } if key == "num_attention_heads")
        );
    }

    #[test]
    fn mnli_order_maps_to_canonical() {
        let c = cfg(r#"{"id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}}"#)
            .unwrap();
        let m = LabelMap::from_config(&c).unwrap();
        assert_eq!(m.label_set, LabelSet::ThreeWay);
        assert_eq!(m.to_canonical(&[0.1, 0.2, 0.7]), [0.7, 0.2, 0.1]);
    }

    #[test]
    fn two_way_puts_zero_on_neutral() {
        let c = cfg(r#"{"id2label": {"0": "refuted", "1": "entailed"}}"#).unwrap();
        let m = LabelMap::from_config(&c).unwrap();
        assert_eq!(m.label_set, LabelSet::TwoWay);
        assert_eq!(m.to_canonical(&[0.25, 0.75]), [0.75, 0.0, 0.25]);
    }

    #[test]
    fn generic_and_duplicate_labels_are_refused() {
        for json in [
            r#"{"id2label": {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}}"#,
            r#"{}"#,
            r#"{"id2label": {"0": "entailment", "1": "entailment", "2": "neutral"}}"#,
            r#"{"id2label": {"0": "entailment", "1": "neutral"}}"#,
        ] {
            let e = LabelMap::from_config(&cfg(json).unwrap()).unwrap_err();
            assert!(matches!(e, LoadError::UnmappedLabels { .. }), "{json}: {e}");
        }
    }
}
