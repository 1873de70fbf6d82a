//! The two building blocks every RoBERTa block is made of — a dense layer and a LayerNorm —
//! as plain tensors (eval only: no `Param`, no autodiff, no random initialisation to pay for
//! before the checkpoint's weights overwrite it).

use burn::prelude::*;
use burn::tensor::module::linear;
use burn::tensor::FloatDType;

/// `y = x W + b` with `W` stored `[in, out]` (the transpose of PyTorch's `[out, in]`).
#[derive(Debug, Clone)]
pub struct Dense {
    /// `[in, out]`.
    pub weight: Tensor<2>,
    /// `[out]`.
    pub bias: Tensor<1>,
}

impl Dense {
    /// Applies the layer to the last axis of `x` (f32 in, f32 out). Under mixed precision
    /// (an f16 weight, [`Dense::set_weight_dtype`]) `x` is rounded to f16 for the product,
    /// which comes back as f32 before the f32 bias is added.
    pub fn forward<const D: usize>(&self, x: Tensor<D>) -> Tensor<D> {
        match self.compute_dtype() {
            FloatDType::F32 => linear(x, self.weight.clone(), Some(self.bias.clone())),
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
    /// Normalises `x: [batch, seq, hidden]` over `hidden`.
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let mean = x.clone().mean_dim(2);
        let centred = x - mean;
        let var = centred.clone().square().mean_dim(2);
        let normed = centred / (var + self.eps).sqrt();
        normed * self.gamma.clone().unsqueeze::<3>() + self.beta.clone().unsqueeze::<3>()
    }
}
