//! The int8 dense product natively on CPUs with AVX-512 VNNI (the CLI with `fast-cpu`;
//! docs/model-families.md#int8): the same integers as [`super::int8`]'s portable product, 64
//! multiply-adds an instruction instead of 8.
//!
//! VNNI's `vpdpbusd` multiplies unsigned bytes by signed bytes, four adjacent pairs into each
//! 32-bit lane. The weights are the channel values `q_w` (7 bits, in `[-63, 63]`) as they are;
//! an activation `q_x` in `[-127, 127]` goes in as the byte `q_x + 128` in `[1, 255]`, and the
//! extra `128 · Σ q_w` is taken off each channel's sum afterwards. Every step is exact in i32
//! (`|sum| ≤ 65,536 · 255 · 63 < 2³¹` for the widest layer the loader accepts), so the sums
//! are the portable product's to the bit, and so is every output: `sum · s_x · s_w + b`.
//!
//! The weight is packed once, in panels of 64 channels: for each four inputs, 64 channels ×
//! 4 bytes (one 512-bit vector per 16 channels). A tile of 6 activation rows × 64 channels
//! keeps 24 accumulators in registers; each step of four inputs loads 4 weight vectors and
//! broadcasts 6 groups of four activation bytes. The tile then finishes its own outputs in
//! registers (shift, scales, bias) and stores them where they belong, so the sums never go
//! through memory: the kernel alone ran at 700 GOPS a core on this project's Xeon
//! (2026-11-30), while quantizing the rows, gathering the sums and scaling them in passes of
//! their own had held a whole layer to half of that.
//!
//! pulp, which dispatches the f32 product ([`super::packed`]), wraps no VNNI instruction; the
//! kernel is a `#[target_feature]` function of `core::arch`'s (safe) intrinsics, and calling
//! it is the crate's one `unsafe` block, after the CPU has said it has the features.

use std::arch::x86_64::{
    __m512, __m512i, _mm512_abs_ps, _mm512_add_epi32, _mm512_add_ps, _mm512_cmple_ps_mask,
    _mm512_cmplt_ps_mask, _mm512_cvtepi32_epi8, _mm512_cvtepi32_ps, _mm512_cvttps_epi32,
    _mm512_div_ps, _mm512_dpbusd_epi32, _mm512_mask_add_epi32, _mm512_mask_sub_epi32,
    _mm512_max_epi32, _mm512_max_ps, _mm512_min_epi32, _mm512_mul_ps, _mm512_reduce_max_ps,
    _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps, _mm512_setzero_si512, _mm512_sub_epi32,
    _mm512_sub_ps,
};

/// Output channels per panel: 4 vectors of 16 i32 lanes.
const WIDTH: usize = 64;
/// Activation rows per tile.
const ROWS: usize = 6;
/// Vectors per panel step (four inputs of [`WIDTH`] channels).
const VECTORS: usize = WIDTH / 16;
/// What an activation value is shifted by to be an unsigned byte.
const SHIFT: i32 = 128;

/// A dense layer's int8 weight packed for VNNI, with its channels' scales and bias.
#[derive(Debug, Clone)]
pub struct PackedI8 {
    /// Inputs per output.
    k: usize,
    /// `k` rounded up to a multiple of 4 (zeros after the real inputs).
    k4: usize,
    /// Outputs.
    n: usize,
    /// Panel after panel (`n.div_ceil(64)`), each `k4 / 4` steps of [`VECTORS`] vectors;
    /// zeros past the `n`th channel.
    panels: Vec<__m512i>,
    /// Per channel (padded to whole panels, [`VECTORS`] vectors a panel): `128 · Σ q_w`.
    shift: Vec<__m512i>,
    /// Per channel, padded likewise: `s_w`.
    scale: Vec<__m512>,
    /// Per channel, padded likewise: the bias.
    bias: Vec<__m512>,
}

/// One panel's channels: where they start and how many are real, and their constants.
struct Channels<'a> {
    first: usize,
    used: usize,
    shift: &'a [__m512i],
    scale: &'a [__m512],
    bias: &'a [__m512],
}

impl PackedI8 {
    /// Whether this CPU runs the kernel: AVX-512 (F, BW) with VNNI.
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }

    /// Packs `n` channels of quantized values, channel after channel with `stride` values each
    /// (the first `k` real, in `[-63, 63]`; any byte would do here), as [`super::int8`] keeps
    /// them, with each channel's `scale` and `bias`. `None` when the CPU lacks the instructions
    /// or the lengths do not fit.
    pub fn pack(
        q: &[i16],
        k: usize,
        n: usize,
        stride: usize,
        scale: &[f32],
        bias: &[f32],
    ) -> Option<PackedI8> {
        let fits = stride >= k && q.len() == n * stride && scale.len() == n && bias.len() == n;
        if !Self::available() || k == 0 || n == 0 || !fits {
            return None;
        }
        let k4 = k.next_multiple_of(4);
        let panel_count = n.div_ceil(WIDTH);
        let mut bytes = vec![0i8; panel_count * k4 * WIDTH];
        let mut shift = vec![0i32; panel_count * WIDTH];
        for (c, channel) in q.chunks_exact(stride).enumerate() {
            let (p, j) = (c / WIDTH, c % WIDTH);
            let panel = &mut bytes[p * k4 * WIDTH..][..k4 * WIDTH];
            for (i, &v) in channel[..k].iter().enumerate() {
                // Step `i / 4`, lane `j`, byte `i % 4`; the values are within i8 by quantization.
                panel[(i / 4) * 4 * WIDTH + j * 4 + i % 4] = i8::try_from(v).ok()?;
            }
            shift[c] = SHIFT * channel[..k].iter().map(|&v| i32::from(v)).sum::<i32>();
        }
        let padded = |v: &[f32]| {
            let mut v = v.to_vec();
            v.resize(panel_count * WIDTH, 0.0);
            v.chunks_exact(16)
                .map(|v| bytemuck::cast::<[f32; 16], __m512>(v.try_into().unwrap_or([0.0; 16])))
                .collect()
        };
        Some(PackedI8 {
            k,
            k4,
            n,
            panels: bytes
                .chunks_exact(64)
                .map(|v| bytemuck::cast::<[i8; 64], __m512i>(v.try_into().unwrap_or([0; 64])))
                .collect(),
            shift: shift
                .chunks_exact(16)
                .map(|v| bytemuck::cast::<[i32; 16], __m512i>(v.try_into().unwrap_or([0; 16])))
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
        in_core_blocks(x, out, [self.k, self.n, ROWS], |x, out| {
            self.checked_block(x, out)
        })
    }

    /// [`PackedI8::block`], on a CPU that has its instructions.
    fn checked_block(&self, x: &[f32], out: &mut [f32]) {
        // SAFETY: `pack` made this `PackedI8` only after `available()` found AVX-512F,
        // AVX-512BW and AVX-512 VNNI on this CPU, which are all `block` enables.
        #[allow(unsafe_code)]
        unsafe {
            self.block(x, out)
        }
    }

    /// The rows of `x` (whole rows) into their rows of `out`: quantized as shifted bytes, four
    /// to a `u32` (`q + 128` is the byte `q ^ 0x80`; the padding past `k` meets zero
    /// weights), rows padded to whole tiles with zeros, then panel by panel over every tile.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    fn block(&self, x: &[f32], out: &mut [f32]) {
        let rows = x.len() / self.k;
        let steps = self.k4 / 4;
        let padded_rows = rows.next_multiple_of(ROWS);
        let mut q = vec![0u32; padded_rows * steps];
        let mut s_x = vec![0.0f32; padded_rows];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut q);
        for ((row, q), s) in x
            .chunks_exact(self.k)
            .zip(bytes.chunks_exact_mut(self.k4))
            .zip(&mut s_x)
        {
            *s = quantize_row(row, &mut q[..self.k]);
        }
        let per_panel = steps * VECTORS;
        for (p, panel) in self.panels.chunks_exact(per_panel).enumerate() {
            let first = p * WIDTH;
            let vectors = p * VECTORS..(p + 1) * VECTORS;
            let channels = Channels {
                first,
                used: WIDTH.min(self.n - first),
                shift: &self.shift[vectors.clone()],
                scale: &self.scale[vectors.clone()],
                bias: &self.bias[vectors],
            };
            tiles(panel, &q, &s_x, &channels, out, self.n);
        }
    }
}

/// The native int8 kernels' split of a call (this one's and [`super::madd`]'s): `out` resized
/// to `n` outputs for each `k`-long row of `x`, then `block` run on one block of whole tiles of
/// `tile_rows` rows a core, each with its rows of `x` and of `out`; `None` when `x` is not
/// whole rows.
pub(super) fn in_core_blocks(
    x: &[f32],
    out: &mut Vec<f32>,
    [k, n, tile_rows]: [usize; 3],
    block: impl Fn(&[f32], &mut [f32]) + Sync,
) -> Option<()> {
    if !x.len().is_multiple_of(k) {
        return None;
    }
    let m = x.len() / k;
    out.resize(m * n, 0.0);
    if m == 0 {
        return Some(());
    }
    #[cfg(feature = "fast-cpu")]
    {
        use rayon::prelude::*;
        // One block of whole tiles a core: every block reads the whole weight (from L3 or
        // memory), and at a pair of 128 tokens eight blocks of 18 rows made the 3,072 → 768
        // layer reread it so often that it ran at 540 GOPS against 930 with two blocks of 64
        // (2 cores, 2026-11-30); a batch of eight was the same either way.
        let rows = m
            .div_ceil(rayon::current_num_threads())
            .next_multiple_of(tile_rows);
        out.par_chunks_mut(rows * n)
            .zip(x.par_chunks(rows * k))
            .for_each(|(out, x)| block(x, out));
    }
    #[cfg(not(feature = "fast-cpu"))]
    block(x, out);
    Some(())
}

/// One panel (`steps` steps of [`VECTORS`] vectors) times every tile of [`ROWS`] rows of `x`
/// (`steps` groups of four shifted bytes a row, `s_x` each row's scale): each real row's
/// outputs for the panel's channels into `out` (rows of `n`).
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn tiles(panel: &[__m512i], x: &[u32], s_x: &[f32], ch: &Channels, out: &mut [f32], n: usize) {
    let steps = panel.len() / VECTORS;
    let real_rows = out.len() / n;
    let tiles = x.chunks_exact(ROWS * steps).zip(s_x.chunks_exact(ROWS));
    for (t, (tile, s_x)) in tiles.enumerate() {
        let rows: [&[u32]; ROWS] = std::array::from_fn(|r| &tile[r * steps..][..steps]);
        let mut acc = [[_mm512_setzero_si512(); VECTORS]; ROWS];
        // Lets the compiler drop the bounds checks of the loop below.
        assert!(panel.len() == steps * VECTORS && rows.iter().all(|r| r.len() == steps));
        for s in 0..steps {
            let w = &panel[s * VECTORS..][..VECTORS];
            for r in 0..ROWS {
                let a = _mm512_set1_epi32(rows[r][s] as i32);
                for v in 0..VECTORS {
                    acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], a, w[v]);
                }
            }
        }
        for (r, (acc, &s)) in acc.into_iter().zip(s_x).enumerate() {
            let row = t * ROWS + r;
            if row >= real_rows {
                break;
            }
            let o = &mut out[row * n + ch.first..][..ch.used];
            let s = _mm512_set1_ps(s);
            for (v, acc) in acc.into_iter().enumerate() {
                // `((sum as f32) · s_x) · s_w + b`, [`super::int8`]'s formula in its order.
                let sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, ch.shift[v]));
                let y = _mm512_add_ps(
                    _mm512_mul_ps(_mm512_mul_ps(sum, s), ch.scale[v]),
                    ch.bias[v],
                );
                let y = bytemuck::cast::<__m512, [f32; 16]>(y);
                let lo = v * 16;
                if lo >= o.len() {
                    break;
                }
                let hi = (lo + 16).min(o.len());
                let part = &mut o[lo..hi];
                // A whole vector as one store (LLVM had made one call of the two cases).
                match <&mut [f32; 16]>::try_from(&mut *part) {
                    Ok(whole) => *whole = y,
                    Err(_) => part.copy_from_slice(&y[..part.len()]),
                }
            }
        }
    }
}

/// A row's scale `s_x` (returned) and its values quantized with it, shifted by 128 into
/// unsigned bytes (`out`, as long as `row`): the values of [`super::int8::scale_of`] and
/// [`super::int8`]'s `quantize`, 16 at a time. The portable loops, compiled for AVX-512 by
/// pulp's dispatch, left the saturating `as i32` to scalar code and took a quarter of a native
/// int8 forward (2.3 ns a value, 2026-11-30).
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn quantize_row(row: &[f32], out: &mut [u8]) -> f32 {
    let mut max = _mm512_setzero_ps();
    let mut finite = u16::MAX;
    let infinity = _mm512_set1_ps(f32::INFINITY);
    for chunk in row.chunks(16) {
        let a = _mm512_abs_ps(load(chunk));
        // False for NaN as well as for an infinity.
        finite &= _mm512_cmplt_ps_mask(a, infinity);
        max = _mm512_max_ps(max, a);
    }
    if finite != u16::MAX {
        // `scale_of`'s NaN: the row's outputs are NaN whatever its values.
        out.fill(128);
        return f32::NAN;
    }
    let scale = _mm512_reduce_max_ps(max) / 127.0;
    if scale == 0.0 {
        out.fill(128);
        return scale;
    }
    let s = _mm512_set1_ps(scale);
    let (half, one) = (_mm512_set1_ps(0.5), _mm512_set1_epi32(1));
    let (low, high) = (_mm512_set1_epi32(-127), _mm512_set1_epi32(127));
    for (chunk, out) in row.chunks(16).zip(out.chunks_mut(16)) {
        // `|y| ≤ 127` (about), where truncation is exact; then half away from zero.
        let y = _mm512_div_ps(load(chunk), s);
        let t = _mm512_cvttps_epi32(y);
        let frac = _mm512_sub_ps(y, _mm512_cvtepi32_ps(t));
        let r = _mm512_mask_add_epi32(t, _mm512_cmple_ps_mask(half, frac), t, one);
        let minus_half = _mm512_set1_ps(-0.5);
        let r = _mm512_mask_sub_epi32(r, _mm512_cmple_ps_mask(frac, minus_half), r, one);
        let r = _mm512_min_epi32(_mm512_max_epi32(r, low), high);
        let bytes = _mm512_cvtepi32_epi8(_mm512_add_epi32(r, _mm512_set1_epi32(128)));
        let bytes = bytemuck::cast::<_, [u8; 16]>(bytes);
        // A whole chunk as one 16-byte store; a slice of unknown length would be a call.
        match <&mut [u8; 16]>::try_from(&mut *out) {
            Ok(whole) => *whole = bytes,
            Err(_) => out.copy_from_slice(&bytes[..out.len()]),
        }
    }
    scale
}

/// [`quantize_row`] where the CPU has its instructions (`None` elsewhere), for the tests.
#[cfg(test)]
pub(super) fn quantized_row(row: &[f32], out: &mut [u8]) -> Option<f32> {
    // SAFETY: the CPU has just reported every feature `quantize_row` enables.
    #[allow(unsafe_code)]
    PackedI8::available().then(|| unsafe { quantize_row(row, out) })
}

/// Up to 16 values as a vector, zeros past their end.
#[inline(always)]
fn load(values: &[f32]) -> __m512 {
    let mut lanes = [0.0f32; 16];
    match <[f32; 16]>::try_from(values) {
        Ok(whole) => lanes = whole,
        Err(_) => lanes[..values.len()].copy_from_slice(values),
    }
    bytemuck::cast(lanes)
}
