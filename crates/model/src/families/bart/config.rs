//! BART's `config.json` (`transformers.BartConfig`): its keys and defaults, its checks, and the
//! shapes and sizes it implies.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::blocks::activation::HiddenAct;
use crate::error::LoadError;
use crate::families::bart::names::*;
use crate::families::encoder::names::{bias, weight};
use crate::families::family::Family;
use crate::families::labels::{label_count, LabelMap};
use crate::families::limits::{
    check_sizes, MAX_HEADS, MAX_HIDDEN_SIZE, MAX_INTERMEDIATE_SIZE, MAX_LABELS, MAX_LAYERS,
    MAX_POSITIONS, MAX_VOCAB_SIZE,
};
use crate::loading::weights::element_count;
use crate::shape::Shape;

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
        check_sizes(
            &[
                ("vocab_size", c.vocab_size, MAX_VOCAB_SIZE),
                ("d_model", c.d_model, MAX_HIDDEN_SIZE),
                ("encoder_layers", c.encoder_layers, MAX_LAYERS),
                ("decoder_layers", c.decoder_layers, MAX_LAYERS),
                (
                    "encoder_attention_heads",
                    c.encoder_attention_heads,
                    MAX_HEADS,
                ),
                (
                    "decoder_attention_heads",
                    c.decoder_attention_heads,
                    MAX_HEADS,
                ),
                ("encoder_ffn_dim", c.encoder_ffn_dim, MAX_INTERMEDIATE_SIZE),
                ("decoder_ffn_dim", c.decoder_ffn_dim, MAX_INTERMEDIATE_SIZE),
                (
                    "max_position_embeddings",
                    c.max_position_embeddings,
                    MAX_POSITIONS,
                ),
                ("num_labels", c.num_labels.unwrap_or(0), MAX_LABELS),
                (
                    "id2label",
                    c.id2label.as_ref().map_or(0, BTreeMap::len),
                    MAX_LABELS,
                ),
            ],
            &[
                ("vocab_size", c.vocab_size),
                ("d_model", c.d_model),
                ("encoder_layers", c.encoder_layers),
                ("decoder_layers", c.decoder_layers),
                ("encoder_attention_heads", c.encoder_attention_heads),
                ("decoder_attention_heads", c.decoder_attention_heads),
                ("encoder_ffn_dim", c.encoder_ffn_dim),
                ("decoder_ffn_dim", c.decoder_ffn_dim),
            ],
        )?;
        let unsupported = |key: &str, value: usize, why: String| LoadError::UnsupportedConfig {
            key: key.into(),
            value: value.to_string(),
            why,
        };
        for (key, heads) in [
            ("encoder_attention_heads", c.encoder_attention_heads),
            ("decoder_attention_heads", c.decoder_attention_heads),
        ] {
            if !c.d_model.is_multiple_of(heads) {
                return Err(unsupported(
                    key,
                    heads,
                    format!("must divide d_model = {}", c.d_model),
                ));
            }
        }
        for (key, id) in [
            ("pad_token_id", c.pad_token_id),
            ("eos_token_id", c.eos_token_id),
            ("decoder_start_token_id", c.decoder_start_token_id),
        ] {
            if id >= c.vocab_size {
                return Err(unsupported(
                    key,
                    id,
                    format!("must be below vocab_size = {}", c.vocab_size),
                ));
            }
        }
        if c.max_position_embeddings < 4 {
            return Err(unsupported(
                "max_position_embeddings",
                c.max_position_embeddings,
                "must be at least 4 to fit <s> P </s></s> H </s>".into(),
            ));
        }
        Ok(c)
    }

    /// Number of classifier outputs.
    pub fn num_labels(&self) -> usize {
        label_count(self.id2label.as_ref(), self.num_labels)
    }

    /// Every tensor the network needs, by its name without `model.` (the word table as
    /// `shared.weight`; see [`load`] for its other spellings), in PyTorch layout.
    pub fn expected_shapes(&self) -> BTreeMap<String, Vec<usize>> {
        let d = self.d_model;
        let mut m = BTreeMap::new();
        let mut dense = |name: &str, out: usize, inp: usize| {
            m.insert(weight(name), vec![out, inp]);
            m.insert(bias(name), vec![out]);
        };
        let stacks = [
            (ENCODER, self.encoder_layers, self.encoder_ffn_dim, false),
            (DECODER, self.decoder_layers, self.decoder_ffn_dim, true),
        ];
        for (stack, layers, ffn, cross) in stacks {
            for n in 0..layers {
                let mut attentions = vec![SELF_ATTENTION];
                if cross {
                    attentions.push(CROSS_ATTENTION);
                }
                for a in attentions {
                    for part in ATTENTION_PARTS {
                        dense(&layer(stack, n, &format!("{a}.{part}")), d, d);
                    }
                }
                dense(&layer(stack, n, FC1), ffn, d);
                dense(&layer(stack, n, FC2), d, ffn);
            }
        }
        dense(HEAD_DENSE, d, d);
        dense(HEAD_OUT, self.num_labels(), d);
        let mut norms = Vec::new();
        for (stack, layers, _, cross) in stacks {
            norms.push(format!("{stack}.{EMBED_NORM}"));
            for n in 0..layers {
                norms.push(layer(stack, n, &attention_norm(SELF_ATTENTION)));
                norms.push(layer(stack, n, FINAL_NORM));
                if cross {
                    norms.push(layer(stack, n, &attention_norm(CROSS_ATTENTION)));
                }
            }
            m.insert(
                format!("{stack}.{POSITIONS}"),
                vec![self.max_position_embeddings + POSITION_OFFSET, d],
            );
        }
        for name in norms {
            m.insert(weight(&name), vec![d]);
            m.insert(bias(&name), vec![d]);
        }
        m.insert(SHARED_WORDS.into(), vec![self.vocab_size, d]);
        m
    }

    /// Sizes and labels as every family reports them.
    pub fn parts(&self) -> Result<(Shape, LabelMap), LoadError> {
        let labels = LabelMap::from_labels(self.id2label.as_ref(), self.num_labels)?;
        let shape = Shape {
            family: Family::Bart,
            vocab_size: self.vocab_size,
            hidden_size: self.d_model,
            layers: self.encoder_layers + self.decoder_layers,
            heads: self
                .encoder_attention_heads
                .max(self.decoder_attention_heads),
            intermediate_size: self.encoder_ffn_dim.max(self.decoder_ffn_dim),
            max_tokens: self.max_position_embeddings,
            pad_token_id: self.pad_token_id,
            parameters: element_count(&self.expected_shapes()),
        };
        Ok((shape, labels))
    }
}
