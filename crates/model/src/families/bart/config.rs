//! BART's `config.json` (`transformers.BartConfig`): its keys and defaults, its checks, and the
//! shapes and sizes it implies.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::blocks::activation::HiddenAct;
use crate::error::LoadError;
use crate::families::labels::label_count;
use crate::families::limits::{
    check_below_vocab, check_heads_divide, check_sizes, unsupported, Limit, Size,
};

/// LayerNorm epsilon of every BART norm (`nn.LayerNorm`'s default; not a config key).
pub const LAYER_NORM_EPS: f64 = 1e-5;
/// `BartLearnedPositionalEmbedding`'s offset: position `t` reads row `t + 2`.
pub const POSITION_OFFSET: usize = 2;

/// `config.json` of a BART checkpoint (`transformers.BartConfig`), with its defaults.
#[derive(Debug, Clone, Deserialize)]
pub struct BartConfig {
    /// Rows of the word table.
    #[serde(default = "defaults::vocab_size")]
    pub vocab_size: usize,
    /// Longest input (the position tables have 2 more rows).
    #[serde(default = "defaults::max_position_embeddings")]
    pub max_position_embeddings: usize,
    /// Encoder layers.
    #[serde(default = "defaults::layers")]
    pub encoder_layers: usize,
    /// Encoder feed-forward width.
    #[serde(default = "defaults::ffn")]
    pub encoder_ffn_dim: usize,
    /// Encoder heads.
    #[serde(default = "defaults::heads")]
    pub encoder_attention_heads: usize,
    /// Decoder layers.
    #[serde(default = "defaults::layers")]
    pub decoder_layers: usize,
    /// Decoder feed-forward width.
    #[serde(default = "defaults::ffn")]
    pub decoder_ffn_dim: usize,
    /// Decoder heads.
    #[serde(default = "defaults::heads")]
    pub decoder_attention_heads: usize,
    /// Feed-forward activation.
    #[serde(default)]
    pub activation_function: HiddenAct,
    /// Hidden width.
    #[serde(default = "defaults::d_model")]
    pub d_model: usize,
    /// Whether word vectors are multiplied by √d_model.
    #[serde(default)]
    pub scale_embedding: bool,
    /// Padding id.
    #[serde(default = "defaults::pad")]
    pub pad_token_id: usize,
    /// `</s>`: the head reads the decoder at the last one.
    #[serde(default = "defaults::eos")]
    pub eos_token_id: usize,
    /// First decoder input.
    #[serde(default = "defaults::eos")]
    pub decoder_start_token_id: usize,
    /// Output index → label name.
    #[serde(default)]
    pub id2label: Option<BTreeMap<String, String>>,
    /// Number of outputs when `id2label` is absent.
    #[serde(default)]
    pub num_labels: Option<usize>,
}

mod defaults {
    pub fn vocab_size() -> usize {
        50265
    }
    pub fn max_position_embeddings() -> usize {
        1024
    }
    pub fn layers() -> usize {
        12
    }
    pub fn ffn() -> usize {
        4096
    }
    pub fn heads() -> usize {
        16
    }
    pub fn d_model() -> usize {
        1024
    }
    pub fn pad() -> usize {
        1
    }
    pub fn eos() -> usize {
        2
    }
}

impl BartConfig {
    /// Parses and checks `config.json`.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let c: Self =
            serde_json::from_slice(bytes).map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        let mut sizes = vec![
            Size::positive("vocab_size", c.vocab_size, Limit::Vocab),
            Size::positive("d_model", c.d_model, Limit::Hidden),
            Size::positive("encoder_layers", c.encoder_layers, Limit::Layers),
            Size::positive("decoder_layers", c.decoder_layers, Limit::Layers),
            Size::positive(
                "encoder_attention_heads",
                c.encoder_attention_heads,
                Limit::Heads,
            ),
            Size::positive(
                "decoder_attention_heads",
                c.decoder_attention_heads,
                Limit::Heads,
            ),
            Size::positive("encoder_ffn_dim", c.encoder_ffn_dim, Limit::Intermediate),
            Size::positive("decoder_ffn_dim", c.decoder_ffn_dim, Limit::Intermediate),
            Size::at_most(
                "max_position_embeddings",
                c.max_position_embeddings,
                Limit::Positions,
            ),
        ];
        sizes.extend(Size::labels(c.id2label.as_ref(), c.num_labels));
        check_sizes(&sizes)?;
        for (key, heads) in [
            ("encoder_attention_heads", c.encoder_attention_heads),
            ("decoder_attention_heads", c.decoder_attention_heads),
        ] {
            check_heads_divide(key, heads, "d_model", c.d_model)?;
        }
        for (key, id) in [
            ("pad_token_id", c.pad_token_id),
            ("eos_token_id", c.eos_token_id),
            ("decoder_start_token_id", c.decoder_start_token_id),
        ] {
            check_below_vocab(key, id, c.vocab_size)?;
        }
        if c.max_position_embeddings < 4 {
            return Err(unsupported(
                "max_position_embeddings",
                c.max_position_embeddings.to_string(),
                "must be at least 4 to fit <s> P </s></s> H </s>",
            ));
        }
        Ok(c)
    }

    /// Number of classifier outputs.
    pub fn num_labels(&self) -> usize {
        label_count(self.id2label.as_ref(), self.num_labels)
    }
}
