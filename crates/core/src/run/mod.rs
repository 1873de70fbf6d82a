//! Running a probe set against a model. In the browser scoring is asynchronous, so a run is
//! a state machine: [`ProbeRun::next_batch`] hands out pairs, [`ProbeRun::submit`] takes their
//! scores. [`ProbeRun::run`] drives the same steps with a synchronous [`PairScorer`] for native
//! code and tests. The outcome, [`RunResult`], holds everything needed to recompute every
//! metric from the file alone.

pub mod align;
mod file_error;
pub mod models_manifest;
pub mod pace;
pub mod pairs_file;
pub mod pieces;
pub mod scores_file;
pub mod shard;
pub mod verdict;

pub use file_error::{RunCheckError, RunFileError};

use serde::{Deserialize, Serialize};

use crate::data::label::Label;
use crate::probe::{ProbeExample, ProbeItem, ProbeSet};
use crate::scoring::{ModelId, NonFinite, Pair, PairScore, PairScorer, ScoreError};

/// A model's prediction on the original and on the perturbed input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Transition {
    /// Predicted on the original.
    pub before: Label,
    /// Predicted on the perturbed input.
    pub after: Label,
}

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
        // A scorer other than the model crate's (which refuses these itself) must not put a
        // NaN into the run either: JSON would write it as `null` and the file never reads back.
        let pairs = &self.set.pairs[range.clone()];
        if let Err(nf) = NonFinite::check("", Some(pairs), &scores) {
            self.outstanding = Some(range.clone());
            let index = nf.index + range.start;
            return Err(RunError::Score(ScoreError::NonFinite(
                nf.offset(range.start).owned_by(self.set.pair_owner(index)),
            )));
        }
        for (slot, s) in self.scores[range.clone()].iter_mut().zip(scores) {
            *slot = Some(s);
        }
        self.next = range.end;
        Ok(self.progress())
    }

    /// A scorer's error on the batch last handed out, placed in the whole run: a non-finite
    /// score's pair numbered from the run's start and named by its example or item.
    pub fn locate(&self, e: ScoreError) -> ScoreError {
        match e {
            ScoreError::NonFinite(nf) => {
                let start = self.outstanding.as_ref().map_or(self.next, |r| r.start);
                let owner = self.set.pair_owner(start + nf.index);
                ScoreError::NonFinite(nf.offset(start).owned_by(owner))
            }
            other => other,
        }
    }

    /// Takes the scores of the first `scores.len()` pairs from an earlier, interrupted run of
    /// the same set (a partial run file holds exactly these, in order) and continues after
    /// them. Only before any batch is handed out; more scores than pairs is an error.
    pub fn resume_with(&mut self, scores: Vec<PairScore>) -> Result<Progress, RunError> {
        let total = self.scores.len();
        if self.next != 0 || self.outstanding.is_some() || scores.len() > total {
            return Err(RunError::WrongScoreCount {
                expected: total - self.next,
                got: scores.len(),
            });
        }
        self.next = scores.len();
        for (slot, s) in self.scores.iter_mut().zip(scores) {
            *slot = Some(s);
        }
        Ok(self.progress())
    }

    /// The result so far, leaving the run as it is: [`ProbeRun::finish_partial`] of a copy
    /// (written periodically, so a killed process leaves a file to resume from).
    pub fn partial_result(&self, model: ModelId) -> RunResult {
        self.clone().finish_partial(model)
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
            let scores = scorer.score(&batch).map_err(|e| self.locate(e))?;
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
            hypothesis_only_model: None,
            skipped: set.skipped,
            unapplied_reviews: set.unapplied_reviews,
            cancelled_at: None,
            shard: None,
        })
    }

    /// The result of a cancelled run: what was scored, kept. Pairs are scored in order, so
    /// the first `done` pairs have scores; an original example stays when its pair is among
    /// them, an item when its example stays and both its pairs are. Hypothesis-only scores are
    /// kept only when every kept example has one. `cancelled_at` records how far the run got.
    /// A complete run gives the same as [`ProbeRun::finish`] (with `cancelled_at` unset).
    pub fn finish_partial(self, model: ModelId) -> RunResult {
        if self.is_complete() {
            if let Ok(r) = self.clone().finish(model.clone()) {
                return r;
            }
        }
        let progress = self.progress();
        let done = self.next;
        let set = self.set;
        let mut position = vec![None; set.examples.len()];
        let mut examples = Vec::new();
        let mut hypothesis_only = Vec::new();
        let mut all_hypothesis_only = set.hypothesis_only_pairs.len() == set.examples.len();
        for (old, ex) in set.examples.into_iter().enumerate() {
            if ex.pair < done {
                position[old] = Some(examples.len());
                match set.hypothesis_only_pairs.get(old) {
                    Some(&h) if h < done => hypothesis_only.push(h),
                    _ => all_hypothesis_only = false,
                }
                examples.push(ex);
            }
        }
        let items = set
            .items
            .into_iter()
            .filter_map(|mut it| {
                let pos = position.get(it.example).copied().flatten()?;
                (it.original_pair < done && it.perturbed_pair < done).then(|| {
                    it.example = pos;
                    // An unscored hypothesis-only pair is dropped, not the item.
                    it.hypothesis_only_pair = it.hypothesis_only_pair.filter(|&p| p < done);
                    it
                })
            })
            .collect();
        let pairs = set
            .pairs
            .into_iter()
            .zip(self.scores)
            .take(done)
            .filter_map(|(pair, score)| {
                Some(ScoredPair {
                    pair,
                    score: score?,
                })
            })
            .collect();
        RunResult {
            format: RUN_FORMAT.to_string(),
            version: RUN_VERSION,
            model,
            pairs,
            settings: set.settings,
            rules: set.rules,
            label_set: set.label_set,
            examples,
            items,
            hypothesis_only_pairs: if all_hypothesis_only {
                hypothesis_only
            } else {
                Vec::new()
            },
            hypothesis_only_model: None,
            skipped: set.skipped,
            unapplied_reviews: set.unapplied_reviews,
            cancelled_at: Some(progress),
            shard: None,
        }
    }
}

/// Reads a run file's text: JSON shape (with the JSON path, line and column of the first
/// error), the format marker and version, and every index (see [`RunResult::check`]). `file`
/// names the source in messages.
pub fn parse_run(file: &str, text: &str) -> Result<RunResult, RunFileError> {
    let probe: serde_json::Value =
        serde_json::from_str(text).map_err(|e| RunFileError::NotJson {
            file: file.to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
    let format = probe.get("format");
    if format.and_then(|f| f.as_str()) != Some(RUN_FORMAT) {
        return Err(RunFileError::Format {
            file: file.to_string(),
            path: "$.format",
            found: format.map_or("absent".to_string(), |f| f.to_string()),
        });
    }
    let version = probe.get("version");
    if version.and_then(|v| v.as_u64()) != Some(u64::from(RUN_VERSION)) {
        return Err(RunFileError::Version {
            file: file.to_string(),
            path: "$.version",
            found: version.map_or("absent".to_string(), |v| v.to_string()),
        });
    }
    let run: RunResult =
        crate::data::json::parse_json_at(file, text).map_err(RunFileError::shape)?;
    run.check().map_err(|problem| RunFileError::Invalid {
        file: file.to_string(),
        problem,
    })?;
    Ok(run)
}

/// A second model's run on the same probe set, used as Table 8's hypothesis-only model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum SubstituteError {
    /// The second run scored no hypothesis-only pairs.
    #[error("the second model's run has no hypothesis-only scores")]
    NoHypothesisOnly,
    /// The runs do not hold the same examples in the same order.
    #[error("the two runs hold different examples ({0}); run both on the same probe set")]
    DifferentExamples(String),
}

impl RunResult {
    /// Checks that every index points where it should (a run whose indices dangle would
    /// silently read the wrong predictions); the error names the JSON path at fault.
    pub fn check(&self) -> Result<(), RunCheckError> {
        let n = self.pairs.len();
        let pair = |path: String, index: usize| RunCheckError::Dangling {
            path,
            index,
            len: n,
            of: "pairs",
        };
        for (k, e) in self.examples.iter().enumerate() {
            if e.pair >= n {
                return Err(pair(format!("$.examples[{k}].pair"), e.pair));
            }
        }
        for (k, it) in self.items.iter().enumerate() {
            if it.example >= self.examples.len() {
                return Err(RunCheckError::Dangling {
                    path: format!("$.items[{k}].example"),
                    index: it.example,
                    len: self.examples.len(),
                    of: "examples",
                });
            }
            if it.original_pair >= n {
                return Err(pair(
                    format!("$.items[{k}].original_pair"),
                    it.original_pair,
                ));
            }
            if it.perturbed_pair >= n {
                return Err(pair(
                    format!("$.items[{k}].perturbed_pair"),
                    it.perturbed_pair,
                ));
            }
            if let Some(p) = it.hypothesis_only_pair.filter(|&p| p >= n) {
                return Err(pair(format!("$.items[{k}].hypothesis_only_pair"), p));
            }
        }
        for (k, &p) in self.hypothesis_only_pairs.iter().enumerate() {
            if p >= n {
                return Err(pair(format!("$.hypothesis_only_pairs[{k}]"), p));
            }
        }
        // JSON cannot hold NaN, but a number past f32's range (1e39) reads as infinity.
        if let Some(k) = self.pairs.iter().position(|p| !p.score.is_finite()) {
            return Err(RunCheckError::NotFinite {
                pair: k,
                logits: self.pairs[k].score.logits.clone(),
                probs: self.pairs[k].score.probs,
            });
        }
        Ok(())
    }

    /// Whether the run's model read the hypothesis alone: its settings say so
    /// ([`crate::linearize::PremiseMode::HypothesisOnly`]), or — in a run file written before
    /// the settings could — every original pair has an empty premise.
    pub fn reads_hypothesis_only(&self) -> bool {
        self.settings.linearization.hypothesis_only()
            || (!self.examples.is_empty()
                && self.examples.iter().all(|e| {
                    self.pairs
                        .get(e.pair)
                        .is_some_and(|p| p.pair.premise.is_empty())
                }))
    }

    /// This run with its hypothesis-only scores taken from `second`, a run of another model
    /// (e.g. a separately trained hypothesis-only model, docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view) on the same examples: the
    /// second model's hypothesis-only pairs and scores are appended to this run's pairs, and
    /// Table 8's O-Hypo column then reads the second model. Items take the second model's
    /// score of their perturbed hypothesis alone (Tables 4 and 7's hypothesis-only rows) when
    /// the second run has it — its item with the same id has a hypothesis-only pair, or the second
    /// model reads no premise at all ([`RunResult::reads_hypothesis_only`]); otherwise the item has no hypothesis-only score, never this model's.
    /// `hypothesis_only_model` names the second model.
    pub fn with_hypothesis_model(&self, second: &RunResult) -> Result<RunResult, SubstituteError> {
        if second.hypothesis_only_pairs.len() != second.examples.len() || second.examples.is_empty()
        {
            return Err(SubstituteError::NoHypothesisOnly);
        }
        let ids = |r: &RunResult| r.examples.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        if ids(self) != ids(second) {
            return Err(SubstituteError::DifferentExamples(format!(
                "{} vs {} examples",
                self.examples.len(),
                second.examples.len()
            )));
        }
        let mut out = self.clone();
        let mut repointed = Vec::with_capacity(second.hypothesis_only_pairs.len());
        for &p in &second.hypothesis_only_pairs {
            let scored = second
                .pairs
                .get(p)
                .ok_or(SubstituteError::NoHypothesisOnly)?;
            out.pairs.push(scored.clone());
            repointed.push(out.pairs.len() - 1);
        }
        out.hypothesis_only_pairs = repointed;
        let second_reads_hypothesis = second.reads_hypothesis_only();
        let second_items: std::collections::BTreeMap<&str, usize> = second
            .items
            .iter()
            .filter_map(|it| {
                // A model that reads no premise scored each item's hypothesis alone already.
                let p = it.hypothesis_only_pair.or_else(|| {
                    second_reads_hypothesis
                        .then_some(it.perturbed_pair)
                        .filter(|&p| p < second.pairs.len())
                })?;
                Some((it.id.as_str(), p))
            })
            .collect();
        for it in &mut out.items {
            it.hypothesis_only_pair = match second_items.get(it.id.as_str()) {
                Some(&p) => match second.pairs.get(p) {
                    Some(scored) => {
                        out.pairs.push(scored.clone());
                        Some(out.pairs.len() - 1)
                    }
                    None => None,
                },
                None => None,
            };
        }
        out.hypothesis_only_model = Some(second.model.clone());
        Ok(out)
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
    pub rules: crate::probe::rules::RuleSet,
    /// The dataset's label set.
    pub label_set: crate::data::label::LabelSet,
    /// Original examples (with their original input).
    pub examples: Vec<ProbeExample>,
    /// Perturbed items.
    pub items: Vec<ProbeItem>,
    /// Distinct pairs with scores; items and examples point into this list.
    pub pairs: Vec<ScoredPair>,
    /// Hypothesis-only pair per example, when requested.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hypothesis_only_pairs: Vec<usize>,
    /// Who scored the hypothesis-only pairs when it is not `model`: a second model (set by
    /// [`RunResult::with_hypothesis_model`]). `None`: `model` itself with an empty premise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypothesis_only_model: Option<ModelId>,
    /// What was left out.
    pub skipped: Vec<crate::probe::build::Skipped>,
    /// Dataset reviews not applied because the item they name is now a different
    /// perturbation (see [`crate::probe::review::apply_reviews`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unapplied_reviews: Vec<String>,
    /// Set when the run was cancelled: how far it got. The file then holds only the examples
    /// and items whose pairs were all scored (see [`ProbeRun::finish_partial`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<Progress>,
    /// Set on a shard's run file (`tabprobe probe --shard i/n`): which shard, of what run,
    /// and where its entries go in the whole run (see [`crate::run::shard`]). Absent from
    /// unsharded and merged runs, whose bytes it leaves unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::run::shard::ShardStamp>,
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
