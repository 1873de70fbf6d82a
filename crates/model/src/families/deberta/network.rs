//! DeBERTa-v2/v3's network: disentangled attention over relative positions, the layers and
//! the classifier with its `ContextPooler`, eval only.

use burn::prelude::*;
use burn::tensor::activation::softmax;
use burn::tensor::module::embedding;

use crate::blocks::embeddings::{word_vectors, WordChunk};
use crate::blocks::encoder::FeedForward;
use crate::blocks::nn::{Dense, LayerNorm};
use crate::families::deberta::config::DebertaV2Config;
use crate::families::deberta::positions::relative_index;
use crate::text::batch::Batch;

/// `DisentangledSelfAttention` with its output block (`DebertaV2SelfOutput`).
#[derive(Debug, Clone)]
pub struct DisentangledAttention {
    /// `query_proj`.
    pub query: Dense,
    /// `key_proj`.
    pub key: Dense,
    /// `value_proj`.
    pub value: Dense,
    /// `pos_key_proj` (`c2p` without shared keys).
    pub pos_key: Option<Dense>,
    /// `pos_query_proj` (`p2c` without shared keys).
    pub pos_query: Option<Dense>,
    /// `attention.output.dense`.
    pub output: Dense,
    /// `attention.output.LayerNorm`.
    pub layer_norm: LayerNorm,
}

/// One layer: attention, then BERT's feed-forward block.
#[derive(Debug, Clone)]
pub struct DebertaLayer {
    /// Attention.
    pub attention: DisentangledAttention,
    /// `intermediate` + `output`.
    pub feed_forward: FeedForward,
}

/// The whole classifier, eval only.
#[derive(Debug, Clone)]
pub struct DebertaV2ForSequenceClassification {
    /// The config it was built from.
    pub config: DebertaV2Config,
    /// Word table in row chunks (see [`crate::blocks::embeddings::Embeddings::word`]).
    pub word: Vec<WordChunk>,
    /// Absolute positions (v2).
    pub position: Option<Tensor<2>>,
    /// Token types.
    pub token_type: Option<Tensor<2>>,
    /// Embedding projection (no bias).
    pub embed_proj: Option<Dense>,
    /// Embedding LayerNorm.
    pub embed_norm: LayerNorm,
    /// Relative embeddings.
    pub rel_embeddings: Option<Tensor<2>>,
    /// Their LayerNorm (`encoder.LayerNorm`), when the config normalises them.
    pub rel_norm: Option<LayerNorm>,
    /// Layers.
    pub layers: Vec<DebertaLayer>,
    /// `pooler.dense`.
    pub pooler: Dense,
    /// `classifier`.
    pub classifier: Dense,
}

impl DebertaV2ForSequenceClassification {
    /// Logits `[rows, num_labels]` of one padded batch (padding masked as keys; positions
    /// and relative distances count from 0).
    pub fn forward(&self, batch: &Batch, device: &Device) -> Tensor<2> {
        let c = &self.config;
        let inputs = batch.inputs(device, false);
        let [rows, seq] = inputs.ids.dims();
        let mut x = word_vectors(&self.word, inputs.ids);
        if let Some(table) = &self.position {
            x = x + embedding(table.clone(), inputs.positions);
        }
        if let Some(table) = &self.token_type {
            x = x + embedding(table.clone(), inputs.types);
        }
        if let Some(project) = &self.embed_proj {
            x = project.forward(x);
        }
        let mut x = self.embed_norm.forward(x);
        let heads = c.num_attention_heads;
        let relative = self.rel_embeddings.as_ref().map(|rel| {
            let idx = Tensor::<2, Int>::from_data(
                TensorData::new(relative_index(seq, c), [seq, seq]),
                device,
            );
            let idx = idx.reshape([1, 1, seq, seq]);
            let c2p = idx.clone().expand([rows, heads, seq, seq]);
            let p2c = idx.swap_dims(2, 3).expand([rows, heads, seq, seq]);
            let rel = match &self.rel_norm {
                Some(norm) => norm
                    .forward(rel.clone().unsqueeze::<3>())
                    .squeeze_dim::<2>(0),
                None => rel.clone(),
            };
            (rel, c2p, p2c)
        });
        for layer in &self.layers {
            x = layer
                .attention
                .forward(x, &inputs.mask_bias, relative.as_ref(), c);
            x = layer.feed_forward.forward(x);
        }
        let [_, _, width] = x.dims();
        let first = x.slice(s![.., 0..1, ..]).reshape([rows, width]);
        let pooled = c.pooler_hidden_act.apply(self.pooler.forward(first));
        self.classifier.forward(pooled)
    }
}

impl DisentangledAttention {
    /// `x: [rows, seq, hidden]`; `relative`: the (normalised) relative embeddings
    /// `[2 span, hidden]` and the `c2p` and transposed `p2c` gather indices `[rows, heads,
    /// seq, seq]`.
    fn forward(
        &self,
        x: Tensor<3>,
        mask_bias: &Tensor<4>,
        relative: Option<&(Tensor<2>, Tensor<4, Int>, Tensor<4, Int>)>,
        c: &DebertaV2Config,
    ) -> Tensor<3> {
        let [rows, seq, hidden] = x.dims();
        let heads = c.num_attention_heads;
        let head_dim = hidden / heads;
        let split =
            |t: Tensor<3>, len: usize| t.reshape([rows, len, heads, head_dim]).swap_dims(1, 2);
        let q = split(self.query.forward(x.clone()), seq);
        let k = split(self.key.forward(x.clone()), seq);
        let v = split(self.value.forward(x.clone()), seq);
        let terms = 1 + usize::from(c.uses("c2p")) + usize::from(c.uses("p2c"));
        let scale = 1.0 / ((head_dim * terms) as f64).sqrt();
        let mut scores = q.clone().matmul(k.clone().swap_dims(2, 3)) * scale;
        if let Some((rel, c2p_idx, p2c_idx)) = relative {
            let span2 = rel.dims()[0];
            // [2 span, hidden] → [rows, heads, 2 span, head_dim].
            let positions = |project: &Dense| {
                project
                    .forward(rel.clone())
                    .reshape([1, span2, heads, head_dim])
                    .swap_dims(1, 2)
                    .expand([rows, heads, span2, head_dim])
            };
            if c.uses("c2p") {
                let project = if c.share_att_key {
                    Some(&self.key)
                } else {
                    self.pos_key.as_ref()
                };
                if let Some(project) = project {
                    let c2p = q.matmul(positions(project).swap_dims(2, 3));
                    scores = scores + c2p.gather(3, c2p_idx.clone()) * scale;
                }
            }
            if c.uses("p2c") {
                let project = if c.share_att_key {
                    Some(&self.query)
                } else {
                    self.pos_query.as_ref()
                };
                if let Some(project) = project {
                    let p2c = k.matmul(positions(project).swap_dims(2, 3));
                    scores = scores + p2c.gather(3, p2c_idx.clone()).swap_dims(2, 3) * scale;
                }
            }
        }
        let probs = softmax(scores + mask_bias.clone(), 3);
        let context = probs.matmul(v).swap_dims(1, 2).reshape([rows, seq, hidden]);
        self.layer_norm.forward(self.output.forward(context) + x)
    }
}
