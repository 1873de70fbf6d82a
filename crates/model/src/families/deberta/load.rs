//! DeBERTa-v2/v3 from `model.safetensors`: the names (only the `deberta.` prefix and a buffer
//! to drop), the checks every family makes, then the network.

use burn::prelude::*;

use crate::blocks::encoder::FeedForward;
use crate::blocks::nn::Dense;
use crate::error::LoadError;
use crate::families::deberta::config::DebertaV2Config;
use crate::families::deberta::names::*;
use crate::families::deberta::network::{
    DebertaLayer, DebertaV2ForSequenceClassification, DisentangledAttention,
};
use crate::families::encoder::names::{
    layer, ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_NORM, INTERMEDIATE, OUTPUT, OUTPUT_NORM,
    POSITION_EMBEDDINGS, TOKEN_TYPE_EMBEDDINGS, WORD_EMBEDDINGS,
};
use crate::families::family::Family;
use crate::families::limits::check_weights_len;
use crate::loading::weight_file::{byte_len, WeightFile, WeightSource};
use crate::loading::weights::{element_count, Tensors};
use crate::text::batch::MAX_TENSOR_BYTES;

/// Canonical name of a stored DeBERTa tensor (`None`: a buffer).
fn canonical_name(stored: &str) -> Option<String> {
    let name = stored
        .strip_prefix(Family::DebertaV2.prefix())
        .unwrap_or(stored);
    (name != "embeddings.position_ids").then(|| name.to_string())
}

/// Reads `model.safetensors` bytes into the network, checked as the other families are:
/// header and sizes first, then the expected names and shapes, then conversion.
pub fn load(
    config: DebertaV2Config,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<DebertaV2ForSequenceClassification, LoadError> {
    let file = WeightFile::open(weights)?;
    let tensors = Tensors::index(&file, canonical_name)?;
    if let Some(&[v, e]) = tensors.shape(WORD_EMBEDDINGS) {
        for (key, config_value, weights) in [
            ("vocab_size", config.vocab_size, v),
            ("embedding_size", config.embedding_width(), e),
        ] {
            if config_value != weights {
                return Err(LoadError::ConfigWeightsMismatch {
                    key: key.into(),
                    config: config_value,
                    weights,
                });
            }
        }
    }
    let expected = config.expected_shapes();
    check_weights_len(element_count(&expected), byte_len(&file))?;
    tensors.check(&expected)?;
    let eps = config.layer_norm_eps;
    let dense = |name: &str| tensors.dense(name, device);
    let norm = |name: &str| tensors.layer_norm(name, eps, device);
    let optional = |name: &str, wanted: bool| -> Result<Option<Tensor<2>>, LoadError> {
        wanted.then(|| tensors.matrix(name, device)).transpose()
    };
    let rel_embeddings = match optional(REL_EMBEDDINGS, config.relative_attention)? {
        Some(rel) if config.normalises_rel_embeddings() => {
            let n = norm(REL_NORM)?;
            Some(n.forward(rel.unsqueeze::<3>()).squeeze_dim::<2>(0))
        }
        other => other,
    };
    let mut layers = Vec::with_capacity(config.num_hidden_layers);
    for i in 0..config.num_hidden_layers {
        let part = |p: &str| layer(i, p);
        let unshared = |p: &str, term: &str| -> Result<Option<Dense>, LoadError> {
            (!config.share_att_key && config.uses(term))
                .then(|| dense(&part(p)))
                .transpose()
        };
        layers.push(DebertaLayer {
            attention: DisentangledAttention {
                query: dense(&part(QUERY_PROJ))?,
                key: dense(&part(KEY_PROJ))?,
                value: dense(&part(VALUE_PROJ))?,
                pos_key: unshared(POS_KEY_PROJ, "c2p")?,
                pos_query: unshared(POS_QUERY_PROJ, "p2c")?,
                output: dense(&part(ATTENTION_OUTPUT))?,
                layer_norm: norm(&part(ATTENTION_NORM))?,
            },
            feed_forward: FeedForward {
                intermediate: dense(&part(INTERMEDIATE))?,
                output: dense(&part(OUTPUT))?,
                layer_norm: norm(&part(OUTPUT_NORM))?,
                act: config.hidden_act,
            },
        });
    }
    Ok(DebertaV2ForSequenceClassification {
        word: tensors.word_chunks(WORD_EMBEDDINGS, MAX_TENSOR_BYTES, device)?,
        position: optional(POSITION_EMBEDDINGS, config.position_biased_input)?,
        token_type: optional(TOKEN_TYPE_EMBEDDINGS, config.type_vocab_size > 0)?,
        embed_proj: (config.embedding_width() != config.hidden_size)
            .then(|| tensors.dense_no_bias(EMBED_PROJ, device))
            .transpose()?,
        embed_norm: norm(EMBEDDINGS_NORM)?,
        rel_embeddings,
        layers,
        pooler: dense(POOLER)?,
        classifier: dense(CLASSIFIER)?,
        config,
    })
}
