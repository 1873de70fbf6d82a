//! Mixed precision on a roberta-base-shaped checkpoint (hidden 768, 12 layers) on this build's
//! native GPU (Mesa's lavapipe here): f16-mixed keeps the labels of two golden pairs and their
//! probabilities within 1e-3 of f32 (docs/model-families.md#precision). Its own test binary:
//! in a debug build on lavapipe it is the slowest there is, and each test is kept under 3
//! minutes.

mod common;

use common::f16::{check, gpu_with_f16, load, PROB_TOL};
use tabprobe_model::bench::{random_weights, roberta_base_config_json};
use tabprobe_model::devices::backend::NATIVE_GPU;
use tabprobe_model::{Device, RobertaConfig};

/// A roberta-base-shaped checkpoint (hidden 768, 12 layers) with the bench's reproducible
/// random weights, read through the tiny fixture's tokenizer.
fn check_roberta_base(device: &Device, backend: &str) {
    let json = roberta_base_config_json(512);
    let config = RobertaConfig::from_json_bytes(&json).unwrap();
    let weights = random_weights(&config).unwrap();
    let tiny = common::golden_dir().join("tiny-f32");
    let model = load(&tiny, Some(weights), Some(json), device);
    // Two pairs: a debug build of this checkpoint on lavapipe took about 20 s a pair on an
    // Intel Xeon with AVX-512 and about 100 s on an AMD EPYC with AVX2 only (six pairs: 608 s
    // there, 2026-11-30); the golden checkpoints' six pairs are in `precision.rs`.
    let pairs = &common::golden().pairs()[..2];
    check(
        "roberta-base-shaped (random)",
        model,
        pairs,
        backend,
        PROB_TOL,
    );
}

/// The roberta-base-shaped checkpoint on the native GPU. Its name lacks `native_gpu` so that scripts/test.sh's
/// second GPU pass (SPIR-V, `--features vulkan`) can leave it to the first.
#[test]
fn f16_mixed_keeps_a_roberta_base_shaped_checkpoint_within_1e3_on_the_gpu() {
    if let Some(device) = gpu_with_f16("f16-mixed roberta-base parity") {
        check_roberta_base(&device, NATIVE_GPU);
    }
}
