//! The tensors of a weight file, indexed by their canonical names (each family's loader says
//! what a stored name means), checked from the header and converted to f32 tensors on demand.
//! Shared by every family's loader.

use std::collections::{BTreeMap, BTreeSet};

use burn::prelude::*;
use safetensors::tensor::TensorInfo;
use safetensors::Dtype;

use crate::blocks::embeddings::WordChunk;
use crate::blocks::nn::{Dense, LayerNorm};
use crate::error::LoadError;
use crate::families::limits::check_weights_len;
use crate::loading::weight_file::{byte_len, WeightFile};

/// The stored tensors of one file, by canonical name.
pub struct Tensors<'a> {
    file: &'a WeightFile<'a>,
    by_name: BTreeMap<String, (String, TensorInfo)>,
}

impl<'a> Tensors<'a> {
    /// Indexes `file` under `canonical(stored name)`; `None` skips a tensor (a buffer, an unused
    /// pooler). Two stored names with one canonical name are refused as ambiguous.
    pub fn index(
        file: &'a WeightFile<'a>,
        canonical: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LoadError> {
        let mut by_name = BTreeMap::new();
        // Sorted so that errors are deterministic whatever the header order.
        let mut all = file.tensors();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        for (stored, info) in all {
            let Some(name) = canonical(&stored) else {
                continue;
            };
            // The same weight under two spellings (with and without the prefix) is ambiguous.
            if by_name.contains_key(&name) {
                return Err(LoadError::UnexpectedTensor { name: stored });
            }
            by_name.insert(name, (stored, info));
        }
        Ok(Self { file, by_name })
    }

    /// The stored shape under a canonical name.
    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        self.by_name.get(name).map(|(_, v)| v.shape.as_slice())
    }

    /// Refuses a file smaller than the parameters of `expected` need (at
    /// [`crate::families::limits::MIN_BYTES_PER_PARAMETER`] bytes each), then makes [`Tensors::check`]'s checks.
    pub fn check_against(&self, expected: &BTreeMap<String, Vec<usize>>) -> Result<(), LoadError> {
        check_weights_len(element_count(expected), byte_len(self.file))?;
        self.check(expected)
    }

    /// Missing, unexpected, dtype and shape checks, all from the header.
    pub fn check(&self, expected: &BTreeMap<String, Vec<usize>>) -> Result<(), LoadError> {
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
            if !matches!(view.dtype, Dtype::F32 | Dtype::F16 | Dtype::BF16) {
                return Err(LoadError::UnsupportedDtype {
                    name: stored.clone(),
                    dtype: view.dtype.to_string(),
                });
            }
            if view.shape != *want {
                return Err(LoadError::ShapeMismatch {
                    name: stored.clone(),
                    expected: want.clone(),
                    found: view.shape.clone(),
                });
            }
        }
        Ok(())
    }

    /// The tensor widened to f32, row-major, with its shape.
    pub fn f32(&self, name: &str) -> Result<(Vec<f32>, Vec<usize>), LoadError> {
        let shape = self
            .shape(name)
            .ok_or_else(|| LoadError::MissingTensor { name: name.into() })?
            .to_vec();
        let values = self.f32_range(name, 0, shape.iter().product())?;
        Ok((values, shape))
    }

    /// Elements `start..end` (row-major) of the tensor widened to f32: converting a large
    /// table piece by piece keeps only one piece on the host at a time.
    pub fn f32_range(&self, name: &str, start: usize, end: usize) -> Result<Vec<f32>, LoadError> {
        let (stored, view) = self
            .by_name
            .get(name)
            .ok_or_else(|| LoadError::MissingTensor { name: name.into() })?;
        let width = match view.dtype {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::BF16 => 2,
            other => {
                return Err(LoadError::UnsupportedDtype {
                    name: stored.clone(),
                    dtype: other.to_string(),
                })
            }
        };
        // Only this range of the file is read: a source outside memory (the browser worker's
        // Blob) hands over one piece at a time.
        let bytes = self
            .file
            .read(stored, view, (start * width) as u64, (end * width) as u64)?;
        Ok(match view.dtype {
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

    /// A 2-d tensor as stored (no transpose).
    pub fn matrix(&self, name: &str, device: &Device) -> Result<Tensor<2>, LoadError> {
        let (values, shape) = self.f32(name)?;
        Ok(Tensor::from_data(TensorData::new(values, shape), device))
    }

    /// The word table cut into row chunks of at most `max_bytes` (as f32) each.
    pub fn word_chunks(
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

    /// A 1-d tensor.
    pub fn vector(&self, name: &str, device: &Device) -> Result<Tensor<1>, LoadError> {
        let (values, shape) = self.f32(name)?;
        Ok(Tensor::from_data(TensorData::new(values, shape), device))
    }

    /// A PyTorch `nn.Linear` (`weight [out, in]`) as a [`Dense`] (`[in, out]`). Transposed on the
    /// host so the device holds a plain row-major matrix.
    pub fn dense(&self, name: &str, device: &Device) -> Result<Dense, LoadError> {
        let (w, shape) = self.f32(&format!("{name}.weight"))?;
        let (out, inp) = (shape[0], shape[1]);
        Ok(Dense::new(
            transposed(&w, out, inp, device),
            self.vector(&format!("{name}.bias"), device)?,
        ))
    }

    /// An `nn.Linear(bias=False)` as a [`Dense`] with a zero bias (adding 0 is exact).
    pub fn dense_no_bias(&self, name: &str, device: &Device) -> Result<Dense, LoadError> {
        let (w, shape) = self.f32(&format!("{name}.weight"))?;
        let (out, inp) = (shape[0], shape[1]);
        Ok(Dense::new(
            transposed(&w, out, inp, device),
            Tensor::zeros([out], device),
        ))
    }

    /// `{name}.weight` and `{name}.bias` as a LayerNorm.
    pub fn layer_norm(
        &self,
        name: &str,
        eps: f64,
        device: &Device,
    ) -> Result<LayerNorm, LoadError> {
        Ok(LayerNorm {
            gamma: self.vector(&format!("{name}.weight"), device)?,
            beta: self.vector(&format!("{name}.bias"), device)?,
            eps,
        })
    }

    /// Canonical names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }
}

/// Refuses a `config.json` value the weights contradict: a config from another checkpoint is
/// reported as such rather than as a list of shape mismatches.
pub fn agree(key: &str, config: usize, weights: usize) -> Result<(), LoadError> {
    if config == weights {
        Ok(())
    } else {
        Err(LoadError::ConfigWeightsMismatch {
            key: key.into(),
            config,
            weights,
        })
    }
}

/// Side of the square tiles [`transposed`] copies: 32 × 32 f32 reads 32 rows of 128 bytes and
/// writes 32 rows of 128 bytes, so both sides stay in the L1 cache.
const TILE: usize = 32;

/// A row-major `[out, in]` matrix as an `[in, out]` tensor. Copied tile by tile: element by
/// element, every write of a 1024 × 4096 matrix lands on another cache line, and this loop
/// was 34 % of the browser worker's 6 s load of a roberta-large-shaped checkpoint.
fn transposed(w: &[f32], out: usize, inp: usize, device: &Device) -> Tensor<2> {
    let mut t = vec![0.0f32; w.len()];
    for o0 in (0..out).step_by(TILE) {
        for i0 in (0..inp).step_by(TILE) {
            for o in o0..(o0 + TILE).min(out) {
                for i in i0..(i0 + TILE).min(inp) {
                    t[i * out + o] = w[o * inp + i];
                }
            }
        }
    }
    Tensor::from_data(TensorData::new(t, [inp, out]), device)
}

/// Elements of every tensor in `shapes` (`None`: more than a `u64` holds): the parameter
/// count a walk implies.
pub fn element_count(shapes: &BTreeMap<String, Vec<usize>>) -> Option<u64> {
    shapes.values().try_fold(0u64, |sum, shape| {
        let n = shape
            .iter()
            .try_fold(1u64, |p, &d| p.checked_mul(d as u64))?;
        sum.checked_add(n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_moves_every_element_across_tile_edges() {
        // Neither side a multiple of the tile, so partial tiles on both edges.
        let (out, inp) = (37, 70);
        let w: Vec<f32> = (0..out * inp).map(|k| k as f32).collect();
        let t = transposed(&w, out, inp, &Device::flex());
        assert_eq!(t.dims(), [inp, out]);
        let got = t.into_data().try_to_vec::<f32>().expect("f32 data");
        for o in 0..out {
            for i in 0..inp {
                assert_eq!(got[i * out + o], w[o * inp + i], "[{o}, {i}]");
            }
        }
    }
}
