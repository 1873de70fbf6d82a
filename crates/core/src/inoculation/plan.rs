//! Which items inoculation trains on and which it evaluates (docs/inoculation.md#what-is-computed).
//!
//! The challenge set is every item of the chosen probes whose expectation counts: generated as
//! certain, or accepted by a reviewer (heuristic items nobody checked and rejected items are
//! left out, as in the score tables). Each item's *expected labels* are those correct for the
//! perturbed input given the original's gold label: the item's label expectation (or the
//! reviewer's label), or, for a table edit, the rule's valid set after the gold label — the
//! labels a perturbed dataset would carry, as the paper builds its inoculation sets. Only items
//! with exactly one expected label are trained on; the others (e.g. row deletion from ENTAIL:
//! ENTAIL or NEUTRAL) are evaluated, never trained on, because no single target is right.
//!
//! The trainable items are shuffled once with the seed and the samples are prefixes of that
//! order, so the 100 are inside the 200 (nested, as the paper samples). Every challenge item
//! outside the largest sample is held out for evaluation, so every size is judged on the same
//! items.

use super::InoculationError;
use serde::{Deserialize, Serialize};

use crate::data::label::Label;
use crate::inoculation::InoculationSettings;
use crate::probe::review::ReviewState;
use crate::probe::{Expectation, ProbeItem};
use crate::rng::Rng;
use crate::run::RunResult;
use crate::scoring::Pair;

/// One challenge item: an index into the run's items and what is correct for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeItem {
    /// Index into [`RunResult::items`].
    pub item: usize,
    /// Labels correct for the perturbed input (see the module docs).
    pub expected: Vec<Label>,
}

impl ChallengeItem {
    /// The training target: the expected label when there is exactly one.
    pub fn train_label(&self) -> Option<Label> {
        match self.expected.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

/// One nested training sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Its size n.
    pub size: usize,
    /// Indices into [`RunResult::items`], in sampling order.
    pub items: Vec<usize>,
}

/// What one inoculation trains on and evaluates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InoculationPlan {
    /// The settings it was made with.
    pub settings: InoculationSettings,
    /// Every challenge item, in run order.
    pub challenge: Vec<ChallengeItem>,
    /// The nested samples, smallest first.
    pub samples: Vec<Sample>,
    /// Indices into [`InoculationPlan::challenge`] of the items outside the largest sample.
    pub held_out: Vec<usize>,
    /// Indices into [`RunResult::examples`] of the early-stopping (dev) examples.
    pub dev: Vec<usize>,
    /// The dev split's name (`None`: every original example).
    pub dev_split: Option<String>,
    /// Items of the chosen probes left out: heuristic and unreviewed.
    pub unreviewed: usize,
    /// Items of the chosen probes left out: rejected by a reviewer.
    pub rejected: usize,
    /// Items of the chosen probes left out: no expected label this model can predict (a
    /// two-way model and a rule that allows only NEUTRAL).
    pub not_applicable: usize,
}

impl InoculationPlan {
    /// Plans an inoculation of `run` with `settings` (checked first). Errors name what is
    /// missing: no challenge item, fewer trainable items than the largest size, nothing held
    /// out, no dev example.
    pub fn new(run: &RunResult, settings: &InoculationSettings) -> Result<Self, InoculationError> {
        settings.check()?;
        let (mut unreviewed, mut rejected, mut not_applicable) = (0, 0, 0);
        let mut challenge = Vec::new();
        for (index, item) in run.items.iter().enumerate() {
            if !settings.probes.contains(&item.probe) {
                continue;
            }
            match item.review {
                ReviewState::HeuristicUnreviewed => unreviewed += 1,
                ReviewState::Rejected => rejected += 1,
                ReviewState::Certain | ReviewState::Accepted { .. } => {
                    let expected = expected_labels(run, item);
                    if expected.is_empty() {
                        not_applicable += 1;
                    } else {
                        challenge.push(ChallengeItem {
                            item: index,
                            expected,
                        });
                    }
                }
            }
        }
        let names: Vec<&str> = settings.probes.iter().map(|p| p.as_str()).collect();
        if challenge.is_empty() {
            return Err(InoculationError::NoChallengeItems {
                probes: names.join(", "),
                unreviewed,
                rejected,
            });
        }
        let mut trainable: Vec<usize> = (0..challenge.len())
            .filter(|&c| challenge[c].train_label().is_some())
            .collect();
        let largest = settings.sizes.iter().copied().max().unwrap_or(0);
        if trainable.len() < largest {
            return Err(InoculationError::TooFewTrainable {
                largest,
                probes: names.join(", "),
                trainable: trainable.len(),
                challenge: challenge.len(),
            });
        }
        Rng::derive(settings.seed, "inoculation-sample").shuffle(&mut trainable);
        let samples = settings
            .sizes
            .iter()
            .map(|&size| Sample {
                size,
                items: trainable[..size]
                    .iter()
                    .map(|&c| challenge[c].item)
                    .collect(),
            })
            .collect();
        let mut in_largest = vec![false; challenge.len()];
        for &c in &trainable[..largest] {
            in_largest[c] = true;
        }
        let held_out: Vec<usize> = (0..challenge.len()).filter(|&c| !in_largest[c]).collect();
        if held_out.is_empty() {
            return Err(InoculationError::NothingHeldOut(challenge.len()));
        }
        let dev_split = settings.dev_split.clone().or_else(|| {
            run.examples
                .iter()
                .any(|e| e.split.as_deref() == Some("dev"))
                .then(|| "dev".to_string())
        });
        let dev: Vec<usize> = (0..run.examples.len())
            .filter(|&e| match &dev_split {
                Some(split) => run.examples[e].split.as_deref() == Some(split.as_str()),
                None => true,
            })
            .collect();
        if dev.is_empty() {
            return Err(InoculationError::NoDev(dev_split.unwrap_or_default()));
        }
        Ok(InoculationPlan {
            settings: settings.clone(),
            challenge,
            samples,
            held_out,
            dev,
            dev_split,
            unreviewed,
            rejected,
            not_applicable,
        })
    }

    /// Challenge items with several expected labels: evaluated, never trained on.
    pub fn evaluate_only(&self) -> usize {
        self.challenge
            .iter()
            .filter(|c| c.train_label().is_none())
            .count()
    }

    /// The training pairs of the sample of size `size` (perturbed input, expected label).
    pub fn training_pairs(&self, run: &RunResult, size: usize) -> Vec<(Pair, Label)> {
        let Some(sample) = self.samples.iter().find(|s| s.size == size) else {
            return Vec::new();
        };
        let label_of = |item: usize| {
            self.challenge
                .iter()
                .find(|c| c.item == item)
                .and_then(ChallengeItem::train_label)
        };
        sample
            .items
            .iter()
            .filter_map(|&i| {
                let it = run.items.get(i)?;
                let pair = run.pairs.get(it.perturbed_pair)?.pair.clone();
                Some((pair, label_of(i)?))
            })
            .collect()
    }

    /// The early-stopping pairs (original input, gold label).
    pub fn dev_pairs(&self, run: &RunResult) -> Vec<(Pair, Label)> {
        self.dev
            .iter()
            .filter_map(|&e| {
                let ex = run.examples.get(e)?;
                Some((run.pairs.get(ex.pair)?.pair.clone(), ex.gold))
            })
            .collect()
    }
}

/// The labels correct for `item`'s perturbed input given its original's gold label, limited
/// to the run's label set.
fn expected_labels(run: &RunResult, item: &ProbeItem) -> Vec<Label> {
    let gold = run.examples.get(item.example).map(|e| e.gold);
    let labels: Vec<Label> = match (item.scored_labels(), &item.expectation, gold) {
        (Some(labels), _, _) => labels,
        (None, Expectation::Transition { operation }, Some(gold)) => run
            .rules
            .get(*operation)
            .map(|rule| rule.valid_after(gold).to_vec())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let allowed = run.label_set.labels();
    let mut out: Vec<Label> = labels.into_iter().filter(|l| allowed.contains(l)).collect();
    out.sort();
    out.dedup();
    out
}
