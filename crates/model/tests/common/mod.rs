//! Shared fixtures for the integration tests: the golden checkpoints and reference outputs
//! written by `golden/make_golden.py`.
#![allow(dead_code)]

pub mod f16;
pub mod fixtures;

use std::path::PathBuf;

use serde::Deserialize;
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::devices::backend::{device_by_name, NATIVE_GPU};
use tabprobe_model::{Device, ModelFiles, NliModel, TokenizerFiles};

/// `golden.json`.
#[derive(Debug, Deserialize)]
pub struct Golden {
    pub max_length: usize,
    pub pairs: Vec<GoldenPair>,
    pub variants: std::collections::BTreeMap<String, Variant>,
}

#[derive(Debug, Deserialize)]
pub struct GoldenPair {
    pub premise: String,
    pub hypothesis: String,
    pub input_ids: Vec<u32>,
    pub truncated: bool,
    pub premise_tokens_dropped: usize,
}

#[derive(Debug, Deserialize)]
pub struct Variant {
    pub dir: String,
    pub weights_sha256: String,
    pub logits: Vec<Vec<f32>>,
    pub probs: Vec<Vec<f32>>,
    pub id2label: std::collections::BTreeMap<String, String>,
}

pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

pub fn read(rel: &str) -> Vec<u8> {
    let path = golden_dir().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn golden() -> Golden {
    serde_json::from_slice(&read("golden.json")).expect("golden.json")
}

impl Golden {
    pub fn pairs(&self) -> Vec<Pair> {
        self.pairs
            .iter()
            .map(|p| Pair {
                premise: p.premise.clone(),
                hypothesis: p.hypothesis.clone(),
                order: PairOrder::PremiseFirst,
            })
            .collect()
    }
}

/// The tokenizer of every variant lives in `tiny-f32/`.
pub fn load_variant(dir: &str, device: &Device) -> NliModel {
    let config = read(&format!("{dir}/config.json"));
    let weights = read(&format!("{dir}/model.safetensors"));
    let tokenizer = read("tiny-f32/tokenizer.json");
    load_bytes(dir, &config, &weights, &tokenizer, device)
}

/// A checkpoint from its files' bytes (no `tokenizer_config.json`), named `name`; panics
/// with the name on a load error.
pub fn load_bytes(
    name: &str,
    config: &[u8],
    weights: &[u8],
    tokenizer: &[u8],
    device: &Device,
) -> NliModel {
    load_files(name, config, weights, tokenizer, None, device)
}

/// [`load_bytes`] with the folder's `tokenizer_config.json`, when given.
pub fn load_files(
    name: &str,
    config: &[u8],
    weights: &[u8],
    tokenizer: &[u8],
    tokenizer_config: Option<&[u8]>,
    device: &Device,
) -> NliModel {
    NliModel::load(
        name,
        ModelFiles {
            config_json: config,
            weights,
            tokenizer: TokenizerFiles::Json(tokenizer),
            tokenizer_config,
        },
        device,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Drives a future to completion on this thread (the flex and native wgpu futures need no
/// reactor), so the async path is tested without an executor dependency.
pub fn block_on<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

/// The largest |a − b| over two tables of logits of the same shape.
pub fn max_abs_diff(got: &[Vec<f32>], want: &[Vec<f32>]) -> f32 {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .flat_map(|(g, w)| {
            assert_eq!(g.len(), w.len());
            g.iter().zip(w).map(|(a, b)| (a - b).abs())
        })
        .fold(0.0, f32::max)
}

/// This build's native GPU device ([`NATIVE_GPU`]: `wgpu` with WGSL kernels, or `vulkan` with
/// SPIR-V in a build with the `vulkan` feature), or `None` after a loud SKIPPED line naming
/// `what` when there is none. Opened once per test binary (a wgpu runtime initialises once per
/// process) and shared by its tests. With `TABPROBE_REQUIRE_GPU` set (scripts/test.sh sets it,
/// having installed Mesa's lavapipe) a missing device fails the test instead, so a GPU check
/// cannot pass by skipping.
pub fn native_gpu(what: &str) -> Option<Device> {
    static DEVICE: std::sync::OnceLock<Result<Device, String>> = std::sync::OnceLock::new();
    match DEVICE.get_or_init(|| device_by_name(NATIVE_GPU)) {
        Ok(device) => Some(device.clone()),
        Err(e) if std::env::var_os("TABPROBE_REQUIRE_GPU").is_some() => {
            panic!("{NATIVE_GPU} {what}: TABPROBE_REQUIRE_GPU is set but there is no device: {e}")
        }
        Err(e) => {
            eprintln!(
                "SKIPPED {NATIVE_GPU} {what}: {e}. Install Mesa's lavapipe \
                 (apt-get install mesa-vulkan-drivers) to run it."
            );
            None
        }
    }
}
