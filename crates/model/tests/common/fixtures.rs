//! The fixtures the precision tests (`precision.rs`, `int8.rs`) run over — every family's
//! golden checkpoint with the 34 pairs of `families/golden.json` in both orders, and the two
//! RoBERTa fixtures with the pairs of `golden.json` — and how far two runs of one model are
//! apart.

use std::collections::BTreeMap;

use serde::Deserialize;
use tabprobe_core::scoring::{Pair, PairOrder, PairScore};
use tabprobe_model::{Device, NliModel};

#[derive(Debug, Deserialize)]
struct FamiliesGolden {
    pairs: Vec<Text>,
    families: BTreeMap<String, FamilyDir>,
}

#[derive(Debug, Deserialize)]
struct Text {
    premise: String,
    hypothesis: String,
}

#[derive(Debug, Deserialize)]
struct FamilyDir {
    dir: String,
}

/// Calls `f` with each fixture's name (the family's key in `families/golden.json`, then
/// `tiny-f32` and `tiny-2way`), its model loaded on `device` at f32, and its pairs.
pub fn each_fixture(device: &Device, mut f: impl FnMut(&str, NliModel, &[Pair])) {
    let families = super::golden_dir().join("families");
    let g: FamiliesGolden = serde_json::from_slice(&super::f16::read(families.join("golden.json")))
        .expect("families/golden.json");
    let pairs: Vec<Pair> = [PairOrder::PremiseFirst, PairOrder::HypothesisFirst]
        .into_iter()
        .flat_map(|order| {
            g.pairs.iter().map(move |t| Pair {
                premise: t.premise.clone(),
                hypothesis: t.hypothesis.clone(),
                order,
            })
        })
        .collect();
    for (name, family) in &g.families {
        let model = super::f16::load(&families.join(&family.dir), None, None, device);
        f(name, model, &pairs);
    }
    let roberta = super::golden().pairs();
    for variant in ["tiny-f32", "tiny-2way"] {
        f(variant, super::load_variant(variant, device), &roberta);
    }
}

/// How far apart two runs of the same pairs are: the largest |Δprobability| and |Δlogit|, and
/// the pairs whose predicted label differs.
#[derive(Debug, Default)]
pub struct Gap {
    pub prob: f32,
    pub logit: f32,
    pub flipped: Vec<usize>,
}

/// The [`Gap`] between `reference` and `other`, pair by pair.
pub fn gap(reference: &[PairScore], other: &[PairScore]) -> Gap {
    assert_eq!(reference.len(), other.len());
    let mut g = Gap::default();
    for (i, (a, b)) in reference.iter().zip(other).enumerate() {
        for (x, y) in a.probs.iter().zip(&b.probs) {
            g.prob = g.prob.max((x - y).abs());
        }
        for (x, y) in a.logits.iter().zip(&b.logits) {
            g.logit = g.logit.max((x - y).abs());
        }
        if a.predicted() != b.predicted() {
            g.flipped.push(i);
        }
    }
    g
}
