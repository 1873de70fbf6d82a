//! The two building blocks every RoBERTa block is made of — a dense layer and a LayerNorm —
//! as plain tensors (eval only: no `Param`, no autodiff, no random initialisation to pay for
//! before the checkpoint's weights overwrite it).

use burn::prelude::*;
use burn::tensor::module::linear;
use burn::tensor::{FloatDType, TensorData};
use std::sync::{Arc, OnceLock};

use super::activation::is_plain_flex;
use super::int8::Int8Weight;
use super::packed::PackedF32;

/// `y = x W + b` with `W` stored `[in, out]` (the transpose of PyTorch's `[out, in]`).
#[derive(Debug, Clone)]
pub struct Dense {
    /// `[in, out]`.
    pub weight: Tensor<2>,
    /// `[out]`.
    pub bias: Tensor<1>,
    /// The weight and bias in int8 on the host, when the layer runs at int8
    /// ([`Dense::quantize_int8`]); shared by the clones a model's layers are.
    int8: Option<Arc<Int8Weight>>,
    /// The f32 weight packed for the native CPU path's own product ([`super::packed`]), made
    /// the first time the layer runs there; shared by the clones a model's layers are, and
    /// dropped when the weight changes ([`Dense::set_weight_dtype`]). `None` inside: the weight
    /// could not be read as f32 on the host, so burn's product runs.
    packed: Arc<OnceLock<Option<PackedF32>>>,
}

/// Why [`Dense::quantize_int8`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Int8Error {
    /// The weight is not f32 on the host (f16-mixed rounded it, or it lives on a GPU).
    #[error("the layer's weight is not f32 on the CPU")]
    NotF32,
    /// The weight or bias did not have the layer's shape.
    #[error("the layer's weight and bias do not have matching shapes")]
    Shape,
}

impl Dense {
    /// A layer in f32 from its `[in, out]` weight and `[out]` bias.
    pub fn new(weight: Tensor<2>, bias: Tensor<1>) -> Dense {
        Dense {
            weight,
            bias,
            int8: None,
            packed: Arc::default(),
        }
    }

    /// Applies the layer to the last axis of `x` (f32 in, f32 out). Under mixed precision
    /// (an f16 weight, [`Dense::set_weight_dtype`]) `x` is rounded to f16 for the product,
    /// which comes back as f32 before the f32 bias is added. At int8 ([`Dense::quantize_int8`])
    /// the product is [`Int8Weight::forward`]'s, on the host. In f32 on the native CPU path
    /// (`fast-cpu`, plain `flex`) it is [`PackedF32::forward`]'s, in the browser worker's
    /// (WebAssembly, plain `flex`) [`PackedF32::forward_streamed`]'s.
    pub fn forward<const D: usize>(&self, x: Tensor<D>) -> Tensor<D> {
        let f32_layer = || (self.weight.clone(), self.bias.clone());
        if let Some(q) = &self.int8 {
            return host_forward(q.out_features(), x, |v| q.forward(v), f32_layer);
        }
        match self.compute_dtype() {
            FloatDType::F32 if self.streams_f32(&x.device()) => {
                let n = self.bias.dims()[0];
                host_forward(n, x, |v| self.streamed(v), f32_layer)
            }
            FloatDType::F32 => match self.packed_f32(&x.device()) {
                Some(p) => host_forward(p.out_features(), x, |v| p.forward(v), f32_layer),
                None => linear(x, self.weight.clone(), Some(self.bias.clone())),
            },
            dtype => {
                linear(x.cast(dtype), self.weight.clone(), None).cast(FloatDType::F32)
                    + self.bias.clone().unsqueeze::<D>()
            }
        }
    }

    /// The dtype the layer's product runs in: its weight's.
    pub fn compute_dtype(&self) -> FloatDType {
        self.weight.dtype().into()
    }

    /// Stores the weight in `dtype` (f16 for mixed precision); the bias stays f32. Rounding
    /// to f16 is not undone by casting back: reload the checkpoint for f32.
    pub fn set_weight_dtype(&mut self, dtype: FloatDType) {
        self.weight = self.weight.clone().cast(dtype);
        self.packed = Arc::default();
    }

    /// The packed f32 weight for `device`, packing it on first use: only natively with
    /// `fast-cpu` on plain `flex` (the browser's worker streams it instead, and autodiff
    /// needs burn's own product to differentiate).
    fn packed_f32(&self, device: &Device) -> Option<&PackedF32> {
        if !cfg!(feature = "fast-cpu") || !is_plain_flex(device) {
            return None;
        }
        self.packed
            .get_or_init(|| {
                let [k, n] = self.weight.dims();
                let weight = self.weight.clone().into_data();
                let bias = self.bias.clone().into_data();
                PackedF32::pack(weight.as_slice().ok()?, k, n, bias.as_slice().ok()?)
            })
            .as_ref()
    }

    /// Whether the f32 product runs as [`PackedF32::forward_streamed`] for inputs on `device`:
    /// in WebAssembly (the browser worker's CPU path) on plain `flex`. There the worker keeps
    /// no packed copy of the weights (each helper worker holds a whole model; a copy would
    /// halve how many fit), and burn's gemm, which packs them on every call too, ran the same
    /// product at 24–25 GFLOP/s against 28.0 (Chromium, one worker, the EPYC, 2026-12-01).
    fn streams_f32(&self, device: &Device) -> bool {
        cfg!(target_arch = "wasm32")
            && self.compute_dtype() == FloatDType::F32
            && is_plain_flex(device)
    }

    /// `x · W + b` by [`PackedF32::forward_streamed`] from the weight as burn holds it.
    fn streamed(&self, x: &[f32]) -> Option<Vec<f32>> {
        let mut out = Vec::new();
        self.streamed_into(x, &mut out)?;
        Some(out)
    }

    /// [`Dense::streamed`] into `out`. The weight and bias are read in place, from the CPU
    /// backend's own storage: copied out (`into_data`, as the storage is shared with the
    /// layer), a roberta-base forward copied 340 MB and the product gained nothing on gemm
    /// (1.06 against 1.07–1.09 examples/s at batch 1, one worker, 2026-12-01). A weight not
    /// stored contiguously is copied.
    fn streamed_into(&self, x: &[f32], out: &mut Vec<f32>) -> Option<()> {
        let [k, n] = self.weight.dims();
        #[cfg(target_arch = "wasm32")]
        {
            use burn::backend::Flex;
            let weight = self.weight.clone().try_into_primitive::<Flex>().ok();
            let bias = self.bias.clone().try_into_primitive::<Flex>().ok();
            if let (Some(w), Some(b)) = (&weight, &bias) {
                if let (Some(w), Some(b)) = (w.as_slice::<f32>(), b.as_slice::<f32>()) {
                    return PackedF32::forward_streamed(w, k, n, b, x, out);
                }
            }
        }
        let weight = self.weight.clone().into_data();
        let bias = self.bias.clone().into_data();
        PackedF32::forward_streamed(weight.as_slice().ok()?, k, n, bias.as_slice().ok()?, x, out)
    }

    /// Runs the layer at int8 from now on: its f32 weight quantized per output channel
    /// ([`Int8Weight::quantize`]). The f32 weight is kept (the layer runs in f32 again after
    /// [`Dense::drop_int8`]); the int8 copy takes half its bytes more.
    pub fn quantize_int8(&mut self) -> Result<(), Int8Error> {
        let [k, n] = self.weight.dims();
        // `[out, in]`: each channel's values side by side (burn's transpose copies them there
        // in blocks; read column by column, a roberta-base took seconds more to quantize).
        let weight = self.weight.clone().transpose().into_data();
        let bias = self.bias.clone().into_data();
        let (weight, bias) = match (weight.as_slice::<f32>(), bias.as_slice::<f32>()) {
            (Ok(w), Ok(b)) => (w, b),
            _ => return Err(Int8Error::NotF32),
        };
        let q = Int8Weight::quantize(weight, k, n, Some(bias)).ok_or(Int8Error::Shape)?;
        self.int8 = Some(Arc::new(q));
        Ok(())
    }

    /// Back to the f32 product.
    pub fn drop_int8(&mut self) {
        self.int8 = None;
    }

    /// Whether the layer runs at int8.
    pub fn is_int8(&self) -> bool {
        self.int8.is_some()
    }

    /// Whether the layer multiplies on the host for inputs on `device`: at int8, or in f32 on
    /// the native CPU path ([`PackedF32`]). [`super::host_layer`] runs a whole encoder layer
    /// there when every dense layer of it does.
    pub fn runs_on_host(&self, device: &Device) -> bool {
        self.int8.is_some()
            || self.streams_f32(device)
            || (self.compute_dtype() == FloatDType::F32 && self.packed_f32(device).is_some())
    }

    /// `x · W + b` for the row-major `x` of `in`-long rows, on the host: the same product as
    /// [`Dense::forward`] gives there. Into `out`, whose allocation is kept where the
    /// product allows (a forward's layers reuse their buffers rather than have fresh pages
    /// zeroed for each). `None` when the layer does not run on the host for
    /// `device` ([`Dense::runs_on_host`]) or `x` is not whole rows.
    pub fn host_forward_into(&self, x: &[f32], device: &Device, out: &mut Vec<f32>) -> Option<()> {
        match &self.int8 {
            Some(q) => q.forward_into(x, out),
            None if self.streams_f32(device) => self.streamed_into(x, out),
            None if self.compute_dtype() == FloatDType::F32 => {
                self.packed_f32(device)?.forward_into(x, out)
            }
            None => None,
        }
    }
}

/// `x · W + b` on the host by `product` (the int8 or the packed f32 one, `n` outputs per
/// row): `x`'s values read back, multiplied, and put on `x`'s device. Should `x` not be f32
/// (the CPU path widens every checkpoint to f32, so this is not expected), the f32 layer
/// `f32_layer` gives runs instead.
fn host_forward<const D: usize>(
    n: usize,
    x: Tensor<D>,
    product: impl FnOnce(&[f32]) -> Option<Vec<f32>>,
    f32_layer: impl FnOnce() -> (Tensor<2>, Tensor<1>),
) -> Tensor<D> {
    let device = x.device();
    let mut dims = x.dims();
    let data = x.into_data();
    let out = data.as_slice::<f32>().ok().and_then(product);
    match out {
        Some(out) => {
            dims[D - 1] = n;
            Tensor::from_data(TensorData::new(out, dims), &device)
        }
        None => {
            let (weight, bias) = f32_layer();
            linear(Tensor::from_data(data, &device), weight, Some(bias))
        }
    }
}

/// `a · b` with both inputs rounded to `dtype` (f16 under mixed precision) and the product
/// back in f32; plain `a · b` when `dtype` is f32.
pub fn matmul_in<const D: usize>(a: Tensor<D>, b: Tensor<D>, dtype: FloatDType) -> Tensor<D> {
    match dtype {
        FloatDType::F32 => a.matmul(b),
        _ => a.cast(dtype).matmul(b.cast(dtype)).cast(FloatDType::F32),
    }
}

/// LayerNorm over the last axis with biased variance, as `torch.nn.LayerNorm`.
#[derive(Debug, Clone)]
pub struct LayerNorm {
    /// Gain (`weight` in PyTorch), `[hidden]`.
    pub gamma: Tensor<1>,
    /// Shift (`bias` in PyTorch), `[hidden]`.
    pub beta: Tensor<1>,
    /// Added to the variance before the square root.
    pub eps: f64,
}

impl LayerNorm {
    /// Gain and shift as f32 on the host, for [`super::host_layer`]; `None` when they are not
    /// f32.
    pub fn host_params(&self) -> Option<(Vec<f32>, Vec<f32>)> {
        let gamma = self.gamma.clone().into_data().try_into_vec::<f32>().ok()?;
        let beta = self.beta.clone().into_data().try_into_vec::<f32>().ok()?;
        Some((gamma, beta))
    }

    /// Normalises `x: [batch, seq, hidden]` over `hidden`.
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let mean = x.clone().mean_dim(2);
        let centred = x - mean;
        let var = centred.clone().square().mean_dim(2);
        let normed = centred / (var + self.eps).sqrt();
        normed * self.gamma.clone().unsqueeze::<3>() + self.beta.clone().unsqueeze::<3>()
    }
}

#[cfg(all(test, feature = "fast-cpu"))]
mod tests {
    use super::super::packed::tests::values;
    use super::*;

    #[test]
    fn f32_on_the_native_cpu_is_the_packed_product_until_the_weight_changes() {
        let device = Device::flex();
        let (rows, k, n) = (5, 40, 70);
        let (x, w, b) = (values(rows * k, 1), values(k * n, 2), values(n, 3));
        let tensor = |v: &[f32], dims: Vec<usize>| {
            Tensor::<2>::from_data(TensorData::new(v.to_vec(), dims), &device)
        };
        let mut dense = Dense::new(
            tensor(&w, vec![k, n]),
            Tensor::<1>::from_data(TensorData::new(b.clone(), [n]), &device),
        );
        let forward = |dense: &Dense| -> Vec<f32> {
            let y = dense.forward(tensor(&x, vec![rows, k])).into_data();
            y.as_slice::<f32>().unwrap().to_vec()
        };
        let packed = PackedF32::pack(&w, k, n, &b).unwrap().forward(&x).unwrap();
        assert_eq!(forward(&dense), packed);
        assert!(dense.packed.get().is_some_and(Option::is_some));
        // A weight stored in another dtype drops the packed copy; the layer no longer uses it.
        dense.set_weight_dtype(FloatDType::F16);
        assert!(dense.packed.get().is_none());
        assert_ne!(forward(&dense), packed);
    }
}
