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
//! its largest |Δprobability| and |Δlogit| are within [`SCHEME_TOL`] and [`SCHEME_LOGIT_TOL`]
//! of the `scheme`'s (the same arithmetic, summed in another order) and it flips exactly the `scheme`'s pairs; and it
//! flips none where neither PyTorch variant flips one.

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

/// How far tabprobe's largest |Δprobability| may be from the same scheme's in PyTorch
/// (measured: below 1e-4 on every fixture).
const SCHEME_TOL: f32 = 1e-3;

/// How far tabprobe's largest |Δlogit| may be from the same scheme's in PyTorch: a value within
/// f32 noise of a rounding boundary can round to the neighbouring integer in one of the two.
/// Measured 2026-12-01: below 1e-4 on eight fixtures; on tiny-f32 0.3174 against 0.3314, from
/// two of its 34 pairs, whose int8 logits differ by 1.65e-2 and 1.40e-2 while the other 32 agree
/// within 8e-5 and the two f32 forwards within 2.1e-6 on every pair — a rounding step, not a
/// drift. (With 8-bit weights the largest was 4.9e-3, on tiny-2way.)
const SCHEME_LOGIT_TOL: f32 = 2e-2;

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
        assert!(
            (g.prob - r.scheme.max_abs_dprob).abs() <= SCHEME_TOL
                && (g.logit - r.scheme.max_abs_dlogit).abs() <= SCHEME_LOGIT_TOL,
            "{name}: |Δprob| {}, |Δlogit| {} against the same scheme in PyTorch: {}, {}",
            g.prob,
            g.logit,
            r.scheme.max_abs_dprob,
            r.scheme.max_abs_dlogit
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
