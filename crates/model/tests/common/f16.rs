//! Mixed precision against f32 on one model (shared by `precision.rs` and
//! `precision_base.rs`): score at f32, switch to f16-mixed, score again, and hold the two to
//! a tolerance — same labels, |Δprobability| within it, and some rounding seen.

use tabprobe_core::scoring::Pair;
use tabprobe_model::devices::backend::NATIVE_GPU;
use tabprobe_model::{Device, NliModel, Precision, PrecisionError};

use super::fixtures::gap;

/// The largest |Δprobability| f16-mixed may differ from f32 by on a well-conditioned checkpoint
/// (the parity).
pub const PROB_TOL: f32 = 1e-3;

/// Reads a fixture file; panics naming it.
pub fn read(path: std::path::PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The checkpoint in `dir`, with `weights` and `config` instead of its own when given.
pub fn load(
    dir: &std::path::Path,
    weights: Option<Vec<u8>>,
    config: Option<Vec<u8>>,
    device: &Device,
) -> NliModel {
    let config = config.unwrap_or_else(|| read(dir.join("config.json")));
    let weights = weights.unwrap_or_else(|| read(dir.join("model.safetensors")));
    let tokenizer = read(dir.join("tokenizer.json"));
    let name = dir.display().to_string();
    super::load_bytes(&name, &config, &weights, &tokenizer, device)
}

/// Scores `pairs` at f32, switches `model` to f16-mixed and scores them again; asserts the
/// parity and prints the gap.
pub fn check(name: &str, mut model: NliModel, pairs: &[Pair], backend: &str, tol: f32) {
    assert_eq!(model.precision(), Precision::F32);
    let f32_scores = model.score_blocking(pairs).unwrap();
    model.set_precision(Precision::F16Mixed).unwrap();
    assert_eq!(model.id().precision, Precision::F16Mixed);
    assert!(
        model.id().label().ends_with(", f16-mixed)"),
        "{}",
        model.id().label()
    );
    let f16_scores = model.score_blocking(pairs).unwrap();
    let g = gap(&f32_scores, &f16_scores);
    println!(
        "{backend} {name}: {} pairs, f16-mixed vs f32: max |Δprob| {:.2e} (allowed {tol:.2e}), max |Δlogit| {:.2e}",
        pairs.len(),
        g.prob,
        g.logit
    );
    assert!(
        g.flipped.is_empty(),
        "{backend} {name}: labels differ on pairs {:?}",
        g.flipped
    );
    assert!(
        g.prob <= tol,
        "{backend} {name}: |Δprob| {} > {tol}",
        g.prob
    );
    // Not a no-op: f16 rounding must show somewhere, or the f16 path did not run.
    assert!(
        g.logit > 0.0,
        "{backend} {name}: f16-mixed gave f32's exact logits"
    );
    assert_eq!(
        model.set_precision(Precision::F32),
        Err(PrecisionError::AlreadyRounded)
    );
}

/// This build's native GPU device with 16-bit floats, or `None` after a SKIPPED line.
pub fn gpu_with_f16(what: &str) -> Option<Device> {
    let device = super::native_gpu(what)?;
    if !device.supports_dtype(burn::tensor::FloatDType::F16) {
        eprintln!("SKIPPED {NATIVE_GPU} {what}: the adapter has no 16-bit float arithmetic");
        return None;
    }
    Some(device)
}
