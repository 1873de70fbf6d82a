//! The int8 dense product natively on CPUs with AVX-512 VNNI (the CLI with `fast-cpu`;
//! docs/model-families.md#int8): the same integers as [`super::int8`]'s portable product, 64
//! multiply-adds an instruction instead of 8.
//!
//! VNNI's `vpdpbusd` multiplies unsigned bytes by signed bytes, four adjacent pairs into each
//! 32-bit lane. The weights are the int8 channel values `q_w` as they are; an activation
//! `q_x` in `[-127, 127]` goes in as the byte `q_x + 128` in `[1, 255]`, and the extra
//! `128 · Σ q_w` is taken off each channel's sum afterwards. Every step is exact in i32
//! (`|sum| ≤ 65,536 · 255 · 127 < 2³¹` for the widest layer the loader accepts), so the sums
//! are the portable product's to the bit, and so is every output: `sum · s_x · s_w + b`.
//!
//! The weight is packed once, in panels of 64 channels: for each four inputs, 64 channels ×
//! 4 bytes (one 512-bit vector per 16 channels). A tile of 6 activation rows × 64 channels
//! keeps 24 accumulators in registers; each step of four inputs loads 4 weight vectors and
//! broadcasts 6 groups of four activation bytes.
//!
//! pulp, which dispatches the f32 product ([`super::packed`]), wraps no VNNI instruction; the
//! kernel is a `#[target_feature]` function of `core::arch`'s (safe) intrinsics, and calling
//! it is the crate's one `unsafe` block, after the CPU has said it has the features.

use std::arch::x86_64::{__m512i, _mm512_dpbusd_epi32, _mm512_set1_epi32, _mm512_setzero_si512};

use super::packed::Plan;

/// Output channels per panel: 4 vectors of 16 i32 lanes.
const WIDTH: usize = 64;
/// Activation rows per tile.
const ROWS: usize = 6;
/// Vectors per panel step (four inputs of [`WIDTH`] channels).
const VECTORS: usize = WIDTH / 16;
/// What an activation value is shifted by to be an unsigned byte.
const SHIFT: i32 = 128;

/// A dense layer's int8 weight packed for VNNI; the scales and bias stay with
/// [`super::int8::Int8Weight`].
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
    /// Per channel (padded to whole panels): `128 · Σ q_w`.
    shift: Vec<i32>,
}

impl PackedI8 {
    /// Whether this CPU runs the kernel: AVX-512 (F, BW) with VNNI.
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }

    /// Packs `n` channels of quantized values, channel after channel with `stride` values each
    /// (the first `k` real, in `[-127, 127]`), as [`super::int8`] keeps them. `None` when the
    /// CPU lacks the instructions or the lengths do not fit.
    pub fn pack(q: &[i16], k: usize, n: usize, stride: usize) -> Option<PackedI8> {
        if !Self::available() || k == 0 || n == 0 || stride < k || q.len() != n * stride {
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
        let panels = bytes
            .chunks_exact(64)
            .map(|v| bytemuck::cast::<[i8; 64], __m512i>(v.try_into().unwrap_or([0; 64])))
            .collect();
        Some(PackedI8 {
            k,
            k4,
            n,
            panels,
            shift,
        })
    }

    /// The product of the activation rows `q` (row after row, `stride` values each, a
    /// multiple of 4 at least `k`, zeros past the `k`th) with every channel: `n` outputs per
    /// row, row-major, each made by `finish(row, first, sums, out)` from the exact integer
    /// sums `Σ q_x · q_w` of row `row` with the channels `first..first + sums.len()` (up to
    /// 64 at a time). `None` when the lengths do not fit. Natively the work is shared among the
    /// cores as the f32 product's is ([`Plan`]), and the outputs row by row.
    pub fn product(
        &self,
        q: &[i8],
        stride: usize,
        finish: impl Fn(usize, usize, &[i32], &mut [f32]) + Sync,
    ) -> Option<Vec<f32>> {
        if stride < self.k || !stride.is_multiple_of(4) || !q.len().is_multiple_of(stride) {
            return None;
        }
        let rows = q.len() / stride;
        let steps = self.k4 / 4;
        // Each row as `k4 / 4` groups of four shifted bytes, one u32 each (`q + 128` is the
        // byte `q ^ 0x80`; the padding past `k` meets zero weights); rows padded to whole tiles
        // with zeros.
        let mut packed = vec![0u32; rows.next_multiple_of(ROWS) * steps];
        let shifted = |(row, out): (&[i8], &mut [u32])| {
            for (group, b) in out.iter_mut().zip(row.chunks_exact(4)) {
                *group =
                    u32::from_le_bytes([b[0], b[1], b[2], b[3]].map(|v| v.cast_unsigned() ^ 0x80));
            }
        };
        #[cfg(feature = "fast-cpu")]
        {
            use rayon::prelude::*;
            q.par_chunks_exact(stride)
                .zip(packed.par_chunks_exact_mut(steps))
                .with_min_len(16)
                .for_each(shifted);
        }
        #[cfg(not(feature = "fast-cpu"))]
        q.chunks_exact(stride)
            .zip(packed.chunks_exact_mut(steps))
            .for_each(shifted);
        let panel_count = self.n.div_ceil(WIDTH);
        let plan = Plan::new(rows, panel_count, ROWS);
        let per_panel = steps * VECTORS;
        let piece = |i: usize| -> Vec<[i32; WIDTH]> {
            let (c, g) = (i / plan.groups, i % plan.groups);
            let first = c * plan.chunk;
            let tile_rows = (rows - first).min(plan.chunk).next_multiple_of(ROWS);
            let x = &packed[first * steps..][..tile_rows * steps];
            let panels = self.panels.chunks(plan.per_group * per_panel).nth(g);
            let panels = panels.unwrap_or_default();
            let mut out = vec![[0i32; WIDTH]; panels.len() / per_panel * tile_rows];
            for (panel, out) in panels
                .chunks_exact(per_panel)
                .zip(out.chunks_exact_mut(tile_rows))
            {
                // SAFETY: `pack` made this `PackedI8` only after `available()` found AVX-512F,
                // AVX-512BW and AVX-512 VNNI on this CPU, which are all `tiles` enables.
                #[allow(unsafe_code)]
                unsafe {
                    tiles(panel, x, steps, out)
                };
            }
            out
        };
        let count = plan.chunks * plan.groups;
        #[cfg(feature = "fast-cpu")]
        let pieces: Vec<Vec<[i32; WIDTH]>> = {
            use rayon::prelude::*;
            (0..count).into_par_iter().map(piece).collect()
        };
        #[cfg(not(feature = "fast-cpu"))]
        let pieces: Vec<Vec<[i32; WIDTH]>> = (0..count).map(piece).collect();
        let fill = |(r, out_row): (usize, &mut [f32])| {
            let (c, local) = (r / plan.chunk, r % plan.chunk);
            let tile_rows = (rows - c * plan.chunk)
                .min(plan.chunk)
                .next_multiple_of(ROWS);
            let mut sums = [0i32; WIDTH];
            for (g, piece) in pieces[c * plan.groups..][..plan.groups].iter().enumerate() {
                for (p, panel_rows) in piece.chunks_exact(tile_rows).enumerate() {
                    let first = (g * plan.per_group + p) * WIDTH;
                    let used = WIDTH.min(self.n - first);
                    let shift = &self.shift[first..][..WIDTH];
                    for ((s, &got), &t) in sums.iter_mut().zip(&panel_rows[local]).zip(shift) {
                        *s = got - t;
                    }
                    finish(r, first, &sums[..used], &mut out_row[first..first + used]);
                }
            }
        };
        let mut out = vec![0.0f32; rows * self.n];
        #[cfg(feature = "fast-cpu")]
        {
            use rayon::prelude::*;
            out.par_chunks_mut(self.n)
                .enumerate()
                .with_min_len(4)
                .for_each(fill);
        }
        #[cfg(not(feature = "fast-cpu"))]
        out.chunks_mut(self.n).enumerate().for_each(fill);
        Some(out)
    }
}

/// One panel (`steps` steps of [`VECTORS`] vectors) times every tile of [`ROWS`] rows of `x`
/// (`steps` groups of four shifted bytes a row): row `r`'s 64 sums into `out[r]`.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn tiles(panel: &[__m512i], x: &[u32], steps: usize, out: &mut [[i32; WIDTH]]) {
    for (tile, out) in x.chunks_exact(ROWS * steps).zip(out.chunks_exact_mut(ROWS)) {
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
        for (o, acc) in out.iter_mut().zip(acc) {
            *o = bytemuck::cast::<[__m512i; VECTORS], [i32; WIDTH]>(acc);
        }
    }
}
