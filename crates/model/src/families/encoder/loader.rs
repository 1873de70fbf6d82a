//! Builds the BERT-style encoder classifier ([`RobertaForSequenceClassification`]: RoBERTa,
//! XLM-RoBERTa, BERT, ELECTRA, DistilBERT) from the bytes of a Hugging Face
//! `model.safetensors`: every name translation from `transformers` to this crate lives here.
//! Each family's stored names are first translated to RoBERTa's (the canonical names below),
//! then one table of shapes and one builder serve them all.
//!
//! | Hugging Face tensor (canonical; `roberta.` prefix optional)   | here                                    | note                  |
//! |---------------------------------------------------------------|-----------------------------------------|-----------------------|
//! | `embeddings.word_embeddings.weight`        `[V, E]`           | `embeddings.word`                       | row chunks ≤ 64 MiB   |
//! | `embeddings.position_embeddings.weight`    `[P, E]`           | `embeddings.position`                   |                       |
//! | `embeddings.token_type_embeddings.weight`  `[T, E]`           | `embeddings.token_type`                 | not in DistilBERT     |
//! | `embeddings.LayerNorm.{weight,bias}`                          | `embeddings.layer_norm.{gamma,beta}`    | also `.gamma/.beta`   |
//! | `embeddings.project.{weight,bias}` (ELECTRA `embeddings_project`) | `embeddings.projection`             | only when E ≠ H       |
//! | `encoder.layer.{i}.attention.self.{query,key,value}.{weight,bias}` | `layers[i].attention.{query,key,value}` | `[out,in]`→`[in,out]` |
//! | `encoder.layer.{i}.attention.output.dense.{weight,bias}`      | `layers[i].attention.output`            | transposed            |
//! | `encoder.layer.{i}.attention.output.LayerNorm.{weight,bias}`  | `layers[i].attention.layer_norm`        |                       |
//! | `encoder.layer.{i}.intermediate.dense.{weight,bias}`          | `layers[i].feed_forward.intermediate`   | transposed            |
//! | `encoder.layer.{i}.output.dense.{weight,bias}`                | `layers[i].feed_forward.output`         | transposed            |
//! | `encoder.layer.{i}.output.LayerNorm.{weight,bias}`            | `layers[i].feed_forward.layer_norm`     |                       |
//! | `classifier.dense.{weight,bias}`                              | `classifier.dense`                      | transposed            |
//! | `classifier.out_proj.{weight,bias}`                           | `classifier.out_proj`                   | transposed            |
//! | `embeddings.position_ids`, `embeddings.token_type_ids`        | ignored                                 | buffers, not weights  |
//! | `pooler.dense.{weight,bias}` (RoBERTa, XLM-RoBERTa)           | ignored                                 | unused by the head    |
//!
//! The other families' stored names are translated first ([`crate::families::encoder::rename`]).
//!
//!
//! Weights may be F32, F16 or BF16; they are widened to f32 on the host, which is exact, so a
//! half-precision checkpoint computes like `from_pretrained(..., torch_dtype=torch.float32)`.
//! Everything is checked from the safetensors header before any tensor is converted, so a
//! checkpoint that does not fit fails fast with a [`LoadError`] naming the tensor.

use std::collections::BTreeMap;

use burn::prelude::*;

use crate::blocks::classifier::{ClassificationHead, HeadAct, RobertaForSequenceClassification};
use crate::blocks::embeddings::Embeddings;
use crate::blocks::encoder::{Attention, Encoder, FeedForward, Layer};
use crate::error::LoadError;
use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::names::{
    bias, layer, weight, ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_NORM, EMBEDDINGS_PROJECTION,
    HEAD_DENSE, HEAD_OUT, INTERMEDIATE, KEY, LAYERS, OUTPUT, OUTPUT_NORM, POSITION_EMBEDDINGS,
    QUERY, TOKEN_TYPE_EMBEDDINGS, VALUE, WORD_EMBEDDINGS,
};
use crate::families::encoder::rename::canonical_name;
use crate::families::family::Family;
use crate::loading::weight_file::{byte_len, WeightFile, WeightSource};
use crate::loading::weights::Tensors;
use crate::text::batch::MAX_TENSOR_BYTES;

/// Reads `model.safetensors` bytes into a model on `device`, checked against `config`: the
/// header, the sizes its tensors imply, then that the file is large enough for the parameters
/// the config implies (before the table of expected shapes is built from the config), and only
/// then are tensors converted. `config.family` says how to read the names.
pub fn load_weights(
    config: &RobertaConfig,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<RobertaForSequenceClassification, LoadError> {
    let file = WeightFile::open(weights)?;
    let family = config.family;
    let tensors = Tensors::index(&file, |stored| canonical_name(stored, family))?;
    check_against_config(&tensors, config)?;
    config.check_weights_size(byte_len(&file))?;
    let expected = expected_shapes(config);
    tensors.check(&expected)?;

    let eps = config.layer_norm_eps;
    let dense = |name: &str| tensors.dense(name, device);
    let norm = |name: &str| tensors.layer_norm(name, eps, device);
    let token_type = match family {
        // No token types: one zero row, which adds exactly nothing.
        Family::DistilBert => Tensor::zeros([1, config.embedding_width()], device),
        _ => tensors.matrix(TOKEN_TYPE_EMBEDDINGS, device)?,
    };
    let embeddings = Embeddings {
        word: tensors.word_chunks(WORD_EMBEDDINGS, MAX_TENSOR_BYTES, device)?,
        position: tensors.matrix(POSITION_EMBEDDINGS, device)?,
        token_type,
        layer_norm: norm(EMBEDDINGS_NORM)?,
        projection: if config.embedding_width() != config.hidden_size {
            Some(dense(EMBEDDINGS_PROJECTION)?)
        } else {
            None
        },
    };
    let mut layers = Vec::with_capacity(config.num_hidden_layers);
    for i in 0..config.num_hidden_layers {
        let part = |p: &str| layer(i, p);
        layers.push(Layer {
            attention: Attention {
                query: dense(&part(QUERY))?,
                key: dense(&part(KEY))?,
                value: dense(&part(VALUE))?,
                output: dense(&part(ATTENTION_OUTPUT))?,
                layer_norm: norm(&part(ATTENTION_NORM))?,
                heads: config.num_attention_heads,
            },
            feed_forward: FeedForward {
                intermediate: dense(&part(INTERMEDIATE))?,
                output: dense(&part(OUTPUT))?,
                layer_norm: norm(&part(OUTPUT_NORM))?,
                act: config.hidden_act,
            },
        });
    }
    let classifier = ClassificationHead {
        dense: dense(HEAD_DENSE)?,
        out_proj: dense(HEAD_OUT)?,
        act: match family {
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
/// Benchmarks use it to make random checkpoints of any shape.
pub fn expected_shapes(c: &RobertaConfig) -> BTreeMap<String, Vec<usize>> {
    let (h, i, l, e) = (
        c.hidden_size,
        c.intermediate_size,
        c.num_labels(),
        c.embedding_width(),
    );
    let mut m = BTreeMap::new();
    let mut dense = |name: &str, out: usize, inp: usize| {
        m.insert(weight(name), vec![out, inp]);
        m.insert(bias(name), vec![out]);
    };
    for n in 0..c.num_hidden_layers {
        for part in [QUERY, KEY, VALUE, ATTENTION_OUTPUT] {
            dense(&layer(n, part), h, h);
        }
        dense(&layer(n, INTERMEDIATE), i, h);
        dense(&layer(n, OUTPUT), h, i);
    }
    dense(HEAD_DENSE, h, h);
    dense(HEAD_OUT, l, h);
    if e != h {
        dense(EMBEDDINGS_PROJECTION, h, e);
    }
    let mut norms = vec![(EMBEDDINGS_NORM.to_string(), e)];
    for n in 0..c.num_hidden_layers {
        norms.push((layer(n, ATTENTION_NORM), h));
        norms.push((layer(n, OUTPUT_NORM), h));
    }
    for (name, width) in norms {
        m.insert(weight(&name), vec![width]);
        m.insert(bias(&name), vec![width]);
    }
    m.insert(WORD_EMBEDDINGS.into(), vec![c.vocab_size, e]);
    m.insert(
        POSITION_EMBEDDINGS.into(),
        vec![c.max_position_embeddings, e],
    );
    if c.family != Family::DistilBert {
        m.insert(TOKEN_TYPE_EMBEDDINGS.into(), vec![c.type_vocab_size, e]);
    }
    m
}

/// Compares the sizes the weights imply with `config.json`, so that a config from another
/// checkpoint is reported as such rather than as a list of shape mismatches.
fn check_against_config(t: &Tensors<'_>, c: &RobertaConfig) -> Result<(), LoadError> {
    let mismatch = |key: &str, config: usize, weights: usize| {
        if config == weights {
            Ok(())
        } else {
            Err(LoadError::ConfigWeightsMismatch {
                key: key.into(),
                config,
                weights,
            })
        }
    };
    if let Some(&[v, h]) = t.shape(WORD_EMBEDDINGS) {
        let key = if c.embedding_size.is_some() {
            "embedding_size"
        } else {
            "hidden_size"
        };
        mismatch(key, c.embedding_width(), h)?;
        mismatch("vocab_size", c.vocab_size, v)?;
    }
    if let Some(&[p, _]) = t.shape(POSITION_EMBEDDINGS) {
        mismatch("max_position_embeddings", c.max_position_embeddings, p)?;
    }
    if let Some(&[ty, _]) = t.shape(TOKEN_TYPE_EMBEDDINGS) {
        mismatch("type_vocab_size", c.type_vocab_size, ty)?;
    }
    let layers = t
        .names()
        .filter_map(|n| n.strip_prefix(LAYERS))
        .filter_map(|rest| rest.split('.').next()?.parse::<usize>().ok())
        .map(|i| i + 1)
        .max();
    if let Some(n) = layers {
        mismatch("num_hidden_layers", c.num_hidden_layers, n)?;
    }
    if let Some(&[i, _]) = t.shape(&weight(&layer(0, INTERMEDIATE))) {
        mismatch("intermediate_size", c.intermediate_size, i)?;
    }
    if let Some(&[l, _]) = t.shape(&weight(HEAD_OUT)) {
        mismatch("num_labels (id2label)", c.num_labels(), l)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_table_chunks_reassemble_to_the_stored_table() {
        let device = Device::flex();
        for dir in ["tiny-f32", "tiny-bf16"] {
            let path = format!(
                "{}/tests/golden/{dir}/model.safetensors",
                env!("CARGO_MANIFEST_DIR")
            );
            let bytes = std::fs::read(path).unwrap();
            let file = WeightFile::open(&bytes).unwrap();
            let t = Tensors::index(&file, |n| canonical_name(n, Family::Roberta)).unwrap();
            let name = "embeddings.word_embeddings.weight";
            let (whole, shape) = t.f32(name).unwrap();
            // 100 rows of 32 f32 per chunk: 1200 rows → 12 chunks.
            let chunks = t.word_chunks(name, 100 * 32 * 4, &device).unwrap();
            assert_eq!(chunks.len(), shape[0].div_ceil(100));
            let mut joined = Vec::new();
            for (i, c) in chunks.iter().enumerate() {
                assert_eq!(c.start, i * 100);
                joined.extend(c.table.to_data().try_to_vec::<f32>().unwrap());
            }
            assert_eq!(joined, whole, "{dir}");
        }
    }
}
