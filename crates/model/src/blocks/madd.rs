//! The int8 dense product natively on x86-64 CPUs with AVX2 but without AVX-512 VNNI (the CLI
//! with `fast-cpu`; docs/model-families.md#int8): the same integers as [`super::int8`]'s
//! portable product, 32 multiply-adds an instruction instead of 8.
//!
//! AVX2's `vpmaddubsw` multiplies unsigned by signed bytes and adds each pair into a 16-bit
//! lane, saturating; `vpmaddwd` by ones then adds the lanes in pairs into i32. An activation
//! goes in as the byte `q_x + 128` in `[1, 255]` and a weight is in `[-63, 63]` ([`super::int8`]
//! keeps 7 bits for this), so a pair is at most `2 · 255 · 63 = 32,130 < 2¹⁵`: nothing
//! saturates, and the sum is exact. `128 · Σ q_w` is taken off each channel's sum, as
//! [`super::vnni`] does, so every output is the portable product's to the bit,
//! `sum · s_x · s_w + b`. (With 8-bit weights the pairs would reach `2 · 255 · 127 > 2¹⁵`; the
//! kernel this replaced widened both to 16 bits for `vpmaddwd` alone, 16 multiply-adds an
//! instruction, and ran at 0.86–0.94× onnxruntime's int8, 2026-12-01.)
//!
//! The weight is packed once, in panels of 16 channels: for each four inputs, 16 channels × 4
//! bytes (one 256-bit vector per 8 channels). A tile of [`ROWS`] activation rows × 16 channels
//! keeps its accumulators in registers (AVX2 has 16); each step of four inputs loads 2 weight
//! vectors and broadcasts each row's four bytes. The tile finishes its outputs in registers
//! (offset, scales, bias) and stores them where they belong. Each core quantizes and
//! multiplies one block of rows, as [`super::vnni`] does.
//!
//! pulp's `V3` (AVX2 with FMA, found at run time) gives every instruction used here as a safe
//! function, so this file has no `unsafe`. The kernel runs inside `pulp::Simd::vectorize` as a
//! [`pulp::WithSimd`] type: handed to `V3::vectorize` as a closure instead, it was compiled
//! apart from the features, every intrinsic a call, and a forward ran 70 times slower
//! (0.15 against 10.1 examples/s, 2026-11-30).

use std::arch::x86_64::{__m256, __m256i};

use pulp::x86::V3;

/// Output channels per panel: 2 vectors of 8 i32 lanes.
const WIDTH: usize = 16;
/// Activation rows per tile: with 2 vectors, 8 accumulators, 2 weight vectors, the broadcast
/// row, a product and the ones, 13 of the 16 registers. (Rows of 5 ran the same; rows of 6
/// need 17 registers and ran 3–8 % slower; 2026-12-01.)
const ROWS: usize = 4;
/// Vectors per panel step (four inputs of [`WIDTH`] channels).
const VECTORS: usize = WIDTH / 8;
/// The largest |weight| whose byte pairs cannot saturate a 16-bit lane against activations up
/// to 255: `2 · 255 · 63 = 32,130 < 2¹⁵` ([`super::int8`]'s 7-bit weights).
const WEIGHT_MAX: i16 = 63;

/// A dense layer's int8 weight packed for AVX2's `vpmaddubsw`, with its channels' offsets,
/// scales and bias.
#[derive(Debug, Clone)]
pub struct PackedS8 {
    /// The CPU's AVX2, found when packing.
    simd: V3,
    /// Inputs per output.
    k: usize,
    /// `k` rounded up to a multiple of 4 (zeros after the last input).
    k4: usize,
    /// Outputs.
    n: usize,
    /// Panel after panel (`n.div_ceil(16)`), each `k4 / 4` steps of [`VECTORS`] vectors of 8
    /// channels × 4 bytes; zeros past the `n`th channel.
    panels: Vec<__m256i>,
    /// Per channel, padded to whole panels ([`VECTORS`] vectors a panel): `128 · Σ q_w`, what
    /// the shifted activations add to its sum.
    offset: Vec<__m256i>,
    /// Per channel, padded likewise: `s_w`.
    scale: Vec<__m256>,
    /// Per channel, padded likewise: the bias.
    bias: Vec<__m256>,
}

/// One panel's channels: where they start, how many are real, and their constants.
struct Channels<'a> {
    first: usize,
    used: usize,
    offset: &'a [__m256i],
    scale: &'a [__m256],
    bias: &'a [__m256],
}

impl PackedS8 {
    /// Packs `n` channels of quantized values, channel after channel with `stride` values each
    /// (the first `k` real, in `[-63, 63]`), as [`super::int8`] keeps them, with each
    /// channel's `scale` and `bias`. `None` when the CPU lacks AVX2 and FMA, the lengths do
    /// not fit, or a value is outside `[-63, 63]` (where a pair could saturate).
    pub fn pack(
        q: &[i16],
        k: usize,
        n: usize,
        stride: usize,
        scale: &[f32],
        bias: &[f32],
    ) -> Option<PackedS8> {
        let simd = V3::try_new()?;
        let fits = stride >= k && q.len() == n * stride && scale.len() == n && bias.len() == n;
        if k == 0 || n == 0 || !fits || q.iter().any(|v| v.abs() > WEIGHT_MAX) {
            return None;
        }
        let k4 = k.next_multiple_of(4);
        let panel_count = n.div_ceil(WIDTH);
        let mut values = vec![0i8; panel_count * k4 * WIDTH];
        let mut offset = vec![0i32; panel_count * WIDTH];
        for (c, channel) in q.chunks_exact(stride).enumerate() {
            let (p, j) = (c / WIDTH, c % WIDTH);
            let panel = &mut values[p * k4 * WIDTH..][..k4 * WIDTH];
            for (i, &v) in channel[..k].iter().enumerate() {
                // Step `i / 4`, lane `j`, byte `i % 4`; within `[-63, 63]`, checked above.
                panel[(i / 4) * 4 * WIDTH + j * 4 + i % 4] = v as i8;
            }
            offset[c] = 128 * channel[..k].iter().map(|&v| i32::from(v)).sum::<i32>();
        }
        let padded = |v: &[f32]| {
            let mut v = v.to_vec();
            v.resize(panel_count * WIDTH, 0.0);
            v.chunks_exact(8)
                .map(|v| bytemuck::cast::<[f32; 8], __m256>(v.try_into().unwrap_or([0.0; 8])))
                .collect()
        };
        Some(PackedS8 {
            simd,
            k,
            k4,
            n,
            panels: values
                .chunks_exact(32)
                .map(|v| bytemuck::cast::<[i8; 32], __m256i>(v.try_into().unwrap_or([0; 32])))
                .collect(),
            offset: offset
                .chunks_exact(8)
                .map(|v| bytemuck::cast::<[i32; 8], __m256i>(v.try_into().unwrap_or([0; 8])))
                .collect(),
            scale: padded(scale),
            bias: padded(bias),
        })
    }

    /// `x · W + b` for the row-major `x` of `k`-long rows into `out`, whose allocation is
    /// kept: resized to `n` outputs per row, row-major, every value overwritten (none is
    /// read); `None` when `x` is not whole rows. Each row is quantized (`s_x`, `q_x`, as
    /// [`super::int8`] does), and output `c` of row `r` is `sum · s_x · s_w + b` of the exact
    /// sum. Natively the rows are shared among the cores in blocks, each block quantized and
    /// multiplied by one core.
    pub fn forward_into(&self, x: &[f32], out: &mut Vec<f32>) -> Option<()> {
        super::vnni::in_core_blocks(x, out, [self.k, self.n, ROWS], |x, out| self.block(x, out))
    }

    /// The rows of `x` (whole rows) into their rows of `out`, on AVX2's vectors: see
    /// [`Block`].
    fn block(&self, x: &[f32], out: &mut [f32]) {
        pulp::Simd::vectorize(
            self.simd,
            Block {
                packed: self,
                x,
                out,
            },
        );
    }
}

/// The rows `x` (whole rows) of a call into their rows of `out`: quantized as shifted bytes,
/// four to a `u32` (the padding past `k` meets zero weights), rows padded to whole tiles,
/// then panel by panel over every tile.
struct Block<'a> {
    packed: &'a PackedS8,
    x: &'a [f32],
    out: &'a mut [f32],
}

impl pulp::WithSimd for Block<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        let Block { packed, x, out } = self;
        let simd = packed.simd;
        let rows = x.len() / packed.k;
        let steps = packed.k4 / 4;
        let padded_rows = rows.next_multiple_of(ROWS);
        // 128 is a quantized 0: padding and the rows past the last add nothing.
        let mut q = vec![0x8080_8080u32; padded_rows * steps];
        let mut s_x = vec![0.0f32; padded_rows];
        let values: &mut [u8] = bytemuck::cast_slice_mut(&mut q);
        for ((row, q), s) in x
            .chunks_exact(packed.k)
            .zip(values.chunks_exact_mut(packed.k4))
            .zip(&mut s_x)
        {
            *s = quantize_row(simd, row, &mut q[..packed.k]);
        }
        let per_panel = steps * VECTORS;
        for (p, panel) in packed.panels.chunks_exact(per_panel).enumerate() {
            let first = p * WIDTH;
            let vectors = p * VECTORS..(p + 1) * VECTORS;
            let channels = Channels {
                first,
                used: WIDTH.min(packed.n - first),
                offset: &packed.offset[vectors.clone()],
                scale: &packed.scale[vectors.clone()],
                bias: &packed.bias[vectors],
            };
            tiles(simd, panel, &q, &s_x, &channels, out, packed.n);
        }
    }
}

/// One panel (`steps` steps of [`VECTORS`] vectors) times every tile of [`ROWS`] rows of `x`
/// (`steps` groups of four shifted bytes a row, `s_x` each row's scale): each real row's
/// outputs for the panel's channels into `out` (rows of `n`).
#[inline(always)]
fn tiles(
    simd: V3,
    panel: &[__m256i],
    x: &[u32],
    s_x: &[f32],
    ch: &Channels,
    out: &mut [f32],
    n: usize,
) {
    let (avx, avx2) = (simd.avx, simd.avx2);
    let steps = panel.len() / VECTORS;
    let real_rows = out.len() / n;
    let ones = avx._mm256_set1_epi16(1);
    let tiles = x.chunks_exact(ROWS * steps).zip(s_x.chunks_exact(ROWS));
    for (t, (tile, s_x)) in tiles.enumerate() {
        let rows: [&[u32]; ROWS] = std::array::from_fn(|r| &tile[r * steps..][..steps]);
        let mut acc = [[avx._mm256_setzero_si256(); VECTORS]; ROWS];
        // Lets the compiler drop the bounds checks of the loop below.
        assert!(panel.len() == steps * VECTORS && rows.iter().all(|r| r.len() == steps));
        for s in 0..steps {
            let w = &panel[s * VECTORS..][..VECTORS];
            for r in 0..ROWS {
                let a = avx._mm256_set1_epi32(rows[r][s] as i32);
                for v in 0..VECTORS {
                    // Two byte products a 16-bit lane (exact: see the module's text), then
                    // the lanes in pairs: each channel's four products in its i32 lane.
                    let pairs = avx2._mm256_maddubs_epi16(a, w[v]);
                    let quads = avx2._mm256_madd_epi16(pairs, ones);
                    acc[r][v] = avx2._mm256_add_epi32(acc[r][v], quads);
                }
            }
        }
        for (r, (acc, &s)) in acc.into_iter().zip(s_x).enumerate() {
            let row = t * ROWS + r;
            if row >= real_rows {
                break;
            }
            let o = &mut out[row * n + ch.first..][..ch.used];
            let s = avx._mm256_set1_ps(s);
            for (v, acc) in acc.into_iter().enumerate() {
                // `((sum as f32) · s_x) · s_w + b`, [`super::int8`]'s formula in its order,
                // of the sum without the shift's share.
                let sum = avx._mm256_cvtepi32_ps(avx2._mm256_sub_epi32(acc, ch.offset[v]));
                let y = avx._mm256_add_ps(
                    avx._mm256_mul_ps(avx._mm256_mul_ps(sum, s), ch.scale[v]),
                    ch.bias[v],
                );
                let y = bytemuck::cast::<__m256, [f32; 8]>(y);
                let lo = v * 8;
                if lo >= o.len() {
                    break;
                }
                let hi = (lo + 8).min(o.len());
                let part = &mut o[lo..hi];
                // A whole vector as one store.
                match <&mut [f32; 8]>::try_from(&mut *part) {
                    Ok(whole) => *whole = y,
                    Err(_) => part.copy_from_slice(&y[..part.len()]),
                }
            }
        }
    }
}

/// A row's scale `s_x` (returned) and its values quantized with it, as unsigned bytes shifted
/// by 128 (`out`, as long as `row`): the values of [`super::int8::scale_of`] and
/// [`super::int8`]'s `quantize`, 8 at a time (the portable loops leave the saturating `as i32`
/// to scalar code).
#[inline(always)]
fn quantize_row(simd: V3, row: &[f32], out: &mut [u8]) -> f32 {
    let (avx, avx2) = (simd.avx, simd.avx2);
    let mut max = avx._mm256_setzero_ps();
    let infinity = avx._mm256_set1_ps(f32::INFINITY);
    // All lanes' bits set while every value is finite (`<` is false for NaN and infinities).
    let mut finite = avx._mm256_cmp_ps::<{ std::arch::x86_64::_CMP_EQ_OQ }>(max, max);
    let sign = avx._mm256_set1_ps(-0.0);
    for chunk in row.chunks(8) {
        let a = avx._mm256_andnot_ps(sign, load(chunk));
        let below = avx._mm256_cmp_ps::<{ std::arch::x86_64::_CMP_LT_OQ }>(a, infinity);
        finite = avx._mm256_and_ps(finite, below);
        max = avx._mm256_max_ps(max, a);
    }
    if avx._mm256_movemask_ps(finite) != 0xff {
        // `scale_of`'s NaN: the row's outputs are NaN whatever its values.
        out.fill(128);
        return f32::NAN;
    }
    let scale = bytemuck::cast::<__m256, [f32; 8]>(max)
        .into_iter()
        .fold(0.0, f32::max)
        / 127.0;
    if scale == 0.0 {
        out.fill(128);
        return scale;
    }
    let s = avx._mm256_set1_ps(scale);
    let (half, minus_half) = (avx._mm256_set1_ps(0.5), avx._mm256_set1_ps(-0.5));
    let (low, high) = (avx._mm256_set1_epi32(-127), avx._mm256_set1_epi32(127));
    for (chunk, out) in row.chunks(8).zip(out.chunks_mut(8)) {
        // `|y| ≤ 127` (about), where truncation is exact; then half away from zero: a true
        // compare is -1 in every bit, so subtracting it adds one and adding it takes one off.
        let y = avx._mm256_div_ps(load(chunk), s);
        let t = avx._mm256_cvttps_epi32(y);
        let frac = avx._mm256_sub_ps(y, avx._mm256_cvtepi32_ps(t));
        let up = avx._mm256_cmp_ps::<{ std::arch::x86_64::_CMP_LE_OQ }>(half, frac);
        let down = avx._mm256_cmp_ps::<{ std::arch::x86_64::_CMP_LE_OQ }>(frac, minus_half);
        let r = avx2._mm256_sub_epi32(t, avx._mm256_castps_si256(up));
        let r = avx2._mm256_add_epi32(r, avx._mm256_castps_si256(down));
        let r = avx2._mm256_min_epi32(avx2._mm256_max_epi32(r, low), high);
        let r = avx2._mm256_add_epi32(r, avx._mm256_set1_epi32(128));
        let lanes = bytemuck::cast::<__m256i, [i32; 8]>(r);
        // Within `[1, 255]`, so each fits a byte as it is.
        for (o, &v) in out.iter_mut().zip(&lanes) {
            *o = v as u8;
        }
    }
    scale
}

/// [`quantize_row`] where the CPU has AVX2 and FMA (`None` elsewhere), for the tests.
#[cfg(test)]
pub(super) fn quantized_row(row: &[f32], out: &mut [u8]) -> Option<f32> {
    /// The row and its output, quantized on AVX2's vectors.
    struct Quantize<'a>(V3, &'a [f32], &'a mut [u8]);
    impl pulp::WithSimd for Quantize<'_> {
        type Output = f32;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _: S) -> f32 {
            quantize_row(self.0, self.1, self.2)
        }
    }
    let simd = V3::try_new()?;
    Some(pulp::Simd::vectorize(simd, Quantize(simd, row, out)))
}

/// Up to 8 values as a vector, zeros past their end.
#[inline(always)]
fn load(values: &[f32]) -> __m256 {
    let mut lanes = [0.0f32; 8];
    match <[f32; 8]>::try_from(values) {
        Ok(whole) => lanes = whole,
        Err(_) => lanes[..values.len()].copy_from_slice(values),
    }
    bytemuck::cast(lanes)
}
