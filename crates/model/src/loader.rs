//! Builds a [`RobertaForSequenceClassification`] from the bytes of a Hugging Face
//! `model.safetensors`: every name translation from `transformers` to this crate lives here.
//!
//! | Hugging Face tensor (`roberta.` prefix optional)              | here                                    | note                  |
//! |---------------------------------------------------------------|-----------------------------------------|-----------------------|
//! | `embeddings.word_embeddings.weight`        `[V, H]`           | `embeddings.word`                       | row chunks ≤ 64 MiB   |
//! | `embeddings.position_embeddings.weight`    `[P, H]`           | `embeddings.position`                   |                       |
//! | `embeddings.token_type_embeddings.weight`  `[T, H]`           | `embeddings.token_type`                 | row 0 used            |
//! | `embeddings.LayerNorm.{weight,bias}`                          | `embeddings.layer_norm.{gamma,beta}`    | also `.gamma/.beta`   |
//! | `encoder.layer.{i}.attention.self.{query,key,value}.{weight,bias}` | `layers[i].attention.{query,key,value}` | `[out,in]`→`[in,out]` |
//! | `encoder.layer.{i}.attention.output.dense.{weight,bias}`      | `layers[i].attention.output`            | transposed            |
//! | `encoder.layer.{i}.attention.output.LayerNorm.{weight,bias}`  | `layers[i].attention.layer_norm`        |                       |
//! | `encoder.layer.{i}.intermediate.dense.{weight,bias}`          | `layers[i].feed_forward.intermediate`   | transposed            |
//! | `encoder.layer.{i}.output.dense.{weight,bias}`                | `layers[i].feed_forward.output`         | transposed            |
//! | `encoder.layer.{i}.output.LayerNorm.{weight,bias}`            | `layers[i].feed_forward.layer_norm`     |                       |
//! | `classifier.dense.{weight,bias}`                              | `classifier.dense`                      | transposed            |
//! | `classifier.out_proj.{weight,bias}`                           | `classifier.out_proj`                   | transposed            |
//! | `embeddings.position_ids`, `embeddings.token_type_ids`        | ignored                                 | buffers, not weights  |
//! | `pooler.dense.{weight,bias}`                                  | ignored                                 | unused by the head    |
//!
//! Weights may be F32, F16 or BF16; they are widened to f32 on the host, which is exact, so a
//! half-precision checkpoint computes like `from_pretrained(..., torch_dtype=torch.float32)`.
//! Everything is checked from the safetensors header before any tensor is converted, so a
//! checkpoint that does not fit fails fast with a [`LoadError`] naming the tensor.

use std::collections::{BTreeMap, BTreeSet};

use burn::prelude::*;
use safetensors::{Dtype, SafeTensors};
use sha2::{Digest, Sha256};

use crate::batch::MAX_TENSOR_BYTES;
use crate::classifier::{ClassificationHead, RobertaForSequenceClassification};
use crate::config::RobertaConfig;
use crate::embeddings::{Embeddings, WordChunk};
use crate::encoder::{Attention, Encoder, FeedForward, Layer};
use crate::error::LoadError;
use crate::nn::{Dense, LayerNorm};

/// The optional prefix `RobertaForSequenceClassification` puts before the encoder's names.
const PREFIX: &str = "roberta.";

/// Stored tensors that are not weights of this model and are skipped silently.
const IGNORED: &[&str] = &[
    "embeddings.position_ids",
    "embeddings.token_type_ids",
    "pooler.dense.weight",
    "pooler.dense.bias",
];

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
/// then are tensors converted.
pub fn load_weights(
    config: &RobertaConfig,
    bytes: &[u8],
    device: &Device,
) -> Result<RobertaForSequenceClassification, LoadError> {
    let st = SafeTensors::deserialize(bytes).map_err(|e| LoadError::WeightsParse(e.to_string()))?;
    let tensors = Tensors::index(&st)?;
    check_against_config(&tensors, config)?;
    config.check_weights_size(bytes.len())?;
    let expected = expected_shapes(config);
    tensors.check(&expected)?;

    let h = config.hidden_size;
    let eps = config.layer_norm_eps;
    let dense = |name: &str| tensors.dense(name, device);
    let norm = |name: &str| tensors.layer_norm(name, eps, device);
    let embeddings = Embeddings {
        word: tensors.word_chunks(
            "embeddings.word_embeddings.weight",
            MAX_TENSOR_BYTES,
            device,
        )?,
        position: tensors.matrix("embeddings.position_embeddings.weight", device)?,
        token_type: tensors.matrix("embeddings.token_type_embeddings.weight", device)?,
        layer_norm: norm("embeddings.LayerNorm")?,
    };
    let mut layers = Vec::with_capacity(config.num_hidden_layers);
    for i in 0..config.num_hidden_layers {
        let p = format!("encoder.layer.{i}");
        layers.push(Layer {
            attention: Attention {
                query: dense(&format!("{p}.attention.self.query"))?,
                key: dense(&format!("{p}.attention.self.key"))?,
                value: dense(&format!("{p}.attention.self.value"))?,
                output: dense(&format!("{p}.attention.output.dense"))?,
                layer_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                heads: config.num_attention_heads,
            },
            feed_forward: FeedForward {
                intermediate: dense(&format!("{p}.intermediate.dense"))?,
                output: dense(&format!("{p}.output.dense"))?,
                layer_norm: norm(&format!("{p}.output.LayerNorm"))?,
                act: config.hidden_act,
            },
        });
    }
    let classifier = ClassificationHead {
        dense: dense("classifier.dense")?,
        out_proj: dense("classifier.out_proj")?,
    };
    debug_assert_eq!(classifier.dense.bias.dims(), [h]);
    Ok(RobertaForSequenceClassification {
        embeddings,
        encoder: Encoder { layers },
        classifier,
    })
}

/// Every tensor the model needs, by its Hugging Face name without the `roberta.` prefix, with
/// the shape `config` implies, in PyTorch layout (`nn.Linear` weights are `[out, in]`).
/// Benchmarks use it to make random checkpoints of any shape.
pub fn expected_shapes(c: &RobertaConfig) -> BTreeMap<String, Vec<usize>> {
    let (h, i, l) = (c.hidden_size, c.intermediate_size, c.num_labels());
    let mut m = BTreeMap::new();
    let mut dense = |name: String, out: usize, inp: usize| {
        m.insert(format!("{name}.weight"), vec![out, inp]);
        m.insert(format!("{name}.bias"), vec![out]);
    };
    for n in 0..c.num_hidden_layers {
        let p = format!("encoder.layer.{n}");
        for part in ["query", "key", "value"] {
            dense(format!("{p}.attention.self.{part}"), h, h);
        }
        dense(format!("{p}.attention.output.dense"), h, h);
        dense(format!("{p}.intermediate.dense"), i, h);
        dense(format!("{p}.output.dense"), h, i);
    }
    dense("classifier.dense".into(), h, h);
    dense("classifier.out_proj".into(), l, h);
    let mut norms = vec!["embeddings.LayerNorm".to_string()];
    for n in 0..c.num_hidden_layers {
        norms.push(format!("encoder.layer.{n}.attention.output.LayerNorm"));
        norms.push(format!("encoder.layer.{n}.output.LayerNorm"));
    }
    for name in norms {
        m.insert(format!("{name}.weight"), vec![h]);
        m.insert(format!("{name}.bias"), vec![h]);
    }
    m.insert(
        "embeddings.word_embeddings.weight".into(),
        vec![c.vocab_size, h],
    );
    m.insert(
        "embeddings.position_embeddings.weight".into(),
        vec![c.max_position_embeddings, h],
    );
    m.insert(
        "embeddings.token_type_embeddings.weight".into(),
        vec![c.type_vocab_size, h],
    );
    m
}

/// Translates a stored name to the canonical one: drops `roberta.`, maps the TF-era
/// `LayerNorm.gamma/beta` to `weight/bias`.
fn canonical_name(stored: &str) -> String {
    let name = stored.strip_prefix(PREFIX).unwrap_or(stored);
    if let Some(base) = name.strip_suffix("LayerNorm.gamma") {
        format!("{base}LayerNorm.weight")
    } else if let Some(base) = name.strip_suffix("LayerNorm.beta") {
        format!("{base}LayerNorm.bias")
    } else {
        name.to_string()
    }
}

/// The stored tensors indexed by canonical name.
struct Tensors<'a> {
    by_name: BTreeMap<String, (String, safetensors::tensor::TensorView<'a>)>,
}

impl<'a> Tensors<'a> {
    fn index(st: &SafeTensors<'a>) -> Result<Self, LoadError> {
        let mut by_name = BTreeMap::new();
        // Sorted so that errors are deterministic whatever the header order.
        let mut all = st.tensors();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        for (stored, view) in all {
            let name = canonical_name(&stored);
            if IGNORED.contains(&name.as_str()) {
                continue;
            }
            // The same weight under two spellings (with and without the prefix) is ambiguous.
            if by_name.contains_key(&name) {
                return Err(LoadError::UnexpectedTensor { name: stored });
            }
            by_name.insert(name, (stored, view));
        }
        Ok(Self { by_name })
    }

    fn shape(&self, name: &str) -> Option<&[usize]> {
        self.by_name.get(name).map(|(_, v)| v.shape())
    }

    /// Missing, unexpected, dtype and shape checks, all from the header.
    fn check(&self, expected: &BTreeMap<String, Vec<usize>>) -> Result<(), LoadError> {
        if let Some(name) = expected.keys().find(|n| !self.by_name.contains_key(*n)) {
            return Err(LoadError::MissingTensor { name: name.clone() });
        }
        let known: BTreeSet<&String> = expected.keys().collect();
        if let Some((_, (stored, _))) = self.by_name.iter().find(|(n, _)| !known.contains(n)) {
            return Err(LoadError::UnexpectedTensor {
                name: stored.clone(),
            });
        }
        for (name, want) in expected {
            let Some((stored, view)) = self.by_name.get(name) else {
                continue; // unreachable: checked above
            };
            if !matches!(view.dtype(), Dtype::F32 | Dtype::F16 | Dtype::BF16) {
                return Err(LoadError::UnsupportedDtype {
                    name: stored.clone(),
                    dtype: view.dtype().to_string(),
                });
            }
            if view.shape() != want.as_slice() {
                return Err(LoadError::ShapeMismatch {
                    name: stored.clone(),
                    expected: want.clone(),
                    found: view.shape().to_vec(),
                });
            }
        }
        Ok(())
    }

    /// The tensor widened to f32, row-major, with its shape.
    fn f32(&self, name: &str) -> Result<(Vec<f32>, Vec<usize>), LoadError> {
        let shape = self
            .shape(name)
            .ok_or_else(|| LoadError::MissingTensor { name: name.into() })?
            .to_vec();
        let values = self.f32_range(name, 0, shape.iter().product())?;
        Ok((values, shape))
    }

    /// Elements `start..end` (row-major) of the tensor widened to f32: converting a large
    /// table piece by piece keeps only one piece on the host at a time.
    fn f32_range(&self, name: &str, start: usize, end: usize) -> Result<Vec<f32>, LoadError> {
        let (stored, view) = self
            .by_name
            .get(name)
            .ok_or_else(|| LoadError::MissingTensor { name: name.into() })?;
        let width = match view.dtype() {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::BF16 => 2,
            other => {
                return Err(LoadError::UnsupportedDtype {
                    name: stored.clone(),
                    dtype: other.to_string(),
                })
            }
        };
        let bytes = view
            .data()
            .get(start * width..end * width)
            .ok_or_else(|| LoadError::WeightsParse(format!("tensor {stored:?} is truncated")))?;
        Ok(match view.dtype() {
            Dtype::F32 => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::F16 => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            _ => bytes
                .chunks_exact(2)
                .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
        })
    }

    fn matrix(&self, name: &str, device: &Device) -> Result<Tensor<2>, LoadError> {
        let (values, shape) = self.f32(name)?;
        Ok(Tensor::from_data(TensorData::new(values, shape), device))
    }

    /// The word table cut into row chunks of at most `max_bytes` (as f32) each.
    fn word_chunks(
        &self,
        name: &str,
        max_bytes: usize,
        device: &Device,
    ) -> Result<Vec<WordChunk>, LoadError> {
        let (rows, width) = match self.shape(name) {
            Some(&[rows, width]) => (rows, width),
            _ => return Err(LoadError::MissingTensor { name: name.into() }),
        };
        let per_chunk = (max_bytes / 4 / width.max(1)).max(1);
        (0..rows)
            .step_by(per_chunk)
            .map(|start| {
                let end = (start + per_chunk).min(rows);
                let part = self.f32_range(name, start * width, end * width)?;
                Ok(WordChunk {
                    start,
                    table: Tensor::from_data(TensorData::new(part, [end - start, width]), device),
                })
            })
            .collect()
    }

    fn vector(&self, name: &str, device: &Device) -> Result<Tensor<1>, LoadError> {
        let (values, shape) = self.f32(name)?;
        Ok(Tensor::from_data(TensorData::new(values, shape), device))
    }

    /// A PyTorch `nn.Linear` (`weight [out, in]`) as a [`Dense`] (`[in, out]`). Transposed on the
    /// host so the device holds a plain row-major matrix.
    fn dense(&self, name: &str, device: &Device) -> Result<Dense, LoadError> {
        let (w, shape) = self.f32(&format!("{name}.weight"))?;
        let (out, inp) = (shape[0], shape[1]);
        let mut t = vec![0.0f32; w.len()];
        for o in 0..out {
            for i in 0..inp {
                t[i * out + o] = w[o * inp + i];
            }
        }
        Ok(Dense {
            weight: Tensor::from_data(TensorData::new(t, [inp, out]), device),
            bias: self.vector(&format!("{name}.bias"), device)?,
        })
    }

    fn layer_norm(&self, name: &str, eps: f64, device: &Device) -> Result<LayerNorm, LoadError> {
        Ok(LayerNorm {
            gamma: self.vector(&format!("{name}.weight"), device)?,
            beta: self.vector(&format!("{name}.bias"), device)?,
            eps,
        })
    }
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
    if let Some(&[v, h]) = t.shape("embeddings.word_embeddings.weight") {
        mismatch("hidden_size", c.hidden_size, h)?;
        mismatch("vocab_size", c.vocab_size, v)?;
    }
    if let Some(&[p, _]) = t.shape("embeddings.position_embeddings.weight") {
        mismatch("max_position_embeddings", c.max_position_embeddings, p)?;
    }
    if let Some(&[ty, _]) = t.shape("embeddings.token_type_embeddings.weight") {
        mismatch("type_vocab_size", c.type_vocab_size, ty)?;
    }
    let layers = t
        .by_name
        .keys()
        .filter_map(|n| n.strip_prefix("encoder.layer."))
        .filter_map(|rest| rest.split('.').next()?.parse::<usize>().ok())
        .map(|i| i + 1)
        .max();
    if let Some(n) = layers {
        mismatch("num_hidden_layers", c.num_hidden_layers, n)?;
    }
    if let Some(&[i, _]) = t.shape("encoder.layer.0.intermediate.dense.weight") {
        mismatch("intermediate_size", c.intermediate_size, i)?;
    }
    if let Some(&[l, _]) = t.shape("classifier.out_proj.weight") {
        mismatch("num_labels (id2label)", c.num_labels(), l)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_prefix_and_legacy_layer_norm_spelling() {
        assert_eq!(
            canonical_name("roberta.embeddings.LayerNorm.gamma"),
            "embeddings.LayerNorm.weight"
        );
        assert_eq!(
            canonical_name("encoder.layer.3.output.LayerNorm.beta"),
            "encoder.layer.3.output.LayerNorm.bias"
        );
        assert_eq!(
            canonical_name("classifier.out_proj.weight"),
            "classifier.out_proj.weight"
        );
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
            let st = SafeTensors::deserialize(&bytes).unwrap();
            let t = Tensors::index(&st).unwrap();
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
