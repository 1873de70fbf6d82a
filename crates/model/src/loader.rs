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
//! The other families' names, translated by [`canonical_name`] (prefix `bert.`, `electra.`,
//! `distilbert.` optional):
//!
//! | family     | stored                                                   | canonical                          |
//! |------------|----------------------------------------------------------|------------------------------------|
//! | BERT       | `pooler.dense.*`, `classifier.*`                         | `classifier.dense.*`, `classifier.out_proj.*` |
//! | ELECTRA    | `embeddings_project.*`                                   | `embeddings.project.*`             |
//! | DistilBERT | `transformer.layer.{i}.attention.{q,k,v}_lin.*`          | `encoder.layer.{i}.attention.self.{query,key,value}.*` |
//! | DistilBERT | `….attention.out_lin.*`, `….sa_layer_norm.*`             | `….attention.output.dense.*`, `….attention.output.LayerNorm.*` |
//! | DistilBERT | `….ffn.lin1.*`, `….ffn.lin2.*`, `….output_layer_norm.*`  | `….intermediate.dense.*`, `….output.dense.*`, `….output.LayerNorm.*` |
//! | DistilBERT | `pre_classifier.*`, `classifier.*`                       | `classifier.dense.*`, `classifier.out_proj.*` |
//!
//! Weights may be F32, F16 or BF16; they are widened to f32 on the host, which is exact, so a
//! half-precision checkpoint computes like `from_pretrained(..., torch_dtype=torch.float32)`.
//! Everything is checked from the safetensors header before any tensor is converted, so a
//! checkpoint that does not fit fails fast with a [`LoadError`] naming the tensor.

use std::collections::BTreeMap;

use burn::prelude::*;
use sha2::{Digest, Sha256};

use crate::batch::MAX_TENSOR_BYTES;
use crate::classifier::{ClassificationHead, HeadAct, RobertaForSequenceClassification};
use crate::config::RobertaConfig;
use crate::embeddings::Embeddings;
use crate::encoder::{Attention, Encoder, FeedForward, Layer};
use crate::error::LoadError;
use crate::family::Family;
use crate::names::{
    bias, layer, weight, ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_NORM, EMBEDDINGS_PROJECTION,
    HEAD_DENSE, HEAD_OUT, INTERMEDIATE, KEY, LAYERS, OUTPUT, OUTPUT_NORM, POSITION_EMBEDDINGS,
    QUERY, TOKEN_TYPE_EMBEDDINGS, VALUE, WORD_EMBEDDINGS,
};
use crate::weight_file::{WeightFile, WeightSource};
use crate::weights::Tensors;

/// Stored tensors (canonical names) that are not weights of the network, skipped silently.
const BUFFERS: &[&str] = &["embeddings.position_ids", "embeddings.token_type_ids"];

/// DistilBERT's names inside `transformer.layer.{i}.`, and their canonical counterparts.
const DISTILBERT_LAYER: &[(&str, &str)] = &[
    ("attention.q_lin", QUERY),
    ("attention.k_lin", KEY),
    ("attention.v_lin", VALUE),
    ("attention.out_lin", ATTENTION_OUTPUT),
    ("sa_layer_norm", ATTENTION_NORM),
    ("ffn.lin1", INTERMEDIATE),
    ("ffn.lin2", OUTPUT),
    ("output_layer_norm", OUTPUT_NORM),
];

/// The file's length as a `usize` (saturating: a file past `usize::MAX` is large enough for
/// any config the size check compares it with).
pub fn byte_len(file: &WeightFile<'_>) -> usize {
    usize::try_from(file.byte_len()).unwrap_or(usize::MAX)
}

/// Lower-case hex SHA-256 of the weight file, the model's identity in results and share links.
pub fn weights_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

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

/// Translates a stored name of `family` to the canonical one (`None`: not a weight of the
/// network): drops the family's prefix, maps its names to RoBERTa's (see the module table) and
/// the TF-era `LayerNorm.gamma/beta` to `weight/bias`.
pub fn canonical_name(stored: &str, family: Family) -> Option<String> {
    let name = stored.strip_prefix(family.prefix()).unwrap_or(stored);
    let name = if let Some(base) = name.strip_suffix("LayerNorm.gamma") {
        format!("{base}LayerNorm.weight")
    } else if let Some(base) = name.strip_suffix("LayerNorm.beta") {
        format!("{base}LayerNorm.bias")
    } else {
        name.to_string()
    };
    if BUFFERS.contains(&name.as_str()) {
        return None;
    }
    // `{from}.{rest}` → `{to}.{rest}`.
    let replace_start = |from: &str, to: &str| {
        let rest = name.strip_prefix(from)?.strip_prefix('.')?;
        Some(format!("{to}.{rest}"))
    };
    let translated = match family {
        // RoBERTa's pooler is not part of its classifier.
        Family::Roberta | Family::XlmRoberta if name.starts_with("pooler.") => return None,
        Family::Roberta | Family::XlmRoberta => None,
        Family::Bert => replace_start("pooler.dense", HEAD_DENSE)
            .or_else(|| replace_start("classifier", HEAD_OUT)),
        Family::Electra => replace_start("embeddings_project", EMBEDDINGS_PROJECTION),
        Family::DistilBert => replace_start("pre_classifier", HEAD_DENSE)
            .or_else(|| replace_start("classifier", HEAD_OUT))
            .or_else(|| distilbert_layer_name(&name)),
        Family::DebertaV2 | Family::Bart => None,
    };
    Some(translated.unwrap_or(name))
}

/// `transformer.layer.{i}.{part}` → `encoder.layer.{i}.{canonical part}`.
fn distilbert_layer_name(name: &str) -> Option<String> {
    let rest = name.strip_prefix("transformer.layer.")?;
    let (index, part) = rest.split_once('.')?;
    let canonical = DISTILBERT_LAYER.iter().find_map(|(from, to)| {
        let tail = part.strip_prefix(from)?.strip_prefix('.')?;
        Some(format!("{to}.{tail}"))
    })?;
    Some(format!("{LAYERS}{index}.{canonical}"))
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
    fn names_lose_prefix_and_legacy_layer_norm_spelling() {
        let c = |name: &str| canonical_name(name, Family::Roberta);
        assert_eq!(
            c("roberta.embeddings.LayerNorm.gamma").as_deref(),
            Some("embeddings.LayerNorm.weight")
        );
        assert_eq!(
            c("encoder.layer.3.output.LayerNorm.beta").as_deref(),
            Some("encoder.layer.3.output.LayerNorm.bias")
        );
        assert_eq!(
            c("classifier.out_proj.weight").as_deref(),
            Some("classifier.out_proj.weight")
        );
        assert_eq!(c("roberta.pooler.dense.weight"), None);
        assert_eq!(c("roberta.embeddings.position_ids"), None);
    }

    #[test]
    fn other_families_names_become_robertas() {
        let cases = [
            (
                Family::Bert,
                "bert.pooler.dense.weight",
                "classifier.dense.weight",
            ),
            (Family::Bert, "classifier.bias", "classifier.out_proj.bias"),
            (
                Family::Bert,
                "bert.encoder.layer.1.output.dense.bias",
                "encoder.layer.1.output.dense.bias",
            ),
            (
                Family::Electra,
                "electra.embeddings_project.weight",
                "embeddings.project.weight",
            ),
            (
                Family::Electra,
                "classifier.out_proj.weight",
                "classifier.out_proj.weight",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.0.attention.q_lin.weight",
                "encoder.layer.0.attention.self.query.weight",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.5.sa_layer_norm.bias",
                "encoder.layer.5.attention.output.LayerNorm.bias",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.1.ffn.lin2.weight",
                "encoder.layer.1.output.dense.weight",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.1.output_layer_norm.weight",
                "encoder.layer.1.output.LayerNorm.weight",
            ),
            (
                Family::DistilBert,
                "pre_classifier.weight",
                "classifier.dense.weight",
            ),
            (
                Family::DistilBert,
                "classifier.weight",
                "classifier.out_proj.weight",
            ),
        ];
        for (family, stored, canonical) in cases {
            assert_eq!(
                canonical_name(stored, family).as_deref(),
                Some(canonical),
                "{family:?} {stored}"
            );
        }
    }

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

    #[test]
    fn sha256_is_lower_hex() {
        assert_eq!(
            weights_sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
