//! Running a probe set against a model. In the browser scoring is asynchronous, so a run is
//! a state machine: [`ProbeRun::next_batch`] hands out pairs, [`ProbeRun::submit`] takes their
//! scores. [`ProbeRun::run`] drives the same steps with a synchronous [`PairScorer`] for native
//! code and tests. The outcome, [`RunResult`], holds everything needed to recompute every
//! metric from the file alone.

use serde::{Deserialize, Serialize};

use crate::label::Label;
use crate::probe::{ProbeExample, ProbeItem, ProbeSet};
use crate::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};
use crate::transitions::Transition;

/// The marker in a run file's `format` field.
pub const RUN_FORMAT: &str = "tabprobe-run";
/// The run file version this build writes.
pub const RUN_VERSION: u32 = 1;

/// How far a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Pairs scored.
    pub done: usize,
    /// Pairs to score.
    pub total: usize,
}

/// Why a run stopped or could not finish.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The user cancelled; the run keeps the scores it has and can continue.
    #[error("cancelled after {done} of {total} pairs")]
    Cancelled {
        /// Pairs scored.
        done: usize,
        /// Pairs to score.
        total: usize,
    },
    /// `submit` was called with no batch outstanding.
    #[error("scores submitted but no batch was handed out")]
    NoBatchOutstanding,
    /// The scorer returned the wrong number of scores.
    #[error("expected {expected} scores for the batch, got {got}")]
    WrongScoreCount {
        /// Batch size.
        expected: usize,
        /// Scores received.
        got: usize,
    },
    /// `finish` was called before every pair was scored.
    #[error("run incomplete: {done} of {total} pairs scored")]
    Incomplete {
        /// Pairs scored.
        done: usize,
        /// Pairs to score.
        total: usize,
    },
    /// The model failed.
    #[error(transparent)]
    Score(#[from] ScoreError),
}

/// A probe set being scored, batch by batch.
#[derive(Debug, Clone)]
pub struct ProbeRun {
    set: ProbeSet,
    scores: Vec<Option<PairScore>>,
    batch_size: usize,
    next: usize,
    outstanding: Option<std::ops::Range<usize>>,
}

impl ProbeRun {
    /// A run over `set`, scoring `batch_size` pairs at a time (at least 1).
    pub fn new(set: ProbeSet, batch_size: usize) -> ProbeRun {
        let n = set.pairs.len();
        ProbeRun {
            set,
            scores: vec![None; n],
            batch_size: batch_size.max(1),
            next: 0,
            outstanding: None,
        }
    }

    /// The probe set being run.
    pub fn set(&self) -> &ProbeSet {
        &self.set
    }

    /// Pairs scored so far.
    pub fn progress(&self) -> Progress {
        Progress {
            done: self.next,
            total: self.scores.len(),
        }
    }

    /// Whether every pair has a score.
    pub fn is_complete(&self) -> bool {
        self.next >= self.scores.len()
    }

    /// The next batch to score, or `None` when done. Asking again before submitting hands
    /// out the same batch (a lost reply is simply re-requested).
    pub fn next_batch(&mut self) -> Option<Vec<Pair>> {
        if self.is_complete() {
            return None;
        }
        let end = (self.next + self.batch_size).min(self.scores.len());
        let range = self.next..end;
        self.outstanding = Some(range.clone());
        Some(self.set.pairs[range].to_vec())
    }

    /// Records the scores of the batch last handed out.
    pub fn submit(&mut self, scores: Vec<PairScore>) -> Result<Progress, RunError> {
        let range = self
            .outstanding
            .take()
            .ok_or(RunError::NoBatchOutstanding)?;
        if scores.len() != range.len() {
            let expected = range.len();
            self.outstanding = Some(range);
            return Err(RunError::WrongScoreCount {
                expected,
                got: scores.len(),
            });
        }
        for (slot, s) in self.scores[range.clone()].iter_mut().zip(scores) {
            *slot = Some(s);
        }
        self.next = range.end;
        Ok(self.progress())
    }

    /// Scores everything with `scorer`, reporting progress after each batch and checking
    /// `cancel` between batches. On cancel the run keeps its scores and can be resumed.
    pub fn run(
        &mut self,
        scorer: &mut impl PairScorer,
        mut progress: impl FnMut(Progress),
        cancel: impl Fn() -> bool,
    ) -> Result<(), RunError> {
        while let Some(batch) = self.next_batch() {
            if cancel() {
                self.outstanding = None;
                let p = self.progress();
                return Err(RunError::Cancelled {
                    done: p.done,
                    total: p.total,
                });
            }
            let scores = scorer.score(&batch)?;
            let p = self.submit(scores)?;
            progress(p);
        }
        Ok(())
    }

    /// The result, once every pair is scored.
    pub fn finish(self, model: ModelId) -> Result<RunResult, RunError> {
        let total = self.scores.len();
        let scores: Option<Vec<PairScore>> = self.scores.into_iter().collect();
        let Some(scores) = scores else {
            return Err(RunError::Incomplete {
                done: self.next,
                total,
            });
        };
        let set = self.set;
        Ok(RunResult {
            format: RUN_FORMAT.to_string(),
            version: RUN_VERSION,
            model,
            pairs: set
                .pairs
                .into_iter()
                .zip(scores)
                .map(|(pair, score)| ScoredPair { pair, score })
                .collect(),
            settings: set.settings,
            rules: set.rules,
            label_set: set.label_set,
            examples: set.examples,
            items: set.items,
            hypothesis_only_pairs: set.hypothesis_only_pairs,
            skipped: set.skipped,
        })
    }
}

/// A distinct pair with the model's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredPair {
    /// The text the model read.
    pub pair: Pair,
    /// What the model said.
    pub score: PairScore,
}

/// A finished run: one serde value holding settings, rules, model, every original and
/// perturbed input, every prediction (probabilities) and every expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Always [`RUN_FORMAT`].
    pub format: String,
    /// [`RUN_VERSION`].
    pub version: u32,
    /// The model that scored it.
    pub model: ModelId,
    /// Probes, caps, seed, linearization.
    pub settings: crate::probe::ProbeSettings,
    /// The validity rules in force.
    pub rules: crate::rules::RuleSet,
    /// The dataset's label set.
    pub label_set: crate::label::LabelSet,
    /// Original examples (with their original input).
    pub examples: Vec<ProbeExample>,
    /// Perturbed items.
    pub items: Vec<ProbeItem>,
    /// Distinct pairs with scores; items and examples point into this list.
    pub pairs: Vec<ScoredPair>,
    /// Hypothesis-only pair per example, when requested.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hypothesis_only_pairs: Vec<usize>,
    /// What was left out.
    pub skipped: Vec<crate::probe::build::Skipped>,
}

impl RunResult {
    /// The model's prediction on pair `i` (ENTAIL if out of range, which a valid file never is).
    pub fn predicted(&self, pair: usize) -> Label {
        self.pairs
            .get(pair)
            .map(|p| p.score.predicted())
            .unwrap_or(Label::Entail)
    }

    /// The model's prediction on an example's original input.
    pub fn original_prediction(&self, example: &ProbeExample) -> Label {
        self.predicted(example.pair)
    }

    /// `before → after` for an item.
    pub fn transition(&self, item: &ProbeItem) -> Transition {
        Transition {
            before: self.predicted(item.original_pair),
            after: self.predicted(item.perturbed_pair),
        }
    }

    /// The example an item came from.
    pub fn example_of(&self, item: &ProbeItem) -> Option<&ProbeExample> {
        self.examples.get(item.example)
    }
}
