//! BART's tensor names, written once for the family's walk. A stack is `encoder`
//! or `decoder`; a layer's parts sit below `{stack}.layers.{i}.`.

/// The encoder stack.
pub const ENCODER: &str = "encoder";
/// The decoder stack.
pub const DECODER: &str = "decoder";
/// Self-attention (each layer's parts below it: [`ATTENTION_PARTS`]).
pub const SELF_ATTENTION: &str = "self_attn";
/// The decoder's cross-attention to the encoder.
pub const CROSS_ATTENTION: &str = "encoder_attn";
/// An attention's query, key, value and output projections.
pub const ATTENTION_PARTS: [&str; 4] = ["q_proj", "k_proj", "v_proj", "out_proj"];
/// The feed-forward layer's first dense layer.
pub const FC1: &str = "fc1";
/// The feed-forward layer's second dense layer.
pub const FC2: &str = "fc2";
/// The layer norm after the feed-forward layer.
pub const FINAL_NORM: &str = "final_layer_norm";
/// A stack's embeddings' layer norm (below `{stack}.`).
pub const EMBED_NORM: &str = "layernorm_embedding";
/// A stack's position table (below `{stack}.`).
pub const POSITIONS: &str = "embed_positions.weight";
/// A stack's own word table (below `{stack}.`), when not stored once as [`SHARED_WORDS`].
pub const OWN_WORDS: &str = "embed_tokens.weight";
/// The word table both stacks share.
pub const SHARED_WORDS: &str = "shared.weight";
/// The head's first dense layer.
pub const HEAD_DENSE: &str = "classification_head.dense";
/// The head's output layer.
pub const HEAD_OUT: &str = "classification_head.out_proj";

/// `{stack}.layers.{n}.{part}`.
pub fn layer(stack: &str, n: usize, part: &str) -> String {
    format!("{stack}.layers.{n}.{part}")
}

/// The layer norm after attention `attention`: `{attention}_layer_norm`.
pub fn attention_norm(attention: &str) -> String {
    format!("{attention}_layer_norm")
}
