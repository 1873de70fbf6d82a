//! DeBERTa-v2/v3's one walk of its parameters: every part by name and PyTorch shape, each only
//! where the config has it (absolute positions, token types, the embedding projection, the
//! relative table and its norm, unshared position projections). Building from a weight file,
//! the shape table and the parameter count are all this walk.

use std::collections::BTreeMap;

use crate::blocks::encoder::FeedForward;
use crate::error::LoadError;
use crate::families::deberta::config::DebertaV2Config;
use crate::families::deberta::names::{
    CLASSIFIER, EMBED_PROJ, KEY_PROJ, POOLER, POS_KEY_PROJ, POS_QUERY_PROJ, QUERY_PROJ,
    REL_EMBEDDINGS, REL_NORM, VALUE_PROJ,
};
use crate::families::deberta::network::{
    DebertaLayer, DebertaV2ForSequenceClassification, DisentangledAttention,
};
use crate::families::encoder::names::{
    layer, ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_NORM, INTERMEDIATE, OUTPUT, OUTPUT_NORM,
    POSITION_EMBEDDINGS, TOKEN_TYPE_EMBEDDINGS, WORD_EMBEDDINGS,
};
use crate::families::family::Family;
use crate::families::labels::LabelMap;
use crate::loading::vars::{ShapeTable, Vars};
use crate::loading::weights::element_count;
use crate::shape::Shape;

/// The network of `c`, every part asked of `v`.
pub fn walk(
    c: &DebertaV2Config,
    v: &mut dyn Vars,
) -> Result<DebertaV2ForSequenceClassification, LoadError> {
    let (h, e, eps) = (c.hidden_size, c.embedding_width(), c.layer_norm_eps);
    let word = v.words(WORD_EMBEDDINGS, c.vocab_size, e)?;
    let position = (c.position_biased_input)
        .then(|| v.table(POSITION_EMBEDDINGS, c.max_position_embeddings, e))
        .transpose()?;
    let token_type = (c.type_vocab_size > 0)
        .then(|| v.table(TOKEN_TYPE_EMBEDDINGS, c.type_vocab_size, e))
        .transpose()?;
    let embed_proj = (e != h)
        .then(|| v.dense_no_bias(EMBED_PROJ, h, e))
        .transpose()?;
    let embed_norm = v.norm(EMBEDDINGS_NORM, h, eps)?;
    let rel_embeddings = (c.relative_attention)
        .then(|| v.table(REL_EMBEDDINGS, 2 * c.att_span(), h))
        .transpose()?;
    let rel_norm = (c.relative_attention && c.normalises_rel_embeddings())
        .then(|| v.norm(REL_NORM, h, eps))
        .transpose()?;
    let mut layers = Vec::with_capacity(c.num_hidden_layers);
    for i in 0..c.num_hidden_layers {
        layers.push(walk_layer(c, i, v)?);
    }
    Ok(DebertaV2ForSequenceClassification {
        word,
        position,
        token_type,
        embed_proj,
        embed_norm,
        rel_embeddings,
        rel_norm,
        layers,
        pooler: v.dense(POOLER, h, h)?,
        classifier: v.dense(CLASSIFIER, c.num_labels(), h)?,
        config: c.clone(),
    })
}

/// Layer `i`: disentangled attention (position projections only where unshared and used),
/// then BERT's feed-forward block.
fn walk_layer(c: &DebertaV2Config, i: usize, v: &mut dyn Vars) -> Result<DebertaLayer, LoadError> {
    let (h, eps) = (c.hidden_size, c.layer_norm_eps);
    let part = |p: &str| layer(i, p);
    let mut unshared = |p: &str, term: &str| {
        (!c.share_att_key && c.uses(term))
            .then(|| v.dense(&part(p), h, h))
            .transpose()
    };
    let (pos_key, pos_query) = (
        unshared(POS_KEY_PROJ, "c2p")?,
        unshared(POS_QUERY_PROJ, "p2c")?,
    );
    Ok(DebertaLayer {
        attention: DisentangledAttention {
            query: v.dense(&part(QUERY_PROJ), h, h)?,
            key: v.dense(&part(KEY_PROJ), h, h)?,
            value: v.dense(&part(VALUE_PROJ), h, h)?,
            pos_key,
            pos_query,
            output: v.dense(&part(ATTENTION_OUTPUT), h, h)?,
            layer_norm: v.norm(&part(ATTENTION_NORM), h, eps)?,
        },
        feed_forward: FeedForward {
            intermediate: v.dense(&part(INTERMEDIATE), c.intermediate_size, h)?,
            output: v.dense(&part(OUTPUT), h, c.intermediate_size)?,
            layer_norm: v.norm(&part(OUTPUT_NORM), h, eps)?,
            act: c.hidden_act,
        },
    })
}

/// Every tensor the network needs, by its name without `deberta.`, in PyTorch layout.
pub fn expected_shapes(c: &DebertaV2Config) -> BTreeMap<String, Vec<usize>> {
    ShapeTable::of(|v| walk(c, v))
}

/// Sizes and labels as every family reports them.
pub fn parts(c: &DebertaV2Config) -> Result<(Shape, LabelMap), LoadError> {
    let labels = LabelMap::from_labels(c.id2label.as_ref(), c.num_labels)?;
    let shape = Shape {
        family: Family::DebertaV2,
        vocab_size: c.vocab_size,
        hidden_size: c.hidden_size,
        layers: c.num_hidden_layers,
        heads: c.num_attention_heads,
        intermediate_size: c.intermediate_size,
        max_tokens: c.max_tokens(),
        pad_token_id: c.pad_token_id.unwrap_or(0),
        parameters: element_count(&expected_shapes(c)),
    };
    Ok((shape, labels))
}
