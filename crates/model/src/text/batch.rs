//! Dynamic padding: encoded pairs are sorted by length, cut into batches, and each batch is
//! padded only to its own longest pair, with an attention mask for the padding.

use burn::prelude::*;

use crate::blocks::classifier::MASK_BIAS;
use crate::blocks::embeddings::position_ids;
use crate::text::tokenize::EncodedPair;

/// One padded batch on the host, ready to become tensors.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Position of each row in the caller's list of pairs.
    pub rows: Vec<usize>,
    /// Padded length of every row.
    pub seq_len: usize,
    /// `[rows, seq_len]`, padded with the pad token.
    pub input_ids: Vec<i64>,
    /// `[rows, seq_len]`, token type ids (0 on padding; all 0 when the pairs carry none).
    pub type_ids: Vec<i64>,
    /// `[rows, seq_len]`, RoBERTa position ids (see [`position_ids`]).
    pub position_ids: Vec<i64>,
    /// `[rows, seq_len]`: 0 for tokens, [`MASK_BIAS`] for padding.
    pub mask_bias: Vec<f32>,
}

/// The largest tensor a forward pass may create, in bytes. WebGPU's default
/// `maxStorageBufferBindingSize` is 128 MiB and some adapters allow no more (lavapipe:
/// a roberta-base batch failed with "can't allocate buffer"); half of it leaves headroom.
pub const MAX_TENSOR_BYTES: usize = 64 << 20;

/// Pairs per forward pass on a GPU (WebGPU in the browser; natively, wgpu). Measured on an
/// NVIDIA H200 through Vulkan (the WGSL kernels a browser runs), roberta-base, 128 tokens, a
/// 256 MiB budget: 201 examples/s at 8 pairs per pass, 391 at 32, 482 at 64, 496 at 128. 64
/// is within 3 % of 128 with half the wait per pass (what a cancel or a progress step waits
/// for); the CPU path keeps the page's smaller batches.
pub const GPU_BATCH_SIZE: usize = 64;

/// The most a GPU's activation budget may be, in bytes, whatever its binding limit. On the
/// H200 above, 256 MiB and 1 GiB ran alike at 128 tokens (64 MiB: 457 examples/s at 64 pairs,
/// 415 at 128, as more, smaller passes). 256 MiB holds a 64-pair pass up to 256 tokens, and
/// bounds what a pass allocates (a few tensors of that size at once) on GPUs that share
/// memory with the system.
pub const GPU_MAX_TENSOR_BYTES: u64 = 256 << 20;

/// The activation budget on a GPU device that binds storage buffers of up to
/// `max_storage_binding` bytes and allocates buffers of up to `max_buffer` bytes (WebGPU's
/// `maxStorageBufferBindingSize` and `maxBufferSize`, as granted to the device): a tensor
/// larger than either cannot exist there, so the budget is the smaller of them, capped at
/// [`GPU_MAX_TENSOR_BYTES`].
pub fn gpu_tensor_budget(max_storage_binding: u64, max_buffer: u64) -> usize {
    let bytes = max_storage_binding
        .min(max_buffer)
        .min(GPU_MAX_TENSOR_BYTES);
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// Sorts `pairs` by length (longest first, so the first batch shows the worst-case memory
/// early) and cuts them into padded batches of at most `batch_size` rows, and of at most
/// `max_rows(seq_len)` rows for their padded length (see [`max_rows_within_budget`]).
pub fn plan_batches(
    pairs: &[EncodedPair],
    batch_size: usize,
    pad_id: u32,
    max_rows: impl Fn(usize) -> usize,
) -> Vec<Batch> {
    plan_batches_padded(pairs, batch_size, pad_id, max_rows, None)
}

/// [`plan_batches`], with `pad_len` (when given) fixing each pair's padded length from its
/// own length alone: a batch then holds only pairs of one padded length and is padded to
/// it, so what a pair is computed with never depends on the other pairs scored beside it
/// (see [`crate::NliModel::set_pad_to_multiple`]). `pad_len(n)` must be at least `n`.
pub fn plan_batches_padded(
    pairs: &[EncodedPair],
    batch_size: usize,
    pad_id: u32,
    max_rows: impl Fn(usize) -> usize,
    pad_len: Option<&dyn Fn(usize) -> usize>,
) -> Vec<Batch> {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(pairs[i].ids.len()));
    let padded = |i: usize| {
        let n = pairs[i].ids.len();
        pad_len.map_or(n, |f| f(n).max(n))
    };
    let mut groups: Vec<&[usize]> = Vec::new();
    let mut rest = order.as_slice();
    while let Some(&first) = rest.first() {
        // Longest first: the group's padded length is its first row's.
        let limit = batch_size.min(max_rows(padded(first))).max(1);
        let mut take = limit.min(rest.len());
        if pad_len.is_some() {
            let same = rest.iter().take_while(|&&i| padded(i) == padded(first));
            take = take.min(same.count());
        }
        let (group, tail) = rest.split_at(take);
        groups.push(group);
        rest = tail;
    }
    groups
        .into_iter()
        .map(|rows| {
            let seq_len = rows.iter().map(|&i| padded(i)).max().unwrap_or(0);
            let mut input_ids = Vec::with_capacity(rows.len() * seq_len);
            let mut positions = Vec::with_capacity(rows.len() * seq_len);
            let mut type_ids = Vec::with_capacity(rows.len() * seq_len);
            let mut mask_bias = Vec::with_capacity(rows.len() * seq_len);
            for &i in rows {
                let mut ids = pairs[i].ids.clone();
                let real = ids.len();
                ids.resize(seq_len, pad_id);
                positions.extend(position_ids(&ids, pad_id as usize));
                input_ids.extend(ids.iter().map(|&id| id as i64));
                let types = &pairs[i].type_ids;
                type_ids.extend((0..seq_len).map(|t| types.get(t).map_or(0, |&ty| ty as i64)));
                mask_bias.extend((0..seq_len).map(|t| if t < real { 0.0 } else { MASK_BIAS }));
            }
            Batch {
                rows: rows.to_vec(),
                seq_len,
                input_ids,
                type_ids,
                position_ids: positions,
                mask_bias,
            }
        })
        .collect()
}

/// How many rows of `seq_len` tokens keep every activation of a RoBERTa forward pass under
/// [`MAX_TENSOR_BYTES`]: the attention scores (`heads × seq × seq` per row) and the
/// feed-forward activation (`seq × intermediate`) are the largest. Saturating arithmetic: on
/// wasm32 (32-bit `usize`) a large config's product would otherwise wrap to a small number.
pub fn max_rows_within_budget(
    seq_len: usize,
    heads: usize,
    intermediate: usize,
    hidden: usize,
) -> usize {
    max_rows_within(MAX_TENSOR_BYTES, seq_len, heads, intermediate, hidden)
}

/// [`max_rows_within_budget`] for a budget of `budget_bytes` instead of [`MAX_TENSOR_BYTES`]
/// (a GPU whose binding limit is larger than WebGPU's default; see
/// [`crate::NliModel::set_tensor_budget`]). At least one row, however small the budget.
pub fn max_rows_within(
    budget_bytes: usize,
    seq_len: usize,
    heads: usize,
    intermediate: usize,
    hidden: usize,
) -> usize {
    let widest = heads.saturating_mul(seq_len).max(intermediate).max(hidden);
    let per_row = seq_len.saturating_mul(widest).saturating_mul(4);
    (budget_bytes / per_row.max(1)).max(1)
}

/// A batch's tensors on a device, for any family.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// `[rows, seq]` token ids.
    pub ids: Tensor<2, Int>,
    /// `[rows, seq]` position ids, by the family's rule.
    pub positions: Tensor<2, Int>,
    /// `[rows, seq]` token type ids.
    pub types: Tensor<2, Int>,
    /// `[rows, 1, 1, seq]`: 0 for tokens, [`MASK_BIAS`] for padding.
    pub mask_bias: Tensor<4>,
}

impl Batch {
    /// The batch's tensors on `device`. Positions follow RoBERTa's rule (after the padding
    /// id) when `positions_after_padding`, else count from 0 on every row (BERT and the rest;
    /// padding positions are masked either way).
    pub fn inputs(&self, device: &Device, positions_after_padding: bool) -> Inputs {
        let shape = [self.rows.len(), self.seq_len];
        let int = |values: Vec<i64>| Tensor::from_data(TensorData::new(values, shape), device);
        let positions = if positions_after_padding {
            self.position_ids.clone()
        } else {
            (0..shape[0])
                .flat_map(|_| 0..shape[1] as i64)
                .collect::<Vec<_>>()
        };
        Inputs {
            ids: int(self.input_ids.clone()),
            positions: int(positions),
            types: int(self.type_ids.clone()),
            mask_bias: Tensor::from_data(
                TensorData::new(self.mask_bias.clone(), [shape[0], 1, 1, shape[1]]),
                device,
            ),
        }
    }

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
            type_ids: Vec::new(),
            ids: (10..10 + n as u32).collect(),
            truncated: false,
            premise_tokens_dropped: 0,
        }
    }

    #[test]
    fn batches_are_length_sorted_and_padded_to_their_own_longest() {
        let pairs = [pair(3), pair(7), pair(5), pair(2)];
        let b = plan_batches(&pairs, 2, 1, |_| usize::MAX);
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].rows.clone(), b[0].seq_len), (vec![1, 2], 7));
        assert_eq!((b[1].rows.clone(), b[1].seq_len), (vec![0, 3], 3));
        // row 3 (2 tokens) padded with pad id 1, masked, position = padding_idx
        assert_eq!(&b[1].input_ids[3..], &[10, 11, 1]);
        assert_eq!(&b[1].position_ids[3..], &[2, 3, 1]);
        assert_eq!(&b[1].mask_bias[3..], &[0.0, 0.0, MASK_BIAS]);
    }

    #[test]
    fn fixed_padding_depends_on_the_pair_alone() {
        // Padded to a multiple of 4: 7 → 8, 6 → 8, 5 → 8, 3 → 4, 2 → 4.
        let round = |n: usize| n.div_ceil(4) * 4;
        let pairs = [pair(3), pair(7), pair(5), pair(2), pair(6)];
        let b = plan_batches_padded(&pairs, 2, 1, |_| usize::MAX, Some(&round));
        let got: Vec<(Vec<usize>, usize)> = b.iter().map(|b| (b.rows.clone(), b.seq_len)).collect();
        assert_eq!(got, vec![(vec![1, 4], 8), (vec![2], 8), (vec![0, 3], 4)]);
        // Alone, pair 0 is still padded to 4 (by the longest rule it would get 3).
        let alone = plan_batches_padded(&pairs[..1], 2, 1, |_| usize::MAX, Some(&round));
        assert_eq!(alone[0].seq_len, 4);
        assert_eq!(&alone[0].mask_bias, &[0.0, 0.0, 0.0, MASK_BIAS]);
    }

    #[test]
    fn memory_budget_splits_long_batches() {
        let pairs = [pair(7), pair(7), pair(7), pair(3), pair(3)];
        // At most 1 row of length ≥ 5, any number of shorter ones.
        let b = plan_batches(&pairs, 8, 1, |len| if len >= 5 { 1 } else { 8 });
        let sizes: Vec<usize> = b.iter().map(|b| b.rows.len()).collect();
        assert_eq!(sizes, vec![1, 1, 1, 2]);
        // roberta-base at 512 tokens: 12·512² scores per row dominate.
        assert_eq!(max_rows_within_budget(512, 12, 3072, 768), 5);
        assert_eq!(max_rows_within_budget(128, 12, 3072, 768), 42);
        // roberta-base at 128 tokens: 128 × 3,072 × 4 = 1,572,864 bytes a row; 256 MiB holds
        // 170.7 of them, 1 GiB 682.7.
        assert_eq!(max_rows_within(256 << 20, 128, 12, 3072, 768), 170);
        assert_eq!(max_rows_within(1 << 30, 128, 12, 3072, 768), 682);
        assert_eq!(max_rows_within(0, 128, 12, 3072, 768), 1);
    }

    #[test]
    fn a_gpu_budget_is_the_devices_binding_limit_capped_at_256_mib() {
        // The H200's Vulkan limits: bindings of 2 GiB − 4 B, buffers of 4094 MiB → the cap.
        assert_eq!(gpu_tensor_budget(2_147_483_644, 4_292_870_144), 256 << 20);
        // WebGPU's default limits (128 MiB bindings, 256 MiB buffers) → 128 MiB.
        assert_eq!(gpu_tensor_budget(128 << 20, 256 << 20), 128 << 20);
        // A buffer limit below the binding limit wins.
        assert_eq!(gpu_tensor_budget(1 << 30, 100 << 20), 100 << 20);
        // roberta-base at 128 tokens under the cap: 256 MiB / (128 × 3,072 × 4 B) = 170 rows,
        // so a GPU batch runs as one pass; at 512 tokens (12 × 512 per row wider) 21 rows.
        let budget = gpu_tensor_budget(u64::MAX, u64::MAX);
        assert_eq!(max_rows_within(budget, 128, 12, 3072, 768), 170);
        assert!(max_rows_within(budget, 128, 12, 3072, 768) >= GPU_BATCH_SIZE);
        assert_eq!(max_rows_within(budget, 512, 12, 3072, 768), 21);
    }

    #[test]
    fn budget_saturates_instead_of_wrapping() {
        assert_eq!(max_rows_within_budget(usize::MAX, usize::MAX, 1, 1), 1);
        assert_eq!(
            max_rows_within_budget(1 << 20, 1 << 12, 1 << 16, 1 << 13),
            1
        );
    }
}
