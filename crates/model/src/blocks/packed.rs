//! The CPU paths' f32 dense product: natively with the weight packed once (the CLI's `flex`
//! backend with `fast-cpu`; docs/benchmarks.md#where-the-clis-time-goes), in the browser
//! worker's WebAssembly packed panel by panel as it goes ([`PackedF32::forward_streamed`]).
//!
//! burn's CPU backend multiplies `x · W` with gemm, which repacks `W` into its own panels on
//! every call; a dense layer's weight never changes, so natively this packs it once, in panels
//! of a few output channels, and multiplies each panel against tiles of activation rows with
//! the widest fused multiply-add the CPU has (AVX-512, else AVX2, chosen at run time by pulp,
//! which gemm itself uses). The arithmetic is plain f32: every output is `b + Σ_i x_i · w_i`,
//! summed in order of `i` with one rounding per multiply-add natively (a product and a sum
//! in WebAssembly, which has no fused multiply-add), so a row's outputs are the same bits
//! whatever other rows share its call and however the work is split over the cores.
//!
//! In WebAssembly the tile is 3 rows × 3 vectors of 4: nine sums, three panel vectors, a
//! broadcast and a product, 14 values, within x86-64's 16 vector registers (tiles of 12 sums
//! need 17, and V8 then keeps some on the stack). Measured alone in Chromium 156 (the EPYC,
//! one thread, `[128, 768] · [768, 768]`, 2026-12-01, GFLOP/s; `scripts/bench-wasm-tiles.sh`):
//! 3 × 3 32.5, 2 × 4 29.5, 4 × 2 28.7, 4 × 3 25.4, 6 × 2 24.4, burn's gemm (its 12 × 4 tile)
//! 25.0.

use pulp::{Simd, WithSimd};

use super::dispatch::vectorize;

/// A dense layer's `[in, out]` weight packed in panels, and its bias.
#[derive(Debug, Clone)]
pub struct PackedF32 {
    /// Inputs per output.
    k: usize,
    /// Outputs.
    n: usize,
    /// How the product is cut for this CPU.
    shape: Shape,
    /// Panel after panel (`n.div_ceil(width)` of them), each `k` rows of `width` weights:
    /// row `i` of panel `p` is `W[i][p·width ..][.. width]`, zeros past the `n`th channel.
    panels: Vec<f32>,
    /// Per channel, zeros past the `n`th to fill the last panel.
    bias: Vec<f32>,
}

/// Output channels per panel and activation rows per tile, for a CPU whose vectors hold
/// `lanes` f32: a tile's accumulators (`rows × width / lanes` vectors), one panel row and a
/// broadcast must fit in the vector registers (32 with AVX-512, 16 with AVX2). With AVX-512, 6
/// rows of 4 vectors: 24 multiply-adds for each 4 loads and 6 broadcasts. With AVX2, 4 rows of
/// 3 vectors: 12 accumulators, 12 multiply-adds for each 3 loads and 4 broadcasts. (Against 2
/// rows of 4 vectors, 8 accumulators, only just enough to keep Zen 3's two FMA units busy
/// through their 4-cycle latency, a roberta-base layer's six products took 6–9 % less time
/// at 128 and 1,024 rows, and 2 vectors of 6 rows 4–8 %: the fastest and first-quartile
/// calls of alternating sets of 40 in one process, EPYC VM, 2 threads, 2026-11-30.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    width: usize,
    rows: usize,
}

impl Shape {
    fn for_lanes(lanes: usize) -> Shape {
        match lanes {
            16 => Shape { width: 64, rows: 6 },
            8 => Shape { width: 24, rows: 4 },
            4 => Shape { width: 12, rows: 3 },
            _ => Shape { width: 32, rows: 1 },
        }
    }
}

impl PackedF32 {
    /// Packs a weight stored `[in, out]` (`k` rows of `n`, as burn's [`super::nn::Dense`] keeps
    /// it) and its `n` biases; `None` when the lengths do not say `k × n` and `n`.
    pub fn pack(weight: &[f32], k: usize, n: usize, bias: &[f32]) -> Option<PackedF32> {
        let shape = Shape::for_lanes(vectorize(Lanes));
        PackedF32::pack_as(weight, k, n, bias, shape)
    }

    /// [`PackedF32::pack`] in panels and tiles of `shape`.
    fn pack_as(weight: &[f32], k: usize, n: usize, bias: &[f32], shape: Shape) -> Option<Self> {
        if k == 0 || n == 0 || weight.len() != k.checked_mul(n)? || bias.len() != n {
            return None;
        }
        let w = shape.width;
        let mut panels = vec![0.0f32; n.div_ceil(w) * k * w];
        let channels = n.div_ceil(w) * w;
        for (p, panel) in panels.chunks_exact_mut(k * w).enumerate() {
            let first = p * w;
            let width = w.min(n - first);
            for (row, packed) in weight.chunks_exact(n).zip(panel.chunks_exact_mut(w)) {
                packed[..width].copy_from_slice(&row[first..first + width]);
            }
        }
        Some(PackedF32 {
            k,
            n,
            shape,
            panels,
            bias: bias
                .iter()
                .copied()
                .chain(std::iter::repeat(0.0))
                .take(channels)
                .collect(),
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

    /// `x · W + b` for the rows of `x` (row after row, `k` values each): `n` values per row;
    /// `None` when `x` is not whole rows. Natively the work is shared among the cores (rayon,
    /// with the `fast-cpu` feature) in pieces of a chunk of rows times a group of panels, at
    /// least [`PIECES_PER_CORE`] a core.
    pub fn forward(&self, x: &[f32]) -> Option<Vec<f32>> {
        let mut out = Vec::new();
        self.forward_into(x, &mut out)?;
        Some(out)
    }

    /// [`PackedF32::forward`] into `out`, whose allocation is kept: resized to the outputs,
    /// every value overwritten (none is read).
    pub fn forward_into(&self, x: &[f32], out: &mut Vec<f32>) -> Option<()> {
        if !x.len().is_multiple_of(self.k) {
            return None;
        }
        let (k, n, Shape { width, rows: tile }) = (self.k, self.n, self.shape);
        let rows = x.len() / k;
        out.resize(rows * n, 0.0);
        if rows == 0 {
            return Some(());
        }
        let plan = Plan::new(rows, n.div_ceil(width), tile);
        // The rows as slices, a short last tile made whole with zero rows, whose outputs go to
        // a scratch buffer: every tile then has `tile` rows, read and written in place.
        let pad = rows.next_multiple_of(tile) - rows;
        let zeros = vec![0.0f32; if pad > 0 { k } else { 0 }];
        let mut scratch = vec![0.0f32; pad * n];
        let x_rows: Vec<&[f32]> = x
            .chunks_exact(k)
            .chain(std::iter::repeat_n(&zeros[..], pad))
            .collect();
        // Each piece, a chunk of rows times a group of panels, gets its part of each of its
        // rows' outputs: the pieces write their own parts of `out`, and nothing gathers them.
        let mut parts: Vec<Vec<&mut [f32]>> =
            (0..plan.chunks * plan.groups).map(|_| Vec::new()).collect();
        for (r, row) in out
            .chunks_exact_mut(n)
            .chain(scratch.chunks_exact_mut(n))
            .enumerate()
        {
            let c = r / plan.chunk;
            for (g, part) in row.chunks_mut(plan.per_group * width).enumerate() {
                parts[c * plan.groups + g].push(part);
            }
        }
        let piece = |(i, mut outs): (usize, Vec<&mut [f32]>)| {
            let (c, g) = (i / plan.groups, i % plan.groups);
            let x = &x_rows[c * plan.chunk..][..outs.len()];
            let panels = self.panels.chunks(plan.per_group * k * width).nth(g);
            let first = g * plan.per_group * width;
            let bias = &self.bias[first..]
                [..plan.per_group.min(n.div_ceil(width) - g * plan.per_group) * width];
            self.piece(x, panels.unwrap_or_default(), bias, &mut outs);
        };
        // Pieces that share out the panels (a pair of 128 tokens) are claimed one at a time;
        // whole chunks of rows keep rayon's contiguous split.
        #[cfg(feature = "fast-cpu")]
        if plan.groups > 1 {
            super::cores::each_claimed_of(parts, piece);
        } else {
            use rayon::prelude::*;
            parts.into_par_iter().enumerate().for_each(piece);
        }
        #[cfg(not(feature = "fast-cpu"))]
        parts.into_iter().enumerate().for_each(piece);
        Some(())
    }

    /// `x · W + b` for the rows of `x` straight from `weight` as burn keeps it (`[k, n]`,
    /// row-major) and its `n` biases, into `out` (resized; every value overwritten): each
    /// panel packed as the product reaches it, into one buffer reused panel after panel, for
    /// each chunk of at most [`MAX_CHUNK_ROWS`] rows. No second copy of a model's weights is
    /// kept: this is WebAssembly's product, where every copy of a model is a helper worker's
    /// share of the memory. Packing a panel per chunk costs a few percent of a chunk's
    /// products (Chromium, one worker, the EPYC, 2026-12-01, `[128, 768] · [768, 768]`:
    /// 28.0 GFLOP/s against 29.0 with the weight packed beforehand, burn's gemm 24–25). One
    /// core: the worker's.
    /// `None` when the lengths do not say `k × n`, `n` and whole rows, or `k` or `n` is 0 (as
    /// [`PackedF32::pack`] refuses them).
    pub fn forward_streamed(
        weight: &[f32],
        k: usize,
        n: usize,
        bias: &[f32],
        x: &[f32],
        out: &mut Vec<f32>,
    ) -> Option<()> {
        let shape = Shape::for_lanes(vectorize(Lanes));
        PackedF32::streamed_as(weight, k, n, bias, x, out, shape, |panel| vectorize(panel))
    }

    /// [`PackedF32::forward_streamed`] in panels and tiles of `shape`, each panel run by `run`
    /// (the widest vectors here, or, in a test, other vectors than this CPU's widest).
    #[allow(clippy::too_many_arguments)]
    fn streamed_as(
        weight: &[f32],
        k: usize,
        n: usize,
        bias: &[f32],
        x: &[f32],
        out: &mut Vec<f32>,
        shape: Shape,
        mut run: impl FnMut(Panel<'_, '_>),
    ) -> Option<()> {
        let Shape { width, rows: tile } = shape;
        if k == 0 || n == 0 || weight.len() != k.checked_mul(n)? || bias.len() != n {
            return None;
        }
        if !x.len().is_multiple_of(k) {
            return None;
        }
        let rows = x.len() / k;
        out.resize(rows * n, 0.0);
        let panels = n.div_ceil(width);
        let bias: Vec<f32> = bias
            .iter()
            .copied()
            .chain(std::iter::repeat(0.0))
            .take(panels * width)
            .collect();
        let mut panel = vec![0.0f32; k * width];
        let zeros = vec![0.0f32; k];
        let chunk = MAX_CHUNK_ROWS.next_multiple_of(tile);
        for (c, outs) in out.chunks_mut(chunk * n).enumerate() {
            let x = &x[c * chunk * k..][..outs.len() / n * k];
            // A short last tile made whole with zero rows, whose outputs go to a scratch row.
            let pad = (outs.len() / n).next_multiple_of(tile) - outs.len() / n;
            let mut scratch = vec![0.0f32; pad * n];
            let x_rows: Vec<&[f32]> = x
                .chunks_exact(k)
                .chain(std::iter::repeat_n(&zeros[..], pad))
                .collect();
            let mut outs: Vec<&mut [f32]> = outs
                .chunks_exact_mut(n)
                .chain(scratch.chunks_exact_mut(n))
                .collect();
            for p in 0..panels {
                let first = p * width;
                match width {
                    12 if first + 12 <= n => pack_panel::<12>(weight, n, first, &mut panel),
                    _ => pack_panel_cut(weight, n, first, width, &mut panel),
                }
                run(Panel {
                    panel: &panel,
                    x: &x_rows,
                    inputs: 0..k,
                    shape,
                    sums: &mut [],
                    last: true,
                    outs: &mut outs,
                    at: first,
                    bias: &bias[first..][..width],
                });
            }
        }
        Some(())
    }

    /// `x · W + b` for the rows `x` (whole tiles) over `panels` (whole panels of this layer),
    /// into `outs` (for each row, its outputs of these panels, `width` a panel, the last
    /// panel's cut at the `n`th channel), `bias` the panels' biases: in blocks of [`K_BLOCK`]
    /// inputs, each block of the rows (in L2) multiplied by the same block of every panel (in
    /// L1 while it meets each tile of rows). Between blocks the sums are kept panel after
    /// panel, `width` a row: a panel's 128 rows in 16 KiB of L1. (A first version kept them
    /// in the outputs' rows, 12 KiB apart for 3,072 channels and so in the same few sets of
    /// L1; in alternating CLI runs it was no faster than gathering the sums afterwards,
    /// 2026-11-30.) The last block adds the bias as it stores them in the outputs.
    fn piece(&self, x: &[&[f32]], panels: &[f32], bias: &[f32], outs: &mut [&mut [f32]]) {
        let (k, width) = (self.k, self.shape.width);
        let per_panel = x.len() * width;
        let kept = if k > K_BLOCK {
            panels.len() / k * x.len()
        } else {
            0
        };
        let mut sums = vec![0.0f32; kept];
        for start in (0..k).step_by(K_BLOCK) {
            let end = (start + K_BLOCK).min(k);
            for (p, panel) in panels.chunks_exact(k * width).enumerate() {
                vectorize(Panel {
                    panel: &panel[start * width..end * width],
                    x,
                    inputs: start..end,
                    shape: self.shape,
                    sums: sums
                        .get_mut(p * per_panel..(p + 1) * per_panel)
                        .unwrap_or_default(),
                    last: end == k,
                    outs,
                    at: p * width,
                    bias: &bias[p * width..][..width],
                });
            }
        }
    }
}

/// Copies the channels `first..first + W` of every row of `weight` (`n` a row) into `panel`
/// (`W` a row). The width a constant, so each row is a few vector moves: with the width read
/// at run time each was a call to `memcpy`, and WebAssembly's streamed product ran at
/// 25.5–27.5 GFLOP/s against 28.3–29.3 for the packed one (26.4–28.1 after).
fn pack_panel<const W: usize>(weight: &[f32], n: usize, first: usize, panel: &mut [f32]) {
    for (packed, row) in panel.chunks_exact_mut(W).zip(weight.chunks_exact(n)) {
        packed.copy_from_slice(&row[first..first + W]);
    }
}

/// [`pack_panel`] for any width, the last panel cut at the `n`th channel (the rest of each
/// packed row keeps the zeros it was made with, or a full panel's values, which a cut panel's
/// outputs never read).
fn pack_panel_cut(weight: &[f32], n: usize, first: usize, width: usize, panel: &mut [f32]) {
    let used = width.min(n - first);
    for (packed, row) in panel.chunks_exact_mut(width).zip(weight.chunks_exact(n)) {
        packed[..used].copy_from_slice(&row[first..first + used]);
    }
}

/// How [`PackedF32::forward`] cuts its work: `chunks` chunks of `chunk` rows (the last may
/// be shorter) times `groups` groups of `per_group` panels (the last may be smaller). A chunk
/// holds at most about [`MAX_CHUNK_ROWS`] rows; when there are fewer chunks than
/// [`PIECES_PER_CORE`] a core (one pair of 128 tokens), the panels are shared out instead, so
/// that each piece reads its own part of the weight rather than every piece all of it.
#[derive(Debug, Clone, Copy)]
struct Plan {
    chunk: usize,
    chunks: usize,
    per_group: usize,
    groups: usize,
}

impl Plan {
    /// The plan for `rows` activation rows over `panels` panels, rows in tiles of `tile_rows`.
    fn new(rows: usize, panels: usize, tile_rows: usize) -> Plan {
        #[cfg(feature = "fast-cpu")]
        let threads = rayon::current_num_threads();
        #[cfg(not(feature = "fast-cpu"))]
        let threads: usize = 1;
        let chunk = rows.clamp(1, MAX_CHUNK_ROWS).next_multiple_of(tile_rows);
        let chunks = rows.div_ceil(chunk).max(1);
        let wanted = (PIECES_PER_CORE * threads).div_ceil(chunks).max(1);
        let per_group = panels.div_ceil(wanted).max(1);
        Plan {
            chunk,
            chunks,
            per_group,
            groups: panels.div_ceil(per_group).max(1),
        }
    }
}

/// Pieces a call is cut into at least, per core. When that shares out the panels, the cores
/// take the pieces one at a time as each comes free (`cores::each_claimed`), so a core slowed
/// for a while does fewer. With one piece a core, a pair of 128 tokens at f32 took 179 ms a
/// forward (the median of eight runs' medians of 20 calls) on the EPYC VM, against 153 ms
/// with four claimed (2 threads, 2026-11-30, alternating runs; each run's fastest call
/// 137–146 ms against 138–148, and 179 in one run).
const PIECES_PER_CORE: usize = 4;

/// Inputs one pass over a panel and the tiles of rows takes: 128 inputs of a 64-wide panel
/// are 32 KiB (a core's L1 data cache holds 32 to 48), and of 128 rows 64 KiB (L2). In
/// WebAssembly all of them: its panels are 12 wide (48 bytes a row), and in Chromium the
/// product without blocks ran at 28.8 GFLOP/s against 27.4 with them (one worker, EPYC,
/// 2026-12-01, `[128, 768] · [768, 768]`).
const K_BLOCK: usize = if cfg!(target_arch = "wasm32") {
    1 << 20
} else {
    128
};

/// Rows a chunk holds at most: a chunk reads its panels once, so larger chunks read the
/// weight fewer times, while a block of the chunk's rows stays in L2.
const MAX_CHUNK_ROWS: usize = 128;

/// How many f32 one vector of the CPU's SIMD holds.
struct Lanes;

impl WithSimd for Lanes {
    type Output = usize;
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) -> usize {
        S::F32_LANES
    }
}

/// One block of a panel (its rows `inputs`) times the same inputs of the rows `x` (whole
/// tiles), added to the rows' running `sums` (`width` a row; set, not added, by the first
/// block). The last block adds `bias` (the panel's `width` biases) and stores the results in
/// the outputs `outs` instead (one per row; the panel's start at `at` and run for `width` or to
/// the row's end).
struct Panel<'a, 'o> {
    panel: &'a [f32],
    x: &'a [&'a [f32]],
    inputs: std::ops::Range<usize>,
    shape: Shape,
    sums: &'a mut [f32],
    last: bool,
    outs: &'a mut [&'o mut [f32]],
    at: usize,
    bias: &'a [f32],
}

impl WithSimd for Panel<'_, '_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Shape { width, rows } = self.shape;
        match (S::F32_LANES, width, rows) {
            (16, 64, 6) => self.run::<S, 4, 6>(simd),
            (8, 24, 4) => self.run::<S, 3, 4>(simd),
            (4, 12, 3) => self.run::<S, 3, 3>(simd),
            (1, 32, 1) => self.run::<S, 32, 1>(simd),
            // A shape packed for another CPU than the one running: plain f32 arithmetic in the
            // same order.
            _ => self.run::<pulp::Scalar, 0, 0>(pulp::Scalar),
        }
    }
}

/// `a · b + c` in lanes: fused natively (one rounding; pulp's `mul_add`), a product and a sum
/// in WebAssembly, whose SIMD128 has no fused multiply-add (pulp's exact `mul_add` would
/// emulate it lane by lane in software, many times slower).
#[inline(always)]
fn madd<S: Simd>(simd: S, a: S::f32s, b: S::f32s, c: S::f32s) -> S::f32s {
    if cfg!(target_arch = "wasm32") {
        simd.mul_add_e_f32s(a, b, c)
    } else {
        simd.mul_add_f32s(a, b, c)
    }
}

/// [`madd`] one value at a time, with the same roundings.
#[inline(always)]
fn madd_scalar(a: f32, b: f32, c: f32) -> f32 {
    if cfg!(target_arch = "wasm32") {
        a * b + c
    } else {
        a.mul_add(b, c)
    }
}

/// The widest panel any shape has (AVX-512's).
const MAX_WIDTH: usize = 64;

impl Panel<'_, '_> {
    /// `V` vectors make a panel row, `R` rows make a tile (`V = 0`: the shape's own width and
    /// rows, one f32 at a time). Each sum goes on in order of the inputs, through `sums`
    /// between blocks (f32 stored and read back is the same value), so blocking does not
    /// change a bit of the result; the bias comes last, as `sum + b`.
    #[inline(always)]
    fn run<S: Simd, const V: usize, const R: usize>(self, simd: S) {
        if V == 0 {
            return self.run_scalar();
        }
        let (width, at) = (self.shape.width, self.at);
        debug_assert!(V * S::F32_LANES == width && width <= MAX_WIDTH);
        let (panel, _) = S::as_simd_f32s(self.panel);
        let (start, end) = (self.inputs.start, self.inputs.end);
        let (fresh, last) = (start == 0, self.last);
        let len = end - start;
        let panel = &panel[..len * V];
        let bias = &S::as_simd_f32s(self.bias).0[..V];
        let tiles = self.x.chunks_exact(R).zip(self.outs.chunks_exact_mut(R));
        for (t, (x, outs)) in tiles.enumerate() {
            // The tile's rows read in place: one broadcast per row and input.
            let rows: [&[f32]; R] = core::array::from_fn(|r| &x[r][start..end]);
            let sums = self.sums.get_mut(t * R * width..(t + 1) * R * width);
            let mut acc = [[simd.splat_f32s(0.0); V]; R];
            if let (false, Some(sums)) = (fresh, &sums) {
                for (row, sums) in acc.iter_mut().zip(sums.chunks_exact(width)) {
                    row.copy_from_slice(&S::as_simd_f32s(sums).0[..V]);
                }
            }
            // Lets the compiler drop the bounds checks of the loop below.
            assert!(rows.iter().all(|row| row.len() == len) && panel.len() == len * V);
            // By chunks: indexing the panel as `panel[i * V..]` left a bounds check and an
            // overflow check in WebAssembly's loop (24.6 against 27.4–27.7 GFLOP/s in
            // Chromium).
            for (i, w) in panel.chunks_exact(V).enumerate() {
                for r in 0..R {
                    let a = simd.splat_f32s(rows[r][i]);
                    for v in 0..V {
                        acc[r][v] = madd(simd, a, w[v], acc[r][v]);
                    }
                }
            }
            match (last, sums) {
                (false, Some(sums)) => {
                    for (row, sums) in acc.iter().zip(sums.chunks_exact_mut(width)) {
                        S::as_mut_simd_f32s(sums).0[..V].copy_from_slice(row);
                    }
                }
                _ => {
                    for (row, out) in acc.iter_mut().zip(outs.iter_mut()) {
                        for (a, &b) in row.iter_mut().zip(bias) {
                            *a = simd.add_f32s(*a, b);
                        }
                        let out = &mut out[at..];
                        if let Some(out) = out.get_mut(..width) {
                            S::as_mut_simd_f32s(out).0[..V].copy_from_slice(row);
                        } else {
                            // The layer's last panel, cut at its last channel.
                            let mut full = [0.0f32; MAX_WIDTH];
                            S::as_mut_simd_f32s(&mut full[..width]).0[..V].copy_from_slice(row);
                            let used = out.len();
                            out.copy_from_slice(&full[..used]);
                        }
                    }
                }
            }
        }
    }

    /// [`Panel::run`] one f32 at a time, for any shape.
    fn run_scalar(self) {
        let width = self.shape.width;
        let (start, end) = (self.inputs.start, self.inputs.end);
        let rows = self.x.iter().zip(self.outs.iter_mut()).enumerate();
        for (r, (row, out)) in rows {
            let out = &mut out[self.at..];
            for j in 0..out.len().min(width) {
                let sum = self.sums.get_mut(r * width + j);
                let mut acc = match (start, &sum) {
                    (0, _) | (_, None) => 0.0,
                    (_, Some(sum)) => **sum,
                };
                let weights = self.panel.iter().skip(j).step_by(width);
                for (&x, &w) in row[start..end].iter().zip(weights) {
                    acc = madd_scalar(x, w, acc);
                }
                match (self.last, sum) {
                    (false, Some(sum)) => *sum = acc,
                    _ => out[j] = acc + self.bias[j],
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `x · W + b` summed in f64, `W` stored `[k, n]`.
    fn reference(x: &[f32], w: &[f32], b: &[f32], k: usize, n: usize) -> Vec<f64> {
        x.chunks_exact(k)
            .flat_map(|row| {
                (0..n).map(move |j| {
                    b[j] as f64
                        + (0..k)
                            .map(|i| row[i] as f64 * w[i * n + j] as f64)
                            .sum::<f64>()
                })
            })
            .collect()
    }

    /// Deterministic values in [-1, 1) (the dense layer's tests use them too).
    pub(crate) fn values(len: usize, seed: u32) -> Vec<f32> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (s >> 8) as f32 / (1u32 << 23) as f32 - 1.0
            })
            .collect()
    }

    #[test]
    fn hand_worked_layer() {
        // W = [[1, 2], [3, 4], [5, 6]] ([in 3, out 2]), b = [0.5, -1]; x = [1, 0, -1]:
        // y = [1 - 5 + 0.5, 2 - 6 - 1] = [-3.5, -5].
        let packed = PackedF32::pack(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3, 2, &[0.5, -1.0]).unwrap();
        assert_eq!(packed.forward(&[1.0, 0.0, -1.0]), Some(vec![-3.5, -5.0]));
    }

    #[test]
    fn every_shape_matches_the_f64_sum() {
        // Rows not a multiple of any tile, channels not a multiple of a panel, odd `k`.
        for (rows, k, n) in [
            (1, 1, 1),
            (3, 7, 33),
            (9, 64, 70),
            (17, 129, 96),
            (128, 48, 31),
            (300, 600, 40),
            // Enough rows that each piece is a whole chunk of rows over every panel.
            (1000, 64, 70),
            (1030, 40, 128),
        ] {
            let x = values(rows * k, 1);
            let w = values(k * n, 2);
            let b = values(n, 3);
            let got = PackedF32::pack(&w, k, n, &b).unwrap().forward(&x).unwrap();
            let want = reference(&x, &w, &b, k, n);
            assert_eq!(got.len(), rows * n);
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (*g as f64 - w).abs() <= 1e-5 * k as f64,
                    "{g} vs {w} ({rows}×{k}×{n})"
                );
            }
        }
    }

    /// Each of `rows` of a batch of `batch` rows (`k` inputs, `n` outputs; values from
    /// `seed` on) gets the same bits from a call of its own as in the batch.
    fn rows_alone_match_the_batch(k: usize, n: usize, batch: usize, rows: &[usize], seed: u32) {
        let x = values(batch * k, seed);
        let w = values(k * n, seed + 1);
        let packed = PackedF32::pack(&w, k, n, &values(n, seed + 2)).unwrap();
        let together = packed.forward(&x).unwrap();
        for &r in rows {
            let alone = packed.forward(&x[r * k..][..k]).unwrap();
            assert_eq!(alone, together[r * n..(r + 1) * n], "row {r} of {batch}");
        }
    }

    #[test]
    fn a_row_gets_the_same_bits_alone_or_in_a_batch() {
        rows_alone_match_the_batch(40, 50, 11, &(0..11).collect::<Vec<_>>(), 4);
    }

    #[test]
    fn a_row_gets_the_same_bits_in_a_large_batch() {
        // Whole chunks of rows (1,000 rows) against the panels shared out (one row); the
        // channels not a multiple of a panel, so the last panel's outputs are cut.
        rows_alone_match_the_batch(300, 70, 1000, &[0, 1, 127, 128, 500, 998, 999], 10);
    }

    #[test]
    fn a_shape_for_another_cpu_gives_the_same_bits_one_value_at_a_time() {
        // Width 48 and tiles of 5 rows match no SIMD kernel: the scalar path runs, with the
        // same fused multiply-adds in the same order.
        let (rows, k, n) = (13, 300, 70);
        let (x, w, b) = (values(rows * k, 7), values(k * n, 8), values(n, 9));
        let odd = Shape { width: 48, rows: 5 };
        let scalar = PackedF32::pack_as(&w, k, n, &b, odd).unwrap().forward(&x);
        assert_eq!(scalar, PackedF32::pack(&w, k, n, &b).unwrap().forward(&x));
    }

    #[test]
    fn no_rows_give_no_outputs() {
        let packed = PackedF32::pack(&[1.0; 6], 3, 2, &[0.0; 2]).unwrap();
        assert_eq!(packed.forward(&[]), Some(vec![]));
    }

    #[test]
    fn streamed_hand_worked_layer() {
        // The layer of `hand_worked_layer`, from the weight as stored.
        let mut out = vec![9.0; 7];
        let w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        PackedF32::forward_streamed(&w, 3, 2, &[0.5, -1.0], &[1.0, 0.0, -1.0], &mut out).unwrap();
        assert_eq!(out, vec![-3.5, -5.0]);
    }

    #[test]
    fn streamed_gives_the_packed_products_bits() {
        // The same sums in the same order, so the same bits: rows over several chunks and not
        // a whole tile, channels cutting the last panel, `k` above one block of inputs.
        for (rows, k, n) in [
            (1, 1, 1),
            (3, 7, 33),
            (17, 129, 96),
            (300, 200, 40),
            (130, 768, 50),
        ] {
            let x = values(rows * k, 4);
            let w = values(k * n, 5);
            let b = values(n, 6);
            let packed = PackedF32::pack(&w, k, n, &b).unwrap().forward(&x).unwrap();
            let mut streamed = Vec::new();
            PackedF32::forward_streamed(&w, k, n, &b, &x, &mut streamed).unwrap();
            assert_eq!(streamed, packed, "{rows} rows, k {k}, n {n}");
        }
    }

    #[test]
    fn whole_panels_copy_as_the_cut_copy_does() {
        // `pack_panel::<12>` is WebAssembly's (12-wide panels); natively the panels are wider
        // and take the cut copy, so compare the two here, at every whole panel of 3 rows × 40.
        let w = values(3 * 40, 7);
        for first in (0..=28).step_by(12) {
            let (mut fixed, mut cut) = (vec![0.0; 36], vec![0.0; 36]);
            pack_panel::<12>(&w, 40, first, &mut fixed);
            pack_panel_cut(&w, 40, first, 12, &mut cut);
            assert_eq!(fixed, cut, "panel at {first}");
            assert_eq!(fixed[12..24], w[40 + first..40 + first + 12]);
        }
    }

    /// WebAssembly's shape (12-wide panels, tiles of 3 rows of 3 vectors of 4) run natively on
    /// 4-lane vectors (SSE4.2, pulp's `V2`) against the same shape one value at a time: the
    /// tile's own indexing — which row and lane each sum reads and where it is stored, the
    /// cut last panel, the padded last tile — to the bit. Natively both sides fuse each
    /// multiply-add (in WebAssembly both multiply, then add), so only the arithmetic's
    /// rounding is not the browser's here.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn webassemblys_tile_gives_the_bits_of_one_value_at_a_time() {
        let Some(four_lanes) = pulp::x86::V2::try_new() else {
            eprintln!("SKIP: this CPU has no SSE4.2 (pulp's V2), so no 4-lane vectors to test");
            return;
        };
        let shape = Shape { width: 12, rows: 3 };
        // Rows over two chunks and not a whole tile; channels cutting the last panel.
        for (rows, k, n) in [(1, 5, 12), (4, 33, 29), (7, 64, 36), (131, 96, 50)] {
            let (x, w, b) = (values(rows * k, 11), values(k * n, 12), values(n, 13));
            let (mut simd, mut scalar) = (Vec::new(), Vec::new());
            PackedF32::streamed_as(&w, k, n, &b, &x, &mut simd, shape, |panel| {
                pulp::Simd::vectorize(four_lanes, panel)
            })
            .unwrap();
            PackedF32::streamed_as(&w, k, n, &b, &x, &mut scalar, shape, |panel| {
                pulp::Simd::vectorize(pulp::Scalar, panel)
            })
            .unwrap();
            assert_eq!(simd.len(), rows * n);
            assert_eq!(simd, scalar, "{rows} rows, k {k}, n {n}");
            // And the sums are the product's: within f32 rounding of the f64 sum.
            for (g, want) in simd.iter().zip(reference(&x, &w, &b, k, n)) {
                assert!((*g as f64 - want).abs() <= 1e-5 * k as f64, "{g} vs {want}");
            }
        }
    }

    #[test]
    fn streamed_refuses_wrong_lengths() {
        let mut out = Vec::new();
        assert!(
            PackedF32::forward_streamed(&[1.0; 5], 3, 2, &[0.0; 2], &[1.0; 3], &mut out).is_none()
        );
        assert!(
            PackedF32::forward_streamed(&[1.0; 6], 3, 2, &[0.0; 3], &[1.0; 3], &mut out).is_none()
        );
        assert!(
            PackedF32::forward_streamed(&[1.0; 6], 3, 2, &[0.0; 2], &[1.0; 4], &mut out).is_none()
        );
        assert!(PackedF32::forward_streamed(&[], 0, 2, &[0.0; 2], &[], &mut out).is_none());
        assert!(PackedF32::forward_streamed(&[], 3, 0, &[], &[1.0; 3], &mut out).is_none());
        PackedF32::forward_streamed(&[1.0; 6], 3, 2, &[0.0; 2], &[], &mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn wrong_lengths_are_refused() {
        assert!(PackedF32::pack(&[1.0; 5], 3, 2, &[0.0; 2]).is_none());
        assert!(PackedF32::pack(&[1.0; 6], 3, 2, &[0.0; 3]).is_none());
        assert!(PackedF32::pack(&[], 0, 2, &[0.0; 2]).is_none());
        let packed = PackedF32::pack(&[1.0; 6], 3, 2, &[0.0; 2]).unwrap();
        assert!(packed.forward(&[1.0; 4]).is_none());
    }
}
