//! BART's network, eval only: two stacks of post-LayerNorm layers, the decoder reading the
//! shifted ids causally with cross-attention, the head at the last `</s>`.

use burn::prelude::*;
use burn::tensor::module::embedding;

use crate::blocks::classifier::{ClassificationHead, MASK_BIAS};
use crate::blocks::embeddings::{word_vectors, WordChunk};
use crate::blocks::encoder::{Attention, FeedForward};
use crate::blocks::nn::LayerNorm;
use crate::families::bart::config::{BartConfig, POSITION_OFFSET};
use crate::text::batch::Batch;

/// Embeddings and layers of one stack.
#[derive(Debug, Clone)]
pub struct Stack {
    /// Word table in row chunks (shared by both stacks when tied).
    pub word: Vec<WordChunk>,
    /// `[P + 2, D]`.
    pub positions: Tensor<2>,
    /// `layernorm_embedding`.
    pub embed_norm: LayerNorm,
    /// Layers.
    pub layers: Vec<BartLayer>,
}

/// One layer: self-attention, cross-attention (decoder only), feed-forward; each followed by
/// residual and LayerNorm.
#[derive(Debug, Clone)]
pub struct BartLayer {
    /// `self_attn` with `self_attn_layer_norm`.
    pub self_attention: Attention,
    /// `encoder_attn` with `encoder_attn_layer_norm`.
    pub cross_attention: Option<Attention>,
    /// `fc1 → act → fc2` with `final_layer_norm`.
    pub feed_forward: FeedForward,
}

/// The whole classifier, eval only.
#[derive(Debug, Clone)]
pub struct BartForSequenceClassification {
    /// The config it was built from.
    pub config: BartConfig,
    /// Encoder.
    pub encoder: Stack,
    /// Decoder.
    pub decoder: Stack,
    /// `classification_head`.
    pub head: ClassificationHead,
}

impl Stack {
    /// Word vectors (× √d when `scale_embedding`) plus positions from `POSITION_OFFSET`, then
    /// the embedding LayerNorm.
    fn embed(&self, ids: Tensor<2, Int>, scale: f64, device: &Device) -> Tensor<3> {
        let [rows, seq] = ids.dims();
        let words = word_vectors(&self.word, ids);
        let words = if scale != 1.0 { words * scale } else { words };
        let positions: Vec<i64> = (0..rows)
            .flat_map(|_| (0..seq).map(|t| (t + POSITION_OFFSET) as i64))
            .collect();
        let positions =
            Tensor::<2, Int>::from_data(TensorData::new(positions, [rows, seq]), device);
        self.embed_norm
            .forward(words + embedding(self.positions.clone(), positions))
    }
}

impl BartForSequenceClassification {
    /// Logits `[rows, num_labels]` of one padded batch. Fails when a row has no `</s>`.
    pub fn forward(&self, batch: &Batch, device: &Device) -> Result<Tensor<2>, String> {
        let c = &self.config;
        let (rows, seq) = (batch.rows.len(), batch.seq_len);
        let eos = c.eos_token_id as i64;
        let mut last_eos = Vec::with_capacity(rows);
        for (r, row) in batch.input_ids.chunks(seq.max(1)).enumerate() {
            match row.iter().rposition(|&id| id == eos) {
                Some(t) => last_eos.push(t as i64),
                None => {
                    return Err(format!(
                        "pair {} has no </s> (id {eos}); BART's head reads the decoder at the last one \
                         (does tokenizer.json add the special tokens?)",
                        batch.rows.get(r).map_or(r, |&i| i + 1)
                    ))
                }
            }
        }
        let scale = if c.scale_embedding {
            (c.d_model as f64).sqrt()
        } else {
            1.0
        };
        let inputs = batch.inputs(device, false);
        let mut x = self.encoder.embed(inputs.ids, scale, device);
        for layer in &self.encoder.layers {
            x = layer.self_attention.forward(x, inputs.mask_bias.clone());
            x = layer.feed_forward.forward(x);
        }
        // shift_tokens_right: the decoder reads [start, ids[..seq − 1]].
        let shifted: Vec<i64> = batch
            .input_ids
            .chunks(seq.max(1))
            .flat_map(|row| {
                std::iter::once(c.decoder_start_token_id as i64)
                    .chain(row[..row.len().saturating_sub(1)].iter().copied())
            })
            .collect();
        let shifted = Tensor::<2, Int>::from_data(TensorData::new(shifted, [rows, seq]), device);
        let causal: Vec<f32> = (0..seq)
            .flat_map(|i| (0..seq).map(move |j| if j > i { MASK_BIAS } else { 0.0 }))
            .collect();
        let causal = Tensor::<4>::from_data(TensorData::new(causal, [1, 1, seq, seq]), device);
        let mut y = self.decoder.embed(shifted, scale, device);
        for layer in &self.decoder.layers {
            y = layer.self_attention.forward(y, causal.clone());
            if let Some(cross) = &layer.cross_attention {
                y = cross.attend(y, x.clone(), inputs.mask_bias.clone());
            }
            y = layer.feed_forward.forward(y);
        }
        let width = c.d_model;
        let index = Tensor::<1, Int>::from_data(TensorData::new(last_eos, [rows]), device)
            .reshape([rows, 1, 1])
            .expand([rows, 1, width]);
        let at_eos = y.gather(1, index);
        Ok(self.head.forward(at_eos))
    }
}
