//! The int8 precision's dense product on the CPU path (docs/model-families.md#precision):
//! a dense layer's weight quantized once per output channel, each row of activations
//! quantized as it arrives, the integer products summed in i32, the sum scaled back to f32.
//!
//! The arithmetic, for an activation row `x` (length `k`) and an output channel `w`:
//! - `s_w = max|w| / 63`, `q_w = round(w / s_w)`, in `[-63, 63]` (once, at
//!   [`Int8Weight::quantize`]); `s_x = max|x| / 127`, `q_x = round(x / s_x)`, in `[-127, 127]`
//!   (per row, per call); `round` is f32's (half away from zero); an all-zero row or channel has
//!   scale 0 and quantizes to zeros;
//! - `y = (Σ q_x · q_w) · s_x · s_w + b`, the sum exact in i32: `|q_x · q_w| ≤ 127 · 63 = 8,001`,
//!   so a sum over up to 268,000 terms cannot overflow, and the widest layer the loader
//!   accepts is [`crate::families::limits::MAX_INTERMEDIATE_SIZE`] (65,536).
//!
//! The weights keep 7 bits and the activations 8 (onnxruntime's `reduce_range` for CPUs without
//! VNNI): so AVX2's `vpmaddubsw` ([`super::madd`]), which adds two byte products into a
//! saturating 16-bit lane, cannot saturate (`2 · 255 · 63 = 32,130 < 2¹⁵`) and does 32
//! multiply-adds an instruction exactly. On roberta-base's shape the weights' seventh bit moved
//! no output measurably (docs/model-families.md#int8); the activations', measured the same
//! way, doubled the deviation from f32, which is why the weights give it up.
//!
//! Values are held as i16, each row and channel padded with zeros to a multiple of eight; one
//! `wide::i16x8::dot` is eight multiply-adds: WebAssembly SIMD128's `i32x4.dot_i16x8_s` in the
//! browser's worker, SSE2's `pmaddwd` natively where the CPU has neither kernel below. Where it has
//! it (natively, `fast-cpu`), [`super::vnni`] computes the same integer sums, 64 multiply-adds
//! an instruction, and where it has AVX2 instead, [`super::madd`], 32 for two instructions; every
//! output is the same bits. (Natively, plain integer loops compiled for
//! AVX-512 by pulp's run-time dispatch and left to LLVM's vectorizer ran 2.5× slower than this on
//! roberta-base, 1.48 against 3.70 examples/s, 2026-11-29.) burn's CPU backend has quantized tensors but
//! multiplies them by dequantizing to f32 first, which is slower than f32 itself; no crate the
//! project uses has an integer matrix product, so this one is the project's own.

/// i16 lanes per vector.
const LANES: usize = 8;
/// Activation rows one tile multiplies at once.
const ROWS: usize = 2;
/// Output channels one tile multiplies at once: with [`ROWS`], 8 accumulators and 6 operands,
/// within the 16 vector registers of x86-64 (where the browser's engine maps SIMD128).
const COLS: usize = 4;
/// Output channels per panel: 64 channels of a 3,072-wide layer are 384 KiB of i16, which stay
/// in a core's L2 cache while every row of activations passes over them.
const PANEL: usize = 64;
/// Largest value of a quantized activation.
const QMAX: f32 = 127.0;
/// Largest value of a quantized weight (7 bits: see the module's text).
const QMAX_W: f32 = 63.0;

/// A dense layer's weight in int8, per output channel (values kept as i16 lanes), and its
/// bias in f32.
#[derive(Debug, Clone)]
pub struct Int8Weight {
    /// Inputs per output (`in` of the `[in, out]` weight).
    k: usize,
    /// Outputs.
    n: usize,
    /// Channel after channel, each `padded(k)` values (zeros after the `k`th); empty when
    /// `native` holds them.
    q: Vec<i16>,
    /// Per channel: `s_w`.
    scale: Vec<f32>,
    /// Per channel.
    bias: Vec<f32>,
    /// The values packed for this CPU's own integer instructions, when it has some.
    #[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
    native: Option<Native>,
}

/// A weight packed for a native kernel (x86-64 with `fast-cpu`).
#[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
#[derive(Debug, Clone)]
enum Native {
    /// AVX-512 VNNI's `vpdpbusd`: [`super::vnni`].
    Vnni(super::vnni::PackedI8),
    /// AVX2's `vpmaddwd`: [`super::madd`].
    Madd(super::madd::PackedS8),
}

#[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
impl Native {
    /// The widest kernel `kernel` allows on this CPU, packed; `None` for the portable one.
    fn pack(
        kernel: Kernel,
        q: &[i16],
        k: usize,
        n: usize,
        scale: &[f32],
        bias: &[f32],
    ) -> Option<Native> {
        let vnni =
            || super::vnni::PackedI8::pack(q, k, n, padded(k), scale, bias).map(Native::Vnni);
        let madd =
            || super::madd::PackedS8::pack(q, k, n, padded(k), scale, bias).map(Native::Madd);
        match kernel {
            Kernel::Widest => vnni().or_else(madd),
            Kernel::Avx2 => madd(),
            Kernel::Portable => None,
        }
    }

    fn forward_into(&self, x: &[f32], out: &mut Vec<f32>) -> Option<()> {
        match self {
            Native::Vnni(packed) => packed.forward_into(x, out),
            Native::Madd(packed) => packed.forward_into(x, out),
        }
    }
}

/// Which kernel [`Int8Weight::quantize_for`] packs for (the tests compare each with the
/// portable one); every choice gives the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    /// The widest the CPU has: VNNI, else AVX2, else the portable one.
    Widest,
    /// AVX2's where the CPU has it, else the portable one (only the tests pick it).
    #[allow(dead_code)]
    Avx2,
    /// The portable one (only the tests pick it).
    #[allow(dead_code)]
    Portable,
}

/// A row or channel of `k` values as stored: `k` rounded up to a multiple of [`LANES`].
fn padded(k: usize) -> usize {
    k.next_multiple_of(LANES)
}

/// Appends the `k` `values` quantized with `scale` (0: all zeros) into `[-qmax, qmax]`, then
/// zeros up to `padded(k)`.
fn push_quantized(values: &[f32], scale: f32, qmax: f32, out: &mut Vec<i16>) {
    out.extend(values.iter().map(|&v| quantize_within(v, scale, qmax)));
    out.resize(out.len() + padded(values.len()) - values.len(), 0);
}

/// An activation: `round(v / scale)` in `[-127, 127]`; 0 when `scale` is 0 (the tests'
/// shorthand for [`quantize_within`] at [`QMAX`]).
#[cfg(test)]
fn quantize(v: f32, scale: f32) -> i16 {
    quantize_within(v, scale, QMAX)
}

/// `round(v / scale)` in `[-qmax, qmax]`; 0 when `scale` is 0.
fn quantize_within(v: f32, scale: f32, qmax: f32) -> i16 {
    if scale == 0.0 {
        return 0;
    }
    // `as` saturates; the clamp keeps the range symmetric when rounding reaches ±(qmax + 0.5).
    round_half_away(v / scale).clamp(-qmax, qmax) as i16
}

/// `x.round()` (half away from zero), in instructions every x86-64 has: with SSE2 alone `round`
/// is a call into libm, which took 5 % of a native int8 run's time (2026-11-30). `x as i32`
/// truncates toward zero, exactly for `|x| < 2³¹`, and `x − trunc(x)` is exact, so comparing it
/// with ±0.5 decides the rounding exactly. Larger values are whole already, or saturate and
/// are clamped to ±127 by the caller either way; NaN gives 0, which `as i16` made of it before.
#[inline(always)]
fn round_half_away(x: f32) -> f32 {
    let t = x as i32 as f32;
    let frac = x - t;
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// An activation row's scale, `max|v| / 127`; NaN when any value is not finite. `f32::max` would skip a NaN and an
/// infinity would quantize every other value to 0, so a model gone non-finite would give
/// finite numbers at int8; a NaN scale makes the row's (or channel's) outputs NaN instead, and
/// the scorer reports them as at f32 ([`tabprobe_core::scoring::ScoreError::NonFinite`]).
///
/// The maximum is taken in 16 running lanes, then across them: the same value as one running
/// maximum (no NaN reaches it), without the chain of dependent compares that made this loop
/// 40 % of a native int8 layer's own time (2026-11-30).
pub(super) fn scale_of(values: &[f32]) -> f32 {
    max_abs(values) / QMAX
}

/// `max|v|` (see [`scale_of`]); NaN when any value is not finite.
fn max_abs(values: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut max = [0.0f32; LANES];
    let mut finite = true;
    for chunk in values.chunks(LANES) {
        for (m, &v) in max.iter_mut().zip(chunk) {
            finite &= v.is_finite();
            let a = v.abs();
            *m = if a > *m { a } else { *m };
        }
    }
    if !finite {
        return f32::NAN;
    }
    max.into_iter().fold(0.0, f32::max)
}

/// Activation rows in int8: `m` rows of `padded(k)` values, and each row's scale.
struct QuantizedRows {
    q: Vec<i16>,
    scale: Vec<f32>,
    stride: usize,
}

impl QuantizedRows {
    /// Quantizes the `m × k` row-major `x`, row by row.
    fn of(x: &[f32], k: usize) -> QuantizedRows {
        let stride = padded(k);
        let m = x.len() / k.max(1);
        let mut q = Vec::with_capacity(m * stride);
        let mut scale = Vec::with_capacity(m);
        for row in x.chunks_exact(k.max(1)) {
            let s = scale_of(row);
            push_quantized(row, s, QMAX, &mut q);
            scale.push(s);
        }
        QuantizedRows { q, scale, stride }
    }

    fn row(&self, r: usize) -> &[i16] {
        &self.q[r * self.stride..(r + 1) * self.stride]
    }
}

impl Int8Weight {
    /// Quantizes `weight`, row-major `[n, k]` (PyTorch's `[out, in]`: one output channel per
    /// row), per output channel, keeping `bias` (`n` values, or zeros when `None`). `None` when
    /// the lengths do not match `k` and `n`.
    pub fn quantize(
        weight: &[f32],
        k: usize,
        n: usize,
        bias: Option<&[f32]>,
    ) -> Option<Int8Weight> {
        Int8Weight::quantize_for(weight, k, n, bias, Kernel::Widest)
    }

    /// [`Int8Weight::quantize`], packed for `kernel` where the CPU has it.
    fn quantize_for(
        weight: &[f32],
        k: usize,
        n: usize,
        bias: Option<&[f32]>,
        kernel: Kernel,
    ) -> Option<Int8Weight> {
        if weight.len() != k.checked_mul(n)? || bias.is_some_and(|b| b.len() != n) {
            return None;
        }
        let mut q = Vec::with_capacity(n * padded(k));
        let mut scale = Vec::with_capacity(n);
        for channel in weight.chunks_exact(k.max(1)).take(n) {
            // A channel's scale, `max|w| / 63` (NaN when a value is not finite, as a row's).
            let s = max_abs(channel) / QMAX_W;
            push_quantized(channel, s, QMAX_W, &mut q);
            scale.push(s);
        }
        let bias = bias.map_or_else(|| vec![0.0; n], <[f32]>::to_vec);
        #[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
        let (native, q) = match Native::pack(kernel, &q, k, n, &scale, &bias) {
            Some(packed) => (Some(packed), Vec::new()),
            None => (None, q),
        };
        #[cfg(not(all(target_arch = "x86_64", feature = "fast-cpu")))]
        let _ = kernel;
        Some(Int8Weight {
            k,
            n,
            q,
            scale,
            bias,
            #[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
            native,
        })
    }

    /// Inputs per output.
    pub fn in_features(&self) -> usize {
        self.k
    }

    /// Outputs.
    pub fn out_features(&self) -> usize {
        self.n
    }

    fn channel(&self, c: usize) -> &[i16] {
        let stride = padded(self.k);
        &self.q[c * stride..(c + 1) * stride]
    }

    /// `x · W + b` for the row-major `x` of `k`-long rows: the rows' outputs, row-major. `None`
    /// when `x`'s length is not a whole number of rows. Natively the rows are shared among
    /// the cores (rayon, with the `fast-cpu` feature).
    pub fn forward(&self, x: &[f32]) -> Option<Vec<f32>> {
        if self.k == 0 || !x.len().is_multiple_of(self.k) {
            return None;
        }
        let m = x.len() / self.k;
        if self.n == 0 || m == 0 {
            return Some(vec![0.0f32; m * self.n]);
        }
        #[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
        if let Some(native) = &self.native {
            let mut out = Vec::new();
            return native.forward_into(x, &mut out).map(|()| out);
        }
        let rows = QuantizedRows::of(x, self.k);
        let mut out = vec![0.0f32; m * self.n];
        #[cfg(feature = "fast-cpu")]
        {
            use rayon::prelude::*;
            // Blocks of whole tiles, at least one per core.
            let per_block = m
                .div_ceil(rayon::current_num_threads())
                .next_multiple_of(ROWS);
            out.par_chunks_mut(per_block * self.n)
                .enumerate()
                .for_each(|(b, block)| self.rows_into(&rows, b * per_block, block));
        }
        #[cfg(not(feature = "fast-cpu"))]
        self.rows_into(&rows, 0, &mut out);
        Some(out)
    }

    /// [`Int8Weight::forward`] into `out`, whose allocation the VNNI kernel keeps (the
    /// portable one replaces it).
    pub fn forward_into(&self, x: &[f32], out: &mut Vec<f32>) -> Option<()> {
        #[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
        if let Some(native) = &self.native {
            return native.forward_into(x, out);
        }
        *out = self.forward(x)?;
        Some(())
    }

    /// Fills `out` (whole output rows) from activation rows `first..`: panel by panel of
    /// channels, every row over each panel.
    fn rows_into(&self, rows: &QuantizedRows, first: usize, out: &mut [f32]) {
        let m = out.len() / self.n;
        for panel in (0..self.n).step_by(PANEL) {
            let end = (panel + PANEL).min(self.n);
            let mut r = 0;
            while r < m {
                if r + ROWS <= m {
                    self.tile_row::<ROWS>(rows, first + r, panel, end, &mut out[r * self.n..]);
                    r += ROWS;
                } else {
                    self.tile_row::<1>(rows, first + r, panel, end, &mut out[r * self.n..]);
                    r += 1;
                }
            }
        }
    }

    /// `R` rows (from `row`) against channels `from..to`, written into `out`'s first `R` rows.
    #[inline(always)]
    fn tile_row<const R: usize>(
        &self,
        rows: &QuantizedRows,
        row: usize,
        from: usize,
        to: usize,
        out: &mut [f32],
    ) {
        let xs: [&[i16]; R] = std::array::from_fn(|i| rows.row(row + i));
        let mut c = from;
        while c < to {
            if c + COLS <= to {
                let ws: [&[i16]; COLS] = std::array::from_fn(|j| self.channel(c + j));
                let sums = dot_tile::<R, COLS>(xs, ws);
                self.write::<R, COLS>(&sums, rows, row, c, out);
                c += COLS;
            } else {
                let sums = dot_tile::<R, 1>(xs, [self.channel(c)]);
                self.write::<R, 1>(&sums, rows, row, c, out);
                c += 1;
            }
        }
    }

    /// `y = sum · s_x · s_w + b` for a tile's sums.
    #[inline(always)]
    fn write<const R: usize, const C: usize>(
        &self,
        sums: &[[i32; C]; R],
        rows: &QuantizedRows,
        row: usize,
        c: usize,
        out: &mut [f32],
    ) {
        for (i, sums) in sums.iter().enumerate() {
            let s_x = rows.scale[row + i];
            for (j, &sum) in sums.iter().enumerate() {
                out[i * self.n + c + j] = output(sum, s_x, self.scale[c + j], self.bias[c + j]);
            }
        }
    }
}

/// A channel's output for the integer `sum` of a row: `sum · s_x · s_w + b`, one formula for
/// both kernels.
#[inline(always)]
fn output(sum: i32, s_x: f32, s_w: f32, b: f32) -> f32 {
    sum as f32 * s_x * s_w + b
}

/// The `R × C` integer dot products of `R` activation rows with `C` channels, all of the same
/// padded length, eight lanes at a time.
#[inline(always)]
fn dot_tile<const R: usize, const C: usize>(xs: [&[i16]; R], ws: [&[i16]; C]) -> [[i32; C]; R] {
    use wide::{i16x8, i32x4};
    // As eight-lane arrays, all cut to one length: the indexing below needs no bounds checks.
    let n = xs.first().map_or(0, |x| x.len() / LANES);
    let xs = xs.map(|x| &x.as_chunks::<LANES>().0[..n]);
    let ws = ws.map(|w| &w.as_chunks::<LANES>().0[..n]);
    let mut acc = [[i32x4::ZERO; C]; R];
    for v in 0..n {
        let wv: [i16x8; C] = std::array::from_fn(|j| i16x8::new(ws[j][v]));
        for (acc, x) in acc.iter_mut().zip(xs) {
            let xv = i16x8::new(x[v]);
            for (a, w) in acc.iter_mut().zip(wv) {
                *a += xv.dot(w);
            }
        }
    }
    acc.map(|row| row.map(|a| a.to_array().iter().sum()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-worked layer: k = 3, n = 2 (no value lands on a rounding tie).
    /// Weight `[in, out]` = [[1, -3], [0.25, 4], [-1, 1]] (given `[out, in]`): channel 0 is (1, 0.25, -1), max 1,
    /// s_w = 1/63, q = (63, 16 (15.75), -63); channel 1 is (-3, 4, 1), max 4, s_w = 4/63,
    /// q = (-47 (-47.25), 63, 16 (15.75)).
    /// Row x = (2, -0.6, 0.5): max 2, s_x = 2/127, q = (127, -38 (-38.1), 32 (31.75)).
    /// Sums: 127·63 − 38·16 − 32·63 = 8001 − 608 − 2016 = 5377;
    ///       −127·47 − 38·63 + 32·16 = −5969 − 2394 + 512 = −7851.
    /// y0 = 5377 · 2/127 · 1/63 + 0.25 = 10754/8001 + 0.25 = 1.594082 (exactly, x·w0 + b0 = 1.6);
    /// y1 = −7851 · 2/127 · 4/63 − 1 = −62808/8001 − 1 = −8.850019 (exactly, −8.9).
    #[test]
    fn a_hand_worked_layer() {
        // `[out, in]`: channel 0, then channel 1.
        let w = [1.0, 0.25, -1.0, -3.0, 4.0, 1.0];
        let layer = Int8Weight::quantize(&w, 3, 2, Some(&[0.25, -1.0])).expect("shapes match");
        let y = layer.forward(&[2.0, -0.6, 0.5]).expect("one row");
        assert!(
            (y[0] - 1.594_082).abs() < 1e-5 && (y[1] + 8.850_019).abs() < 1e-5,
            "{y:?}"
        );
    }

    /// Every tile shape (2×4, 2×1, 1×4, 1×1 and a partial panel), k not a multiple of 8, checked
    /// against the same arithmetic done one product at a time.
    #[test]
    fn tiles_and_edges_agree_with_one_product_at_a_time() {
        let (m, k, n) = (5, 19, 70);
        let value =
            |i: usize, salt: usize| (((i * 7919 + salt * 104_729) % 2001) as f32 - 1000.0) / 250.0;
        let w: Vec<f32> = (0..k * n).map(|i| value(i, 1)).collect();
        let x: Vec<f32> = (0..m * k).map(|i| value(i, 2)).collect();
        let b: Vec<f32> = (0..n).map(|i| value(i, 3)).collect();
        let layer = Int8Weight::quantize(&w, k, n, Some(&b)).expect("shapes match");
        let y = layer.forward(&x).expect("whole rows");
        for r in 0..m {
            let row = &x[r * k..(r + 1) * k];
            let s_x = scale_of(row);
            for c in 0..n {
                let col = &w[c * k..(c + 1) * k];
                let s_w = max_abs(col) / QMAX_W;
                let sum: i32 = (0..k)
                    .map(|i| {
                        i32::from(quantize(row[i], s_x))
                            * i32::from(quantize_within(col[i], s_w, QMAX_W))
                    })
                    .sum();
                let want = sum as f32 * s_x * s_w + b[c];
                assert_eq!(y[r * n + c], want, "row {r}, channel {c}");
            }
        }
    }

    /// A NaN or infinite activation makes its row's outputs NaN (and only its row's), as the
    /// f32 product would; a non-finite weight makes its channel's outputs NaN.
    #[test]
    fn non_finite_values_stay_non_finite() {
        let layer = Int8Weight::quantize(&[1.0, 0.5, -1.0, -3.0, 4.0, 1.0], 3, 2, None)
            .expect("shapes match");
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let y = layer
                .forward(&[2.0, bad, 0.5, 1.0, 1.0, 1.0])
                .expect("two rows");
            assert!(y[0].is_nan() && y[1].is_nan(), "{bad}: {y:?}");
            assert!(y[2].is_finite() && y[3].is_finite(), "{bad}: {y:?}");
        }
        let layer = Int8Weight::quantize(&[1.0, f32::NAN, -1.0, -3.0, 4.0, 1.0], 3, 2, None)
            .expect("shapes match");
        let y = layer.forward(&[2.0, -0.6, 0.5]).expect("one row");
        assert!(y[0].is_nan() && y[1].is_finite(), "{y:?}");
    }

    /// Natively, each kernel this CPU runs (AVX-512 VNNI, AVX2) gives the portable kernel's
    /// outputs bit for bit, for rows that fill no whole tile, inputs not a multiple of 4,
    /// partial panels, a pair's 128 tokens at roberta-base's width, and the widest layer the
    /// loader accepts at the largest values (both kernels' shifted sums then reach
    /// 65,536 · 255 · 63 = 1,052,835,840, under 2³¹, and each of AVX2's 16-bit pairs
    /// 2 · 255 · 63 = 32,130, under 2¹⁵).
    #[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
    #[test]
    fn native_kernels_give_the_portable_kernels_bits() {
        use crate::blocks::packed::tests::values;
        let ones = |len: usize, sign: f32| vec![sign; len];
        // (rows, inputs, outputs, weight, activations)
        type Case = (usize, usize, usize, Vec<f32>, Vec<f32>);
        let mut cases: Vec<Case> = [
            (1, 3, 2),
            (5, 19, 70),
            (13, 770, 130),
            (7, 1, 64),
            (128, 768, 200),
        ]
        .into_iter()
        .map(|(m, k, n)| (m, k, n, values(k * n, 7), values(m * k, 11)))
        .collect();
        let k = crate::families::limits::MAX_INTERMEDIATE_SIZE;
        let w = [ones(k, 1.0), ones(k, -1.0)].concat();
        cases.push((1, k, 2, w, ones(k, 1.0)));
        let kernels = [
            (
                "AVX-512 VNNI",
                Kernel::Widest,
                crate::blocks::vnni::PackedI8::available(),
            ),
            ("AVX2", Kernel::Avx2, pulp::x86::V3::try_new().is_some()),
        ];
        for (name, kernel, available) in kernels {
            if !available {
                eprintln!("SKIP: this CPU has no {name}; its kernel is not compared here");
                continue;
            }
            for (m, k, n, w, x) in &cases {
                let (m, k, n) = (*m, *k, *n);
                let b = values(n, 13);
                let fast = Int8Weight::quantize_for(w, k, n, Some(&b), kernel).expect("shapes");
                let portable =
                    Int8Weight::quantize_for(w, k, n, Some(&b), Kernel::Portable).expect("shapes");
                let packed = match &fast.native {
                    Some(Native::Vnni(_)) => "AVX-512 VNNI",
                    Some(Native::Madd(_)) => "AVX2",
                    None => "none",
                };
                assert!(
                    packed == name && portable.native.is_none(),
                    "{name}: {m}×{k}×{n} packed for {packed}"
                );
                let (y, want) = (fast.forward(x), portable.forward(x));
                let bits = |y: Option<Vec<f32>>| {
                    y.map(|y| y.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
                };
                assert_eq!(bits(y), bits(want), "{name}: {m}×{k}×{n}");
            }
        }
    }

    /// The rounding without libm is f32's `round`: on ties either way, just below them, at the
    /// clamp's edge, at i32's, NaN, and a sweep of 200,001 values over [-130, 130].
    #[test]
    fn rounding_is_f32_round() {
        let below = 0.5f32.next_down();
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            below,
            -below,
            126.5,
            -126.5,
            127.49,
            127.5,
            -127.5,
            16_777_217.0,
            -2_147_483_520.0,
        ];
        xs.extend((0..=200_000).map(|i| (i as f32 - 100_000.0) * 0.0013));
        for x in xs {
            assert_eq!(round_half_away(x), x.round(), "{x}");
        }
        // Past i32's range the cast saturates: still the clamp's end.
        assert_eq!((quantize(1.0e10, 1.0), quantize(-1.0e10, 1.0)), (127, -127));
        assert_eq!(quantize(f32::NAN, 1.0), 0);
        assert_eq!(quantize(1.0, f32::NAN), 0);
    }

    /// Each native kernel's row quantization (AVX-512 VNNI's, AVX2's) gives [`scale_of`]'s
    /// scale and [`quantize`]'s values (both shifted by 128), on the rounding cases above at
    /// several scales, rows of 1 to 17 values, and rows with a NaN or an infinity.
    #[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
    #[test]
    fn a_row_quantized_at_once_is_value_by_value() {
        let mut sweep: Vec<f32> = (0..=20_000)
            .map(|i| (i as f32 - 10_000.0) * 0.0137)
            .collect();
        sweep.extend([0.5, -0.5, 1.5, -1.5, 0.5f32.next_down(), -0.0, 127.0]);
        let mut rows = vec![sweep.clone()];
        // Whole rows at these maxima put the rounding cases above at several scales.
        for max in [127.0f32, 1.0 / 0.37, 0.3175] {
            rows.push(sweep.iter().map(|v| v / 137.0 * max).chain([max]).collect());
        }
        rows.extend((1..=17).map(|len| (0..len).map(|i| i as f32 * 0.31 - 2.0).collect()));
        rows.push(vec![0.0; 5]);
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            rows.push(vec![1.0, bad, 3.0]);
        }
        // Each kernel's quantized row as plain values (`None` where the CPU lacks it).
        type Quantizer = fn(&[f32]) -> Option<(f32, Vec<i16>)>;
        let kernels: [(&str, Quantizer); 2] = [
            ("AVX-512 VNNI", |row| {
                let mut out = vec![99u8; row.len()];
                let scale = crate::blocks::vnni::quantized_row(row, &mut out)?;
                Some((scale, out.iter().map(|&b| i16::from(b) - 128).collect()))
            }),
            ("AVX2", |row| {
                let mut out = vec![99u8; row.len()];
                let scale = crate::blocks::madd::quantized_row(row, &mut out)?;
                Some((scale, out.iter().map(|&b| i16::from(b) - 128).collect()))
            }),
        ];
        for (name, quantized) in kernels {
            for row in &rows {
                let Some((scale, out)) = quantized(row) else {
                    eprintln!("SKIP: this CPU has no {name}; its quantization is not compared");
                    break;
                };
                let want = scale_of(row);
                assert_eq!(
                    scale.to_bits(),
                    want.to_bits(),
                    "{name}: {} values",
                    row.len()
                );
                let want: Vec<i16> = row
                    .iter()
                    .map(|&v| quantize(v, if want.is_finite() { want } else { 0.0 }))
                    .collect();
                assert_eq!(out, want, "{name}: {} values at scale {scale}", row.len());
            }
        }
    }

    #[test]
    fn zeros_and_bad_shapes() {
        let layer = Int8Weight::quantize(&[0.0; 6], 3, 2, None).expect("shapes match");
        assert_eq!(layer.forward(&[1.0, 2.0, 3.0]), Some(vec![0.0, 0.0]));
        assert_eq!(layer.forward(&[0.0; 3]), Some(vec![0.0, 0.0]));
        assert!(layer.forward(&[1.0, 2.0]).is_none(), "not a whole row");
        assert!(Int8Weight::quantize(&[0.0; 5], 3, 2, None).is_none());
        assert!(Int8Weight::quantize(&[0.0; 6], 3, 2, Some(&[0.0])).is_none());
    }
}
