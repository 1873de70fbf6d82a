//! DeBERTa-v2/v3's `config.json` (`transformers.DebertaV2Config`): its keys and defaults, the
//! options implemented here, and the shapes and sizes it implies.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::blocks::activation::HiddenAct;
use crate::error::LoadError;
use crate::families::labels::label_count;
use crate::families::limits::{
    check_below_vocab, check_layer_norm_eps, encoder_sizes, unsupported, Limit, Size,
};

/// `config.json` of a DeBERTa-v2/v3 checkpoint (`transformers.DebertaV2Config`, with the keys
/// the model reads through `getattr` and their defaults there).
#[derive(Debug, Clone, Deserialize)]
pub struct DebertaV2Config {
    /// Rows of the word table.
    #[serde(default = "defaults::vocab_size")]
    pub vocab_size: usize,
    /// Hidden width.
    #[serde(default = "defaults::hidden_size")]
    pub hidden_size: usize,
    /// Layers.
    #[serde(default = "defaults::num_hidden_layers")]
    pub num_hidden_layers: usize,
    /// Heads per layer.
    #[serde(default = "defaults::num_attention_heads")]
    pub num_attention_heads: usize,
    /// Feed-forward width.
    #[serde(default = "defaults::intermediate_size")]
    pub intermediate_size: usize,
    /// Feed-forward activation.
    #[serde(default)]
    pub hidden_act: HiddenAct,
    /// Rows of the absolute position table (and the relative span when
    /// `max_relative_positions < 1`).
    #[serde(default = "defaults::max_position_embeddings")]
    pub max_position_embeddings: usize,
    /// Rows of the token-type table; 0 (v3): none.
    #[serde(default)]
    pub type_vocab_size: usize,
    /// LayerNorm epsilon.
    #[serde(default = "defaults::layer_norm_eps")]
    pub layer_norm_eps: f64,
    /// Whether attention uses relative positions (`c2p`/`p2c`).
    #[serde(default)]
    pub relative_attention: bool,
    /// Relative span; `< 1` means `max_position_embeddings`.
    #[serde(default = "defaults::minus_one")]
    pub max_relative_positions: i64,
    /// Log buckets of relative distance; `≤ 0`: no bucketing.
    #[serde(default = "defaults::minus_one")]
    pub position_buckets: i64,
    /// Padding id.
    #[serde(default)]
    pub pad_token_id: Option<usize>,
    /// Whether absolute positions are added to the embeddings (v2: yes; v3: no).
    #[serde(default = "defaults::yes")]
    pub position_biased_input: bool,
    /// `["p2c", "c2p"]` or the older `"p2c|c2p"`.
    #[serde(default)]
    pub pos_att_type: Option<PosAttType>,
    /// Whether the position projections are the content ones (v3: yes).
    #[serde(default)]
    pub share_att_key: bool,
    /// `"layer_norm"` to normalise the relative embeddings (v3).
    #[serde(default = "defaults::none")]
    pub norm_rel_ebd: String,
    /// Width of the embeddings, projected to `hidden_size` when different.
    #[serde(default)]
    pub embedding_size: Option<usize>,
    /// Width of the pooler; must equal `hidden_size`.
    #[serde(default)]
    pub pooler_hidden_size: Option<usize>,
    /// The pooler's activation.
    #[serde(default)]
    pub pooler_hidden_act: HiddenAct,
    /// DeBERTa-v2-xlarge's convolution after layer 0 (not implemented: refused when > 0).
    #[serde(default)]
    pub conv_kernel_size: usize,
    /// A head width other than `hidden_size / num_attention_heads` (refused).
    #[serde(default)]
    pub attention_head_size: Option<usize>,
    /// Output index → label name.
    #[serde(default)]
    pub id2label: Option<BTreeMap<String, String>>,
    /// Number of outputs when `id2label` is absent.
    #[serde(default)]
    pub num_labels: Option<usize>,
}

/// `pos_att_type` as a list or as the older `|`-separated string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum PosAttType {
    /// `["p2c", "c2p"]`.
    List(Vec<String>),
    /// `"p2c|c2p"`.
    Joined(String),
}

mod defaults {
    pub fn vocab_size() -> usize {
        128_100
    }
    pub fn hidden_size() -> usize {
        1536
    }
    pub fn num_hidden_layers() -> usize {
        24
    }
    pub fn num_attention_heads() -> usize {
        24
    }
    pub fn intermediate_size() -> usize {
        6144
    }
    pub fn max_position_embeddings() -> usize {
        512
    }
    pub fn layer_norm_eps() -> f64 {
        1e-7
    }
    pub fn minus_one() -> i64 {
        -1
    }
    pub fn yes() -> bool {
        true
    }
    pub fn none() -> String {
        "none".into()
    }
}

impl DebertaV2Config {
    /// Parses and checks `config.json` (sizes within the crate's limits, heads dividing the
    /// width, only the attention terms and options implemented here).
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let c: Self =
            serde_json::from_slice(bytes).map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Embedding width.
    pub fn embedding_width(&self) -> usize {
        self.embedding_size.unwrap_or(self.hidden_size)
    }

    /// Whether `term` (`c2p` or `p2c`) is in `pos_att_type`.
    pub fn uses(&self, term: &str) -> bool {
        let terms: Vec<String> = match &self.pos_att_type {
            None => Vec::new(),
            Some(PosAttType::List(l)) => l.iter().map(|t| t.trim().to_lowercase()).collect(),
            Some(PosAttType::Joined(s)) => s.split('|').map(|t| t.trim().to_lowercase()).collect(),
        };
        self.relative_attention && terms.iter().any(|t| t == term)
    }

    /// The relative span `transformers` calls `max_relative_positions` (after its default).
    pub fn max_relative(&self) -> usize {
        if self.max_relative_positions < 1 {
            self.max_position_embeddings
        } else {
            self.max_relative_positions as usize
        }
    }

    /// `att_span` (`pos_ebd_size`): `position_buckets` when bucketing, else the span.
    pub fn att_span(&self) -> usize {
        if self.position_buckets > 0 {
            self.position_buckets as usize
        } else {
            self.max_relative()
        }
    }

    /// Number of classifier outputs.
    pub fn num_labels(&self) -> usize {
        label_count(self.id2label.as_ref(), self.num_labels)
    }

    /// Longest input: the position table's length (the tokenizer's `model_max_length`).
    pub fn max_tokens(&self) -> usize {
        self.max_position_embeddings
    }

    fn validate(&self) -> Result<(), LoadError> {
        let span = |v: i64| v.clamp(0, i64::MAX) as usize;
        let (positions, relative) = (self.max_position_embeddings, self.max_relative_positions);
        let common = encoder_sizes!(self);
        let more = [
            Size::at_most("type_vocab_size", self.type_vocab_size, Limit::TypeVocab),
            Size::positive("max_position_embeddings", positions, Limit::Positions),
            Size::at_most("max_relative_positions", span(relative), Limit::Positions),
            Size::at_most(
                "position_buckets",
                span(self.position_buckets),
                Limit::Positions,
            ),
        ];
        common.check(&more, Size::labels(self.id2label.as_ref(), self.num_labels))?;
        if let Some(size) = self.attention_head_size {
            if size * self.num_attention_heads != self.hidden_size {
                return Err(unsupported(
                    "attention_head_size",
                    size.to_string(),
                    "only hidden_size / num_attention_heads is implemented",
                ));
            }
        }
        if self.conv_kernel_size > 0 {
            return Err(unsupported(
                "conv_kernel_size",
                self.conv_kernel_size.to_string(),
                "DeBERTa-v2-xlarge's convolution layer is not implemented",
            ));
        }
        if let Some(p) = self.pooler_hidden_size.filter(|&p| p != self.hidden_size) {
            return Err(unsupported(
                "pooler_hidden_size",
                p.to_string(),
                &format!("must equal hidden_size = {}", self.hidden_size),
            ));
        }
        if let Some(pad) = self.pad_token_id {
            check_below_vocab("pad_token_id", pad, self.vocab_size)?;
        }
        if self.max_tokens() < 4 {
            return Err(unsupported(
                "max_position_embeddings",
                self.max_position_embeddings.to_string(),
                "must be at least 4 to fit [CLS] P [SEP] H [SEP]",
            ));
        }
        check_layer_norm_eps(self.layer_norm_eps)
    }

    /// Whether the relative embeddings are normalised (`norm_rel_ebd` has `layer_norm`).
    pub fn normalises_rel_embeddings(&self) -> bool {
        self.norm_rel_ebd
            .to_lowercase()
            .split('|')
            .any(|part| part.trim() == "layer_norm")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pos_att_type_reads_as_a_list_or_the_older_string() {
        let parse = |json: &str| serde_json::from_str::<DebertaV2Config>(json).unwrap();
        let joined = parse(r#"{"relative_attention": true, "pos_att_type": "P2C | c2p"}"#);
        let list = parse(r#"{"relative_attention": true, "pos_att_type": ["c2p"]}"#);
        assert!(joined.uses("p2c") && joined.uses("c2p"));
        assert!(list.uses("c2p") && !list.uses("p2c"));
        // Without relative attention neither term is used, whatever the list says.
        let off = parse(r#"{"relative_attention": false, "pos_att_type": ["c2p", "p2c"]}"#);
        assert!(!off.uses("c2p") && !off.uses("p2c"));
    }
}
