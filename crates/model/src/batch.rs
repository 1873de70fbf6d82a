//! Dynamic padding: encoded pairs are sorted by length, cut into batches, and each batch is
//! padded only to its own longest pair, with an attention mask for the padding.

use burn::prelude::*;

use crate::classifier::MASK_BIAS;
use crate::embeddings::position_ids;
use crate::tokenize::EncodedPair;

/// One padded batch on the host, ready to become tensors.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Position of each row in the caller's list of pairs.
    pub rows: Vec<usize>,
    /// Padded length of every row.
    pub seq_len: usize,
    /// `[rows, seq_len]`, padded with the pad token.
    pub input_ids: Vec<i64>,
    /// `[rows, seq_len]`, RoBERTa position ids (see [`position_ids`]).
    pub position_ids: Vec<i64>,
    /// `[rows, seq_len]`: 0 for tokens, [`MASK_BIAS`] for padding.
    pub mask_bias: Vec<f32>,
}

/// Sorts `pairs` by length (longest first, so the first batch shows the worst-case memory
/// early) and cuts them into padded batches of at most `batch_size` rows.
pub fn plan_batches(pairs: &[EncodedPair], batch_size: usize, pad_id: u32) -> Vec<Batch> {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(pairs[i].ids.len()));
    order
        .chunks(batch_size.max(1))
        .map(|rows| {
            let seq_len = rows.iter().map(|&i| pairs[i].ids.len()).max().unwrap_or(0);
            let mut input_ids = Vec::with_capacity(rows.len() * seq_len);
            let mut positions = Vec::with_capacity(rows.len() * seq_len);
            let mut mask_bias = Vec::with_capacity(rows.len() * seq_len);
            for &i in rows {
                let mut ids = pairs[i].ids.clone();
                let real = ids.len();
                ids.resize(seq_len, pad_id);
                positions.extend(position_ids(&ids, pad_id as usize));
                input_ids.extend(ids.iter().map(|&id| id as i64));
                mask_bias.extend((0..seq_len).map(|t| if t < real { 0.0 } else { MASK_BIAS }));
            }
            Batch {
                rows: rows.to_vec(),
                seq_len,
                input_ids,
                position_ids: positions,
                mask_bias,
            }
        })
        .collect()
}

impl Batch {
    /// The batch's tensors on `device`: ids, positions `[rows, seq]` and the mask bias
    /// `[rows, 1, 1, seq]` that broadcasts over heads and query positions.
    pub fn tensors(&self, device: &Device) -> (Tensor<2, Int>, Tensor<2, Int>, Tensor<4>) {
        let shape = [self.rows.len(), self.seq_len];
        let ids = Tensor::from_data(TensorData::new(self.input_ids.clone(), shape), device);
        let pos = Tensor::from_data(TensorData::new(self.position_ids.clone(), shape), device);
        let mask = Tensor::from_data(
            TensorData::new(self.mask_bias.clone(), [shape[0], 1, 1, shape[1]]),
            device,
        );
        (ids, pos, mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(n: usize) -> EncodedPair {
        EncodedPair {
            ids: (10..10 + n as u32).collect(),
            truncated: false,
            premise_tokens_dropped: 0,
        }
    }

    #[test]
    fn batches_are_length_sorted_and_padded_to_their_own_longest() {
        let pairs = [pair(3), pair(7), pair(5), pair(2)];
        let b = plan_batches(&pairs, 2, 1);
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].rows.clone(), b[0].seq_len), (vec![1, 2], 7));
        assert_eq!((b[1].rows.clone(), b[1].seq_len), (vec![0, 3], 3));
        // row 3 (2 tokens) padded with pad id 1, masked, position = padding_idx
        assert_eq!(&b[1].input_ids[3..], &[10, 11, 1]);
        assert_eq!(&b[1].position_ids[3..], &[2, 3, 1]);
        assert_eq!(&b[1].mask_bias[3..], &[0.0, 0.0, MASK_BIAS]);
    }
}
