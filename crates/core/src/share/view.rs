//! What the share page renders, computed from a [`SharedResult`] with no browser: texts,
//! the table diff's lines, the rule's rows and which figures are only *claimed* by the link.
//! The page (`src/views/share.rs`) draws this model and nothing else from the link, so the
//! fuzz target `share_view` and native tests cover everything a link can make it do.

use crate::data::label::{Label, LabelSet};
use crate::data::table::Table;
use crate::edit::{diff_lines, diff_tables, DiffLine};
use crate::linearize::LinearizeError;
use crate::metrics::transitions::TransitionEdge;
use crate::probe::{Certainty, Expectation};
use crate::scoring::{Pair, PairScore, Precision};

use super::{SharedInput, SharedResult};

/// Shown beside every figure that comes from the link rather than from a model run here.
pub const CLAIMED: &str = "claimed by the link";
/// How far a re-run's probabilities may differ from the link's and still confirm them (the
/// same weights on another backend, WebGPU or CPU, differ in the last digits).
pub const CONFIRM_TOLERANCE: f32 = 0.01;

/// Everything the share page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SharePage {
    /// What produced the result.
    pub origin: String,
    /// The operation, `_` read as spaces.
    pub operation: String,
    /// The dataset example, when known.
    pub example_id: Option<String>,
    /// `infotabs compat, premise first`.
    pub linearization: String,
    /// The label names to use.
    pub label_set: LabelSet,
    /// The original's gold label.
    pub gold: Option<Label>,
    /// The edited item's expected label (the expectation's first).
    pub expected_after: Option<Label>,
    /// The expectation in words.
    pub expectation: Option<String>,
    /// `certain` or `heuristic (needs review)`.
    pub certainty: Option<&'static str>,
    /// The one line saying why it is certain, or what a reviewer decides ([`crate::probe::Basis::line`]).
    pub why: Option<&'static str>,
    /// The model the link names (claimed: nothing checks it until a re-run).
    pub model: Option<ClaimedModel>,
    /// The original hypothesis.
    pub hypothesis_before: String,
    /// The edited hypothesis.
    pub hypothesis_after: String,
    /// Whether the hypothesis was edited.
    pub hypothesis_changed: bool,
    /// The link's predictions (claimed).
    pub predictions: Option<ClaimedPredictions>,
    /// The predicted transition judged by the rule or the expectation: the one-edge graph.
    pub transition: Option<SharedTransition>,
    /// Other models' predictions the link carries (claimed), each with its model.
    pub other_models: Vec<(ClaimedModel, ClaimedPredictions)>,
    /// The validity rule as rows.
    pub rule: Option<RuleRows>,
    /// The premise, or the table diff.
    pub premise: PremiseSection,
}

/// The model named by the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedModel {
    /// Its name.
    pub name: String,
    /// The weight hash the link states.
    pub weights_sha256: String,
    /// Its first 12 characters, for display.
    pub hash_short: String,
    /// The arithmetic the link's figures were computed in.
    pub precision: Precision,
    /// The scores were imported from a scores file: the hash is that file's.
    pub scores_file: bool,
}

/// The link's predictions on the original and the edited item.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedPredictions {
    /// On the original.
    pub before: PairScore,
    /// On the edited item.
    pub after: PairScore,
}

/// The model's `before → after` on the shared item, and whether a correct model may make it.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedTransition {
    /// The label predicted on the original.
    pub from: Label,
    /// The label predicted on the edited item.
    pub to: Label,
    /// Allowed by the rule (table operations) or the expected label(s); `None` when the link
    /// carries neither, so nothing judges it.
    pub valid: Option<bool>,
    /// The rule cannot be met from `from` by the model's label set (see
    /// [`crate::probe::rules::ValidityRule::applicable`]): neither valid nor invalid.
    pub not_applicable: bool,
    /// Why, in words: `ENTAIL → NEUTRAL is allowed: after ENTAIL the rule allows ENTAIL, NEUTRAL`.
    pub verdict: String,
}

impl SharedTransition {
    /// The transition as the results' graph draws an edge (one item, all of its node's
    /// transitions): black when valid, red when invalid, grey when not applicable or unjudged.
    pub fn edge(&self) -> TransitionEdge {
        TransitionEdge {
            from: self.from,
            to: self.to,
            count: 1,
            percent: 100.0,
            valid: self.valid == Some(true),
            not_applicable: self.not_applicable || self.valid.is_none(),
        }
    }
}

/// The validity rule: a caption and one `(before, valid after)` row per label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRows {
    /// `Validity rule (<source>)`.
    pub caption: String,
    /// Before-label name, valid after-label names joined by `, `.
    pub rows: Vec<(String, String)>,
}

/// A premise as shown.
#[derive(Debug, Clone, PartialEq)]
pub enum Premise {
    /// A table.
    Table(Table),
    /// A plain text.
    Text(String),
    /// Neither (hypothesis-only).
    Nothing,
}

/// The premise part of the page.
#[derive(Debug, Clone, PartialEq)]
pub enum PremiseSection {
    /// The premise did not change (or there is no table to compare).
    Unchanged(Premise),
    /// The table was edited: the diff, then both tables.
    Changed(Box<TableChange>),
}

/// An edited table against its original.
#[derive(Debug, Clone, PartialEq)]
pub struct TableChange {
    /// The original table.
    pub original: Table,
    /// The edited table.
    pub edited: Table,
    /// `1 changed · 2 removed`.
    pub summary: String,
    /// Old and new title, when it changed.
    pub title_change: Option<(String, String)>,
    /// The diff's lines.
    pub lines: Vec<DiffLine>,
}

/// What a re-run says of the link's predictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimStatus {
    /// Not re-run: the figures are the link's word.
    Claimed,
    /// Re-run with the weights the link names, and the figures agree.
    Confirmed,
    /// Re-run with those weights, and the figures differ.
    Contradicted,
    /// Re-run with other weights: the link's figures stay unchecked.
    OtherWeights,
    /// Re-run with the same weights at another precision where one of the two is int8: int8
    /// moves probabilities further than [`CONFIRM_TOLERANCE`], so the re-run checks nothing.
    OtherPrecision,
}

impl ClaimStatus {
    /// The note shown beside the link's predictions.
    pub fn note(self) -> &'static str {
        match self {
            ClaimStatus::Claimed => "claimed by the link (not re-run here)",
            ClaimStatus::Confirmed => "claimed by the link, confirmed by your re-run with the same weights",
            ClaimStatus::Contradicted => "claimed by the link, but your re-run with the same weights gives different probabilities",
            ClaimStatus::OtherWeights => "claimed by the link (your re-run used other weights, so it checks nothing)",
            ClaimStatus::OtherPrecision => "claimed by the link (your re-run ran at another precision, and int8 moves probabilities further than the check allows, so it checks nothing)",
        }
    }
}

impl SharePage {
    /// The page for `r` (a result [`super::decode`] or [`super::from_file`] accepted, so
    /// within [`super::limits`]: building it is linear in the result's size).
    pub fn new(r: &SharedResult) -> SharePage {
        let label_set = r.model.as_ref().map(|m| m.label_set).unwrap_or_default();
        let expected_after = match &r.expectation {
            Some(Expectation::Label { labels }) => labels.first().copied(),
            _ => None,
        };
        SharePage {
            origin: r.origin.clone(),
            operation: crate::display::readable(&r.operation),
            example_id: r.example_id.clone(),
            linearization: r.linearization.describe(),
            label_set,
            gold: r.gold,
            expected_after,
            expectation: r
                .expectation
                .as_ref()
                .map(|e| expectation_text(e, label_set)),
            certainty: r.certainty.map(|c| match c {
                Certainty::Certain => "certain",
                Certainty::Heuristic => "heuristic (needs review)",
            }),
            why: r.basis.map(crate::probe::Basis::line),
            model: r.model.as_ref().map(claimed_model),
            hypothesis_before: r.before.hypothesis.clone(),
            hypothesis_after: r.after.hypothesis.clone(),
            hypothesis_changed: r.after.hypothesis != r.before.hypothesis,
            predictions: r.predictions.as_ref().map(claimed_predictions),
            transition: transition(r, label_set),
            other_models: r
                .other_models
                .iter()
                .map(|o| (claimed_model(&o.model), claimed_predictions(&o.predictions)))
                .collect(),
            rule: r.rule.as_ref().map(|rule| RuleRows {
                caption: format!("Validity rule ({})", rule.source),
                rows: Label::ALL
                    .iter()
                    .map(|&l| {
                        let valid: Vec<&str> = rule
                            .valid_after(l)
                            .iter()
                            .map(|v| label_set.display_name(*v))
                            .collect();
                        (label_set.display_name(l).to_string(), valid.join(", "))
                    })
                    .collect(),
            }),
            premise: premise_section(r),
        }
    }

    /// What the page says when the loaded model runs at `loaded` and the link's figures were
    /// computed at another precision (`None` when they agree, or the link names no model):
    /// a re-run then confirms them only to within f16-mixed's parity, not to the last digit,
    /// and not at all where one of the two is int8.
    pub fn precision_note(&self, loaded: Precision) -> Option<String> {
        let link = self.model.as_ref()?.precision;
        (link != loaded).then(|| {
            if link == Precision::Int8 || loaded == Precision::Int8 {
                format!(
                    "This result was computed in {link}; the loaded model runs in {loaded}. int8 moves probabilities from f32 by up to a few hundredths on the tested checkpoints (docs/model-families.md#int8), more than a re-run's check allows, so a re-run here checks nothing: choose {link} in the model bar's precision to check the link's figures."
                )
            } else {
                format!(
                    "This result was computed in {link}; the loaded model runs in {loaded}. The same weights at the two precisions agree to about 1e-3 in each probability (f16-mixed's tested parity), so a re-run here checks the link's figures only that far."
                )
            }
        })
    }

    /// What a re-run (`rerun`: the two scores, original then edited, by a model with weight
    /// hash `rerun_sha256` running at `rerun_precision`) says of the link's predictions.
    pub fn claim_status(&self, rerun: Option<(&[PairScore], &str, Precision)>) -> ClaimStatus {
        let (Some((scores, sha, precision)), Some(claimed)) = (rerun, &self.predictions) else {
            return ClaimStatus::Claimed;
        };
        let Some(model) = self.model.as_ref().filter(|m| m.weights_sha256 == sha) else {
            return ClaimStatus::OtherWeights;
        };
        let int8 = [model.precision, precision].contains(&Precision::Int8);
        if model.precision != precision && int8 {
            return ClaimStatus::OtherPrecision;
        }
        let close = |a: &PairScore, b: &PairScore| {
            a.probs
                .iter()
                .zip(&b.probs)
                .all(|(x, y)| (x - y).abs() <= CONFIRM_TOLERANCE)
        };
        match scores {
            [b, a] if close(b, &claimed.before) && close(a, &claimed.after) => {
                ClaimStatus::Confirmed
            }
            _ => ClaimStatus::Contradicted,
        }
    }
}

fn claimed_model(m: &crate::scoring::ModelId) -> ClaimedModel {
    ClaimedModel {
        name: m.name.clone(),
        weights_sha256: m.weights_sha256.clone(),
        hash_short: m.weights_sha256.chars().take(12).collect(),
        precision: m.precision,
        scores_file: m.scores_file,
    }
}

fn claimed_predictions(p: &super::SharedPredictions) -> ClaimedPredictions {
    ClaimedPredictions {
        before: p.before.to_pair_score(),
        after: p.after.to_pair_score(),
    }
}

/// The main model's transition, judged by the rule when the link has one (table probes),
/// else by the expected labels; `None` without predictions.
fn transition(r: &SharedResult, set: LabelSet) -> Option<SharedTransition> {
    let p = r.predictions.as_ref()?;
    let (from, to) = (p.before.predicted(), p.after.predicted());
    let edge = format!("{} → {}", set.display_name(from), set.display_name(to));
    let names = |ls: &[Label]| {
        ls.iter()
            .map(|l| set.display_name(*l))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (valid, not_applicable, verdict) = match (&r.rule, &r.expectation) {
        (Some(rule), _) => {
            let valid = rule.is_valid(from, to);
            let applicable = rule.applicable(from, set);
            let verdict = if !applicable {
                format!(
                    "{edge} is not judged: after {} the rule allows only {}, which this model cannot predict",
                    set.display_name(from),
                    names(rule.valid_after(from))
                )
            } else {
                format!(
                    "{edge} is {}: after {} the rule allows {}",
                    if valid { "allowed" } else { "not allowed" },
                    set.display_name(from),
                    names(rule.valid_after(from))
                )
            };
            (Some(valid), !applicable, verdict)
        }
        (None, Some(Expectation::Label { labels })) => {
            let valid = labels.contains(&to);
            let verdict = format!(
                "{edge} is {}: the edited item's expected label is {}",
                if valid {
                    "as expected"
                } else {
                    "not as expected"
                },
                names(labels)
            );
            (Some(valid), false, verdict)
        }
        _ => (
            None,
            false,
            format!("{edge}: nothing in the link judges it"),
        ),
    };
    Some(SharedTransition {
        from,
        to,
        valid,
        not_applicable,
        verdict,
    })
}

/// The expectation in words, with the model's label names.
pub fn expectation_text(e: &Expectation, set: LabelSet) -> String {
    match e {
        Expectation::Label { labels } => {
            let names: Vec<&str> = labels.iter().map(|l| set.display_name(*l)).collect();
            format!("the edited item's label is {}", names.join(" or "))
        }
        Expectation::Transition { operation } => {
            // The run-file name in words ("row deletion"), not the Rust enum's.
            let name = crate::display::readable(&crate::report::operation_name(*operation));
            format!("the transition is valid under the rule for {name}")
        }
    }
}

fn premise_of(input: &SharedInput, table: Option<&Table>) -> Premise {
    match (table, &input.premise) {
        (Some(t), _) => Premise::Table(t.clone()),
        (None, Some(p)) => Premise::Text(p.clone()),
        (None, None) => Premise::Nothing,
    }
}

fn premise_section(r: &SharedResult) -> PremiseSection {
    let edited = r
        .after
        .table
        .as_ref()
        .filter(|e| Some(*e) != r.before.table.as_ref());
    match (&r.before.table, edited) {
        (Some(original), Some(edited)) => {
            let diff = diff_tables(original, edited);
            let (o, e) = (original.title(), edited.title());
            PremiseSection::Changed(Box::new(TableChange {
                summary: diff.summary(),
                title_change: (o != e).then(|| (o.to_string(), e.to_string())),
                lines: diff_lines(original, edited, &diff),
                original: original.clone(),
                edited: edited.clone(),
            }))
        }
        _ => PremiseSection::Unchanged(premise_of(&r.before, r.before.table.as_ref())),
    }
}

/// The two pairs a re-run scores (original, edited), read with the link's linearization.
pub fn rerun_pairs(r: &SharedResult) -> Result<Vec<Pair>, LinearizeError> {
    let pair = |input: &SharedInput, table: Option<&Table>| match (table, &input.premise) {
        (Some(t), _) => r.linearization.table_pair(t, &input.hypothesis),
        (None, Some(p)) => Ok(r.linearization.pair(p, &input.hypothesis)),
        (None, None) => Ok(r.linearization.pair("", &input.hypothesis)),
    };
    Ok(vec![
        pair(&r.before, r.before.table.as_ref())?,
        pair(&r.after, r.after_table())?,
    ])
}
