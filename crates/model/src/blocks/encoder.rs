//! The RoBERTa encoder: a stack of post-LayerNorm transformer layers (`RobertaEncoder`,
//! `RobertaLayer`: self-attention → add & norm → feed-forward → add & norm).

use burn::prelude::*;
use burn::tensor::activation::softmax;

use crate::blocks::activation::HiddenAct;
use crate::blocks::nn::{matmul_in, Dense, LayerNorm};

/// Multi-head self-attention with its output projection and LayerNorm
/// (`RobertaAttention` = `RobertaSelfAttention` + `RobertaSelfOutput`).
#[derive(Debug, Clone)]
pub struct Attention {
    /// Query projection.
    pub query: Dense,
    /// Key projection.
    pub key: Dense,
    /// Value projection.
    pub value: Dense,
    /// Output projection (`attention.output.dense`).
    pub output: Dense,
    /// `attention.output.LayerNorm`, applied to output + residual.
    pub layer_norm: LayerNorm,
    /// Number of heads.
    pub heads: usize,
}

impl Attention {
    /// `x: [batch, seq, hidden]`; `mask_bias: [batch, 1, 1, seq]` (0 for tokens, a large
    /// negative number for padding).
    pub fn forward(&self, x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        self.attend(x.clone(), x, mask_bias)
    }

    /// Updates only `rows: [batch, q, hidden]` (a slice of the positions of `x`), attending to
    /// every position of `x: [batch, seq, hidden]`. The last layer needs only `<s>`, so it
    /// skips the query, output and feed-forward work for the other positions.
    pub fn attend(&self, rows: Tensor<3>, x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        let [batch, q_len, hidden] = rows.dims();
        let seq = x.dims()[1];
        let head_dim = hidden / self.heads;
        let split = |t: Tensor<3>, len: usize| {
            t.reshape([batch, len, self.heads, head_dim])
                .swap_dims(1, 2)
        };
        let q = split(self.query.forward(rows.clone()), q_len);
        let k = split(self.key.forward(x.clone()), seq);
        let v = split(self.value.forward(x), seq);
        // Under mixed precision both products take f16 inputs (the query projection's dtype);
        // the scores, mask and softmax stay f32.
        let dtype = self.query.compute_dtype();
        let scores =
            matmul_in(q, k.swap_dims(2, 3), dtype) * (1.0 / (head_dim as f64).sqrt()) + mask_bias;
        let probs = softmax(scores, 3);
        let context = matmul_in(probs, v, dtype)
            .swap_dims(1, 2)
            .reshape([batch, q_len, hidden]);
        self.layer_norm.forward(self.output.forward(context) + rows)
    }

    /// Its four projections (what mixed precision stores in f16).
    pub fn dense_mut(&mut self) -> [&mut Dense; 4] {
        [
            &mut self.query,
            &mut self.key,
            &mut self.value,
            &mut self.output,
        ]
    }
}

/// The feed-forward block (`RobertaIntermediate` + `RobertaOutput`).
#[derive(Debug, Clone)]
pub struct FeedForward {
    /// `intermediate.dense`: hidden → intermediate.
    pub intermediate: Dense,
    /// `output.dense`: intermediate → hidden.
    pub output: Dense,
    /// `output.LayerNorm`, applied to output + residual.
    pub layer_norm: LayerNorm,
    /// The activation between the two.
    pub act: HiddenAct,
}

impl FeedForward {
    /// `x: [batch, seq, hidden]`.
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let h = self.intermediate.forward(x.clone());
        let h = self.act.apply(h);
        self.layer_norm.forward(self.output.forward(h) + x)
    }

    /// Its two dense layers.
    pub fn dense_mut(&mut self) -> [&mut Dense; 2] {
        [&mut self.intermediate, &mut self.output]
    }
}

/// One transformer layer.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Self-attention block.
    pub attention: Attention,
    /// Feed-forward block.
    pub feed_forward: FeedForward,
}

/// The layer stack.
#[derive(Debug, Clone)]
pub struct Encoder {
    /// Layers in order.
    pub layers: Vec<Layer>,
}

impl Encoder {
    /// Runs every layer; shapes as [`Attention::forward`].
    pub fn forward(&self, mut x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        for layer in &self.layers {
            x = layer.attention.forward(x, mask_bias.clone());
            x = layer.feed_forward.forward(x);
        }
        x
    }

    /// The final hidden state of the first token only, `[batch, 1, hidden]`: what a
    /// classification head on `<s>` needs. Equal to `forward(..)[:, 0:1, :]`, with the last
    /// layer computed for that one position.
    pub fn forward_first_token(&self, mut x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        let Some((last, rest)) = self.layers.split_last() else {
            return x.slice(s![.., 0..1, ..]);
        };
        for layer in rest {
            x = layer.attention.forward(x, mask_bias.clone());
            x = layer.feed_forward.forward(x);
        }
        let first = x.clone().slice(s![.., 0..1, ..]);
        let first = last.attention.attend(first, x, mask_bias);
        last.feed_forward.forward(first)
    }
}
