//! BART (`BartForSequenceClassification`, e.g. `facebook/bart-large-mnli`), in reading order:
//! config, network, loading. The reference is `modeling_bart.py` of PyPI `transformers` 5.23.0,
//! the release the golden fixtures were made with (`tests/golden/families/golden.json` records
//! it).
//!
//! The pair `<s> P </s></s> H </s>` runs through the encoder; the decoder reads the same ids
//! shifted one place right (starting with `decoder_start_token_id`) with causal self-attention
//! and cross-attention to the encoder; the head (`dense → tanh → out_proj`) reads the
//! decoder's state at the last `</s>` of each row. Layers are post-LayerNorm (eps 1e-5) and
//! learned positions are offset by 2, as in `BartLearnedPositionalEmbedding`.
//!
//! | Hugging Face tensor (`model.` prefix optional)                         | here                        |
//! |------------------------------------------------------------------------|-----------------------------|
//! | `shared.weight` / `{encoder,decoder}.embed_tokens.weight` `[V, D]`     | `encoder.word`, `decoder.word` (tied: one table) |
//! | `{encoder,decoder}.embed_positions.weight` `[P + 2, D]`                | `….positions`               |
//! | `{encoder,decoder}.layernorm_embedding.*`                              | `….embed_norm`              |
//! | `…layers.{i}.self_attn.{q,k,v,out}_proj.*`, `self_attn_layer_norm.*`   | `….layers[i].self_attention` |
//! | `decoder.layers.{i}.encoder_attn.*`, `encoder_attn_layer_norm.*`       | `decoder.layers[i].cross_attention` |
//! | `…layers.{i}.{fc1,fc2,final_layer_norm}.*`                             | `….layers[i].feed_forward`  |
//! | `classification_head.{dense,out_proj}.*`                               | `head`                      |

pub mod config;
pub mod load;
pub mod names;
pub mod network;
pub mod walk;

pub use config::{BartConfig, LAYER_NORM_EPS, POSITION_OFFSET};
pub use load::load;
pub use network::{BartForSequenceClassification, BartLayer, Stack};
