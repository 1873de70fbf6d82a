//! A freshly initialised checkpoint, as `transformers`' `RobertaPreTrainedModel._init_weights`
//! does it: weights and embeddings drawn from N(0, `initializer_range`²), biases 0, LayerNorm
//! gain 1 and shift 0, the padding rows of the word and position tables 0 — drawn from core's
//! seeded [`Rng`] so that one seed gives one model, bit for bit.

use tabprobe_core::rng::Rng;

use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::walk::expected_shapes;
use crate::train::params::write_f32;

/// One draw from N(0, 1) by the Box–Muller transform of two uniform draws.
fn standard_normal(rng: &mut Rng) -> f64 {
    // 53 random bits → (0, 1]; never 0, so ln is finite.
    let u1 = ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    let u2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The values of one tensor (PyTorch layout) under `transformers`' initialisation.
fn init_values(name: &str, shape: &[usize], config: &RobertaConfig, rng: &mut Rng) -> Vec<f32> {
    let n: usize = shape.iter().product();
    if name.ends_with("LayerNorm.weight") {
        return vec![1.0; n];
    }
    if name.ends_with(".bias") {
        return vec![0.0; n];
    }
    let std = config.initializer_range;
    let mut values: Vec<f32> = (0..n)
        .map(|_| (standard_normal(rng) * std) as f32)
        .collect();
    // nn.Embedding(padding_idx=pad) rows stay zero (word and position tables).
    if name == crate::families::encoder::names::WORD_EMBEDDINGS
        || name == crate::families::encoder::names::POSITION_EMBEDDINGS
    {
        let width = shape[1];
        let start = config.pad_token_id * width;
        if let Some(row) = values.get_mut(start..start + width) {
            row.fill(0.0);
        }
    }
    values
}

/// `model.safetensors` bytes of a new model of shape `config`, initialised from `seed`.
/// Tensors are drawn in name order, so the result depends on the seed and the config only.
pub fn initial_weights(config: &RobertaConfig, seed: u64) -> Result<Vec<u8>, String> {
    let mut rng = Rng::derive(seed, "init");
    let shapes = expected_shapes(config); // sorted by name
    let stored = shapes
        .iter()
        .map(|(name, shape)| {
            let values = init_values(name, shape, config, &mut rng);
            let bytes = values.iter().flat_map(|x| x.to_le_bytes()).collect();
            (name.clone(), shape.clone(), bytes)
        })
        .collect();
    write_f32(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_draws_have_mean_zero_and_unit_variance() {
        let mut rng = Rng::new(7);
        let n = 20_000;
        let xs: Vec<f64> = (0..n).map(|_| standard_normal(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        // Standard errors: 1/sqrt(n) ≈ 0.007 for the mean, ≈ 0.01 for the variance.
        assert!(mean.abs() < 0.03, "mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
    }
}
