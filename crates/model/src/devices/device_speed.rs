//! A short measured warm-up of a device, to choose between WebGPU and the CPU: the time of one
//! matrix product the size of a roberta-base projection over 128 tokens (`[128, 768] ×
//! [768, 768]`, 151 MFLOP), read back to the host. Matrix products are most of a forward
//! pass, so the faster device here is the faster device for the model; a software WebGPU
//! adapter (SwiftShader) takes hundreds of milliseconds where a CPU takes a few.

use burn::prelude::*;

/// Rows, inner size and columns of the measured product.
pub const PRODUCT: [usize; 3] = [128, 768, 768];

/// The best of `repeats` timed products on `device` after one untimed one (which compiles the
/// kernels), in milliseconds by `now` (a millisecond clock: `performance.now()` in a
/// browser, a monotonic clock natively).
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
        if values.len() != m * n || !values.iter().all(|v| v.is_finite()) {
            return Err("the product came back wrong".to_string());
        }
        if i > 0 {
            best = best.min(now() - started);
        }
    }
    Ok(best)
}

/// Small, varied, finite values (the product's speed does not depend on them).
fn ramp(len: usize) -> Vec<f32> {
    (0..len).map(|i| ((i % 17) as f32 - 8.0) / 64.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_product_is_timed_and_checked() {
        let clock = std::time::Instant::now();
        let now = || clock.elapsed().as_secs_f64() * 1000.0;
        let ms = futures_lite::future::block_on(matmul_ms(&Device::flex(), 2, &now)).unwrap();
        assert!(ms > 0.0 && ms.is_finite(), "{ms} ms");
    }
}
