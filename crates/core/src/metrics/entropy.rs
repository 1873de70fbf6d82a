//! Shannon entropy of a model's label probabilities, computed so that every target gives the
//! same bytes. `f64::ln` comes from the platform's libm (glibc natively, Rust's libm port in
//! wasm32), whose last bits may differ, and run reports must be identical in the browser and
//! on the command line; so the logarithm here uses only IEEE-754 basic operations (`+ - * /`
//! and exact bit manipulation), which are correctly rounded everywhere, in a fixed order.

use std::f64::consts::{LN_2, SQRT_2};

/// Terms of the atanh series below: with |s| ≤ 0.1716, s² ≤ 0.0295 and the 13th term is
/// below 2⁻⁶⁰ of the first, past f64 precision.
const SERIES_TERMS: u32 = 13;

/// Natural logarithm of a positive finite `x`, to within a few ulps of the true value, with
/// the same bits on every target. `x = m · 2^e` with `m` in (√½, √2] (read exactly from the
/// bits), then `ln m = 2 atanh(s)`, `s = (m − 1)/(m + 1)`, summed as a fixed-length series.
/// Returns NaN for `x ≤ 0` or non-finite `x`.
pub fn ln(x: f64) -> f64 {
    if !(x > 0.0 && x.is_finite()) {
        return f64::NAN;
    }
    let (mut x, mut e) = (x, 0i64);
    if x < f64::MIN_POSITIVE {
        // Subnormal: scale by 2⁵⁴ (exact) so the exponent field is meaningful.
        x *= f64::from_bits((1023 + 54) << 52);
        e -= 54;
    }
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    if m > SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    // Horner form of 1 + s²/3 + s⁴/5 + …, innermost term first.
    let mut sum = 0.0;
    for k in (0..SERIES_TERMS).rev() {
        sum = sum * s2 + 1.0 / f64::from(2 * k + 1);
    }
    e as f64 * LN_2 + 2.0 * s * sum
}

/// Entropy in nats, `−Σ p ln p` over the non-zero probabilities, summed in label order.
pub fn entropy(p: &[f32]) -> f64 {
    p.iter()
        .filter(|&&x| x > 0.0)
        .map(|&x| {
            let x = f64::from(x);
            -(x * ln(x))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two_are_exact() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.5), -LN_2);
        assert_eq!(ln(0.25), -2.0 * LN_2);
        assert_eq!(ln(8.0), 3.0 * LN_2);
        // Uniform over two labels: ln 2 exactly; over four dyadic shares: 1.5 ln 2.
        assert_eq!(entropy(&[0.5, 0.5, 0.0]), LN_2);
        assert_eq!(entropy(&[0.5, 0.25, 0.25]), 1.5 * LN_2);
        assert_eq!(entropy(&[1.0, 0.0, 0.0]), 0.0);
    }

    #[test]
    fn close_to_libm_everywhere() {
        // Relative error within 4 ulps of f64::ln over probabilities and beyond.
        let mut x = 1e-300_f64;
        while x < 1e300 {
            let (a, b) = (ln(x), x.ln());
            assert!(
                (a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1.0),
                "{x}: {a} {b}"
            );
            x *= 1.37;
        }
        for k in 1..1000 {
            let p = k as f64 / 1000.0;
            assert!((ln(p) - p.ln()).abs() < 1e-15, "{p}");
        }
        assert!((ln(5e-324) - 5e-324_f64.ln()).abs() < 1e-12);
        assert!(ln(0.0).is_nan() && ln(-1.0).is_nan() && ln(f64::INFINITY).is_nan());
        let third = 1.0f32 / 3.0;
        assert!((entropy(&[third, third, third]) - 3f64.ln()).abs() < 1e-7);
    }
}
