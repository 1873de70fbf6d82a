//! An f32 dense product `x · W` (`x` `[m, k]`, `W` `[k, n]`, both row-major) in WebAssembly
//! SIMD128, four ways, for `scripts/bench-wasm-tiles.sh`: burn's gemm, tiles of `R` rows × `V`
//! vectors of 4 over a weight packed beforehand in panels of `4·V` channels, the 3 × 3 tile
//! with each panel packed as it is reached (what the worker does), and a tile reading the
//! weight unpacked, a row apart. The exports take a count of calls; the page times them.

use core::arch::wasm32::*;

/// The problem the exports work on (set by [`setup`]).
struct Problem {
    m: usize,
    k: usize,
    n: usize,
    x: Vec<f32>,
    w: Vec<f32>,
    out: Vec<f32>,
    /// `W` in panels of `width` channels, `k` rows of `width` each.
    packed: Vec<f32>,
    width: usize,
}

thread_local! {
    static PROBLEM: core::cell::RefCell<Option<Problem>> = const { core::cell::RefCell::new(None) };
}

/// Deterministic values in [-0.5, 0.5).
fn values(len: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / 16_777_216.0 - 0.5
        })
        .collect()
}

/// Makes the problem `[m, k] · [k, n]`.
#[no_mangle]
pub extern "C" fn setup(m: usize, k: usize, n: usize) {
    let problem = Problem {
        m,
        k,
        n,
        x: values(m * k, 1),
        w: values(k * n, 2),
        out: vec![0.0; m * n],
        packed: Vec::new(),
        width: 0,
    };
    PROBLEM.with(|p| *p.borrow_mut() = Some(problem));
}

/// Runs `f` on the problem; 0 before [`setup`].
fn with_problem(f: impl FnOnce(&mut Problem) -> f32) -> f32 {
    PROBLEM.with(|p| p.borrow_mut().as_mut().map_or(0.0, f))
}

/// `iters` products by burn's gemm (one thread).
#[no_mangle]
pub extern "C" fn run_gemm(iters: u32) -> f32 {
    with_problem(|p| {
        for _ in 0..iters {
            // SAFETY: every pointer and stride describes a buffer of the problem's own size.
            unsafe {
                gemm::gemm(
                    p.m,
                    p.n,
                    p.k,
                    p.out.as_mut_ptr(),
                    1,
                    p.n as isize,
                    false,
                    p.x.as_ptr(),
                    1,
                    p.k as isize,
                    p.w.as_ptr(),
                    1,
                    p.n as isize,
                    0.0f32,
                    1.0f32,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
        }
        p.out[p.out.len() - 1]
    })
}

/// Packs `W`'s channels `first..first + width` into `panel` (`k` rows of `width`).
fn pack_panel(w: &[f32], n: usize, first: usize, width: usize, panel: &mut [f32]) {
    for (packed, row) in panel.chunks_exact_mut(width).zip(w.chunks_exact(n)) {
        packed.copy_from_slice(&row[first..first + width]);
    }
}

/// One tile: rows `row0..row0 + R` of `x` times a panel of `4·V` channels whose rows lie
/// `stride` floats apart (`4·V` packed, `n` in place), stored at column `col0` of `out`. Raw
/// loads (`v128.load`, `v128.load32_splat`) after one check of the bounds, as the worker's
/// kernel compiles to: indexed loads left a check in the loop.
#[inline(never)]
fn tile<const R: usize, const V: usize>(
    x: &[f32],
    k: usize,
    row0: usize,
    panel: &[f32],
    stride: usize,
    out: &mut [f32],
    n: usize,
    col0: usize,
) {
    assert!((row0 + R) * k <= x.len() && (k - 1) * stride + 4 * V <= panel.len());
    assert!((row0 + R - 1) * n + col0 + 4 * V <= out.len());
    let mut acc = [[f32x4_splat(0.0); V]; R];
    let (xp, wp) = (x.as_ptr(), panel.as_ptr());
    for i in 0..k {
        let mut w = [f32x4_splat(0.0); V];
        for (v, w) in w.iter_mut().enumerate() {
            // SAFETY: within `panel`, by the assertion above.
            *w = unsafe { v128_load(wp.add(i * stride + 4 * v) as *const v128) };
        }
        for (r, acc) in acc.iter_mut().enumerate() {
            // SAFETY: within `x`, by the assertion above.
            let b = unsafe { v128_load32_splat(xp.add((row0 + r) * k + i) as *const u32) };
            for (a, w) in acc.iter_mut().zip(&w) {
                *a = f32x4_add(*a, f32x4_mul(b, *w));
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        for (v, a) in row.iter().enumerate() {
            let at = (row0 + r) * n + col0 + 4 * v;
            // SAFETY: within `out`, by the assertion above.
            unsafe { v128_store(out.as_mut_ptr().add(at) as *mut v128, *a) };
        }
    }
}

/// `iters` products in tiles of `R × V`, the weight packed beforehand (`ahead`), each panel
/// packed as it is reached, or read in place (`in_place`). Rows past the last whole tile and
/// channels past the last whole panel are left out (the shapes measured have none).
fn run_tiles<const R: usize, const V: usize>(p: &mut Problem, iters: u32, how: u32) -> f32 {
    let width = 4 * V;
    let panels = p.n / width;
    if how == AHEAD && p.width != width {
        p.packed = vec![0.0; panels * p.k * width];
        for (q, panel) in p.packed.chunks_exact_mut(p.k * width).enumerate() {
            pack_panel(&p.w, p.n, q * width, width, panel);
        }
        p.width = width;
    }
    let mut buffer = vec![0.0f32; p.k * width];
    for _ in 0..iters {
        for q in 0..panels {
            let (panel, stride): (&[f32], usize) = match how {
                AHEAD => (&p.packed[q * p.k * width..][..p.k * width], width),
                AS_REACHED => {
                    pack_panel(&p.w, p.n, q * width, width, &mut buffer);
                    (&buffer, width)
                }
                _ => (&p.w[q * width..], p.n),
            };
            for t in 0..p.m / R {
                tile::<R, V>(&p.x, p.k, t * R, panel, stride, &mut p.out, p.n, q * width);
            }
        }
    }
    p.out[p.out.len() - 1]
}

const AHEAD: u32 = 0;
const AS_REACHED: u32 = 1;
const IN_PLACE: u32 = 2;

/// `iters` products by the tile `rows × vectors` (2 × 4, 3 × 3, 4 × 2, 4 × 3, 6 × 2), its
/// weight packed `how`: 0 beforehand, 1 panel by panel as reached, 2 not at all. -1 for a
/// tile not built.
#[no_mangle]
pub extern "C" fn run_tile(rows: u32, vectors: u32, how: u32, iters: u32) -> f32 {
    let how = how.min(IN_PLACE);
    with_problem(|p| match (rows, vectors) {
        (2, 4) => run_tiles::<2, 4>(p, iters, how),
        (3, 3) => run_tiles::<3, 3>(p, iters, how),
        (4, 2) => run_tiles::<4, 2>(p, iters, how),
        (4, 3) => run_tiles::<4, 3>(p, iters, how),
        (6, 2) => run_tiles::<6, 2>(p, iters, how),
        _ => -1.0,
    })
}

/// The largest |difference| between the last product and an f64 sum, on a sample of outputs.
#[no_mangle]
pub extern "C" fn check() -> f64 {
    PROBLEM.with(|p| {
        let p = p.borrow();
        let Some(p) = p.as_ref() else { return f64::NAN };
        let mut worst = 0.0f64;
        for r in (0..p.m).step_by(7) {
            for c in (0..p.n).step_by(5) {
                let want: f64 = (0..p.k)
                    .map(|i| f64::from(p.x[r * p.k + i]) * f64::from(p.w[i * p.n + c]))
                    .sum();
                worst = worst.max((want - f64::from(p.out[r * p.n + c])).abs());
            }
        }
        worst
    })
}
