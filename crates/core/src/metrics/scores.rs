//! Accuracy scores as the paper reports them (Tables 4 and 7): accuracy on the original
//! examples, on label-preserved and on label-flipped perturbations, each as mean and
//! standard deviation over seeded random samples of 80% of the items (100 samples).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::probe::{Certainty, Expectation, ProbeItem, ProbeKind};
use crate::rng::Rng;
use crate::run::RunResult;

/// A mean and standard deviation in percent over resamples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanSd {
    /// Mean accuracy, percent.
    pub mean: f64,
    /// Population standard deviation (NumPy's default) over the samples, percent.
    pub sd: f64,
    /// Items the samples were drawn from.
    pub n: usize,
}

/// How to resample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SampleOptions {
    /// Number of samples (paper: 100).
    pub samples: usize,
    /// Share of the items in each sample, without replacement (paper: 0.8).
    pub fraction: f64,
    /// Seed of the sampling.
    pub seed: u64,
    /// Sample one perturbation per original example and kind (preserved / flipped), as the
    /// paper does for Table 4 so scores are comparable to the originals.
    pub one_per_example: bool,
    /// Only items whose expectation is certain.
    pub certain_only: bool,
}

impl Default for SampleOptions {
    fn default() -> Self {
        SampleOptions {
            samples: 100,
            fraction: 0.8,
            seed: 0,
            one_per_example: true,
            certain_only: false,
        }
    }
}

/// Mean ± sd of accuracy over `samples` draws of `fraction` of `correct`; `None` when empty.
pub fn sampled_accuracy(correct: &[bool], opts: &SampleOptions, rng: &mut Rng) -> Option<MeanSd> {
    if correct.is_empty() || opts.samples == 0 {
        return None;
    }
    let n = correct.len();
    let k = ((n as f64 * opts.fraction).round() as usize).clamp(1, n);
    let accs: Vec<f64> = (0..opts.samples)
        .map(|_| {
            let hits = rng
                .sample_indices(n, k)
                .into_iter()
                .filter(|&i| correct[i])
                .count();
            100.0 * hits as f64 / k as f64
        })
        .collect();
    let mean = accs.iter().sum::<f64>() / accs.len() as f64;
    let var = accs.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / accs.len() as f64;
    Some(MeanSd {
        mean,
        sd: var.sqrt(),
        n,
    })
}

/// One row of Table 4 / Table 7.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerturbationScores {
    /// Accuracy on the original examples behind the items.
    pub original: Option<MeanSd>,
    /// Accuracy on items whose expected label is the gold label.
    pub label_preserved: Option<MeanSd>,
    /// Accuracy on items whose expected label differs from the gold label.
    pub label_flipped: Option<MeanSd>,
}

fn expected_labels(item: &ProbeItem) -> Option<&[crate::label::Label]> {
    match &item.expectation {
        Expectation::Label { labels } => Some(labels),
        Expectation::Transition { .. } => None,
    }
}

/// Table 4's row for the items of `probes` that pass `keep` (label-expectation items only).
pub fn perturbation_scores(
    run: &RunResult,
    probes: &[ProbeKind],
    opts: &SampleOptions,
    keep: impl Fn(&ProbeItem) -> bool,
) -> PerturbationScores {
    let mut pick = Rng::derive(opts.seed, "pick-one-per-example");
    // example → (preserved items, flipped items), in example order.
    let mut by_example: BTreeMap<usize, (Vec<&ProbeItem>, Vec<&ProbeItem>)> = BTreeMap::new();
    for it in run
        .items
        .iter()
        .filter(|it| probes.contains(&it.probe) && keep(it))
    {
        if opts.certain_only && it.certainty != Certainty::Certain {
            continue;
        }
        let (Some(labels), Some(ex)) = (expected_labels(it), run.example_of(it)) else {
            continue;
        };
        let e = by_example.entry(it.example).or_default();
        if labels.contains(&ex.gold) {
            e.0.push(it);
        } else {
            e.1.push(it);
        }
    }
    let correct = |it: &ProbeItem| {
        expected_labels(it).is_some_and(|l| l.contains(&run.predicted(it.perturbed_pair)))
    };
    let mut original = Vec::new();
    let mut preserved = Vec::new();
    let mut flipped = Vec::new();
    for (&ex, (p, f)) in &by_example {
        if let Some(e) = run.examples.get(ex) {
            original.push(run.original_prediction(e) == e.gold);
        }
        for (list, out) in [(p, &mut preserved), (f, &mut flipped)] {
            if list.is_empty() {
                continue;
            }
            if opts.one_per_example {
                out.push(correct(list[pick.below(list.len())]));
            } else {
                out.extend(list.iter().map(|it| correct(it)));
            }
        }
    }
    let mut rng = Rng::derive(opts.seed, "accuracy-samples");
    PerturbationScores {
        original: sampled_accuracy(&original, opts, &mut rng),
        label_preserved: sampled_accuracy(&preserved, opts, &mut rng),
        label_flipped: sampled_accuracy(&flipped, opts, &mut rng),
    }
}

/// [`perturbation_scores`] per split and per category (SPEC §4.8): `(group name, scores)`.
pub fn perturbation_scores_by_group(
    run: &RunResult,
    probes: &[ProbeKind],
    opts: &SampleOptions,
) -> Vec<(String, PerturbationScores)> {
    let mut groups: Vec<String> = run
        .examples
        .iter()
        .filter_map(|e| e.split.as_ref().map(|s| format!("split:{s}")))
        .chain(
            run.examples
                .iter()
                .flat_map(|e| e.categories.iter().map(|c| format!("category:{c}"))),
        )
        .collect();
    groups.sort();
    groups.dedup();
    groups
        .into_iter()
        .map(|g| {
            let scores = perturbation_scores(run, probes, opts, |it| {
                run.example_of(it).is_some_and(|e| {
                    g.strip_prefix("split:")
                        .is_some_and(|s| e.split.as_deref() == Some(s))
                        || g.strip_prefix("category:")
                            .is_some_and(|c| e.categories.iter().any(|x| x == c))
                })
            });
            (g, scores)
        })
        .collect()
}
