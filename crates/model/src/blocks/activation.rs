//! GELU (the exact, erf form) on the CPU as one pass over the activations that the compiler
//! vectorises and, natively, every core shares. burn's `flex` backend computes it element by
//! element with `libm::erff` on one thread: 7–8 % of the CLI's samples on roberta-base, about
//! twice that of its wall time on two cores (issue 33, item 6). Other devices (WebGPU, wgpu,
//! and autodiff, whose graph needs burn's own op for the gradient) keep burn's `gelu`. Also
//! [`HiddenAct`], the feed-forward activation a config names.

use burn::tensor::activation::{gelu as burn_gelu, gelu_approximate, relu};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

/// Elements per piece handed to one core: large enough that scheduling costs nothing beside
/// the arithmetic, small enough that a [batch·seq, 3072] activation splits over every core.
#[cfg(feature = "fast-cpu")]
const PIECE: usize = 16 * 1024;

/// `erf(x)` for f32 by the rational approximation XLA and Eigen use for single precision
/// (`x · P(x²) / Q(x²)` on `[-4, 4]`, where erf is ±1 to f32 precision outside). No branch and
/// no call, so a loop over it is vectorised; within 5e-7 of `libm::erff` (4.8e-7 measured; tested below).
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    // Odd numerator x·P(x²), P's coefficients from the highest power down.
    const P: [f32; 7] = [
        -2.726_142_3e-10,
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906_3e-4,
        -2.954_600e-3,
        -1.609_603_3e-2,
    ];
    // Even denominator Q(x²).
    const Q: [f32; 5] = [
        -1.456_607_2e-5,
        -2.133_740_6e-4,
        -1.682_827e-3,
        -7.373_329e-3,
        -1.426_474e-2,
    ];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = P.iter().fold(0.0f32, |acc, &c| acc * x2 + c);
    let q = Q.iter().fold(0.0f32, |acc, &c| acc * x2 + c);
    x * p / q
}

/// `0.5 · x · (1 + erf(x / √2))`, `transformers`' `gelu`.
#[inline(always)]
fn gelu_f32(x: f32) -> f32 {
    0.5 * x * (1.0 + erf_f32(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// GELU of every element of `values`, in place; natively split over every core (rayon).
pub fn gelu_in_place(values: &mut [f32]) {
    #[cfg(feature = "fast-cpu")]
    {
        use rayon::prelude::*;
        values.par_chunks_mut(PIECE).for_each(gelu_piece);
    }
    #[cfg(not(feature = "fast-cpu"))]
    gelu_piece(values);
}

/// GELU of `values` in place, compiled for the CPU's widest vectors by pulp's run-time
/// dispatch (each value's arithmetic is the same whatever the width).
fn gelu_piece(values: &mut [f32]) {
    super::dispatch::vectorize(
        #[inline(always)]
        || values.iter_mut().for_each(|v| *v = gelu_f32(*v)),
    );
}

/// Whether `device` is the plain CPU backend, where [`gelu`] runs its own pass (and where the
/// int8 precision runs).
pub(crate) fn is_plain_flex(device: &Device) -> bool {
    *device == Device::flex() && !device.is_autodiff()
}

/// Exact GELU: [`gelu_in_place`] on the CPU backend, burn's `gelu` elsewhere (and for any
/// float type other than f32).
pub fn gelu<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    let device = x.device();
    if !is_plain_flex(&device) {
        return burn_gelu(x);
    }
    let mut data = x.into_data();
    match data.as_mut_slice::<f32>() {
        Ok(values) => gelu_in_place(values),
        // Not f32 (the CPU path widens every checkpoint to f32, so this is not expected):
        // burn's own op.
        Err(_) => return burn_gelu(Tensor::from_data(data, &device)),
    }
    Tensor::from_data(data, &device)
}

/// Feed-forward activation named by `hidden_act`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum HiddenAct {
    /// Exact GELU, `x · Φ(x)` with erf (`transformers`' `gelu`).
    #[default]
    #[serde(rename = "gelu")]
    Gelu,
    /// The tanh approximation (`gelu_new`, `gelu_pytorch_tanh`).
    #[serde(rename = "gelu_new", alias = "gelu_pytorch_tanh")]
    GeluTanh,
    /// `max(0, x)`.
    #[serde(rename = "relu")]
    Relu,
}

impl HiddenAct {
    /// The activation applied to every element of `values` in place, on the host: for the
    /// exact GELU [`gelu_in_place`] (what [`HiddenAct::apply`] runs on the CPU backend); for
    /// the others burn's formulas, element by element.
    pub fn apply_in_place(self, values: &mut [f32]) {
        match self {
            Self::Gelu => gelu_in_place(values),
            Self::GeluTanh => {
                // burn's `gelu_approximate`: 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 x³))).
                let sqrt_2_over_pi =
                    (std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2) as f32;
                for v in values {
                    let x = *v;
                    let inner = (x + x.powf(3.0) * 0.044_715) * sqrt_2_over_pi;
                    *v = x * (inner.tanh() + 1.0) * 0.5;
                }
            }
            Self::Relu => values.iter_mut().for_each(|v| *v = v.max(0.0)),
        }
    }

    /// The activation applied to `x`.
    pub fn apply<const D: usize>(self, x: Tensor<D>) -> Tensor<D> {
        match self {
            Self::Gelu => gelu(x),
            Self::GeluTanh => gelu_approximate(x),
            Self::Relu => relu(x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::TensorData;

    /// Within 5e-7 of libm's erff (what burn's CPU GELU uses) on a dense grid over [-8, 8].
    #[test]
    fn erf_matches_libm() {
        let mut worst = 0.0f32;
        for i in -80_000..=80_000 {
            let x = i as f32 / 10_000.0;
            worst = worst.max((erf_f32(x) - libm::erff(x)).abs());
        }
        assert!(worst <= 5e-7, "max |erf - libm::erff| = {worst:e}");
        assert_eq!(erf_f32(0.0), 0.0);
        // Saturated: within two f32 steps below 1, where libm gives 1.0.
        assert!((erf_f32(100.0) - 1.0).abs() <= 2e-7);
        assert_eq!(erf_f32(-100.0), -erf_f32(100.0));
    }

    /// The fused pass equals burn's `gelu` on the CPU within 1e-6, hand-worked points included:
    /// gelu(1) = 0.5·(1 + erf(0.7071…)) = 0.841 344 7; gelu(-1) = -0.158 655 3.
    #[test]
    fn gelu_matches_burn() {
        let device = Device::flex();
        let values: Vec<f32> = (0..3 * 1000).map(|i| (i as f32 - 1500.0) / 150.0).collect();
        let x = Tensor::<2>::from_data(TensorData::new(values, [3, 1000]), &device);
        let ours: Vec<f32> = gelu(x.clone()).into_data().try_into_vec().unwrap();
        let burns: Vec<f32> = burn_gelu(x).into_data().try_into_vec().unwrap();
        let worst = ours
            .iter()
            .zip(&burns)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst <= 1e-6, "max |ours - burn| = {worst:e}");
        let mut hand = [1.0f32, -1.0];
        gelu_in_place(&mut hand);
        assert!((hand[0] - 0.841_344_7).abs() < 1e-6, "{}", hand[0]);
        assert!((hand[1] + 0.158_655_3).abs() < 1e-6, "{}", hand[1]);
    }
}
