//! The encoder classifier's tensors by their canonical (RoBERTa) names, written once: the
//! family's walk ([`crate::families::encoder::walk`], which gives the shape table, the network
//! and training's parameter map), the cross-check of `config.json` against the weights and
//! the translation of the other families' names all spell a name from here. DeBERTa-v2/v3
//! reuses the embeddings' and the layers' shared parts and adds its own (in
//! [`crate::families::deberta::names`]); BART's names live in [`crate::families::bart::names`].

/// The word table `[V, E]`.
pub const WORD_EMBEDDINGS: &str = "embeddings.word_embeddings.weight";
/// The position table `[P, E]`.
pub const POSITION_EMBEDDINGS: &str = "embeddings.position_embeddings.weight";
/// The token-type table `[T, E]` (not in DistilBERT).
pub const TOKEN_TYPE_EMBEDDINGS: &str = "embeddings.token_type_embeddings.weight";
/// The embeddings' layer norm.
pub const EMBEDDINGS_NORM: &str = "embeddings.LayerNorm";
/// ELECTRA's projection from the embedding width to the hidden size.
pub const EMBEDDINGS_PROJECTION: &str = "embeddings.project";
/// What every name of the head starts with.
pub const HEAD: &str = "classifier.";
/// The head's first dense layer (BERT's pooler, DistilBERT's `pre_classifier`).
pub const HEAD_DENSE: &str = "classifier.dense";
/// The head's output layer.
pub const HEAD_OUT: &str = "classifier.out_proj";
/// What every layer's names start with, before the layer's index.
pub const LAYERS: &str = "encoder.layer.";

/// The attention's query (a part of a layer: see [`layer`]).
pub const QUERY: &str = "attention.self.query";
/// The attention's key.
pub const KEY: &str = "attention.self.key";
/// The attention's value.
pub const VALUE: &str = "attention.self.value";
/// The attention's output projection.
pub const ATTENTION_OUTPUT: &str = "attention.output.dense";
/// The layer norm after the attention.
pub const ATTENTION_NORM: &str = "attention.output.LayerNorm";
/// The feed-forward layer's first dense layer.
pub const INTERMEDIATE: &str = "intermediate.dense";
/// The feed-forward layer's second dense layer.
pub const OUTPUT: &str = "output.dense";
/// The layer norm after the feed-forward layer.
pub const OUTPUT_NORM: &str = "output.LayerNorm";

/// The name of `part` in layer `i`: `encoder.layer.{i}.{part}`.
pub fn layer(i: usize, part: &str) -> String {
    format!("{LAYERS}{i}.{part}")
}

/// A dense layer's or a layer norm's weight: `{name}.weight`.
pub fn weight(name: &str) -> String {
    format!("{name}.weight")
}

/// A dense layer's or a layer norm's bias: `{name}.bias`.
pub fn bias(name: &str) -> String {
    format!("{name}.bias")
}
