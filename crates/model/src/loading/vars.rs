//! The one walk of a family's parameters (candle's `VarBuilder` idea): each family's `walk`
//! asks a [`Vars`] for every part of its network by Hugging Face name and PyTorch shape, in a
//! fixed order, and builds the network from the answers. [`ShapeTable`] notes the shapes (what
//! a checkpoint is checked against, the parameter count, random and initial checkpoints),
//! [`Loading`] converts a checked weight file's tensors, and training records and replays the
//! same walk (`crate::train::params`).

use std::collections::BTreeMap;

use burn::prelude::*;

use crate::blocks::embeddings::WordChunk;
use crate::blocks::nn::{Dense, LayerNorm};
use crate::error::LoadError;
use crate::loading::weights::Tensors;
use crate::text::batch::MAX_TENSOR_BYTES;

/// What a family's walk asks for, part by part.
pub trait Vars {
    /// `nn.Linear(inp, out)`: `{name}.weight` `[out, inp]` and `{name}.bias` `[out]`.
    fn dense(&mut self, name: &str, out: usize, inp: usize) -> Result<Dense, LoadError>;
    /// `nn.Linear(inp, out, bias=False)`: `{name}.weight` alone (the bias is zero).
    fn dense_no_bias(&mut self, name: &str, out: usize, inp: usize) -> Result<Dense, LoadError>;
    /// `nn.LayerNorm(width)`: `{name}.weight` and `{name}.bias`.
    fn norm(&mut self, name: &str, width: usize, eps: f64) -> Result<LayerNorm, LoadError>;
    /// A table `[rows, cols]`, as stored.
    fn table(&mut self, name: &str, rows: usize, cols: usize) -> Result<Tensor<2>, LoadError>;
    /// The word table `[rows, cols]`, in row chunks.
    fn words(&mut self, name: &str, rows: usize, cols: usize) -> Result<Vec<WordChunk>, LoadError>;
    /// The device the parts are on (for a constant a walk adds itself).
    fn device(&self) -> Device;
}

/// The shapes a walk asks for, by name: the parts it returns are empty tensors on the CPU
/// device (no element is allocated), so the network a shape walk builds is hollow.
#[derive(Debug, Default)]
pub struct ShapeTable {
    shapes: BTreeMap<String, Vec<usize>>,
}

impl ShapeTable {
    /// The shapes `walk` asks for.
    pub fn of<T>(
        walk: impl FnOnce(&mut dyn Vars) -> Result<T, LoadError>,
    ) -> BTreeMap<String, Vec<usize>> {
        let mut table = Self::default();
        // A shape table answers every part, so the walk does not fail; its network is hollow.
        let _hollow = walk(&mut table);
        table.shapes
    }

    fn note(&mut self, name: String, shape: Vec<usize>) {
        self.shapes.insert(name, shape);
    }
}

/// An empty `[0; D]` tensor on the CPU device.
fn hollow<const D: usize>() -> Tensor<D> {
    Tensor::empty([0; D], &Device::flex())
}

fn hollow_dense() -> Dense {
    Dense::new(hollow(), hollow())
}

impl Vars for ShapeTable {
    fn dense(&mut self, name: &str, out: usize, inp: usize) -> Result<Dense, LoadError> {
        self.note(format!("{name}.weight"), vec![out, inp]);
        self.note(format!("{name}.bias"), vec![out]);
        Ok(hollow_dense())
    }

    fn dense_no_bias(&mut self, name: &str, out: usize, inp: usize) -> Result<Dense, LoadError> {
        self.note(format!("{name}.weight"), vec![out, inp]);
        Ok(hollow_dense())
    }

    fn norm(&mut self, name: &str, width: usize, eps: f64) -> Result<LayerNorm, LoadError> {
        self.note(format!("{name}.weight"), vec![width]);
        self.note(format!("{name}.bias"), vec![width]);
        Ok(LayerNorm {
            gamma: hollow(),
            beta: hollow(),
            eps,
        })
    }

    fn table(&mut self, name: &str, rows: usize, cols: usize) -> Result<Tensor<2>, LoadError> {
        self.note(name.to_string(), vec![rows, cols]);
        Ok(hollow())
    }

    fn words(&mut self, name: &str, rows: usize, cols: usize) -> Result<Vec<WordChunk>, LoadError> {
        self.note(name.to_string(), vec![rows, cols]);
        Ok(Vec::new())
    }

    fn device(&self) -> Device {
        Device::flex()
    }
}

/// The parts converted from a weight file's tensors (checked against the walk's
/// [`ShapeTable`] first: see [`Tensors::check_against`]).
pub struct Loading<'a> {
    tensors: &'a Tensors<'a>,
    device: &'a Device,
}

impl<'a> Loading<'a> {
    /// Parts from `tensors`, on `device`.
    pub fn new(tensors: &'a Tensors<'a>, device: &'a Device) -> Self {
        Self { tensors, device }
    }
}

impl Vars for Loading<'_> {
    fn dense(&mut self, name: &str, _out: usize, _inp: usize) -> Result<Dense, LoadError> {
        self.tensors.dense(name, self.device)
    }

    fn dense_no_bias(&mut self, name: &str, _out: usize, _inp: usize) -> Result<Dense, LoadError> {
        self.tensors.dense_no_bias(name, self.device)
    }

    fn norm(&mut self, name: &str, _width: usize, eps: f64) -> Result<LayerNorm, LoadError> {
        self.tensors.layer_norm(name, eps, self.device)
    }

    fn table(&mut self, name: &str, _rows: usize, _cols: usize) -> Result<Tensor<2>, LoadError> {
        self.tensors.matrix(name, self.device)
    }

    fn words(
        &mut self,
        name: &str,
        _rows: usize,
        _cols: usize,
    ) -> Result<Vec<WordChunk>, LoadError> {
        self.tensors
            .word_chunks(name, MAX_TENSOR_BYTES, self.device)
    }

    fn device(&self) -> Device {
        self.device.clone()
    }
}
