//! A network's shape (family, sizes, longest input, padding id, parameter count): what
//! scoring, batching and the model bar need to know of a config, whatever the family. Each
//! family's loader computes it; [`crate::network`] carries it with the loaded network.

use crate::families::family::Family;

/// What scoring, batching and the model bar need to know of a config, whatever the family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The architecture.
    pub family: Family,
    /// Rows of the token embedding table.
    pub vocab_size: usize,
    /// Hidden width.
    pub hidden_size: usize,
    /// Transformer layers (encoder and decoder layers together for BART).
    pub layers: usize,
    /// Attention heads per layer.
    pub heads: usize,
    /// Feed-forward width.
    pub intermediate_size: usize,
    /// Longest token sequence the model takes, specials included.
    pub max_tokens: usize,
    /// The padding id batches are padded with.
    pub pad_token_id: usize,
    /// Parameters the config implies (`None`: more than a `u64` holds).
    pub parameters: Option<u64>,
}
