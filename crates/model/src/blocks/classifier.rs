//! The BERT-style encoder classifier: embeddings → encoder → classification head on the first
//! token. `transformers`' `RobertaForSequenceClassification` (and XLM-RoBERTa's), and with
//! another head activation and other tensor names BERT's (pooler + classifier), ELECTRA's and
//! DistilBERT's.

use burn::prelude::*;
use burn::tensor::activation::relu;

use crate::blocks::activation::gelu;

use crate::blocks::embeddings::Embeddings;
use crate::blocks::encoder::Encoder;
use crate::blocks::nn::Dense;

/// Added to attention scores at padding positions. Finite (unlike -inf) so a fully masked row
/// could never produce NaN; large enough that `exp` underflows to exactly 0, as
/// `transformers`' `finfo.min` mask does.
pub const MASK_BIAS: f32 = -1e30;

/// The activation between the head's two dense layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeadAct {
    /// RoBERTa's head and BERT's pooler.
    #[default]
    Tanh,
    /// ELECTRA's head (exact GELU).
    Gelu,
    /// DistilBERT's `pre_classifier → ReLU`.
    Relu,
}

/// `RobertaClassificationHead`: `dense → tanh → out_proj` on the first token (`<s>`); BERT's
/// `pooler.dense → tanh → classifier`, ELECTRA's `dense → gelu → out_proj` and DistilBERT's
/// `pre_classifier → ReLU → classifier` have the same shape.
#[derive(Debug, Clone)]
pub struct ClassificationHead {
    /// `classifier.dense`: hidden → hidden.
    pub dense: Dense,
    /// `classifier.out_proj`: hidden → num_labels.
    pub out_proj: Dense,
    /// Between the two.
    pub act: HeadAct,
}

impl ClassificationHead {
    /// `hidden: [batch, seq, hidden]` (or just the first position, `[batch, 1, hidden]`) →
    /// logits `[batch, num_labels]`.
    pub fn forward(&self, hidden: Tensor<3>) -> Tensor<2> {
        let [batch, _, width] = hidden.dims();
        let first = hidden.slice(s![.., 0..1, ..]).reshape([batch, width]);
        let h = self.dense.forward(first);
        let h = match self.act {
            HeadAct::Tanh => h.tanh(),
            HeadAct::Gelu => gelu(h),
            HeadAct::Relu => relu(h),
        };
        self.out_proj.forward(h)
    }
}

/// The whole sequence classifier, eval only (dropout is the identity). The name is
/// RoBERTa's, the family it was written for; BERT, XLM-RoBERTa, ELECTRA and DistilBERT
/// checkpoints load into it too (see [`crate::families::family::Family`]).
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
        self.forward_typed(input_ids, position_ids, None, mask_bias)
    }

    /// As [`RobertaForSequenceClassification::forward`], with token type ids (`[batch, seq]`)
    /// for the families that use them.
    pub fn forward_typed(
        &self,
        input_ids: Tensor<2, Int>,
        position_ids: Tensor<2, Int>,
        token_type_ids: Option<Tensor<2, Int>>,
        mask_bias: Tensor<4>,
    ) -> Tensor<2> {
        let x = self
            .embeddings
            .forward_typed(input_ids, position_ids, token_type_ids);
        let first = self.encoder.forward_first_token(x, mask_bias);
        self.classifier.forward(first)
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.embeddings.position.device()
    }
}
