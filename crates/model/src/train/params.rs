//! The trainable tensors of a [`RobertaForSequenceClassification`] under their Hugging Face
//! names, and the safetensors writer that turns a model back into a `model.safetensors` the
//! loader (and `transformers`) reads — the inverse of [`crate::families::encoder::loader`]'s name table.

use std::collections::HashMap;

use burn::prelude::*;
use safetensors::tensor::TensorView;
use safetensors::Dtype;

use crate::blocks::classifier::RobertaForSequenceClassification;
use crate::blocks::nn::{Dense, LayerNorm};
use crate::families::encoder::names::{
    bias, layer, weight, ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_NORM, HEAD, HEAD_DENSE,
    HEAD_OUT, INTERMEDIATE, KEY, OUTPUT, OUTPUT_NORM, POSITION_EMBEDDINGS, QUERY,
    TOKEN_TYPE_EMBEDDINGS, VALUE, WORD_EMBEDDINGS,
};

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

/// Whether AdamW's weight decay applies: not to biases and LayerNorm parameters (as the
/// `transformers` Trainer does), only to matrices.
pub fn decays(name: &str) -> bool {
    !(name.ends_with(".bias") || name.contains("LayerNorm"))
}

/// Calls `f` on every trainable tensor with its canonical Hugging Face name (without the
/// `roberta.` prefix), in a fixed order. A word table held in several row chunks yields each
/// chunk under the same name, in row order.
pub fn for_each_param(
    model: &mut RobertaForSequenceClassification,
    mut f: impl FnMut(&str, ParamMut<'_>),
) {
    let dense = |f: &mut dyn FnMut(&str, ParamMut<'_>), name: &str, d: &mut Dense| {
        f(
            &weight(name),
            ParamMut::Matrix(&mut d.weight, Layout::Transposed),
        );
        f(&bias(name), ParamMut::Vector(&mut d.bias));
    };
    let norm = |f: &mut dyn FnMut(&str, ParamMut<'_>), name: &str, n: &mut LayerNorm| {
        f(&weight(name), ParamMut::Vector(&mut n.gamma));
        f(&bias(name), ParamMut::Vector(&mut n.beta));
    };
    let e = &mut model.embeddings;
    for chunk in &mut e.word {
        f(
            WORD_EMBEDDINGS,
            ParamMut::Matrix(&mut chunk.table, Layout::Same),
        );
    }
    f(
        POSITION_EMBEDDINGS,
        ParamMut::Matrix(&mut e.position, Layout::Same),
    );
    f(
        TOKEN_TYPE_EMBEDDINGS,
        ParamMut::Matrix(&mut e.token_type, Layout::Same),
    );
    norm(&mut f, EMBEDDINGS_NORM, &mut e.layer_norm);
    for (i, l) in model.encoder.layers.iter_mut().enumerate() {
        let part = |p: &str| layer(i, p);
        let a = &mut l.attention;
        dense(&mut f, &part(QUERY), &mut a.query);
        dense(&mut f, &part(KEY), &mut a.key);
        dense(&mut f, &part(VALUE), &mut a.value);
        dense(&mut f, &part(ATTENTION_OUTPUT), &mut a.output);
        norm(&mut f, &part(ATTENTION_NORM), &mut a.layer_norm);
        let ff = &mut l.feed_forward;
        dense(&mut f, &part(INTERMEDIATE), &mut ff.intermediate);
        dense(&mut f, &part(OUTPUT), &mut ff.output);
        norm(&mut f, &part(OUTPUT_NORM), &mut ff.layer_norm);
    }
    dense(&mut f, HEAD_DENSE, &mut model.classifier.dense);
    dense(&mut f, HEAD_OUT, &mut model.classifier.out_proj);
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

/// A parameter taken out of the model to be read back.
enum Taken {
    Vector(Tensor<1>),
    Matrix(Tensor<2>, Layout),
}

/// Writes the model as `model.safetensors` bytes (f32, little-endian, `{"format": "pt"}`
/// metadata) with `RobertaForSequenceClassification`'s names and PyTorch layouts, so that
/// both [`crate::families::encoder::loader::load_weights`] and `transformers` read it. Reads every tensor back
/// asynchronously, so it runs in the browser too.
pub async fn to_safetensors_async(
    model: &RobertaForSequenceClassification,
) -> Result<Vec<u8>, String> {
    let mut model = model.clone();
    let mut taken: Vec<(String, Taken)> = Vec::new();
    for_each_param(&mut model, |name, param| {
        taken.push((
            name.to_string(),
            match param {
                ParamMut::Vector(t) => Taken::Vector(t.clone()),
                ParamMut::Matrix(t, layout) => Taken::Matrix(t.clone(), layout),
            },
        ))
    });
    let mut order: Vec<String> = Vec::new();
    let mut tensors: HashMap<String, HostTensor> = HashMap::new();
    for (name, param) in taken {
        let (values, shape) = match param {
            Taken::Vector(t) => {
                let dims = t.dims().to_vec();
                (host_values(t).await, dims)
            }
            Taken::Matrix(t, layout) => {
                let [rows, cols] = t.dims();
                let v = host_values(t).await;
                match (layout, v) {
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
pub fn to_safetensors(model: &RobertaForSequenceClassification) -> Result<Vec<u8>, String> {
    futures_lite::future::block_on(to_safetensors_async(model))
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
