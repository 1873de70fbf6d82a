//! BART's one walk of its parameters: both stacks (the decoder's layers with cross-attention),
//! the word table once when tied, the head. Building from a weight file, the shape table and
//! the parameter count are all this walk.

use std::collections::BTreeMap;

use crate::blocks::classifier::{ClassificationHead, HeadAct};
use crate::blocks::embeddings::WordChunk;
use crate::blocks::encoder::{Attention, FeedForward};
use crate::error::LoadError;
use crate::families::bart::config::{BartConfig, LAYER_NORM_EPS, POSITION_OFFSET};
use crate::families::bart::names::{
    attention_norm, layer, ATTENTION_PARTS, CROSS_ATTENTION, DECODER, EMBED_NORM, ENCODER, FC1,
    FC2, FINAL_NORM, HEAD_DENSE, HEAD_OUT, POSITIONS, SELF_ATTENTION, SHARED_WORDS,
};
use crate::families::bart::network::{BartForSequenceClassification, BartLayer, Stack};
use crate::families::family::Family;
use crate::families::labels::LabelMap;
use crate::loading::vars::{ShapeTable, Vars};
use crate::loading::weights::element_count;
use crate::shape::Shape;

/// Where each stack's word table is stored: one name for both when tied (`shared.weight`),
/// or each stack's own `embed_tokens`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordTables {
    /// The encoder's.
    pub encoder: String,
    /// The decoder's.
    pub decoder: String,
}

impl WordTables {
    /// One table for both stacks, as `shared.weight`.
    pub fn tied() -> Self {
        Self {
            encoder: SHARED_WORDS.into(),
            decoder: SHARED_WORDS.into(),
        }
    }
}

/// The network of `c` with its word tables under `words`, every part asked of `v`.
pub fn walk(
    c: &BartConfig,
    words: &WordTables,
    v: &mut dyn Vars,
) -> Result<BartForSequenceClassification, LoadError> {
    let d = c.d_model;
    let encoder_word = v.words(&words.encoder, c.vocab_size, d)?;
    let decoder_word = if words.decoder == words.encoder {
        encoder_word.clone()
    } else {
        v.words(&words.decoder, c.vocab_size, d)?
    };
    let encoder = walk_stack(c, ENCODER, encoder_word, v)?;
    let decoder = walk_stack(c, DECODER, decoder_word, v)?;
    Ok(BartForSequenceClassification {
        head: ClassificationHead {
            dense: v.dense(HEAD_DENSE, d, d)?,
            out_proj: v.dense(HEAD_OUT, c.num_labels(), d)?,
            act: HeadAct::Tanh,
        },
        config: c.clone(),
        encoder,
        decoder,
    })
}

/// One stack (`encoder` or `decoder`): positions, embedding norm, layers.
fn walk_stack(
    c: &BartConfig,
    stack: &str,
    word: Vec<WordChunk>,
    v: &mut dyn Vars,
) -> Result<Stack, LoadError> {
    let d = c.d_model;
    let (layers, heads, ffn) = match stack {
        ENCODER => (
            c.encoder_layers,
            c.encoder_attention_heads,
            c.encoder_ffn_dim,
        ),
        _ => (
            c.decoder_layers,
            c.decoder_attention_heads,
            c.decoder_ffn_dim,
        ),
    };
    let positions = v.table(
        &format!("{stack}.{POSITIONS}"),
        c.max_position_embeddings + POSITION_OFFSET,
        d,
    )?;
    let embed_norm = v.norm(&format!("{stack}.{EMBED_NORM}"), d, LAYER_NORM_EPS)?;
    let mut built = Vec::with_capacity(layers);
    for n in 0..layers {
        let mut attention = |a: &str| {
            let [q, k, val, out] =
                ATTENTION_PARTS.map(|part| layer(stack, n, &format!("{a}.{part}")));
            Ok::<_, LoadError>(Attention {
                query: v.dense(&q, d, d)?,
                key: v.dense(&k, d, d)?,
                value: v.dense(&val, d, d)?,
                output: v.dense(&out, d, d)?,
                layer_norm: v.norm(&layer(stack, n, &attention_norm(a)), d, LAYER_NORM_EPS)?,
                heads,
            })
        };
        let self_attention = attention(SELF_ATTENTION)?;
        let cross_attention = (stack == DECODER)
            .then(|| attention(CROSS_ATTENTION))
            .transpose()?;
        built.push(BartLayer {
            self_attention,
            cross_attention,
            feed_forward: FeedForward {
                intermediate: v.dense(&layer(stack, n, FC1), ffn, d)?,
                output: v.dense(&layer(stack, n, FC2), d, ffn)?,
                layer_norm: v.norm(&layer(stack, n, FINAL_NORM), d, LAYER_NORM_EPS)?,
                act: c.activation_function,
            },
        });
    }
    Ok(Stack {
        word,
        positions,
        embed_norm,
        layers: built,
    })
}

/// Every tensor the network with word tables `words` needs, by its name without `model.`, in
/// PyTorch layout.
pub fn expected_shapes(c: &BartConfig, words: &WordTables) -> BTreeMap<String, Vec<usize>> {
    ShapeTable::of(|v| walk(c, words, v))
}

/// Sizes and labels as every family reports them.
pub fn parts(c: &BartConfig) -> Result<(Shape, LabelMap), LoadError> {
    let labels = LabelMap::from_labels(c.id2label.as_ref(), c.num_labels)?;
    let shape = Shape {
        family: Family::Bart,
        vocab_size: c.vocab_size,
        hidden_size: c.d_model,
        layers: c.encoder_layers + c.decoder_layers,
        heads: c.encoder_attention_heads.max(c.decoder_attention_heads),
        intermediate_size: c.encoder_ffn_dim.max(c.decoder_ffn_dim),
        max_tokens: c.max_position_embeddings,
        pad_token_id: c.pad_token_id,
        parameters: element_count(&expected_shapes(c, &WordTables::tied())),
    };
    Ok((shape, labels))
}
