//! DistilBERT (`DistilBertForSequenceClassification`): BERT's post-LayerNorm encoder without
//! token types, positions from 0, and the head `pre_classifier → ReLU → classifier` on
//! `[CLS]`. Its `config.json` has its own keys, translated here into the encoder config the
//! shared network is built from; its tensor names are translated in [`crate::families::encoder::loader`].

use serde::Deserialize;
use serde_json::json;

use crate::blocks::activation::HiddenAct;
use crate::error::LoadError;
use crate::families::encoder::config::RobertaConfig;
use crate::families::family::Family;

/// `config.json` of a DistilBERT checkpoint (`transformers.DistilBertConfig`), with its
/// defaults.
#[derive(Debug, Clone, Deserialize)]
pub struct DistilBertConfig {
    /// Size of the token embedding table.
    #[serde(default = "defaults::vocab_size")]
    pub vocab_size: usize,
    /// Rows of the position table; positions count from 0.
    #[serde(default = "defaults::max_position_embeddings")]
    pub max_position_embeddings: usize,
    /// Whether the position table was initialised with sinusoids (it is stored either way).
    #[serde(default)]
    pub sinusoidal_pos_embds: bool,
    /// Number of layers.
    #[serde(default = "defaults::n_layers")]
    pub n_layers: usize,
    /// Attention heads per layer.
    #[serde(default = "defaults::n_heads")]
    pub n_heads: usize,
    /// Hidden width.
    #[serde(default = "defaults::dim")]
    pub dim: usize,
    /// Feed-forward width.
    #[serde(default = "defaults::hidden_dim")]
    pub hidden_dim: usize,
    /// Feed-forward activation.
    #[serde(default)]
    pub activation: HiddenAct,
    /// Padding id.
    #[serde(default)]
    pub pad_token_id: usize,
    /// Output index → label name.
    #[serde(default)]
    pub id2label: Option<serde_json::Value>,
    /// Label name → output index.
    #[serde(default)]
    pub label2id: Option<serde_json::Value>,
    /// Number of outputs when `id2label` is absent.
    #[serde(default)]
    pub num_labels: Option<usize>,
    /// Architecture class names.
    #[serde(default)]
    pub architectures: Option<Vec<String>>,
}

/// DistilBERT's LayerNorm epsilon, fixed in `transformers` (not a config key).
pub const LAYER_NORM_EPS: f64 = 1e-12;

impl DistilBertConfig {
    /// Reads DistilBERT's `config.json` and translates it into the encoder config (one zero
    /// token-type row, LayerNorm epsilon 1e-12), checked like any other.
    pub fn encoder_config(bytes: &[u8]) -> Result<RobertaConfig, LoadError> {
        let c: DistilBertConfig =
            serde_json::from_slice(bytes).map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        let mut value = json!({
            "vocab_size": c.vocab_size,
            "hidden_size": c.dim,
            "num_hidden_layers": c.n_layers,
            "num_attention_heads": c.n_heads,
            "intermediate_size": c.hidden_dim,
            "hidden_act": c.activation,
            "max_position_embeddings": c.max_position_embeddings,
            "type_vocab_size": 1,
            "layer_norm_eps": LAYER_NORM_EPS,
            "pad_token_id": c.pad_token_id,
            "model_type": "distilbert",
            "architectures": c.architectures,
            "num_labels": c.num_labels,
        });
        if let Some(map) = value.as_object_mut() {
            for (key, v) in [("id2label", c.id2label), ("label2id", c.label2id)] {
                if let Some(v) = v {
                    map.insert(key.into(), v);
                }
            }
        }
        RobertaConfig::from_json_value(value, Family::DistilBert)
    }
}

mod defaults {
    pub fn vocab_size() -> usize {
        30522
    }
    pub fn max_position_embeddings() -> usize {
        512
    }
    pub fn n_layers() -> usize {
        6
    }
    pub fn n_heads() -> usize {
        12
    }
    pub fn dim() -> usize {
        768
    }
    pub fn hidden_dim() -> usize {
        3072
    }
}
