//! A whole encoder layer on the host, for the CPU path when every dense layer of it already
//! multiplies there (int8 anywhere on `flex`; f32 natively with `fast-cpu`,
//! [`super::packed`]): the dense products, attention, residual adds, LayerNorms and the
//! activation as loops over plain f32 buffers, the activations read back from a tensor once
//! per encoder instead of once per op (docs/benchmarks.md#where-the-clis-time-goes).
//!
//! The arithmetic is burn's path's, op for op, in f32: scores `(q · k) / √d + mask`, softmax
//! as `exp(s − max) / Σ exp`, the context `Σ p · v`, LayerNorm with the biased variance. Sums
//! run in a fixed order over each row's own values, never across rows, so a row's outputs do
//! not depend on the rows beside it (shards of a run still merge byte-identically), and a
//! padded key (mask −1e30) adds exact zeros.

use burn::tensor::Device;

use super::activation::HiddenAct;
use super::nn::{Dense, LayerNorm};

/// One encoder layer's parts (`RobertaLayer`), borrowed from [`super::encoder::Layer`].
#[derive(Debug, Clone, Copy)]
pub struct LayerParts<'a> {
    /// Query, key, value and output projections.
    pub attention: [&'a Dense; 4],
    /// `attention.output.LayerNorm`.
    pub attention_norm: &'a LayerNorm,
    /// `intermediate.dense` and `output.dense`.
    pub feed_forward: [&'a Dense; 2],
    /// `output.LayerNorm`.
    pub output_norm: &'a LayerNorm,
    /// The activation between the feed-forward layers.
    pub act: HiddenAct,
    /// Attention heads.
    pub heads: usize,
}

/// Activations on the host: `batch` sequences of `seq` positions, `hidden` values each,
/// row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows {
    /// The values.
    pub values: Vec<f32>,
    /// Sequences.
    pub batch: usize,
    /// Positions per sequence.
    pub seq: usize,
    /// Values per position.
    pub hidden: usize,
}

impl LayerParts<'_> {
    /// Whether the whole layer can run on the host for `device`.
    pub fn runs_on_host(&self, device: &Device) -> bool {
        self.attention
            .iter()
            .chain(&self.feed_forward)
            .all(|d| d.runs_on_host(device))
    }

    /// The layer applied to `x` (every position), or, with `first_only`, to the first
    /// position of each sequence only (attending to all of them): what the last layer needs
    /// for a head on `<s>`. `mask` holds `batch × seq` additive biases (0 or −1e30). `None`
    /// when a part cannot run on the host (then the caller runs burn's path).
    pub fn forward(
        &self,
        x: &Rows,
        mask: &[f32],
        first_only: bool,
        device: &Device,
    ) -> Option<Rows> {
        let (batch, seq, hidden) = (x.batch, x.seq, x.hidden);
        if hidden == 0 || self.heads == 0 || !hidden.is_multiple_of(self.heads) {
            return None;
        }
        let [query, key, value, output] = self.attention;
        let rows = if first_only {
            Rows {
                values: x
                    .values
                    .chunks_exact(seq * hidden)
                    .flat_map(|s| &s[..hidden])
                    .copied()
                    .collect(),
                batch,
                seq: 1,
                hidden,
            }
        } else {
            x.clone()
        };
        let q = query.host_forward(&rows.values, device)?;
        let k = key.host_forward(&x.values, device)?;
        let v = value.host_forward(&x.values, device)?;
        let context = attention(&q, &k, &v, mask, [batch, rows.seq, seq, hidden], self.heads)?;
        let mut a = output.host_forward(&context, device)?;
        add_and_norm(&mut a, &rows.values, self.attention_norm, hidden)?;
        let [intermediate, ff_output] = self.feed_forward;
        let mut h = intermediate.host_forward(&a, device)?;
        self.act.apply_in_place(&mut h);
        let mut out = ff_output.host_forward(&h, device)?;
        add_and_norm(&mut out, &a, self.output_norm, hidden)?;
        Some(Rows {
            values: out,
            ..rows
        })
    }
}

/// Multi-head attention on the host: `q` is `[batch, q_len, hidden]`, `k` and `v`
/// `[batch, seq, hidden]`, `mask` `[batch, seq]`; the context `[batch, q_len, hidden]`.
/// Each (sequence, head) is one piece of work, natively shared among the cores.
fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    mask: &[f32],
    [batch, q_len, seq, hidden]: [usize; 4],
    heads: usize,
) -> Option<Vec<f32>> {
    if q.len() != batch * q_len * hidden
        || k.len() != batch * seq * hidden
        || v.len() != k.len()
        || mask.len() != batch * seq
    {
        return None;
    }
    let d = hidden / heads;
    let scale = (1.0 / (d as f64).sqrt()) as f32;
    let piece = |i: usize| -> Vec<f32> {
        let (b, h) = (i / heads, i % heads);
        let mut out = vec![0.0f32; q_len * d];
        pulp::Arch::new().dispatch(Head {
            q: &q[b * q_len * hidden..][..q_len * hidden],
            k: &k[b * seq * hidden..][..seq * hidden],
            v: &v[b * seq * hidden..][..seq * hidden],
            mask: &mask[b * seq..][..seq],
            columns: h * d..(h + 1) * d,
            hidden,
            scale,
            out: &mut out,
        });
        out
    };
    #[cfg(feature = "fast-cpu")]
    let pieces: Vec<Vec<f32>> = {
        use rayon::prelude::*;
        (0..batch * heads).into_par_iter().map(piece).collect()
    };
    #[cfg(not(feature = "fast-cpu"))]
    let pieces: Vec<Vec<f32>> = (0..batch * heads).map(piece).collect();
    let mut context = vec![0.0f32; batch * q_len * hidden];
    for (i, piece) in pieces.iter().enumerate() {
        let (b, h) = (i / heads, i % heads);
        for (r, values) in piece.chunks_exact(d).enumerate() {
            context[(b * q_len + r) * hidden + h * d..][..d].copy_from_slice(values);
        }
    }
    Some(context)
}

/// `x ← LayerNorm(x + residual)` row by row (`hidden` values a row): mean, centred values,
/// biased variance, `c / √(var + eps) · γ + β`, as [`LayerNorm::forward`].
fn add_and_norm(x: &mut [f32], residual: &[f32], norm: &LayerNorm, hidden: usize) -> Option<()> {
    let (gamma, beta) = norm.host_params()?;
    if x.len() != residual.len() || gamma.len() != hidden || beta.len() != hidden {
        return None;
    }
    let eps = norm.eps as f32;
    let rows = |(x, residual): (&mut [f32], &[f32])| {
        pulp::Arch::new().dispatch(
            #[inline(always)]
            || {
                for (x, residual) in x
                    .chunks_exact_mut(hidden)
                    .zip(residual.chunks_exact(hidden))
                {
                    for (x, &r) in x.iter_mut().zip(residual) {
                        *x += r;
                    }
                    let mean = lane_sum(x) / hidden as f32;
                    x.iter_mut().for_each(|v| *v -= mean);
                    let mut squares = [0.0f32; LANES];
                    for chunk in x.chunks(LANES) {
                        for (s, &v) in squares.iter_mut().zip(chunk) {
                            *s += v * v;
                        }
                    }
                    let var = lane_sum(&squares) / hidden as f32;
                    let denom = (var + eps).sqrt();
                    for ((v, &g), &b) in x.iter_mut().zip(&gamma).zip(&beta) {
                        *v = *v / denom * g + b;
                    }
                }
            },
        );
    };
    // Pieces of whole rows, each one dispatch.
    let piece = hidden * ROWS_A_PIECE;
    #[cfg(feature = "fast-cpu")]
    {
        use rayon::prelude::*;
        x.par_chunks_mut(piece)
            .zip(residual.par_chunks(piece))
            .for_each(rows);
    }
    #[cfg(not(feature = "fast-cpu"))]
    x.chunks_mut(piece)
        .zip(residual.chunks(piece))
        .for_each(rows);
    Some(())
}

/// Rows of a LayerNorm one core takes at a time.
const ROWS_A_PIECE: usize = 16;

/// Running sums a row's sum is kept in: a sum in one running total is a chain of dependent
/// adds, which no compiler vectorizes.
const LANES: usize = 16;

/// `Σ values`, in [`LANES`] running sums (value `i` into sum `i mod 16`), then across them:
/// a fixed order for a given length, whatever else is in the batch.
#[inline(always)]
fn lane_sum(values: &[f32]) -> f32 {
    let mut sums = [0.0f32; LANES];
    for chunk in values.chunks(LANES) {
        for (s, &v) in sums.iter_mut().zip(chunk) {
            *s += v;
        }
    }
    sums.iter().sum()
}

/// Positions (or dimensions) whose sums one pass keeps in registers: 4 AVX-512 vectors.
const BLOCK: usize = 64;

/// One head of one sequence: its rows of `q` (`hidden` values a row, the head's `columns`)
/// against all of `k` and `v`, the context into `out` (`columns.len()` values a row). A
/// pulp dispatch, so that the loops below are compiled for the CPU's widest vectors.
struct Head<'a> {
    q: &'a [f32],
    k: &'a [f32],
    v: &'a [f32],
    mask: &'a [f32],
    columns: std::ops::Range<usize>,
    hidden: usize,
    scale: f32,
    out: &'a mut [f32],
}

impl pulp::WithSimd for Head<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        let Head {
            q,
            k,
            v,
            mask,
            columns,
            hidden,
            scale,
            out,
        } = self;
        let (d, seq) = (columns.len(), mask.len());
        // The head's keys transposed, `d` rows of `seq`: each score then grows by one
        // multiply-add per dimension, in order, all positions at once.
        let mut kt = vec![0.0f32; d * seq];
        for (j, row) in k.chunks_exact(hidden).enumerate() {
            for (t, &x) in row[columns.clone()].iter().enumerate() {
                kt[t * seq + j] = x;
            }
        }
        let mut scores = vec![0.0f32; seq];
        let mut probs = vec![0.0f32; seq];
        for (q_row, ctx) in q.chunks_exact(hidden).zip(out.chunks_exact_mut(d)) {
            let q_row = &q_row[columns.clone()];
            // Blocks of BLOCK positions, their sums held in registers over the dimensions.
            let full = seq - seq % BLOCK;
            for j0 in (0..full).step_by(BLOCK) {
                let mut acc = [0.0f32; BLOCK];
                for (&qt, kt) in q_row.iter().zip(kt.chunks_exact(seq)) {
                    let kt: &[f32; BLOCK] = kt[j0..j0 + BLOCK].try_into().unwrap_or(&[0.0; BLOCK]);
                    for (a, &kv) in acc.iter_mut().zip(kt) {
                        *a += qt * kv;
                    }
                }
                scores[j0..j0 + BLOCK].copy_from_slice(&acc);
            }
            scores[full..].fill(0.0);
            for (&qt, kt) in q_row.iter().zip(kt.chunks_exact(seq)) {
                for (s, &kv) in scores[full..].iter_mut().zip(&kt[full..]) {
                    *s += qt * kv;
                }
            }
            for (s, &m) in scores.iter_mut().zip(mask) {
                *s = *s * scale + m;
            }
            let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0.0f32;
            for (p, &s) in probs.iter_mut().zip(&scores) {
                *p = (s - max).exp();
                sum += *p;
            }
            probs.iter_mut().for_each(|p| *p /= sum);
            // The context, BLOCK dimensions at a time in registers over the positions.
            let full = d - d % BLOCK;
            for t0 in (0..full).step_by(BLOCK) {
                let mut acc = [0.0f32; BLOCK];
                for (&p, v_row) in probs.iter().zip(v.chunks_exact(hidden)) {
                    let start = columns.start + t0;
                    let v_row: &[f32; BLOCK] = v_row[start..start + BLOCK]
                        .try_into()
                        .unwrap_or(&[0.0; BLOCK]);
                    for (a, &x) in acc.iter_mut().zip(v_row) {
                        *a += p * x;
                    }
                }
                ctx[t0..t0 + BLOCK].copy_from_slice(&acc);
            }
            for (&p, v_row) in probs.iter().zip(v.chunks_exact(hidden)) {
                let v_row = &v_row[columns.start + full..columns.end];
                for (c, &x) in ctx[full..].iter_mut().zip(v_row) {
                    *c += p * x;
                }
            }
        }
    }
}
