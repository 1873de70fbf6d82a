//! Builds the BERT-style encoder classifier ([`RobertaForSequenceClassification`]: RoBERTa,
//! XLM-RoBERTa, BERT, ELECTRA, DistilBERT) from the bytes of a Hugging Face
//! `model.safetensors`. Each family's stored names are first translated to RoBERTa's (the
//! canonical names below),
//! then one walk of the parameters ([`crate::families::encoder::walk`]) gives the table of
//! shapes they are checked against and builds the network.
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

use burn::prelude::*;

use crate::blocks::classifier::RobertaForSequenceClassification;
use crate::error::LoadError;
use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::names::{
    layer, weight, HEAD_OUT, INTERMEDIATE, LAYERS, POSITION_EMBEDDINGS, TOKEN_TYPE_EMBEDDINGS,
    WORD_EMBEDDINGS,
};
use crate::families::encoder::rename::canonical_name;
use crate::families::encoder::walk::{expected_shapes, walk};
use crate::loading::vars::{Loading, Vars};
use crate::loading::weight_file::{WeightFile, WeightSource};
use crate::loading::weights::{agree, Tensors};

/// Reads `model.safetensors` bytes into a model on `device`, checked against `config`: the
/// header, the sizes its tensors imply, that the file is large enough for the parameters the
/// config implies, every name and shape, and only then are tensors converted.
/// `config.family` says how to read the names.
pub fn load_weights(
    config: &RobertaConfig,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<RobertaForSequenceClassification, LoadError> {
    load_with(config, weights, device, |v| walk(config, v))
}

/// [`load_weights`] with the checked tensors handed to `build` (training records the walk).
pub fn load_with<T>(
    config: &RobertaConfig,
    weights: &dyn WeightSource,
    device: &Device,
    build: impl FnOnce(&mut dyn Vars) -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    let file = WeightFile::open(weights)?;
    let tensors = Tensors::index(&file, |stored| canonical_name(stored, config.family))?;
    check_against_config(&tensors, config)?;
    tensors.check_against(&expected_shapes(config))?;
    build(&mut Loading::new(&tensors, device))
}

/// Compares the sizes the weights imply with `config.json`, so that a config from another
/// checkpoint is reported as such rather than as a list of shape mismatches.
fn check_against_config(t: &Tensors<'_>, c: &RobertaConfig) -> Result<(), LoadError> {
    if let Some(&[v, h]) = t.shape(WORD_EMBEDDINGS) {
        let key = if c.embedding_size.is_some() {
            "embedding_size"
        } else {
            "hidden_size"
        };
        agree(key, c.embedding_width(), h)?;
        agree("vocab_size", c.vocab_size, v)?;
    }
    if let Some(&[p, _]) = t.shape(POSITION_EMBEDDINGS) {
        agree("max_position_embeddings", c.max_position_embeddings, p)?;
    }
    if let Some(&[ty, _]) = t.shape(TOKEN_TYPE_EMBEDDINGS) {
        agree("type_vocab_size", c.type_vocab_size, ty)?;
    }
    let layers = t
        .names()
        .filter_map(|n| n.strip_prefix(LAYERS))
        .filter_map(|rest| rest.split('.').next()?.parse::<usize>().ok())
        .map(|i| i + 1)
        .max();
    if let Some(n) = layers {
        agree("num_hidden_layers", c.num_hidden_layers, n)?;
    }
    if let Some(&[i, _]) = t.shape(&weight(&layer(0, INTERMEDIATE))) {
        agree("intermediate_size", c.intermediate_size, i)?;
    }
    if let Some(&[l, _]) = t.shape(&weight(HEAD_OUT)) {
        agree("num_labels (id2label)", c.num_labels(), l)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::families::family::Family;

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
