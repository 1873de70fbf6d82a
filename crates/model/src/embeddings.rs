//! RoBERTa embeddings: word + position + token type, then LayerNorm (`RobertaEmbeddings`).

use burn::prelude::*;
use burn::tensor::module::embedding;

use crate::nn::LayerNorm;

/// The embedding tables of a RoBERTa encoder.
#[derive(Debug, Clone)]
pub struct Embeddings {
    /// `[vocab_size, hidden]`.
    pub word: Tensor<2>,
    /// `[max_position_embeddings, hidden]`.
    pub position: Tensor<2>,
    /// `[type_vocab_size, hidden]`; RoBERTa only ever uses row 0.
    pub token_type: Tensor<2>,
    /// Applied to the sum.
    pub layer_norm: LayerNorm,
}

impl Embeddings {
    /// `input_ids, position_ids: [batch, seq]` → `[batch, seq, hidden]`.
    pub fn forward(&self, input_ids: Tensor<2, Int>, position_ids: Tensor<2, Int>) -> Tensor<3> {
        let words = embedding(self.word.clone(), input_ids);
        let positions = embedding(self.position.clone(), position_ids);
        // Token type ids are all 0 for RoBERTa pairs, so the lookup is one broadcast row.
        let hidden = self.token_type.dims()[1];
        let token_type = self
            .token_type
            .clone()
            .slice(s![0..1, 0..hidden])
            .unsqueeze::<3>();
        self.layer_norm.forward(words + positions + token_type)
    }
}

/// RoBERTa position ids for one padded row: `cumsum(mask) * mask + padding_idx` with
/// `mask = (id != padding_idx)`, as `create_position_ids_from_input_ids` in `transformers`.
/// Real tokens count from `padding_idx + 1`; padding gets `padding_idx` — right for padding on
/// either side.
pub fn position_ids(input_ids: &[u32], padding_idx: usize) -> Vec<i64> {
    let mut count = 0i64;
    let pad = padding_idx as i64;
    input_ids
        .iter()
        .map(|&id| {
            if id as usize == padding_idx {
                pad
            } else {
                count += 1;
                count + pad
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::position_ids;

    #[test]
    fn positions_start_after_padding_idx_and_skip_padding() {
        // <s> a b </s> <pad> <pad> with padding_idx 1
        assert_eq!(position_ids(&[0, 7, 8, 2, 1, 1], 1), vec![2, 3, 4, 5, 1, 1]);
        // left padding works the same way
        assert_eq!(position_ids(&[1, 0, 7, 2], 1), vec![1, 2, 3, 4]);
    }
}
