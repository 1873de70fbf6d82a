//! The trainable tensors of an encoder classifier under their Hugging Face names — the
//! record of the family's one walk ([`crate::families::encoder::walk`]) as it loaded them,
//! replayed to build the network again after every optimisation step (candle's `VarMap`
//! idea) — and the safetensors writer that turns them back into a `model.safetensors` the
//! loader (and `transformers`) reads.

use std::collections::HashMap;
use std::iter::Peekable;
use std::slice::Iter;

use burn::prelude::*;
use safetensors::tensor::TensorView;
use safetensors::Dtype;

use crate::blocks::classifier::RobertaForSequenceClassification;
use crate::blocks::embeddings::WordChunk;
use crate::blocks::nn::{Dense, LayerNorm};
use crate::error::LoadError;
use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::loader::load_with;
use crate::families::encoder::names::{bias, weight, HEAD};
use crate::families::encoder::walk::walk;
use crate::loading::vars::Vars;
use crate::loading::weight_file::WeightSource;

/// How a tensor is stored in the Hugging Face file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// As here.
    Same,
    /// Transposed: an `nn.Linear` weight, `[out, in]` there, `[in, out]` here.
    Transposed,
}

/// One trainable tensor, borrowed mutably.
pub enum ParamMut<'a> {
    /// Biases and LayerNorm parameters.
    Vector(&'a mut Tensor<1>),
    /// Weight matrices and embedding tables.
    Matrix(&'a mut Tensor<2>, Layout),
}

/// One trainable tensor as the walk met it.
#[derive(Debug, Clone)]
enum Param {
    Vector(Tensor<1>),
    Matrix(Tensor<2>, Layout),
    /// Rows `start..` of the word table.
    Chunk(usize, Tensor<2>),
}

/// Whether AdamW's weight decay applies: not to biases and LayerNorm parameters (as the
/// `transformers` Trainer does), only to matrices.
pub fn decays(name: &str) -> bool {
    !(name.ends_with(".bias") || name.contains("LayerNorm"))
}

/// Every trainable tensor of a network by its canonical Hugging Face name (without the
/// `roberta.` prefix), in the walk's order; a word table held in several row chunks is one
/// entry per chunk under the same name, in row order.
#[derive(Debug, Clone, Default)]
pub struct Params {
    entries: Vec<(String, Param)>,
}

impl Params {
    /// The tensors of `weights` (checked as [`crate::families::encoder::loader::load_weights`]
    /// checks them) on `device`.
    pub fn load(
        config: &RobertaConfig,
        weights: &dyn WeightSource,
        device: &Device,
    ) -> Result<Self, LoadError> {
        load_with(config, weights, device, |v| {
            let mut record = Record {
                inner: v,
                params: Params::default(),
            };
            walk(config, &mut record)?;
            Ok(record.params)
        })
    }

    /// The network of `config` made of these tensors (the same tensors: gradients found for
    /// the network's are found for these).
    pub fn network(
        &self,
        config: &RobertaConfig,
    ) -> Result<RobertaForSequenceClassification, LoadError> {
        let device = match self.entries.first() {
            Some((_, Param::Vector(t))) => t.device(),
            Some((_, Param::Matrix(t, _) | Param::Chunk(_, t))) => t.device(),
            None => Device::flex(),
        };
        walk(
            config,
            &mut Replay {
                entries: self.entries.iter().peekable(),
                device,
            },
        )
    }

    /// Calls `f` on every tensor with its name, in the walk's order.
    pub fn for_each(&mut self, mut f: impl FnMut(&str, ParamMut<'_>)) {
        for (name, param) in &mut self.entries {
            match param {
                Param::Vector(t) => f(name, ParamMut::Vector(t)),
                Param::Matrix(t, layout) => f(name, ParamMut::Matrix(t, *layout)),
                Param::Chunk(_, t) => f(name, ParamMut::Matrix(t, Layout::Same)),
            }
        }
    }

    fn push(&mut self, name: String, param: Param) {
        self.entries.push((name, param));
    }
}

/// A walk's parts from `inner`, each noted in `params`.
struct Record<'a> {
    inner: &'a mut dyn Vars,
    params: Params,
}

impl Record<'_> {
    fn dense(&mut self, name: &str, d: &Dense, with_bias: bool) {
        let w = Param::Matrix(d.weight.clone(), Layout::Transposed);
        self.params.push(weight(name), w);
        if with_bias {
            self.params.push(bias(name), Param::Vector(d.bias.clone()));
        }
    }
}

impl Vars for Record<'_> {
    fn dense(&mut self, name: &str, out: usize, inp: usize) -> Result<Dense, LoadError> {
        let d = self.inner.dense(name, out, inp)?;
        Record::dense(self, name, &d, true);
        Ok(d)
    }

    fn dense_no_bias(&mut self, name: &str, out: usize, inp: usize) -> Result<Dense, LoadError> {
        let d = self.inner.dense_no_bias(name, out, inp)?;
        Record::dense(self, name, &d, false);
        Ok(d)
    }

    fn norm(&mut self, name: &str, width: usize, eps: f64) -> Result<LayerNorm, LoadError> {
        let n = self.inner.norm(name, width, eps)?;
        self.params
            .push(weight(name), Param::Vector(n.gamma.clone()));
        self.params.push(bias(name), Param::Vector(n.beta.clone()));
        Ok(n)
    }

    fn table(&mut self, name: &str, rows: usize, cols: usize) -> Result<Tensor<2>, LoadError> {
        let t = self.inner.table(name, rows, cols)?;
        self.params
            .push(name.into(), Param::Matrix(t.clone(), Layout::Same));
        Ok(t)
    }

    fn words(&mut self, name: &str, rows: usize, cols: usize) -> Result<Vec<WordChunk>, LoadError> {
        let chunks = self.inner.words(name, rows, cols)?;
        for c in &chunks {
            self.params
                .push(name.into(), Param::Chunk(c.start, c.table.clone()));
        }
        Ok(chunks)
    }

    fn device(&self) -> Device {
        self.inner.device()
    }
}

/// The walk's parts taken from the entries, in the order they were recorded.
struct Replay<'a> {
    entries: Peekable<Iter<'a, (String, Param)>>,
    device: Device,
}

impl Replay<'_> {
    /// The next entry, which must be `name`.
    fn next(&mut self, name: &str) -> Result<&Param, LoadError> {
        match self.entries.next() {
            Some((n, param)) if n == name => Ok(param),
            _ => Err(LoadError::MissingTensor { name: name.into() }),
        }
    }

    fn vector(&mut self, name: &str) -> Result<Tensor<1>, LoadError> {
        match self.next(name)? {
            Param::Vector(t) => Ok(t.clone()),
            _ => Err(LoadError::MissingTensor { name: name.into() }),
        }
    }

    fn matrix(&mut self, name: &str) -> Result<Tensor<2>, LoadError> {
        match self.next(name)? {
            Param::Matrix(t, _) => Ok(t.clone()),
            _ => Err(LoadError::MissingTensor { name: name.into() }),
        }
    }
}

impl Vars for Replay<'_> {
    fn dense(&mut self, name: &str, _out: usize, _inp: usize) -> Result<Dense, LoadError> {
        Ok(Dense::new(
            self.matrix(&weight(name))?,
            self.vector(&bias(name))?,
        ))
    }

    fn dense_no_bias(&mut self, name: &str, out: usize, _inp: usize) -> Result<Dense, LoadError> {
        Ok(Dense::new(
            self.matrix(&weight(name))?,
            Tensor::zeros([out], &self.device),
        ))
    }

    fn norm(&mut self, name: &str, _width: usize, eps: f64) -> Result<LayerNorm, LoadError> {
        Ok(LayerNorm {
            gamma: self.vector(&weight(name))?,
            beta: self.vector(&bias(name))?,
            eps,
        })
    }

    fn table(&mut self, name: &str, _rows: usize, _cols: usize) -> Result<Tensor<2>, LoadError> {
        self.matrix(name)
    }

    fn words(
        &mut self,
        name: &str,
        _rows: usize,
        _cols: usize,
    ) -> Result<Vec<WordChunk>, LoadError> {
        let mut chunks = Vec::new();
        while let Some((_, Param::Chunk(start, table))) = self
            .entries
            .next_if(|(n, p)| n == name && matches!(p, Param::Chunk(..)))
        {
            chunks.push(WordChunk {
                start: *start,
                table: table.clone(),
            });
        }
        Ok(chunks)
    }

    fn device(&self) -> Device {
        self.device.clone()
    }
}

/// The name `RobertaForSequenceClassification.state_dict()` uses: the encoder and embeddings
/// sit under `roberta.`, the head does not.
fn stored_name(canonical: &str) -> String {
    if canonical.starts_with(HEAD) {
        canonical.to_string()
    } else {
        format!("roberta.{canonical}")
    }
}

/// A tensor read back to the host in Hugging Face layout.
struct HostTensor {
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

async fn host_values<const D: usize>(t: Tensor<D>) -> Result<Vec<f32>, String> {
    t.inner()
        .into_data_async()
        .await
        .map_err(|e| format!("reading a weight back failed: {e:?}"))?
        .try_into_vec::<f32>()
        .map_err(|e| format!("reading a weight back failed: {e:?}"))
}

/// A matrix read back in Hugging Face layout, with its shape there.
async fn matrix_values(t: Tensor<2>, layout: Layout) -> (Result<Vec<f32>, String>, Vec<usize>) {
    let [rows, cols] = t.dims();
    match (layout, host_values(t).await) {
        (Layout::Transposed, Ok(v)) => {
            let mut out = vec![0.0f32; v.len()];
            for r in 0..rows {
                for c in 0..cols {
                    out[c * rows + r] = v[r * cols + c];
                }
            }
            (Ok(out), vec![cols, rows])
        }
        (_, v) => (v, vec![rows, cols]),
    }
}

/// Writes the tensors as `model.safetensors` bytes (f32, little-endian, `{"format": "pt"}`
/// metadata) with `RobertaForSequenceClassification`'s names and PyTorch layouts, so that
/// both [`crate::families::encoder::loader::load_weights`] and `transformers` read it. Reads
/// every tensor back asynchronously, so it runs in the browser too.
pub async fn to_safetensors_async(params: &Params) -> Result<Vec<u8>, String> {
    let mut order: Vec<String> = Vec::new();
    let mut tensors: HashMap<String, HostTensor> = HashMap::new();
    for (name, param) in params.entries.iter().cloned() {
        let (values, shape) = match param {
            Param::Vector(t) => {
                let dims = t.dims().to_vec();
                (host_values(t).await, dims)
            }
            Param::Matrix(t, layout) => matrix_values(t, layout).await,
            Param::Chunk(_, t) => matrix_values(t, Layout::Same).await,
        };
        let values = values.map_err(|e| format!("{name}: {e}"))?;
        let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        match tensors.get_mut(&name) {
            // Another row chunk of the word table: append its rows.
            Some(existing) => {
                existing.shape[0] += shape[0];
                existing.bytes.extend(bytes);
            }
            None => {
                order.push(name.clone());
                tensors.insert(name, HostTensor { shape, bytes });
            }
        }
    }
    let stored = order
        .into_iter()
        .map(|name| {
            let t = tensors.remove(&name).unwrap_or(HostTensor {
                shape: vec![0],
                bytes: Vec::new(),
            });
            (name, t.shape, t.bytes)
        })
        .collect();
    write_f32(stored)
}

/// [`to_safetensors_async`], blocking (native only).
#[cfg(not(target_family = "wasm"))]
pub fn to_safetensors(params: &Params) -> Result<Vec<u8>, String> {
    futures_lite::future::block_on(to_safetensors_async(params))
}

/// Serialises `(canonical name, shape, little-endian f32 bytes)` as a `model.safetensors` with
/// `RobertaForSequenceClassification`'s stored names and `{"format": "pt"}` metadata (which
/// `transformers` checks).
pub(crate) fn write_f32(tensors: Vec<(String, Vec<usize>, Vec<u8>)>) -> Result<Vec<u8>, String> {
    let mut views = Vec::with_capacity(tensors.len());
    for (name, shape, bytes) in &tensors {
        let view = TensorView::new(Dtype::F32, shape.clone(), bytes)
            .map_err(|e| format!("{name}: {e}"))?;
        views.push((stored_name(name), view));
    }
    let metadata = HashMap::from([("format".to_string(), "pt".to_string())]);
    safetensors::serialize(views, Some(metadata)).map_err(|e| e.to_string())
}
