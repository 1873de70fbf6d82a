//! Accuracy scores as the paper reports them (Tables 4 and 7): accuracy on the original
//! examples, on label-preserved and on label-flipped perturbations, each as mean and
//! standard deviation over seeded random samples of 80% of the items (100 samples).
//!
//! Which items count (issue 11 §4, paper §4 and §6): items of NEUTRAL examples are left out
//! (both tables are "w/o NEUTRAL"); certain and accepted items count, an accepted one against
//! the reviewer's label; heuristic items nobody reviewed count only on request
//! ([`SampleOptions::include_heuristic`]); rejected items never. Every item left out is
//! counted in [`LeftOut`] so a table can say so. A [`ScoreView`] picks the full model's
//! predictions or the hypothesis-only ones (the originals' and items' empty-premise pairs).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::group::{item_in_group, Group};
use crate::data::label::Label;
use crate::probe::review::ReviewState;
use crate::probe::{ProbeExample, ProbeItem};
use crate::probe_kind::ProbeKind;
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
    /// Sample one perturbation per original example, as the paper does for Table 4 so scores
    /// are comparable to the originals (§4: "a single perturbed example must be sampled for
    /// each gold example"): the drawn item's expected label decides whether it counts as
    /// label-preserved or label-flipped, so the two columns' n add up to the examples counted.
    pub one_per_example: bool,
    /// With `one_per_example`, draw one item per example *and per column* (preserved and
    /// flipped) instead: an example with both kinds of item counts in both columns. Not the
    /// paper's reading; off by default, and a report made with it says so.
    #[serde(default)]
    pub per_column: bool,
    /// Only items in the `certain` review state (not even accepted ones).
    pub certain_only: bool,
    /// Also count heuristic items nobody has reviewed (left out by default, and counted in
    /// [`LeftOut::heuristic_unreviewed`]).
    #[serde(default)]
    pub include_heuristic: bool,
}

impl Default for SampleOptions {
    fn default() -> Self {
        SampleOptions {
            samples: 100,
            fraction: 0.8,
            seed: 0,
            one_per_example: true,
            per_column: false,
            certain_only: false,
            include_heuristic: false,
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

/// Items of a score row that were not counted, by reason (issue 11 §4: never silently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LeftOut {
    /// Heuristic items nobody reviewed, left out (0 when they were included on request).
    pub heuristic_unreviewed: usize,
    /// Heuristic items nobody reviewed that were included on request.
    pub heuristic_included: usize,
    /// Items a reviewer rejected.
    pub rejected: usize,
    /// Items of NEUTRAL examples (Tables 4 and 7 are "w/o NEUTRAL").
    pub neutral: usize,
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
    /// Items of the row's probes not counted, and why.
    #[serde(default)]
    pub left_out: LeftOut,
}

/// Whose predictions a score row reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreView {
    /// The model on premise and hypothesis (the paper's Prem+Hypo rows).
    PremiseAndHypothesis,
    /// Hypothesis alone (the paper's Hypo-Only rows): each original's and each item's
    /// empty-premise pair — this model's hypothesis-only view, or a second model's scores
    /// when [`RunResult::hypothesis_only_model`] is set. Examples and items without such a
    /// pair are not counted.
    HypothesisOnly,
}

/// What the score tables (Tables 4 and 7) do with one item: count it, or leave it out and
/// why. [`perturbation_scores`] counts with it and the report's item selectors list with
/// it, so a row and the items it drills to are the same set.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreUse<'r> {
    /// No label expectation (a transition item) or no example: not a score-table item.
    Unscored,
    /// Its example's gold label is NEUTRAL (the tables are "w/o NEUTRAL").
    Neutral,
    /// A reviewer rejected it.
    Rejected,
    /// A heuristic item nobody reviewed, left out because heuristic items are not included.
    HeuristicLeftOut,
    /// Counted against `labels`, its original example being `example`.
    Counted {
        /// The original example.
        example: &'r ProbeExample,
        /// The labels a correct model gives the item.
        labels: Vec<Label>,
    },
}

/// How the score tables treat `item` (see [`ScoreUse`]); `include_heuristic` counts heuristic
/// items nobody reviewed.
pub fn score_use<'r>(
    run: &'r RunResult,
    item: &ProbeItem,
    include_heuristic: bool,
) -> ScoreUse<'r> {
    let (Some(labels), Some(example)) = (item.scored_labels(), run.example_of(item)) else {
        return ScoreUse::Unscored;
    };
    if example.gold == Label::Neutral {
        return ScoreUse::Neutral;
    }
    match item.review {
        ReviewState::Rejected => ScoreUse::Rejected,
        ReviewState::HeuristicUnreviewed if !include_heuristic => ScoreUse::HeuristicLeftOut,
        _ => ScoreUse::Counted { example, labels },
    }
}

/// A row of Tables 4 and 7: the scores of the items of `probes` (label-expectation items
/// only) whose example is in `group` (`None` = every example), in `view`. Both views sample
/// the same items (the same one-per-example picks), so a Prem+Hypo row and its Hypo-Only row
/// compare like with like.
pub fn perturbation_scores(
    run: &RunResult,
    probes: &[ProbeKind],
    opts: &SampleOptions,
    view: ScoreView,
    group: Option<&Group>,
) -> PerturbationScores {
    let mut pick = Rng::derive(opts.seed, "pick-one-per-example");
    let mut left_out = LeftOut::default();
    // example → (preserved items, flipped items), in example order, with their labels.
    type Scored<'a> = (&'a ProbeItem, Vec<Label>);
    let mut by_example: BTreeMap<usize, (Vec<Scored>, Vec<Scored>)> = BTreeMap::new();
    for it in run
        .items
        .iter()
        .filter(|it| probes.contains(&it.probe) && item_in_group(run, group, it))
    {
        let (ex, labels) = match score_use(run, it, opts.include_heuristic) {
            ScoreUse::Unscored => continue,
            ScoreUse::Neutral => {
                left_out.neutral += 1;
                continue;
            }
            ScoreUse::Rejected => {
                left_out.rejected += 1;
                continue;
            }
            ScoreUse::HeuristicLeftOut => {
                left_out.heuristic_unreviewed += 1;
                continue;
            }
            ScoreUse::Counted { example, labels } => (example, labels),
        };
        if it.review == ReviewState::HeuristicUnreviewed {
            left_out.heuristic_included += 1;
        }
        if opts.certain_only && it.review != ReviewState::Certain {
            continue;
        }
        let e = by_example.entry(it.example).or_default();
        if labels.contains(&ex.gold) {
            e.0.push((it, labels));
        } else {
            e.1.push((it, labels));
        }
    }
    let hypothesis_only = view == ScoreView::HypothesisOnly;
    // Right or wrong on the item; `None` when the view has no prediction for it.
    let correct = |(it, labels): &Scored| {
        let pair = if hypothesis_only {
            it.hypothesis_only_pair?
        } else {
            it.perturbed_pair
        };
        Some(labels.contains(&run.predicted(pair)))
    };
    let mut original = Vec::new();
    let mut preserved = Vec::new();
    let mut flipped = Vec::new();
    for (&ex, (p, f)) in &by_example {
        if let Some(e) = run.examples.get(ex) {
            let pair = if hypothesis_only {
                run.hypothesis_only_pairs.get(ex).copied()
            } else {
                Some(e.pair)
            };
            if let Some(pair) = pair {
                original.push(run.predicted(pair) == e.gold);
            }
        }
        if opts.one_per_example && !opts.per_column {
            // One item per gold example (the paper's reading); the pick is drawn in both
            // views, so both sample the same item.
            let n = p.len() + f.len();
            if n > 0 {
                let k = pick.below(n);
                let (item, out) = if k < p.len() {
                    (&p[k], &mut preserved)
                } else {
                    (&f[k - p.len()], &mut flipped)
                };
                out.extend(correct(item));
            }
            continue;
        }
        for (list, out) in [(p, &mut preserved), (f, &mut flipped)] {
            if list.is_empty() {
                continue;
            }
            if opts.one_per_example {
                out.extend(correct(&list[pick.below(list.len())]));
            } else {
                out.extend(list.iter().filter_map(&correct));
            }
        }
    }
    let mut rng = Rng::derive(opts.seed, "accuracy-samples");
    PerturbationScores {
        original: sampled_accuracy(&original, opts, &mut rng),
        label_preserved: sampled_accuracy(&preserved, opts, &mut rng),
        label_flipped: sampled_accuracy(&flipped, opts, &mut rng),
        left_out,
    }
}
