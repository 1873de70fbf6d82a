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

/// The buffers a forward's layers reuse: each layer's activations overwrite the last layer's,
/// so that no layer but the first allocates (and has the OS zero fresh pages for) its
/// products' outputs; in isolation, the 768-input int8 layers ran 17–20 % faster into a
/// reused buffer (2026-11-30).
#[derive(Debug, Default)]
pub struct Scratch {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    heads_kv: Vec<f32>,
    context: Vec<f32>,
    a: Vec<f32>,
    h: Vec<f32>,
    /// What the layer's output is written into: the last layer's input, once it has served.
    pub out: Vec<f32>,
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
    /// for a head on `<s>`. `mask` holds `batch × seq` additive biases (0 or −1e30). The
    /// intermediate values go into `scratch`'s buffers, the output into `scratch.out`'s
    /// allocation. `None` when a part cannot run on the host (then the caller runs burn's
    /// path).
    pub fn forward(
        &self,
        x: &Rows,
        mask: &[f32],
        first_only: bool,
        device: &Device,
        scratch: &mut Scratch,
    ) -> Option<Rows> {
        let (batch, seq, hidden) = (x.batch, x.seq, x.hidden);
        if hidden == 0 || self.heads == 0 || !hidden.is_multiple_of(self.heads) {
            return None;
        }
        let [query, key, value, output] = self.attention;
        // The rows the layer's output is for: every position's (`x` itself, not copied), or
        // each sequence's first.
        let firsts: Option<Vec<f32>> = first_only.then(|| {
            x.values
                .chunks_exact(seq * hidden)
                .flat_map(|s| &s[..hidden])
                .copied()
                .collect()
        });
        let rows = firsts.as_deref().unwrap_or(&x.values);
        let q_len = if first_only { 1 } else { seq };
        let Scratch {
            q,
            k,
            v,
            heads_kv,
            context,
            a,
            h,
            out,
        } = scratch;
        query.host_forward_into(rows, device, q)?;
        key.host_forward_into(&x.values, device, k)?;
        value.host_forward_into(&x.values, device, v)?;
        attention(
            q,
            k,
            v,
            mask,
            [batch, q_len, seq, hidden],
            self.heads,
            heads_kv,
            context,
        )?;
        output.host_forward_into(context, device, a)?;
        add_and_norm(a, rows, self.attention_norm, hidden)?;
        let [intermediate, ff_output] = self.feed_forward;
        intermediate.host_forward_into(a, device, h)?;
        self.act.apply_in_place(h);
        let mut out = std::mem::take(out);
        ff_output.host_forward_into(h, device, &mut out)?;
        add_and_norm(&mut out, a, self.output_norm, hidden)?;
        Some(Rows {
            values: out,
            batch,
            seq: q_len,
            hidden,
        })
    }
}

/// Multi-head attention on the host: `q` is `[batch, q_len, hidden]`, `k` and `v`
/// `[batch, seq, hidden]`, `mask` `[batch, seq]`; the context `[batch, q_len, hidden]` into
/// `context`, each head's keys and values laid out for it in `heads_kv` first (both buffers
/// reused).
///
/// Natively the cores share the laying out by (sequence, head), then the rest by (sequence,
/// block of query rows): each piece writes its rows of `context`, every head's columns, in
/// place.
#[allow(clippy::too_many_arguments)]
fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    mask: &[f32],
    [batch, q_len, seq, hidden]: [usize; 4],
    heads: usize,
    heads_kv: &mut Vec<f32>,
    context: &mut Vec<f32>,
) -> Option<()> {
    if q.len() != batch * q_len * hidden
        || k.len() != batch * seq * hidden
        || v.len() != k.len()
        || mask.len() != batch * seq
        || q_len == 0
        || seq == 0
    {
        return None;
    }
    let d = hidden / heads;
    let scale = (1.0 / (d as f64).sqrt()) as f32;
    let padded = seq.next_multiple_of(BLOCK);
    // Each (sequence, head)'s keys transposed, in blocks of [`BLOCK`] positions (`d` rows of
    // `BLOCK` each), zeros on the padding (a stale value there could be a NaN, which the −∞
    // bias would not hide); then its values, `seq` rows of `d`. Read in place, a head's values
    // are rows `hidden` apart (3 KiB in roberta-base), and a column of 128 of them fell in 4 of
    // the 64 sets of a 32 KiB L1 cache; the keys' rows, `padded` apart, were read `width` at a
    // time. Laid out so, a layer's attention took 0.57 instead of 0.84 ms at a pair of 128
    // tokens and 4.3–4.5 instead of 5.2 ms at 8 pairs (with the AVX2 shape below; fastest of
    // 60 calls, EPYC VM, 2 threads, 2026-11-30).
    let per_head = d * padded + seq * d;
    heads_kv.resize(batch * heads * per_head, 0.0);
    let lay_out = |(i, kv): (usize, &mut [f32])| {
        let (b, h) = (i / heads, i % heads);
        let (kt, vs) = kv.split_at_mut(d * padded);
        let rows = k[b * seq * hidden..][..seq * hidden].chunks_exact(hidden);
        for (j, row) in rows.enumerate() {
            let block = &mut kt[(j / BLOCK) * d * BLOCK..][..d * BLOCK];
            for (kt, &x) in block.chunks_exact_mut(BLOCK).zip(&row[h * d..(h + 1) * d]) {
                kt[j % BLOCK] = x;
            }
        }
        if seq % BLOCK != 0 {
            let last = &mut kt[(seq / BLOCK) * d * BLOCK..][..d * BLOCK];
            for kt in last.chunks_exact_mut(BLOCK) {
                kt[seq % BLOCK..].fill(0.0);
            }
        }
        let rows = v[b * seq * hidden..][..seq * hidden].chunks_exact(hidden);
        for (row, out) in rows.zip(vs.chunks_exact_mut(d)) {
            out.copy_from_slice(&row[h * d..(h + 1) * d]);
        }
    };
    // The padding's bias: its scores are −∞ and their weights exactly 0.
    let biases: Vec<f32> = mask
        .chunks_exact(seq)
        .flat_map(|m| {
            m.iter()
                .copied()
                .chain(std::iter::repeat_n(f32::NEG_INFINITY, padded - seq))
        })
        .collect();
    #[cfg(feature = "fast-cpu")]
    {
        use rayon::prelude::*;
        heads_kv
            .par_chunks_mut(per_head)
            .enumerate()
            .for_each(lay_out);
    }
    #[cfg(not(feature = "fast-cpu"))]
    heads_kv.chunks_mut(per_head).enumerate().for_each(lay_out);
    let heads_kv: &[f32] = heads_kv;
    // Blocks of query rows, whole groups of 4: about four pieces a core in all.
    #[cfg(feature = "fast-cpu")]
    let threads = rayon::current_num_threads();
    #[cfg(not(feature = "fast-cpu"))]
    let threads: usize = 1;
    let block_rows = q_len
        .div_ceil((4 * threads).div_ceil(batch))
        .next_multiple_of(4);
    context.resize(batch * q_len * hidden, 0.0);
    let pieces: Vec<(usize, usize, &mut [f32])> = context
        .chunks_mut(q_len * hidden)
        .enumerate()
        .flat_map(|(b, ctx)| {
            ctx.chunks_mut(block_rows * hidden)
                .enumerate()
                .map(move |(c, ctx)| (b, c * block_rows, ctx))
        })
        .collect();
    let piece = |(b, first, ctx): (usize, usize, &mut [f32])| {
        let rows = ctx.len() / hidden;
        let q = &q[(b * q_len + first) * hidden..][..rows * hidden];
        let mut probs = vec![0.0f32; GROUP * padded];
        for h in 0..heads {
            super::dispatch::vectorize(Head {
                q,
                kt: &heads_kv[(b * heads + h) * per_head..][..d * padded],
                mask: &biases[b * padded..][..padded],
                ctx: &mut *ctx,
                probs: &mut probs,
                view: HeadView {
                    v: &heads_kv[(b * heads + h) * per_head + d * padded..][..seq * d],
                    seq,
                    columns: h * d..(h + 1) * d,
                    hidden,
                    scale,
                },
            });
        }
    };
    #[cfg(feature = "fast-cpu")]
    {
        use rayon::prelude::*;
        pieces.into_par_iter().for_each(piece);
    }
    #[cfg(not(feature = "fast-cpu"))]
    pieces.into_iter().for_each(piece);
    Some(())
}

/// Positions are padded to whole blocks of this many: a block of scores is at most 4 vectors
/// of 16 lanes (AVX-512), and every narrower block divides it.
const BLOCK: usize = 64;

/// Query rows a group takes at most (6, with AVX2).
const GROUP: usize = 6;

/// `x ← LayerNorm(x + residual)` row by row (`hidden` values a row): mean, centred values,
/// biased variance, `c / √(var + eps) · γ + β`, as [`LayerNorm::forward`].
fn add_and_norm(x: &mut [f32], residual: &[f32], norm: &LayerNorm, hidden: usize) -> Option<()> {
    let (gamma, beta) = norm.host_params()?;
    if x.len() != residual.len() || gamma.len() != hidden || beta.len() != hidden {
        return None;
    }
    let eps = norm.eps as f32;
    let rows = |(x, residual): (&mut [f32], &[f32])| {
        super::dispatch::vectorize(
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
                    let var = lane_sums(x, |v| v * v).iter().sum::<f32>() / hidden as f32;
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

/// `eˣ` in f32 by Cephes' `expf` (range reduction by ln 2 in two parts, a degree-5 polynomial
/// on `[−ln2/2, ln2/2]`, the power of two built from its bits): within 2 ulp of libm's, with no
/// call and no branch, so softmax's loop is vectorized. Exactly 0 below −87.33 (where libm
/// gives subnormals or 0): a padded key's weight, `e^(−1e30)`, stays an exact 0.
#[inline(always)]
fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 = C1 + C2, C1 exact in few bits so that `n · C1` is exact.
    const C1: f32 = 0.693_359_4;
    const C2: f32 = -2.121_944_4e-4;
    const P: [f32; 6] = [
        1.987_569_1e-4,
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        // Cephes writes 5.0000001201e-1, which is 0.5 in f32.
        0.5,
    ];
    const LOWEST: f32 = -87.336_55;
    let clamped = x.clamp(LOWEST, 88.0);
    let n = (clamped * LOG2E + 0.5).floor();
    let r = clamped - n * C1 - n * C2;
    let p = P.iter().fold(0.0f32, |acc, &c| acc * r + c);
    let e = p * r * r + r + 1.0;
    // 2ⁿ from its exponent bits, `n + 127`, made without a float-to-int cast: Rust's `as i32`
    // saturates, which x86 has no vector instruction for, and LLVM compiled it lane by lane
    // (2026-11-30: most of a native attention's time). Adding 2²³ puts the whole number
    // `n + 127` (in [1, 254]) in the low mantissa bits; the shift drops the rest.
    let pow2 = f32::from_bits((n + 127.0 + 8_388_608.0).to_bits() << 23);
    if x < LOWEST {
        0.0
    } else {
        e * pow2
    }
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
    lane_sums(values, |v| v).iter().sum()
}

/// `term` of each value summed into [`LANES`] running sums, value `i` into sum `i mod 16`.
/// Whole chunks first, then the rest: a loop over `chunks(16)`, whose last chunk may be
/// short, kept the sums in memory with a masked store each step (2026-11-30: LayerNorm and
/// softmax's sums ran several times slower).
#[inline(always)]
fn lane_sums(values: &[f32], term: impl Fn(f32) -> f32) -> [f32; LANES] {
    let mut sums = [0.0f32; LANES];
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (s, &v) in sums.iter_mut().zip(chunk) {
            *s += term(v);
        }
    }
    for (s, &v) in sums.iter_mut().zip(rest) {
        *s += term(v);
    }
    sums
}

/// One head of one sequence for a block of its query rows: the rows of `q` (`hidden` values a
/// row, the head's `columns`) against the head's keys (`kt`, transposed) and values, the
/// context into the same columns of `ctx`'s rows. A pulp dispatch, so that the loops below are
/// compiled for the CPU's widest vectors.
struct Head<'a> {
    q: &'a [f32],
    /// The keys transposed, block after block of [`BLOCK`] positions: `d` rows of `BLOCK`.
    kt: &'a [f32],
    /// The mask's biases, `−∞` on the padding.
    mask: &'a [f32],
    ctx: &'a mut [f32],
    /// Room for [`GROUP`] rows of weights.
    probs: &'a mut [f32],
    view: HeadView<'a>,
}

/// What the head's every group of query rows reads besides its keys: the head's values
/// (`seq` rows of its `columns.len()`), its `columns` of the query and context rows (`hidden`
/// a row), the scores' scale.
struct HeadView<'a> {
    v: &'a [f32],
    seq: usize,
    columns: std::ops::Range<usize>,
    hidden: usize,
    scale: f32,
}

impl pulp::WithSimd for Head<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) {
        // Query rows per group and vectors per block sized to the vector registers: 4 rows ×
        // 4 vectors of sums with AVX-512's 32 registers; with AVX2's 16, 6 rows × 2 vectors
        // (12 sums, to cover two FMA units' 4-cycle latency: 0.57 against 0.64 ms a layer at a
        // pair with 2 × 4, EPYC VM, 2026-11-30); WebAssembly keeps 2 × 4 (not measured there).
        match S::F32_LANES {
            16 => self.run::<S, 4, 4>(simd),
            8 => self.run::<S, 2, 6>(simd),
            _ => self.run::<S, 4, 2>(simd),
        }
    }
}

impl Head<'_> {
    /// Attention for groups of `R` query rows, `V` vectors of positions (or dimensions) at a
    /// time.
    #[inline(always)]
    fn run<S: pulp::Simd, const V: usize, const R: usize>(self, simd: S) {
        let Head {
            q,
            kt,
            mask,
            ctx,
            probs,
            view,
        } = self;
        let (hidden, padded) = (view.hidden, mask.len());
        let head = HeadInputs { kt, mask, view };
        let q_rows = q.len() / hidden;
        let whole = q_rows - q_rows % R;
        let (q_whole, q_rest) = q.split_at(whole * hidden);
        let (ctx_whole, ctx_rest) = ctx.split_at_mut(whole * hidden);
        for (q, ctx) in q_whole
            .chunks_exact(R * hidden)
            .zip(ctx_whole.chunks_exact_mut(R * hidden))
        {
            head.attend::<S, V, R>(simd, q, &mut probs[..R * padded], ctx);
        }
        // The rows left over in pairs, then one: a block's rows are a multiple of 4, not of 6.
        let pairs = (q_rows - whole) / 2 * 2;
        let (q_pairs, q_rest) = q_rest.split_at(pairs * hidden);
        let (ctx_pairs, ctx_rest) = ctx_rest.split_at_mut(pairs * hidden);
        for (q, ctx) in q_pairs
            .chunks_exact(2 * hidden)
            .zip(ctx_pairs.chunks_exact_mut(2 * hidden))
        {
            head.attend::<S, V, 2>(simd, q, &mut probs[..2 * padded], ctx);
        }
        for (q, ctx) in q_rest
            .chunks_exact(hidden)
            .zip(ctx_rest.chunks_exact_mut(hidden))
        {
            head.attend::<S, V, 1>(simd, q, &mut probs[..padded], ctx);
        }
    }
}

/// What every group of query rows of one head reads.
struct HeadInputs<'a> {
    /// The keys transposed, block after block of [`BLOCK`] positions: `d` rows of `BLOCK`.
    kt: &'a [f32],
    /// The mask's biases, `−∞` on the padding.
    mask: &'a [f32],
    view: HeadView<'a>,
}

impl HeadInputs<'_> {
    /// `R` query rows (`q`, `hidden` values each): their weights `e^(s − max)` into `probs`
    /// (the padded positions each) and their context, divided by the weights' sum, into the
    /// head's columns of `ctx`'s rows (`hidden` each). Every sum is a chain of pulp's
    /// `mul_add_e` (fused on x86's AVX2 and AVX-512, a product and a sum in WebAssembly) in
    /// order of the summed index, from 0, over `V` vectors of positions or dimensions at a
    /// time; softmax's maximum is exact in any order and its sum goes into 16 lanes by
    /// position: so a row's bits do not depend on its block, its group of rows, or how many
    /// positions the batch pads to.
    #[inline(always)]
    fn attend<S: pulp::Simd, const V: usize, const R: usize>(
        &self,
        simd: S,
        q: &[f32],
        probs: &mut [f32],
        ctx: &mut [f32],
    ) {
        let (d, seq, padded, hidden) = (
            self.view.columns.len(),
            self.view.seq,
            self.mask.len(),
            self.view.hidden,
        );
        let lanes = S::F32_LANES;
        let width = V * lanes;
        let q: [&[f32]; R] = std::array::from_fn(|r| &q[r * hidden..][self.view.columns.clone()]);
        let (kt, _) = S::as_simd_f32s(self.kt);
        let (mask, _) = S::as_simd_f32s(self.mask);
        let (probs_v, _) = S::as_mut_simd_f32s(probs);
        // Lets the compiler drop the bounds checks of the loops below.
        assert!(
            padded.is_multiple_of(width)
                && kt.len() * lanes == d * padded
                && mask.len() * lanes == padded
                && probs_v.len() * lanes >= R * padded
                && q.iter().all(|q| q.len() == d)
        );
        let row_vectors = padded / lanes;
        let scale = simd.splat_f32s(self.view.scale);
        let mut maxes = [simd.splat_f32s(f32::NEG_INFINITY); R];
        // Scores `score · scale + mask`, `width` positions at a time, and their maxima.
        for j0 in (0..row_vectors).step_by(V) {
            let mut acc = [[simd.splat_f32s(0.0); V]; R];
            // The block of keys these positions are in, and where in it.
            let block_vectors = BLOCK / lanes;
            let block = &kt[(j0 / block_vectors) * d * block_vectors..][..d * block_vectors];
            let within = j0 % block_vectors;
            for (kt, t) in block.chunks_exact(block_vectors).zip(0..d) {
                let w: [S::f32s; V] = std::array::from_fn(|v| kt[within + v]);
                for (acc, q) in acc.iter_mut().zip(&q) {
                    let a = simd.splat_f32s(q[t]);
                    for (acc, &w) in acc.iter_mut().zip(&w) {
                        *acc = simd.mul_add_e_f32s(a, w, *acc);
                    }
                }
            }
            for (r, (acc, max)) in acc.iter().zip(&mut maxes).enumerate() {
                for (v, &acc) in acc.iter().enumerate() {
                    let s = simd.add_f32s(simd.mul_f32s(acc, scale), mask[j0 + v]);
                    probs_v[r * row_vectors + j0 + v] = s;
                    *max = simd.max_f32s(*max, s);
                }
            }
        }
        // The weights `e^(s − max)`, not yet divided by their sum: the context is, `d` values a
        // row instead of every position's.
        let mut sums = [0.0f32; R];
        for ((scores, max), sum) in probs.chunks_exact_mut(padded).zip(maxes).zip(&mut sums) {
            let max = simd.reduce_max_f32s(max);
            scores.iter_mut().for_each(|s| *s = exp_f32(*s - max));
            *sum = lane_sum(scores);
        }
        let p: [&[f32]; R] = std::array::from_fn(|r| &probs[r * padded..][..seq]);
        // The context, `width` dimensions at a time.
        for t0 in (0..d).step_by(width) {
            let n = width.min(d - t0);
            let start = self.view.columns.start + t0;
            let mut acc = [[simd.splat_f32s(0.0); V]; R];
            for (v_row, j) in self.view.v.chunks_exact(d).zip(0..seq) {
                let w = load::<S, V>(simd, &v_row[t0..t0 + n]);
                for (acc, p) in acc.iter_mut().zip(&p) {
                    let a = simd.splat_f32s(p[j]);
                    for (acc, &w) in acc.iter_mut().zip(&w) {
                        *acc = simd.mul_add_e_f32s(a, w, *acc);
                    }
                }
            }
            for (r, (acc, &sum)) in acc.iter().zip(&sums).enumerate() {
                let sum = simd.splat_f32s(sum);
                let acc = acc.map(|a| simd.div_f32s(a, sum));
                store::<S, V>(simd, &acc, &mut ctx[r * hidden + start..][..n]);
            }
        }
    }
}

/// Up to `V` vectors of `values` (zeros past their end).
#[inline(always)]
fn load<S: pulp::Simd, const V: usize>(simd: S, values: &[f32]) -> [S::f32s; V] {
    let lanes = S::F32_LANES;
    if values.len() == V * lanes {
        let (vectors, _) = S::as_simd_f32s(values);
        std::array::from_fn(|v| vectors[v])
    } else {
        std::array::from_fn(|v| {
            let from = (v * lanes).min(values.len());
            simd.partial_load_f32s(&values[from..(from + lanes).min(values.len())])
        })
    }
}

/// The first `out.len()` values of `vectors` into `out`.
#[inline(always)]
fn store<S: pulp::Simd, const V: usize>(simd: S, vectors: &[S::f32s; V], out: &mut [f32]) {
    let lanes = S::F32_LANES;
    if out.len() == V * lanes {
        let (slots, _) = S::as_mut_simd_f32s(out);
        slots[..V].copy_from_slice(vectors);
    } else {
        for (v, &vector) in vectors.iter().enumerate() {
            let from = (v * lanes).min(out.len());
            let to = (from + lanes).min(out.len());
            simd.partial_store_f32s(&mut out[from..to], vector);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within 2 ulp (relative 2.4e-7) of libm's `exp` from −87 to 88, 1 at 0, and an exact 0
    /// for the mask's −1e30 and anything below −87.34.
    #[test]
    fn exp_is_libms_within_two_ulp() {
        let mut worst = 0.0f64;
        for i in 0..=1_750_000 {
            let x = -87.0 + i as f32 * 1e-4;
            let (ours, libm) = (exp_f32(x) as f64, (x as f64).exp());
            worst = worst.max((ours - libm).abs() / libm);
        }
        assert!(worst <= 2.4e-7, "max relative error {worst:e}");
        assert_eq!(exp_f32(0.0), 1.0);
        for x in [-1e30f32, -88.0, -87.34, f32::NEG_INFINITY] {
            assert_eq!(exp_f32(x), 0.0, "{x}");
        }
    }
}
