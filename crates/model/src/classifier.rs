//! `RobertaForSequenceClassification`: embeddings → encoder → classification head on `<s>`.

use burn::prelude::*;

use crate::embeddings::Embeddings;
use crate::encoder::Encoder;
use crate::nn::Dense;

/// Added to attention scores at padding positions. Finite (unlike -inf) so a fully masked row
/// could never produce NaN; large enough that `exp` underflows to exactly 0, as
/// `transformers`' `finfo.min` mask does.
pub const MASK_BIAS: f32 = -1e30;

/// `RobertaClassificationHead`: `dense → tanh → out_proj` on the first token (`<s>`).
#[derive(Debug, Clone)]
pub struct ClassificationHead {
    /// `classifier.dense`: hidden → hidden.
    pub dense: Dense,
    /// `classifier.out_proj`: hidden → num_labels.
    pub out_proj: Dense,
}

impl ClassificationHead {
    /// `hidden: [batch, seq, hidden]` (or just the first position, `[batch, 1, hidden]`) →
    /// logits `[batch, num_labels]`.
    pub fn forward(&self, hidden: Tensor<3>) -> Tensor<2> {
        let [batch, _, width] = hidden.dims();
        let first = hidden.slice(s![.., 0..1, ..]).reshape([batch, width]);
        self.out_proj.forward(self.dense.forward(first).tanh())
    }
}

/// The whole sequence classifier, eval only (dropout is the identity).
#[derive(Debug, Clone)]
pub struct RobertaForSequenceClassification {
    /// Embedding tables.
    pub embeddings: Embeddings,
    /// Transformer layers.
    pub encoder: Encoder,
    /// Head on `<s>`.
    pub classifier: ClassificationHead,
}

impl RobertaForSequenceClassification {
    /// Logits `[batch, num_labels]` in the model's own label order.
    ///
    /// `input_ids, position_ids: [batch, seq]`; `mask_bias: [batch, 1, 1, seq]` is 0 for
    /// tokens and [`MASK_BIAS`] for padding.
    pub fn forward(
        &self,
        input_ids: Tensor<2, Int>,
        position_ids: Tensor<2, Int>,
        mask_bias: Tensor<4>,
    ) -> Tensor<2> {
        let x = self.embeddings.forward(input_ids, position_ids);
        let first = self.encoder.forward_first_token(x, mask_bias);
        self.classifier.forward(first)
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.embeddings.position.device()
    }
}
