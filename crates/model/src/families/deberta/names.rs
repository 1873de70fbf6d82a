//! DeBERTa-v2/v3's own tensor names, written once for the family's walk (the
//! embeddings' and the layers' other parts are the encoder's, in
//! [`crate::families::encoder::names`]). Layer parts sit below `encoder.layer.{i}.`.

/// The attention's query.
pub const QUERY_PROJ: &str = "attention.self.query_proj";
/// The attention's key.
pub const KEY_PROJ: &str = "attention.self.key_proj";
/// The attention's value.
pub const VALUE_PROJ: &str = "attention.self.value_proj";
/// The position key (`c2p` without shared keys).
pub const POS_KEY_PROJ: &str = "attention.self.pos_key_proj";
/// The position query (`p2c` without shared keys).
pub const POS_QUERY_PROJ: &str = "attention.self.pos_query_proj";
/// The relative-position table `[2·span, H]`.
pub const REL_EMBEDDINGS: &str = "encoder.rel_embeddings.weight";
/// The relative-position table's layer norm.
pub const REL_NORM: &str = "encoder.LayerNorm";
/// The projection from the embedding width to the hidden size (no bias).
pub const EMBED_PROJ: &str = "embeddings.embed_proj";
/// The head's pooler.
pub const POOLER: &str = "pooler.dense";
/// The head's output layer.
pub const CLASSIFIER: &str = "classifier";
