//! The RoBERTa encoder: a stack of post-LayerNorm transformer layers (`RobertaEncoder`,
//! `RobertaLayer`: self-attention → add & norm → feed-forward → add & norm).

use burn::prelude::*;
use burn::tensor::activation::softmax;
use burn::tensor::TensorData;

use crate::blocks::activation::{is_plain_flex, HiddenAct};
use crate::blocks::cores::with_cores_awake;
use crate::blocks::host_layer::{LayerParts, Rows, Scratch};
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

impl Layer {
    /// Its parts, for [`crate::blocks::host_layer`].
    fn parts(&self) -> LayerParts<'_> {
        let (a, f) = (&self.attention, &self.feed_forward);
        LayerParts {
            attention: [&a.query, &a.key, &a.value, &a.output],
            attention_norm: &a.layer_norm,
            feed_forward: [&f.intermediate, &f.output],
            output_norm: &f.layer_norm,
            act: f.act,
            heads: a.heads,
        }
    }
}

/// The layer stack.
#[derive(Debug, Clone)]
pub struct Encoder {
    /// Layers in order.
    pub layers: Vec<Layer>,
}

impl Encoder {
    /// Every layer on the host ([`crate::blocks::host_layer`]), the last for the first
    /// position only when `first_only`; `None` (nothing done) unless `x` is on the plain CPU
    /// backend and every layer can run there.
    fn forward_on_host(
        &self,
        x: &Tensor<3>,
        mask_bias: &Tensor<4>,
        first_only: bool,
    ) -> Option<Tensor<3>> {
        let device = x.device();
        let parts: Vec<LayerParts<'_>> = self.layers.iter().map(Layer::parts).collect();
        if parts.is_empty()
            || !is_plain_flex(&device)
            || !parts.iter().all(|p| p.runs_on_host(&device))
        {
            return None;
        }
        let [batch, seq, hidden] = x.dims();
        let values = x.clone().into_data().try_into_vec::<f32>().ok()?;
        let mask = mask_bias.clone().into_data().try_into_vec::<f32>().ok()?;
        let mut rows = Rows {
            values,
            batch,
            seq,
            hidden,
        };
        let last = parts.len() - 1;
        let rows = with_cores_awake(|| {
            let mut scratch = Scratch::default();
            for (i, layer) in parts.iter().enumerate() {
                let next =
                    layer.forward(&rows, &mask, first_only && i == last, &device, &mut scratch)?;
                // This layer's input becomes the next one's output buffer.
                scratch.out = std::mem::replace(&mut rows, next).values;
            }
            Some(rows)
        })?;
        let shape = [rows.batch, rows.seq, rows.hidden];
        Some(Tensor::from_data(
            TensorData::new(rows.values, shape),
            &device,
        ))
    }

    /// Runs every layer; shapes as [`Attention::forward`].
    pub fn forward(&self, mut x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        if let Some(out) = self.forward_on_host(&x, &mask_bias, false) {
            return out;
        }
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
        if let Some(out) = self.forward_on_host(&x, &mask_bias, true) {
            return out;
        }
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

#[cfg(all(test, feature = "fast-cpu"))]
mod tests {
    use super::*;
    use crate::blocks::packed::tests::values;

    const HIDDEN: usize = 16;
    /// A padded position's bias, the batch's own value (`classifier::MASK_BIAS`, not imported:
    /// the classifier imports this file).
    const MASK_BIAS: f32 = -1e30;

    fn tensor<const D: usize>(v: Vec<f32>, dims: [usize; D]) -> Tensor<D> {
        Tensor::from_data(TensorData::new(v, dims), &Device::flex())
    }

    fn dense(k: usize, n: usize, seed: u32) -> Dense {
        let w = values(k * n, seed).iter().map(|v| v * 0.5).collect();
        Dense::new(tensor(w, [k, n]), tensor(values(n, seed + 1), [n]))
    }

    fn norm(hidden: usize, seed: u32) -> LayerNorm {
        let gamma = values(hidden, seed).iter().map(|v| 1.0 + 0.2 * v).collect();
        LayerNorm {
            gamma: tensor(gamma, [hidden]),
            beta: tensor(values(hidden, seed + 1), [hidden]),
            eps: 1e-5,
        }
    }

    /// A layer of `hidden` values in `heads` heads, its weights from `seed`.
    fn sized_layer(hidden: usize, heads: usize, seed: u32, act: HiddenAct) -> Layer {
        Layer {
            attention: Attention {
                query: dense(hidden, hidden, seed),
                key: dense(hidden, hidden, seed + 10),
                value: dense(hidden, hidden, seed + 20),
                output: dense(hidden, hidden, seed + 30),
                layer_norm: norm(hidden, seed + 40),
                heads,
            },
            feed_forward: FeedForward {
                intermediate: dense(hidden, 3 * hidden, seed + 50),
                output: dense(3 * hidden, hidden, seed + 60),
                layer_norm: norm(hidden, seed + 70),
                act,
            },
        }
    }

    fn vec3(t: Tensor<3>) -> Vec<f32> {
        t.into_data().try_into_vec::<f32>().expect("f32")
    }

    /// burn's path, layer by layer (what runs off the plain CPU backend).
    fn burn_path(encoder: &Encoder, mut x: Tensor<3>, mask: Tensor<4>) -> Tensor<3> {
        for layer in &encoder.layers {
            x = layer.attention.forward(x, mask.clone());
            x = layer.feed_forward.forward(x);
        }
        x
    }

    /// Two layers on the host against burn's ops, for each activation and for heads of 4
    /// and of 64 dimensions over 5 and 70 positions (whole blocks of 64 and the rest): within
    /// 2e-6 and 5e-5 relative (the same f32 arithmetic, summed in other orders), padding masked, and the
    /// first-position path equal to the full one's first positions, bit for bit.
    #[test]
    fn the_host_layer_is_burns_path() {
        let acts = [HiddenAct::Gelu, HiddenAct::GeluTanh, HiddenAct::Relu];
        let shapes = acts.map(|act| (act, HIDDEN, 4, 5)).into_iter();
        for (act, hidden, heads, seq) in shapes.chain([(HiddenAct::Gelu, 128, 2, 70)]) {
            let batch = 2;
            let encoder = Encoder {
                layers: vec![
                    sized_layer(hidden, heads, 1, act),
                    sized_layer(hidden, heads, 100, act),
                ],
            };
            let x = tensor(values(batch * seq * hidden, 7), [batch, seq, hidden]);
            // The second sequence has two padded positions.
            let mut mask = vec![0.0f32; batch * seq];
            mask[2 * seq - 2..].fill(MASK_BIAS);
            let mask = tensor(mask, [batch, 1, 1, seq]);
            let host = encoder
                .forward_on_host(&x, &mask, false)
                .expect("every layer runs on the host");
            let (host, want) = (
                vec3(host),
                vec3(burn_path(&encoder, x.clone(), mask.clone())),
            );
            // Relative to the value, at least 1: LayerNorm's outputs reach several units here.
            let worst = host
                .iter()
                .zip(&want)
                .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
                .fold(0.0f32, f32::max);
            // Measured 4.8e-7 at 16 wide and 1.4e-5 at 128 (the same with the host's LayerNorm
            // summed in f64: the rest is the sums of the products and burn's own rounding).
            let bound = if hidden > 16 { 5e-5 } else { 2e-6 };
            assert!(
                worst < bound,
                "{act:?}, {hidden} wide: max |host − burn| = {worst:e}"
            );
            let first = vec3(encoder.forward_first_token(x, mask));
            let full_first: Vec<f32> = host
                .chunks_exact(seq * hidden)
                .flat_map(|s| s[..hidden].to_vec())
                .collect();
            assert_eq!(first, full_first, "{act:?}");
        }
    }

    /// A sequence's outputs are the same bits alone as beside a longer one that pads it (to
    /// 70 positions: a whole block of 64 and the rest).
    #[test]
    fn a_row_does_not_depend_on_its_batch() {
        let (hidden, long_len) = (128, 70);
        let encoder = Encoder {
            layers: vec![sized_layer(hidden, 2, 3, HiddenAct::Gelu)],
        };
        let short = values(3 * hidden, 9);
        let long = values(long_len * hidden, 10);
        let alone = encoder
            .forward_on_host(
                &tensor(short.clone(), [1, 3, hidden]),
                &tensor(vec![0.0; 3], [1, 1, 1, 3]),
                false,
            )
            .expect("host");
        let mut padded = short.clone();
        padded.resize(long_len * hidden, 0.25);
        let mut mask = vec![0.0f32; 2 * long_len];
        mask[3..long_len].fill(MASK_BIAS);
        let together = encoder
            .forward_on_host(
                &tensor([padded, long].concat(), [2, long_len, hidden]),
                &tensor(mask, [2, 1, 1, long_len]),
                false,
            )
            .expect("host");
        assert_eq!(vec3(alone), vec3(together)[..3 * hidden].to_vec());
    }
}
