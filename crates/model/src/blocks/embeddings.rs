//! The embeddings of the BERT-style encoders: word + position + token type, then LayerNorm
//! (`RobertaEmbeddings`, `BertEmbeddings`, …), and ELECTRA's projection to the hidden width.

use burn::prelude::*;
use burn::tensor::module::embedding;

use crate::blocks::nn::{Dense, LayerNorm};

/// A slice of rows of the word embedding table, starting at token id `start`.
#[derive(Debug, Clone)]
pub struct WordChunk {
    /// First token id in `table`.
    pub start: usize,
    /// `[rows, hidden]`.
    pub table: Tensor<2>,
}

/// The embedding tables of a RoBERTa encoder.
#[derive(Debug, Clone)]
pub struct Embeddings {
    /// The `[vocab_size, hidden]` word table in row chunks. One tensor is too large for some
    /// GPUs: roberta-base's table is 147 MiB, and adapters may bind at most 128 MiB per buffer
    /// (lavapipe does; it is also WebGPU's default limit).
    pub word: Vec<WordChunk>,
    /// `[max_position_embeddings, hidden]`.
    pub position: Tensor<2>,
    /// `[type_vocab_size, hidden]`; RoBERTa only ever uses row 0. DistilBERT has no table:
    /// the loader puts one row of zeros here, which adds exactly nothing.
    pub token_type: Tensor<2>,
    /// Applied to the sum.
    pub layer_norm: LayerNorm,
    /// ELECTRA's `embeddings_project` (embedding width → hidden width), after the LayerNorm.
    pub projection: Option<Dense>,
}

impl Embeddings {
    /// `input_ids, position_ids: [batch, seq]` → `[batch, seq, hidden]`, every token of type 0
    /// (RoBERTa pairs).
    pub fn forward(&self, input_ids: Tensor<2, Int>, position_ids: Tensor<2, Int>) -> Tensor<3> {
        self.forward_typed(input_ids, position_ids, None)
    }

    /// As [`Embeddings::forward`], with `token_type_ids: [batch, seq]` looked up when given
    /// (BERT pairs: 0 for the first segment, 1 for the second).
    pub fn forward_typed(
        &self,
        input_ids: Tensor<2, Int>,
        position_ids: Tensor<2, Int>,
        token_type_ids: Option<Tensor<2, Int>>,
    ) -> Tensor<3> {
        let words = self.words(input_ids);
        let positions = embedding(self.position.clone(), position_ids);
        let summed = match token_type_ids {
            Some(types) => words + positions + embedding(self.token_type.clone(), types),
            None => {
                // All type 0: the lookup is one broadcast row.
                let width = self.token_type.dims()[1];
                let row = self
                    .token_type
                    .clone()
                    .slice(s![0..1, 0..width])
                    .unsqueeze::<3>();
                words + positions + row
            }
        };
        let normed = self.layer_norm.forward(summed);
        match &self.projection {
            Some(project) => project.forward(normed),
            None => normed,
        }
    }
}

impl Embeddings {
    /// Word vectors `[batch, seq, hidden]`.
    fn words(&self, input_ids: Tensor<2, Int>) -> Tensor<3> {
        word_vectors(&self.word, input_ids)
    }
}

/// Word vectors `[batch, seq, width]` from a table held in row chunks. With several chunks
/// each one looks up the ids it holds and contributes exact zeros elsewhere, so the sum equals
/// a single-table lookup bit for bit.
pub fn word_vectors(chunks: &[WordChunk], input_ids: Tensor<2, Int>) -> Tensor<3> {
    if let [only] = chunks {
        return embedding(only.table.clone(), input_ids);
    }
    let mut sum: Option<Tensor<3>> = None;
    for chunk in chunks {
        let rows = chunk.table.dims()[0] as i64;
        let local = input_ids.clone().sub_scalar(chunk.start as i64);
        let inside = local
            .clone()
            .greater_equal_elem(0)
            .bool_and(local.clone().lower_elem(rows));
        let found = embedding(chunk.table.clone(), local.clamp(0, rows - 1))
            * inside.float().unsqueeze_dim::<3>(2);
        sum = Some(match sum {
            None => found,
            Some(s) => s + found,
        });
    }
    // The loaders never build an empty table (vocab_size > 0 is checked); zeros keep the
    // shape right should one ever be built by hand.
    sum.unwrap_or_else(|| {
        let [b, s] = input_ids.dims();
        let width = chunks.first().map_or(1, |c| c.table.dims()[1]);
        Tensor::zeros([b, s, width], &input_ids.device())
    })
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
    use super::*;

    #[test]
    fn chunked_word_table_looks_up_exactly_like_one_table() {
        let device = Device::flex();
        let (vocab, hidden) = (10, 3);
        let values: Vec<f32> = (0..vocab * hidden).map(|i| i as f32 * 0.37 - 4.0).collect();
        let whole =
            Tensor::<2>::from_data(TensorData::new(values.clone(), [vocab, hidden]), &device);
        let chunk = |start: usize, end: usize| WordChunk {
            start,
            table: Tensor::from_data(
                TensorData::new(
                    values[start * hidden..end * hidden].to_vec(),
                    [end - start, hidden],
                ),
                &device,
            ),
        };
        let norm = LayerNorm {
            gamma: Tensor::ones([hidden], &device),
            beta: Tensor::zeros([hidden], &device),
            eps: 1e-5,
        };
        let make = |word| Embeddings {
            word,
            position: Tensor::zeros([8, hidden], &device),
            token_type: Tensor::zeros([1, hidden], &device),
            layer_norm: norm.clone(),
            projection: None,
        };
        let one = make(vec![WordChunk {
            start: 0,
            table: whole,
        }]);
        let three = make(vec![chunk(0, 4), chunk(4, 8), chunk(8, 10)]);
        let ids = || {
            Tensor::<2, Int>::from_data(TensorData::new(vec![0i64, 3, 4, 9, 7, 8], [2, 3]), &device)
        };
        let a = one.words(ids()).into_data().try_to_vec::<f32>().unwrap();
        let b = three.words(ids()).into_data().try_to_vec::<f32>().unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn positions_start_after_padding_idx_and_skip_padding() {
        // <s> a b </s> <pad> <pad> with padding_idx 1
        assert_eq!(position_ids(&[0, 7, 8, 2, 1, 1], 1), vec![2, 3, 4, 5, 1, 1]);
        // left padding works the same way
        assert_eq!(position_ids(&[1, 0, 7, 2], 1), vec![1, 2, 3, 4]);
    }
}
