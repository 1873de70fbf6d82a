//! The two building blocks every RoBERTa block is made of — a dense layer and a LayerNorm —
//! as plain tensors (eval only: no `Param`, no autodiff, no random initialisation to pay for
//! before the checkpoint's weights overwrite it).

use burn::prelude::*;
use burn::tensor::module::linear;

/// `y = x W + b` with `W` stored `[in, out]` (the transpose of PyTorch's `[out, in]`).
#[derive(Debug, Clone)]
pub struct Dense {
    /// `[in, out]`.
    pub weight: Tensor<2>,
    /// `[out]`.
    pub bias: Tensor<1>,
}

impl Dense {
    /// Applies the layer to the last axis of `x`.
    pub fn forward<const D: usize>(&self, x: Tensor<D>) -> Tensor<D> {
        linear(x, self.weight.clone(), Some(self.bias.clone()))
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
