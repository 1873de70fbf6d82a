//! The int8 precision (docs/model-families.md#precision; issue 45): the transformer body's
//! dense layers with 7-bit weights per output channel and 8-bit activations per row, summed in
//! i32 — against f32 on the CPU backend, for every pair of every family's golden fixture (both
//! orders) and of the two RoBERTa fixtures.
//!
//! The independent reference is PyTorch (`golden/make_int8_reference.py`, written to
//! `golden/int8_reference.json`): on the same fixtures and pairs, with the same layers in int8,
//! - `per_channel`: `torch.ao.quantization.quantize_dynamic` with `per_channel_dynamic_qconfig`
//!   (int8 weights per output channel; activations per tensor, 7-bit on the x86 engine);
//! - `scheme`: tabprobe's own arithmetic written out in PyTorch (per-row activations).
//!
//! The fixtures other than BART's are sharpened on purpose (query, key and head weights at three
//! times unit scale), and int8 moves them far: PyTorch's own int8 moves probabilities by
//! 0.04–0.64 and flips labels on five of nine. So parity is relative: tabprobe's largest
//! |Δprobability| is at most [`REF_FACTOR`] times PyTorch `per_channel`'s on the same fixture;
//! each pair's logits are within [`PAIR_TOL`] of the `scheme`'s (the same arithmetic, summed in
//! another order), but for at most [`max_stepped`] pairs a rounding step away (within
//! [`STEP_TOL`]); it flips exactly the `scheme`'s pairs; and it flips none where neither
//! PyTorch variant flips one.

mod common;

use std::collections::BTreeMap;

use common::f16::read;
use common::fixtures::{each_fixture, gap};
use serde::Deserialize;
use tabprobe_model::{Device, Precision};

/// tabprobe's largest |Δprobability| may be at most this many times PyTorch per-channel
/// dynamic quantization's on the same fixture (measured 2026-12-01 with 7-bit weights: 0.27×
/// (ELECTRA) to 1.25× (tiny-2way); with 8-bit weights it was 0.26× to 1.80×, 2026-11-29).
const REF_FACTOR: f32 = 2.0;

/// How far a pair's int8 logits may be from the same scheme's in PyTorch (the same arithmetic,
/// float sums in another order; the two f32 forwards agree within 2.1e-6 on every pair).
const PAIR_TOL: f32 = 1e-3;

/// A value within f32 noise of a rounding boundary can round to the neighbouring integer in one
/// of the two implementations, and on these sharpened fixtures one such step moves a pair's
/// logits by 1e-3 to 2e-1 while the pairs without one agree within 1e-4. PyTorch's own scheme
/// does the same to itself: with its first embedding module's output moved by one ulp
/// (`scheme.ulp_moved` in the reference), up to 8 of a fixture's 68 pairs move by more than
/// 1e-3, the largest by 0.178 (ELECTRA's pair 52). So a few pairs, at most [`max_stepped`], may
/// be further than [`PAIR_TOL`] from PyTorch's, each within this.
const STEP_TOL: f32 = 0.3;

/// How many of a fixture's pairs may be a rounding step from PyTorch's: a quarter (17 of 68,
/// 8 of 34). Measured 2026-12-01 (the stepped pairs, and the largest step): natively with
/// `fast-cpu` on AVX-512 with VNNI, 10 of BART's 68 and 0.197 (ELECTRA's pair 54); without
/// `fast-cpu` (the portable kernels), 7 of BART's and 0.085 (DistilBERT's pair 37); on an
/// AVX2 CPU, tiny-f32's pairs 27 and 33 (1.65e-2 and 1.40e-2; the other fixtures were checked
/// by their largest |Δlogit| only, within 2e-2 of PyTorch's).
fn max_stepped(pairs: usize) -> usize {
    pairs / 4
}

#[derive(Debug, Deserialize)]
struct Reference {
    fixtures: BTreeMap<String, Fixture>,
}

#[derive(Debug, Deserialize)]
struct Fixture {
    per_channel: Deviation,
    scheme: Deviation,
}

#[derive(Debug, Deserialize)]
struct Deviation {
    max_abs_dprob: f32,
    max_abs_dlogit: f32,
    flipped: Vec<usize>,
    /// Every pair's quantized logits (the `scheme` only).
    #[serde(default)]
    logits: Vec<Vec<f32>>,
    /// The pairs that one ulp at the embeddings moves by more than 1e-3 (the `scheme` only).
    #[serde(default)]
    ulp_moved: Option<UlpMoved>,
}

#[derive(Debug, Deserialize)]
struct UlpMoved {
    /// (pair, largest |Δlogit|)
    pairs: Vec<(usize, f32)>,
}

#[test]
fn int8_is_within_the_stated_multiple_of_pytorch_int8_on_every_fixture() {
    let reference: Reference =
        serde_json::from_slice(&read(common::golden_dir().join("int8_reference.json")))
            .expect("golden/int8_reference.json");
    let mut seen = 0;
    each_fixture(&Device::flex(), |name, mut model, pairs| {
        let r = &reference.fixtures[name];
        let f32_scores = model.score_blocking(pairs).unwrap();
        model.set_precision(Precision::Int8).unwrap();
        assert!(
            model.id().label().ends_with(", int8)"),
            "{}",
            model.id().label()
        );
        let int8_scores = model.score_blocking(pairs).unwrap();
        let g = gap(&f32_scores, &int8_scores);
        println!(
            "{name}: {} pairs, int8 vs f32: max |Δprob| {:.4} (PyTorch per-channel {:.4}, scheme {:.4}), \
             max |Δlogit| {:.4} (PyTorch {:.4}, scheme {:.4}), flipped {:?} (PyTorch {:?}, scheme {:?})",
            pairs.len(),
            g.prob,
            r.per_channel.max_abs_dprob,
            r.scheme.max_abs_dprob,
            g.logit,
            r.per_channel.max_abs_dlogit,
            r.scheme.max_abs_dlogit,
            g.flipped,
            r.per_channel.flipped,
            r.scheme.flipped,
        );
        assert!(
            g.logit > 0.0,
            "{name}: int8 gave f32's exact logits: the int8 product did not run"
        );
        let bound = REF_FACTOR * r.per_channel.max_abs_dprob;
        assert!(
            g.prob <= bound,
            "{name}: |Δprob| {} > {REF_FACTOR} × PyTorch's {}",
            g.prob,
            r.per_channel.max_abs_dprob
        );
        // Pair by pair against the same scheme in PyTorch.
        assert_eq!(
            r.scheme.logits.len(),
            pairs.len(),
            "{name}: PyTorch's scheme logits"
        );
        let apart: Vec<(usize, f32)> = int8_scores
            .iter()
            .zip(&r.scheme.logits)
            .map(|(ours, theirs)| {
                assert_eq!(ours.logits.len(), theirs.len(), "{name}: labels");
                // A NaN counts as infinitely far: `f32::max` alone would drop it.
                let d = ours
                    .logits
                    .iter()
                    .zip(theirs)
                    .map(|(a, b)| match (a - b).abs() {
                        d if d.is_nan() => f32::INFINITY,
                        d => d,
                    });
                d.fold(0.0f32, f32::max)
            })
            .enumerate()
            .filter(|&(_, d)| d > PAIR_TOL)
            .collect();
        let ulp = r.scheme.ulp_moved.as_ref().map(|u| &u.pairs);
        println!(
            "{name}: pairs (index, |Δlogit|) further than {PAIR_TOL} from PyTorch's scheme: \
             {apart:?} (PyTorch's own, one ulp at the embeddings: {ulp:?})"
        );
        let most = max_stepped(pairs.len());
        assert!(
            apart.len() <= most && apart.iter().all(|&(_, d)| d <= STEP_TOL),
            "{name}: pairs (index, largest |Δlogit|) further than {PAIR_TOL} from the same \
             scheme in PyTorch: {apart:?}; at most {most} may be, within {STEP_TOL}"
        );
        assert_eq!(
            g.flipped, r.scheme.flipped,
            "{name}: the pairs the same scheme in PyTorch flips"
        );
        if r.per_channel.flipped.is_empty() && r.scheme.flipped.is_empty() {
            assert!(
                g.flipped.is_empty(),
                "{name}: labels differ on pairs {:?}",
                g.flipped
            );
        }
        // Back to f32 from the f32 weights the model kept: f32's scores again, exactly.
        model.set_precision(Precision::F32).unwrap();
        assert_eq!(model.score_blocking(&pairs[..2]).unwrap(), f32_scores[..2]);
        seen += 1;
    });
    assert_eq!(
        seen,
        reference.fixtures.len(),
        "every fixture of the reference was checked"
    );
}

/// int8 is the CPU path's: a GPU device refuses it, naming why.
#[test]
fn int8_is_refused_off_the_cpu() {
    let Some(device) = common::native_gpu("int8 refused off the CPU") else {
        return;
    };
    let mut model = common::load_variant("tiny-f32", &device);
    let err = model.set_precision(Precision::Int8).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("int8 runs on the CPU path only"),
        "{err}"
    );
    assert_eq!(model.precision(), Precision::F32);
}
