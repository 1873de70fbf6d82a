//! The encoder classifier's one walk of its parameters: every part by canonical (RoBERTa)
//! name and PyTorch shape, in the order training keeps them. Building from a weight file, the
//! shape table, the parameter count and training's parameter map are all this walk.

use std::collections::BTreeMap;

use burn::prelude::*;

use crate::blocks::classifier::{ClassificationHead, HeadAct, RobertaForSequenceClassification};
use crate::blocks::embeddings::Embeddings;
use crate::blocks::encoder::{Attention, Encoder, FeedForward, Layer};
use crate::error::LoadError;
use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::names::{
    layer, ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_NORM, EMBEDDINGS_PROJECTION, HEAD_DENSE,
    HEAD_OUT, INTERMEDIATE, KEY, OUTPUT, OUTPUT_NORM, POSITION_EMBEDDINGS, QUERY,
    TOKEN_TYPE_EMBEDDINGS, VALUE, WORD_EMBEDDINGS,
};
use crate::families::family::Family;
use crate::loading::vars::{ShapeTable, Vars};
use crate::loading::weights::element_count;

/// The network of `c`, every part asked of `v`: embeddings, layers, head.
pub fn walk(
    c: &RobertaConfig,
    v: &mut dyn Vars,
) -> Result<RobertaForSequenceClassification, LoadError> {
    let (h, e, eps) = (c.hidden_size, c.embedding_width(), c.layer_norm_eps);
    let word = v.words(WORD_EMBEDDINGS, c.vocab_size, e)?;
    let position = v.table(POSITION_EMBEDDINGS, c.max_position_embeddings, e)?;
    let token_type = match c.family {
        // No token types: one zero row, which adds exactly nothing (not a parameter).
        Family::DistilBert => Tensor::zeros([1, e], &v.device()),
        _ => v.table(TOKEN_TYPE_EMBEDDINGS, c.type_vocab_size, e)?,
    };
    let embeddings = Embeddings {
        word,
        position,
        token_type,
        layer_norm: v.norm(EMBEDDINGS_NORM, e, eps)?,
        projection: (e != h)
            .then(|| v.dense(EMBEDDINGS_PROJECTION, h, e))
            .transpose()?,
    };
    let mut layers = Vec::with_capacity(c.num_hidden_layers);
    for i in 0..c.num_hidden_layers {
        let part = |p: &str| layer(i, p);
        layers.push(Layer {
            attention: Attention {
                query: v.dense(&part(QUERY), h, h)?,
                key: v.dense(&part(KEY), h, h)?,
                value: v.dense(&part(VALUE), h, h)?,
                output: v.dense(&part(ATTENTION_OUTPUT), h, h)?,
                layer_norm: v.norm(&part(ATTENTION_NORM), h, eps)?,
                heads: c.num_attention_heads,
            },
            feed_forward: FeedForward {
                intermediate: v.dense(&part(INTERMEDIATE), c.intermediate_size, h)?,
                output: v.dense(&part(OUTPUT), h, c.intermediate_size)?,
                layer_norm: v.norm(&part(OUTPUT_NORM), h, eps)?,
                act: c.hidden_act,
            },
        });
    }
    let classifier = ClassificationHead {
        dense: v.dense(HEAD_DENSE, h, h)?,
        out_proj: v.dense(HEAD_OUT, c.num_labels(), h)?,
        act: match c.family {
            Family::Electra => HeadAct::Gelu,
            Family::DistilBert => HeadAct::Relu,
            _ => HeadAct::Tanh,
        },
    };
    Ok(RobertaForSequenceClassification {
        embeddings,
        encoder: Encoder { layers },
        classifier,
    })
}

/// Every tensor the model needs, by its canonical name (RoBERTa's, without the prefix), with
/// the shape `config` implies, in PyTorch layout (`nn.Linear` weights are `[out, in]`).
/// Benchmarks and training's initialisation make checkpoints of any shape from it.
pub fn expected_shapes(config: &RobertaConfig) -> BTreeMap<String, Vec<usize>> {
    ShapeTable::of(|v| walk(config, v))
}

/// Number of parameters the config implies (embeddings, encoder, classification head —
/// BERT's pooler is its head's first layer; RoBERTa's unused pooler is not counted), or
/// `None` when it does not fit in a `u64`.
pub fn parameter_count(config: &RobertaConfig) -> Option<u64> {
    element_count(&expected_shapes(config))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::families::limits::check_weights_len;

    #[test]
    fn real_large_checkpoints_are_within_the_limits() {
        // roberta-large-mnli, xlm-roberta-large (250,002 tokens), bart-large-mnli's and
        // deberta-v3-large's sizes in RoBERTa's keys.
        let three = r#""id2label": {"0": "contradiction", "1": "neutral", "2": "entailment"}"#;
        for (vocab, positions) in [(50265, 514), (250_002, 514), (50265, 1026), (128_100, 512)] {
            let json = format!(
                r#"{{"vocab_size": {vocab}, "hidden_size": 1024, "num_hidden_layers": 24,
                    "num_attention_heads": 16, "intermediate_size": 4096,
                    "max_position_embeddings": {positions}, "type_vocab_size": 1, {three}}}"#
            );
            let c = RobertaConfig::from_json_bytes(json.as_bytes())
                .unwrap_or_else(|e| panic!("{vocab}: {e}"));
            let params = parameter_count(&c).unwrap();
            // Stored as F32 the file has 4 bytes per parameter; the check asks for 2.
            check_weights_len(parameter_count(&c), 4 * params as usize).unwrap();
            check_weights_len(parameter_count(&c), 2 * params as usize).unwrap();
            assert!(check_weights_len(parameter_count(&c), 2 * params as usize - 1).is_err());
        }
    }

    #[test]
    fn parameter_count_is_the_tiny_checkpoints_element_count() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/tiny-f32");
        let c =
            RobertaConfig::from_json_bytes(&std::fs::read(format!("{dir}/config.json")).unwrap())
                .unwrap();
        let bytes = std::fs::read(format!("{dir}/model.safetensors")).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let stored: usize = st
            .tensors()
            .iter()
            .filter(|(name, _)| !name.contains("position_ids") && !name.contains("pooler"))
            .map(|(_, v)| v.shape().iter().product::<usize>())
            .sum();
        assert_eq!(parameter_count(&c), Some(stored as u64));
    }

    #[test]
    fn config_arithmetic_does_not_overflow() {
        let mut c = RobertaConfig::from_json_bytes(b"{}").unwrap();
        c.pad_token_id = usize::MAX;
        assert_eq!(c.max_tokens(), 0);
        c.vocab_size = usize::MAX;
        c.hidden_size = usize::MAX;
        assert_eq!(parameter_count(&c), None);
        assert!(matches!(
            check_weights_len(parameter_count(&c), usize::MAX),
            Err(LoadError::WeightsTooSmall {
                parameters: None,
                ..
            })
        ));
    }
}
