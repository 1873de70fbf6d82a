//! DeBERTa-v2 and v3 (`DebertaV2ForSequenceClassification`), in reading order: config,
//! relative positions, disentangled attention, the network, and loading with every name
//! translation. The reference is `modeling_deberta_v2.py` of PyPI `transformers` 5.23.0, the
//! release the golden fixtures were made with (`tests/golden/families/golden.json` records it).
//!
//! What differs from BERT: attention adds to the content-to-content scores a content-to-position
//! term (`c2p`: each query against the embedding of its distance to each key) and a
//! position-to-content term (`p2c`), with distances put into log-spaced buckets beyond
//! `position_buckets / 2`; the scale is `√(head_dim × (1 + number of those terms))`; v3 has no
//! absolute positions and no token types; the head is the `ContextPooler` (`dense → gelu` on
//! `[CLS]`) then `classifier`.
//!
//! | Hugging Face tensor (`deberta.` prefix optional)                      | here                          |
//! |-----------------------------------------------------------------------|-------------------------------|
//! | `embeddings.word_embeddings.weight` `[V, E]`                          | `word`                        |
//! | `embeddings.position_embeddings.weight` `[P, E]` (if `position_biased_input`) | `position`            |
//! | `embeddings.token_type_embeddings.weight` `[T, E]` (if `type_vocab_size > 0`) | `token_type`          |
//! | `embeddings.embed_proj.weight` `[H, E]` (if E ≠ H; no bias)           | `embed_proj`                  |
//! | `embeddings.LayerNorm.*`                                              | `embed_norm`                  |
//! | `encoder.rel_embeddings.weight` `[2 × span, H]`                       | `rel_embeddings`              |
//! | `encoder.LayerNorm.*` (if `norm_rel_ebd` has `layer_norm`)            | `rel_norm`                    |
//! | `encoder.layer.{i}.attention.self.{query,key,value}_proj.*`           | `layers[i].attention`         |
//! | `encoder.layer.{i}.attention.self.pos_{key,query}_proj.*` (unshared)  | `layers[i].attention.pos_*`   |
//! | `encoder.layer.{i}.attention.output.{dense,LayerNorm}.*`              | `layers[i].attention`         |
//! | `encoder.layer.{i}.{intermediate.dense,output.dense,output.LayerNorm}.*` | `layers[i].feed_forward`   |
//! | `pooler.dense.*`, `classifier.*`                                      | `pooler`, `classifier`        |

pub mod config;
pub mod load;
pub mod names;
pub mod network;
pub mod positions;
pub mod walk;

pub use config::{DebertaV2Config, PosAttType};
pub use load::load;
pub use network::{DebertaLayer, DebertaV2ForSequenceClassification, DisentangledAttention};
pub use positions::{log_bucket, relative_index};
