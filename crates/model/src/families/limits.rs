//! The limits every family's config is held to before any size is used (arithmetic, shape
//! tables, allocation), and the checks that refuse what is past them.

use std::collections::BTreeMap;

use crate::error::LoadError;

/// Largest `hidden_size` accepted (roberta-large and deberta-v3-large: 1024; xlm-roberta-xxl:
/// 4096).
pub const MAX_HIDDEN_SIZE: usize = 8_192;
/// Largest `num_hidden_layers` accepted (large models: 24; xlm-roberta-xxl: 48).
pub const MAX_LAYERS: usize = 128;
/// Largest `num_attention_heads` accepted (large models: 16; xlm-roberta-xxl: 32).
pub const MAX_HEADS: usize = 256;
/// Largest `intermediate_size` accepted (large models: 4096; xlm-roberta-xxl: 16384).
pub const MAX_INTERMEDIATE_SIZE: usize = 65_536;
/// Most classifier outputs accepted in `num_labels` or `id2label` (NLI models have 2 or 3).
pub const MAX_LABELS: usize = 64;
/// Largest `vocab_size` accepted (roberta: 50,265; xlm-roberta-large: 250,002).
pub const MAX_VOCAB_SIZE: usize = 1_048_576;
/// Largest `max_position_embeddings` accepted (roberta: 514; long-input variants: 4098).
pub const MAX_POSITIONS: usize = 65_536;
/// Largest `type_vocab_size` accepted (roberta: 1; bert: 2).
pub const MAX_TYPE_VOCAB_SIZE: usize = 1_024;
/// Bytes per parameter of the narrowest dtype the loader accepts (F16/BF16): a config implies
/// at least `parameters × 2` bytes of weights.
pub const MIN_BYTES_PER_PARAMETER: u64 = 2;

/// The limit a size is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`MAX_VOCAB_SIZE`].
    Vocab,
    /// [`MAX_HIDDEN_SIZE`] (also embedding widths).
    Hidden,
    /// [`MAX_LAYERS`].
    Layers,
    /// [`MAX_HEADS`].
    Heads,
    /// [`MAX_INTERMEDIATE_SIZE`].
    Intermediate,
    /// [`MAX_POSITIONS`] (also relative spans and buckets).
    Positions,
    /// [`MAX_TYPE_VOCAB_SIZE`].
    TypeVocab,
    /// [`MAX_LABELS`].
    Labels,
}

impl Limit {
    /// The largest value accepted.
    pub const fn max(self) -> usize {
        match self {
            Self::Vocab => MAX_VOCAB_SIZE,
            Self::Hidden => MAX_HIDDEN_SIZE,
            Self::Layers => MAX_LAYERS,
            Self::Heads => MAX_HEADS,
            Self::Intermediate => MAX_INTERMEDIATE_SIZE,
            Self::Positions => MAX_POSITIONS,
            Self::TypeVocab => MAX_TYPE_VOCAB_SIZE,
            Self::Labels => MAX_LABELS,
        }
    }
}

/// One size a config names: its key, its value, the limit it is held to, and whether 0 is
/// refused.
#[derive(Debug, Clone, Copy)]
pub struct Size<'a> {
    key: &'a str,
    value: usize,
    limit: Limit,
    positive: bool,
}

impl<'a> Size<'a> {
    /// A size that must be positive and within `limit`.
    pub fn positive(key: &'a str, value: usize, limit: Limit) -> Self {
        Self {
            key,
            value,
            limit,
            positive: true,
        }
    }

    /// A size that may be 0, within `limit`.
    pub fn at_most(key: &'a str, value: usize, limit: Limit) -> Self {
        Self {
            key,
            value,
            limit,
            positive: false,
        }
    }

    /// `num_labels` and the length of `id2label`, which every family names alike.
    pub fn labels(
        id2label: Option<&BTreeMap<String, String>>,
        num_labels: Option<usize>,
    ) -> [Self; 2] {
        [
            Self::at_most("num_labels", num_labels.unwrap_or(0), Limit::Labels),
            Self::at_most("id2label", id2label.map_or(0, BTreeMap::len), Limit::Labels),
        ]
    }
}

/// The sizes the BERT-style configs (RoBERTa's keys, DeBERTa-v2's) name alike, under those
/// keys: each must be positive and within its limit, and the heads must divide the width.
#[derive(Debug, Clone, Copy)]
pub struct EncoderSizes {
    /// `vocab_size`.
    pub vocab_size: usize,
    /// `hidden_size`.
    pub hidden_size: usize,
    /// `embedding_size` (the hidden size when the config has none).
    pub embedding_size: usize,
    /// `num_hidden_layers`.
    pub num_hidden_layers: usize,
    /// `num_attention_heads`.
    pub num_attention_heads: usize,
    /// `intermediate_size`.
    pub intermediate_size: usize,
}

impl EncoderSizes {
    /// [`check_sizes`] over these sizes, then `more` (the family's own) and the labels; then
    /// that the heads divide the hidden size.
    pub fn check(&self, more: &[Size<'_>], labels: [Size<'_>; 2]) -> Result<(), LoadError> {
        let mut sizes = vec![
            Size::positive("vocab_size", self.vocab_size, Limit::Vocab),
            Size::positive("hidden_size", self.hidden_size, Limit::Hidden),
            Size::positive("embedding_size", self.embedding_size, Limit::Hidden),
            Size::positive("num_hidden_layers", self.num_hidden_layers, Limit::Layers),
            Size::positive(
                "num_attention_heads",
                self.num_attention_heads,
                Limit::Heads,
            ),
            Size::positive(
                "intermediate_size",
                self.intermediate_size,
                Limit::Intermediate,
            ),
        ];
        sizes.extend_from_slice(more);
        sizes.extend(labels);
        check_sizes(&sizes)?;
        let (heads, hidden) = (self.num_attention_heads, self.hidden_size);
        check_heads_divide("num_attention_heads", heads, "hidden_size", hidden)
    }
}

/// The [`EncoderSizes`] of a config with RoBERTa's size keys (RoBERTa's own, DeBERTa-v2's):
/// the same fields under the same names, whatever the config's type.
macro_rules! encoder_sizes {
    ($config:expr) => {
        $crate::families::limits::EncoderSizes {
            vocab_size: $config.vocab_size,
            hidden_size: $config.hidden_size,
            embedding_size: $config.embedding_width(),
            num_hidden_layers: $config.num_hidden_layers,
            num_attention_heads: $config.num_attention_heads,
            intermediate_size: $config.intermediate_size,
        }
    };
}
pub(crate) use encoder_sizes;

/// The one size check of every family's config, before any arithmetic or allocation uses a
/// size: refuses the first size over its limit, then the first that must be positive and is 0.
pub fn check_sizes(sizes: &[Size<'_>]) -> Result<(), LoadError> {
    if let Some(s) = sizes.iter().find(|s| s.value > s.limit.max()) {
        return Err(LoadError::ConfigOverLimit {
            key: s.key.to_string(),
            value: s.value as u64,
            limit: s.limit.max() as u64,
        });
    }
    if let Some(s) = sizes.iter().find(|s| s.positive && s.value == 0) {
        return Err(unsupported(s.key, "0".into(), "must be positive"));
    }
    Ok(())
}

/// [`LoadError::UnsupportedConfig`]: `key` is `value`, which is refused because `why`.
pub fn unsupported(key: &str, value: String, why: &str) -> LoadError {
    LoadError::UnsupportedConfig {
        key: key.to_string(),
        value,
        why: why.to_string(),
    }
}

/// Refuses `heads` (under `key`) that do not divide the width `width` (under `width_key`).
pub fn check_heads_divide(
    key: &str,
    heads: usize,
    width_key: &str,
    width: usize,
) -> Result<(), LoadError> {
    if width.is_multiple_of(heads) {
        Ok(())
    } else {
        let why = format!("must divide {width_key} = {width}");
        Err(unsupported(key, heads.to_string(), &why))
    }
}

/// Refuses a special token id (under `key`) without a row in the embedding table.
pub fn check_below_vocab(key: &str, id: usize, vocab_size: usize) -> Result<(), LoadError> {
    if id < vocab_size {
        Ok(())
    } else {
        let why = format!("must be below vocab_size = {vocab_size}");
        Err(unsupported(key, id.to_string(), &why))
    }
}

/// Refuses a LayerNorm epsilon that is not a positive number.
pub fn check_layer_norm_eps(eps: f64) -> Result<(), LoadError> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(LoadError::UnsupportedConfig {
            key: "layer_norm_eps".into(),
            value: eps.to_string(),
            why: "must be a positive number".into(),
        })
    }
}

/// Refuses weights smaller than `parameters` at [`MIN_BYTES_PER_PARAMETER`] bytes each.
pub fn check_weights_len(parameters: Option<u64>, weights_len: usize) -> Result<(), LoadError> {
    let implied = parameters.and_then(|n| n.checked_mul(MIN_BYTES_PER_PARAMETER));
    match implied {
        Some(bytes) if bytes <= weights_len as u64 => Ok(()),
        _ => Err(LoadError::WeightsTooSmall {
            parameters,
            implied_bytes: implied,
            file_bytes: weights_len as u64,
        }),
    }
}
