//! Golden parity for every supported family besides RoBERTa (issue 16): a tiny random
//! checkpoint of each, made by `transformers` (`golden/make_golden_families.py`), must give
//! `transformers`' token ids and type ids exactly and its logits within 1e-4, through
//! tokenization and padded batches, in both pair orders, on `flex` and (with an adapter) on
//! native wgpu.

mod common;

use common::max_abs_diff;

use std::collections::BTreeMap;

use serde::Deserialize;
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::devices::backend::NATIVE_GPU;
use tabprobe_model::{Device, Family, ModelFiles, NliModel, TokenizerFiles};

const TOL: f32 = 1e-4;

#[derive(Debug, Deserialize)]
struct Golden {
    pairs: Vec<Text>,
    families: BTreeMap<String, FamilyGolden>,
}

#[derive(Debug, Deserialize)]
struct Text {
    premise: String,
    hypothesis: String,
}

#[derive(Debug, Deserialize)]
struct FamilyGolden {
    dir: String,
    architecture: String,
    weights_sha256: String,
    max_length: usize,
    parameter_count: u64,
    premise_first: Vec<Encoding>,
    logits: Vec<Vec<f32>>,
    hypothesis_first: HypothesisFirst,
}

#[derive(Debug, Deserialize)]
struct Encoding {
    input_ids: Vec<u32>,
    /// `None` where `transformers`' tokenizer returns none (DistilBERT, BART).
    token_type_ids: Option<Vec<u32>>,
    truncated: bool,
    premise_tokens_dropped: usize,
}

#[derive(Debug, Deserialize)]
struct HypothesisFirst {
    indices: Vec<usize>,
    encodings: Vec<Encoding>,
    logits: Vec<Vec<f32>>,
}

fn dir() -> std::path::PathBuf {
    match std::env::var_os("TABPROBE_FAMILIES_DIR") {
        Some(d) => d.into(),
        None => common::golden_dir().join("families"),
    }
}

fn golden() -> Golden {
    let path = dir().join("golden.json");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).expect("families/golden.json")
}

fn read(family_dir: &str, file: &str) -> Vec<u8> {
    let path = dir().join(family_dir).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load(g: &FamilyGolden, device: &Device) -> NliModel {
    let config = read(&g.dir, "config.json");
    let weights = read(&g.dir, "model.safetensors");
    let tokenizer = read(&g.dir, "tokenizer.json");
    // As saved by `save_pretrained` (model_max_length 96, the position tables' length).
    let tokenizer_config = std::fs::read(dir().join(&g.dir).join("tokenizer_config.json")).ok();
    NliModel::load(
        &g.dir,
        ModelFiles {
            config_json: &config,
            weights: &weights,
            tokenizer: TokenizerFiles::Json(&tokenizer),
            tokenizer_config: tokenizer_config.as_deref(),
        },
        device,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", g.dir))
}

fn pairs(g: &Golden, order: PairOrder, indices: Option<&[usize]>) -> Vec<Pair> {
    let all: Vec<usize> = (0..g.pairs.len()).collect();
    indices
        .unwrap_or(&all)
        .iter()
        .map(|&i| Pair {
            premise: g.pairs[i].premise.clone(),
            hypothesis: g.pairs[i].hypothesis.clone(),
            order,
        })
        .collect()
}

/// Token ids, type ids and truncation of `transformers`' tokenizer, in both orders.
fn check_tokens(name: &str, g: &Golden, f: &FamilyGolden, model: &NliModel) {
    let orders = [
        (PairOrder::PremiseFirst, None, &f.premise_first),
        (
            PairOrder::HypothesisFirst,
            Some(f.hypothesis_first.indices.as_slice()),
            &f.hypothesis_first.encodings,
        ),
    ];
    for (order, indices, want) in orders {
        for (i, (pair, w)) in pairs(g, order, indices).iter().zip(want).enumerate() {
            let e = model.encode_pair(pair).unwrap();
            assert_eq!(e.ids, w.input_ids, "{name} {order:?} pair {i}: ids");
            if let Some(want_types) = &w.token_type_ids {
                // An all-zero type list may come back empty; compare as written out.
                let types: Vec<u32> = (0..e.ids.len())
                    .map(|t| e.type_ids.get(t).copied().unwrap_or(0))
                    .collect();
                assert_eq!(&types, want_types, "{name} {order:?} pair {i}: type ids");
            }
            assert_eq!(
                (e.truncated, e.premise_tokens_dropped),
                (w.truncated, w.premise_tokens_dropped),
                "{name} {order:?} pair {i}: truncation"
            );
        }
    }
    assert!(
        f.premise_first.iter().filter(|e| e.truncated).count() >= 3,
        "{name}: the fixture should truncate at least 3 pairs"
    );
}

/// Logits in both orders at `batch_size`; returns the largest difference.
fn check_logits(
    name: &str,
    g: &Golden,
    f: &FamilyGolden,
    model: &mut NliModel,
    batch: usize,
) -> f32 {
    model.set_batch_size(batch);
    let mut worst = 0.0f32;
    let runs = [
        (pairs(g, PairOrder::PremiseFirst, None), &f.logits),
        (
            pairs(
                g,
                PairOrder::HypothesisFirst,
                Some(&f.hypothesis_first.indices),
            ),
            &f.hypothesis_first.logits,
        ),
    ];
    for (ps, want) in runs {
        let scores = model.score_blocking(&ps).expect("scoring");
        let got: Vec<Vec<f32>> = scores.iter().map(|s| s.logits.clone()).collect();
        worst = worst.max(max_abs_diff(&got, want));
    }
    assert!(
        worst <= TOL,
        "{name} batch {batch}: max |Δlogit| {worst:e} > {TOL:e}"
    );
    worst
}

fn check_family(name: &str, device: &Device, backend: &str) {
    let g = golden();
    let f = &g.families[name];
    let mut model = load(f, device);
    assert_eq!(
        model.id().weights_sha256,
        f.weights_sha256,
        "{name}: SHA-256"
    );
    assert_eq!(model.shape().family.class_name(), f.architecture, "{name}");
    assert_eq!(model.shape().max_tokens, f.max_length, "{name}: max tokens");
    assert_eq!(
        model.shape().parameters,
        Some(f.parameter_count),
        "{name}: parameters"
    );
    check_tokens(name, &g, f, &model);
    for batch in [1, 8, 64] {
        let d = check_logits(name, &g, f, &mut model, batch);
        eprintln!("{backend} {name} batch {batch}: max |Δlogit| = {d:.3e}");
    }
}

#[test]
fn bert_matches_transformers() {
    check_family("bert", &Device::flex(), "flex");
}

#[test]
fn distilbert_matches_transformers() {
    check_family("distilbert", &Device::flex(), "flex");
}

#[test]
fn electra_matches_transformers() {
    check_family("electra", &Device::flex(), "flex");
}

#[test]
fn xlm_roberta_matches_transformers() {
    check_family("xlm-roberta", &Device::flex(), "flex");
}

#[test]
fn deberta_v3_matches_transformers() {
    check_family("deberta-v3", &Device::flex(), "flex");
}

#[test]
fn deberta_v2_matches_transformers() {
    check_family("deberta-v2", &Device::flex(), "flex");
}

#[test]
fn bart_matches_transformers() {
    check_family("bart", &Device::flex(), "flex");
}

#[test]
fn every_family_is_detected_from_its_config() {
    let g = golden();
    for (name, f) in &g.families {
        let family = Family::detect(&read(&f.dir, "config.json")).unwrap();
        assert_eq!(family.class_name(), f.architecture, "{name}");
    }
}

/// `pytorch_model.bin` (no safetensors in the folder) gives the same model as the safetensors
/// file of the same weights: the same logits bit for bit.
#[test]
fn pytorch_bin_loads_like_safetensors() {
    let g = golden();
    let f = &g.families["bert"];
    let device = Device::flex();
    let bin = dir().join("bert-bin").join("pytorch_model.bin");
    assert!(!dir().join("bert-bin/model.safetensors").exists());
    let weights = tabprobe_model::loading::pytorch::safetensors_from_pytorch_file(&bin).unwrap();
    let config = read("bert-bin", "config.json");
    let tokenizer = read("bert-bin", "tokenizer.json");
    let from_bin = NliModel::load(
        "bert-bin",
        ModelFiles {
            config_json: &config,
            weights: &weights,
            tokenizer: TokenizerFiles::Json(&tokenizer),
            tokenizer_config: None,
        },
        &device,
    )
    .unwrap();
    let ps = pairs(&g, PairOrder::PremiseFirst, None);
    let a = from_bin.score_blocking(&ps).unwrap();
    let b = load(f, &device).score_blocking(&ps).unwrap();
    assert_eq!(a, b);
}

/// This build's native GPU backend (`wgpu`, or `vulkan` with that feature; lavapipe without a
/// GPU), every family in one function because a wgpu runtime initialises once per process.
/// Skipped, loudly, without an adapter (see `common::native_gpu`).
#[test]
fn native_gpu_families_match_transformers_when_an_adapter_exists() {
    let Some(device) = common::native_gpu("family parity") else {
        return;
    };
    for name in golden().families.keys() {
        check_family(name, &device, NATIVE_GPU);
    }
}
