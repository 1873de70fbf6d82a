//! Golden parity with Hugging Face `transformers` (issue 3's acceptance test): token ids equal
//! exactly, logits within 1e-4 on the CPU backend (`flex`) and, when a Vulkan adapter exists,
//! on native wgpu. References come from `golden/make_golden.py`, committed unchanged.

mod common;

use common::{block_on, golden, load_variant, max_abs_diff, read, Golden};
use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_model::devices::backend::NATIVE_GPU;
use tabprobe_model::{Device, NliModel, PairTokenizer};

/// f32 logits tolerance (the bar). f16/bf16 checkpoints are widened to f32 on load and
/// compared with references computed from the same widened weights, so the same bar applies.
const TOL: f32 = 1e-4;

/// Scores every golden pair through tokenization and padded batches; returns
/// (max |Δlogit|, max |Δprob| in canonical order).
fn parity(model: &NliModel, g: &Golden, variant: &str) -> (f32, f32) {
    let v = &g.variants[variant];
    assert_eq!(
        model.id().weights_sha256,
        v.weights_sha256,
        "{variant}: SHA-256"
    );
    let scores = model.score_blocking(&g.pairs()).expect("scoring");
    for (s, p) in scores.iter().zip(&g.pairs) {
        assert_eq!(
            (s.truncated, s.premise_tokens_dropped),
            (p.truncated, p.premise_tokens_dropped)
        );
    }
    let logits: Vec<Vec<f32>> = scores.iter().map(|s| s.logits.clone()).collect();
    // Reference probabilities mapped to canonical order through the model's own labels.
    let want_probs: Vec<Vec<f32>> = v
        .probs
        .iter()
        .map(|p| model.labels().to_canonical(p).to_vec())
        .collect();
    let got_probs: Vec<Vec<f32>> = scores.iter().map(|s| s.probs.to_vec()).collect();
    (
        max_abs_diff(&logits, &v.logits),
        max_abs_diff(&got_probs, &want_probs),
    )
}

fn check_variant(device: &Device, backend: &str, variant: &str, batch_size: usize) -> f32 {
    let g = golden();
    let dir = g.variants[variant].dir.clone();
    let mut model = load_variant(&dir, device);
    model.set_batch_size(batch_size);
    let (dl, dp) = parity(&model, &g, variant);
    eprintln!(
        "{backend} {variant} batch {batch_size}: max |Δlogit| = {dl:.3e}, max |Δprob| = {dp:.3e}"
    );
    assert!(
        dl <= TOL,
        "{backend} {variant}: max |Δlogit| {dl:e} > {TOL:e}"
    );
    assert!(
        dp <= TOL,
        "{backend} {variant}: max |Δprob| {dp:e} > {TOL:e}"
    );
    dl
}

#[test]
fn token_ids_from_tokenizer_json_equal_transformers() {
    let g = golden();
    let tok =
        PairTokenizer::from_json_bytes(&read("tiny-f32/tokenizer.json"), g.max_length).unwrap();
    for (i, p) in g.pairs.iter().enumerate() {
        let e = tok.encode(&p.premise, &p.hypothesis).unwrap();
        assert_eq!(e.ids, p.input_ids, "pair {i}: {:?}", p.premise);
        assert_eq!(
            (e.truncated, e.premise_tokens_dropped),
            (p.truncated, p.premise_tokens_dropped),
            "pair {i}"
        );
    }
    assert!(g.pairs.iter().filter(|p| p.truncated).count() >= 3);
    assert!(g.pairs.iter().any(|p| !p.premise.is_ascii()));
}

#[test]
fn token_ids_from_vocab_and_merges_equal_transformers() {
    let g = golden();
    let tok = PairTokenizer::from_vocab_merges(
        &read("tiny-f32/vocab.json"),
        &read("tiny-f32/merges.txt"),
        g.max_length,
    )
    .unwrap();
    for (i, p) in g.pairs.iter().enumerate() {
        let e = tok.encode(&p.premise, &p.hypothesis).unwrap();
        assert_eq!(e.ids, p.input_ids, "pair {i}: {:?}", p.premise);
        assert_eq!(
            e.premise_tokens_dropped, p.premise_tokens_dropped,
            "pair {i}"
        );
    }
}

#[test]
fn flex_f32_matches_transformers() {
    check_variant(&Device::flex(), "flex", "f32", 8);
}

#[test]
fn flex_f32_matches_transformers_unbatched_and_in_one_batch() {
    check_variant(&Device::flex(), "flex", "f32", 1);
    check_variant(&Device::flex(), "flex", "f32", 64);
}

#[test]
fn flex_f16_matches_transformers() {
    check_variant(&Device::flex(), "flex", "f16", 8);
}

#[test]
fn flex_bf16_matches_transformers() {
    check_variant(&Device::flex(), "flex", "bf16", 8);
}

#[test]
fn flex_names_without_roberta_prefix_match_transformers() {
    check_variant(&Device::flex(), "flex", "noprefix", 8);
}

#[test]
fn flex_two_way_model_matches_and_puts_zero_on_neutral() {
    check_variant(&Device::flex(), "flex", "2way", 8);
    let g = golden();
    let model = load_variant("tiny-2way", &Device::flex());
    assert_eq!(model.id().label_set, LabelSet::TwoWay);
    let scores = model.score_blocking(&g.pairs()).unwrap();
    assert!(scores
        .iter()
        .all(|s| s.probs[1] == 0.0 && s.predicted() != Label::Neutral));
}

#[test]
fn async_scoring_equals_blocking_scoring() {
    let g = golden();
    let model = load_variant("tiny-f32", &Device::flex());
    let pairs = g.pairs();
    let sync = model.score_blocking(&pairs).unwrap();
    let asynch = block_on(model.score_async(&pairs)).unwrap();
    assert_eq!(sync, asynch);
}

/// The browser's CPU path splits a call's batches over several workers, each scoring whole
/// batches (`batch_rows`): every pair must come out with the very bits one worker gives it.
#[test]
fn scoring_each_planned_batch_alone_gives_the_same_bits() {
    let g = golden();
    let mut model = load_variant("tiny-f32", &Device::flex());
    model.set_batch_size(4);
    let pairs = g.pairs();
    let whole = model.score_blocking(&pairs).unwrap();
    let encoded = model.encode(&pairs).unwrap();
    let batches = model.batch_rows(&encoded);
    assert!(batches.len() >= 8, "{} batches", batches.len());
    let mut seen = vec![false; pairs.len()];
    for rows in &batches {
        assert!(!rows.is_empty() && rows.len() <= 4);
        let alone: Vec<_> = rows.iter().map(|&r| pairs[r].clone()).collect();
        let scores = model.score_blocking(&alone).unwrap();
        for (&r, s) in rows.iter().zip(&scores) {
            assert!(!seen[r], "row {r} is in two batches");
            seen[r] = true;
            assert_eq!(s, &whole[r], "pair {r}");
        }
    }
    assert!(seen.iter().all(|&s| s), "every pair is in a batch");
}

/// The activation budget caps the rows of a pass: a budget below one row's activations
/// leaves one row per pass, and the scores stay those of the default plan within the golden
/// tolerance (only padding, hence the order of sums, differs).
#[test]
fn the_tensor_budget_caps_rows_per_pass() {
    let g = golden();
    let mut model = load_variant("tiny-f32", &Device::flex());
    model.set_batch_size(16);
    let pairs = g.pairs();
    let encoded = model.encode(&pairs).unwrap();
    let default_plan = model.batch_rows(&encoded);
    assert!(default_plan.iter().any(|rows| rows.len() > 1));
    let planned = model.score_blocking(&pairs).unwrap();
    model.set_tensor_budget(1);
    let single = model.batch_rows(&encoded);
    assert_eq!(single.len(), pairs.len());
    assert!(single.iter().all(|rows| rows.len() == 1));
    let alone = model.score_blocking(&pairs).unwrap();
    for (k, (a, b)) in planned.iter().zip(&alone).enumerate() {
        for (x, y) in a.logits.iter().zip(&b.logits) {
            assert!((x - y).abs() <= 1e-4, "pair {k}: {x} vs {y}");
        }
    }
}

#[test]
fn pair_scorer_trait_reports_model_id() {
    use tabprobe_core::scoring::PairScorer;
    let g = golden();
    let mut model = load_variant("tiny-f32", &Device::flex());
    let scores = model.score(&g.pairs()[..3]).unwrap();
    assert_eq!(scores.len(), 3);
    let id = model.model_id();
    assert_eq!(id.name, "tiny-f32");
    assert_eq!(id.weights_sha256, g.variants["f32"].weights_sha256);
    assert_eq!(id.label_set, LabelSet::ThreeWay);
}

/// This build's native GPU backend (`wgpu`, or `vulkan` with that feature; Mesa lavapipe on a
/// machine without a GPU). Skipped, loudly, when there is no adapter (see
/// `common::native_gpu`). One test function, because a wgpu runtime initialises once per process.
#[test]
fn native_gpu_matches_transformers_when_an_adapter_exists() {
    let Some(device) = common::native_gpu("parity") else {
        return;
    };
    for variant in ["f32", "f16", "bf16", "noprefix", "2way"] {
        check_variant(&device, NATIVE_GPU, variant, 8);
    }
    let g = golden();
    let model = load_variant("tiny-f32", &device);
    let pairs = g.pairs();
    let asynch = block_on(model.score_async(&pairs)).unwrap();
    let sync = model.score_blocking(&pairs).unwrap();
    assert_eq!(sync, asynch);
}
