//! A short measured warm-up of each device, to choose between WebGPU and the CPU: the time of
//! one matrix product the size of a roberta-base projection over 128 tokens (`[128, 768] ×
//! [768, 768]`, 151 MFLOP), its result on the host, by the code the model's dense layers run
//! on that device — burn's matmul on WebGPU ([`matmul_ms`]), tabprobe's own f32 product on
//! the browser worker's CPU path ([`cpu_product_ms`]). Matrix products are most of a forward
//! pass, so the faster device here is the faster device for the model; a software WebGPU
//! adapter (SwiftShader) takes hundreds of milliseconds where a CPU takes a few.

use burn::prelude::*;

use crate::blocks::packed::PackedF32;

/// Rows, inner size and columns of the measured product.
pub const PRODUCT: [usize; 3] = [128, 768, 768];

/// The best of `repeats` timed products on `device` by burn's matmul after one untimed one
/// (which compiles the kernels), in milliseconds by `now` (a millisecond clock:
/// `performance.now()` in a browser, a monotonic clock natively).
pub async fn matmul_ms(
    device: &Device,
    repeats: usize,
    now: &dyn Fn() -> f64,
) -> Result<f64, String> {
    let [m, k, n] = PRODUCT;
    let a = Tensor::<2>::from_data(TensorData::new(ramp(m * k), [m, k]), device);
    let b = Tensor::<2>::from_data(TensorData::new(ramp(k * n), [k, n]), device);
    let mut best = f64::INFINITY;
    for i in 0..=repeats.max(1) {
        let started = now();
        let data = a
            .clone()
            .matmul(b.clone())
            .into_data_async()
            .await
            .map_err(|e| format!("reading the product failed: {e:?}"))?;
        let values = data
            .as_slice::<f32>()
            .map_err(|e| format!("the product is not f32: {e:?}"))?;
        check(values)?;
        if i > 0 {
            best = best.min(now() - started);
        }
    }
    Ok(best)
}

/// [`matmul_ms`] for the CPU as the browser worker's model runs its f32 dense layers there:
/// [`PackedF32::forward_streamed`] from a weight stored `[in, out]`, with a bias, on this
/// thread. (burn's matmul, which the worker timed on the CPU before, is gemm's: 24–25 GFLOP/s
/// on this product in Chromium against 28.0 for this one, and a whole model 1.07–1.08 examples/s
/// against 1.22–1.23 on this one; the AMD EPYC, one worker, 2026-12-01,
/// docs/benchmarks.md#the-browser-workers-f32-product.)
pub fn cpu_product_ms(repeats: usize, now: &dyn Fn() -> f64) -> Result<f64, String> {
    let [m, k, n] = PRODUCT;
    let (x, weight, bias) = (ramp(m * k), ramp(k * n), vec![0.5f32; n]);
    let mut out = Vec::new();
    let mut best = f64::INFINITY;
    for i in 0..=repeats.max(1) {
        let started = now();
        PackedF32::forward_streamed(&weight, k, n, &bias, &x, &mut out)
            .ok_or("the CPU product refused its own inputs")?;
        check(&out)?;
        if i > 0 {
            best = best.min(now() - started);
        }
    }
    Ok(best)
}

/// A product of [`PRODUCT`]'s shape, whole and finite.
fn check(values: &[f32]) -> Result<(), String> {
    let [m, _, n] = PRODUCT;
    if values.len() != m * n || !values.iter().all(|v| v.is_finite()) {
        return Err("the product came back wrong".to_string());
    }
    Ok(())
}

/// Small, varied, finite values (the product's speed does not depend on them).
fn ramp(len: usize) -> Vec<f32> {
    (0..len).map(|i| ((i % 17) as f32 - 8.0) / 64.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> impl Fn() -> f64 {
        let started = std::time::Instant::now();
        move || started.elapsed().as_secs_f64() * 1000.0
    }

    #[test]
    fn the_cpu_matmul_is_timed_and_checked() {
        let now = clock();
        let ms = futures_lite::future::block_on(matmul_ms(&Device::flex(), 2, &now)).unwrap();
        assert!(ms > 0.0 && ms.is_finite(), "{ms} ms");
    }

    #[test]
    fn the_cpu_product_is_timed_and_checked() {
        let now = clock();
        let ms = cpu_product_ms(2, &now).unwrap();
        assert!(ms > 0.0 && ms.is_finite(), "{ms} ms");
    }

    #[test]
    fn a_wrong_product_is_refused() {
        let [m, _, n] = PRODUCT;
        assert!(check(&vec![0.0; m * n]).is_ok());
        assert!(check(&vec![0.0; m * n - 1]).is_err());
        let mut nan = vec![0.0; m * n];
        nan[5] = f32::NAN;
        assert!(check(&nan).is_err());
    }

    #[test]
    fn both_timings_compute_the_same_product() {
        // The ramp product: tabprobe's product with its bias of 0.5 is burn's matmul + 0.5,
        // within f32 summation order (768 terms, each at most (8/64)² in size).
        let [m, k, n] = PRODUCT;
        let (a, b) = (ramp(m * k), ramp(k * n));
        let device = Device::flex();
        let burn = Tensor::<2>::from_data(TensorData::new(a.clone(), [m, k]), &device)
            .matmul(Tensor::<2>::from_data(
                TensorData::new(b.clone(), [k, n]),
                &device,
            ))
            .into_data();
        let burn = burn.as_slice::<f32>().unwrap();
        let mut ours = Vec::new();
        PackedF32::forward_streamed(&b, k, n, &vec![0.5; n], &a, &mut ours).unwrap();
        // Row 1, column 2 by hand: Σ_i ramp(768 + i) · ramp(i·768 + 2).
        let hand: f64 = (0..k)
            .map(|i| {
                let r = |j: usize| ((j % 17) as f64 - 8.0) / 64.0;
                r(k + i) * r(i * n + 2)
            })
            .sum();
        assert!(
            (ours[n + 2] as f64 - (hand + 0.5)).abs() < 1e-4,
            "{} vs {hand}",
            ours[n + 2]
        );
        for (o, b) in ours.iter().zip(burn) {
            assert!((o - (b + 0.5)).abs() < 1e-4, "{o} vs {b} + 0.5");
        }
    }
}
