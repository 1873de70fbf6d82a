//! Evidence selection (docs/probes-and-metrics.md#evidence-selection, paper §5.3): rows whose deletion changes the model's
//! prediction are "model-relevant"; compared with human-annotated relevant rows on ENTAIL and
//! CONTRADICT examples that have at least one.
//!
//! Only examples with **complete** evidence are compared: every row of the table must have
//! been deleted once (one row-deletion item per row in the run). A row never deleted can be
//! neither model-relevant nor ruled out, so an example cut short by a per-example or per-run
//! cap, or by a cancelled run, would lower its recall and move it towards "none" for no reason
//! of the model's. Such examples are left out of every figure and listed as incomplete.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::group::{in_group, Group};
use crate::data::label::Label;
use crate::probe::{Edit, Premise, ProbeExample, ProbeItem};
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;

/// Whose evidence one row of an example's table is: the human annotators' (a relevant row),
/// the model's (deleting it changed the prediction, [`changes_prediction`]), both or neither.
/// The site's evidence table marks each row with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceMark {
    /// Relevant to the annotators and to the model.
    Both,
    /// Annotated relevant; its deletion changed nothing.
    Human,
    /// Not annotated; its deletion changed the prediction.
    Model,
    /// Neither.
    Neither,
}

impl EvidenceMark {
    /// The mark of a row the annotators marked relevant (`human`) and whose deletion changed
    /// the model's prediction (`model`).
    pub fn of(human: bool, model: bool) -> EvidenceMark {
        match (human, model) {
            (true, true) => EvidenceMark::Both,
            (true, false) => EvidenceMark::Human,
            (false, true) => EvidenceMark::Model,
            (false, false) => EvidenceMark::Neither,
        }
    }

    /// `both`, `human`, `model` or `neither`.
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceMark::Both => "both",
            EvidenceMark::Human => "human",
            EvidenceMark::Model => "model",
            EvidenceMark::Neither => "neither",
        }
    }

    /// How the table reads the mark: `human + model`, `human only`, `model only`, nothing for
    /// neither.
    pub fn words(self) -> &'static str {
        match self {
            EvidenceMark::Both => "human + model",
            EvidenceMark::Human => "human only",
            EvidenceMark::Model => "model only",
            EvidenceMark::Neither => "",
        }
    }
}

/// How the model's evidence relates to the human's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceUse {
    /// Every human-relevant row is model-relevant.
    All,
    /// Some but not all.
    Some,
    /// None of them (wrong rows, or no row at all).
    None,
}

/// One example's evidence comparison (the per-example highlight view).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceExample {
    /// Example id.
    pub example: String,
    /// Human-annotated relevant rows.
    pub human: Vec<usize>,
    /// Rows whose deletion changed the prediction.
    pub model: Vec<usize>,
    /// `|model ∩ human| / |model|`, 0 when the model uses no row.
    pub precision: f64,
    /// `|model ∩ human| / |human|`.
    pub recall: f64,
    /// All / some / none.
    pub uses: EvidenceUse,
    /// No deletion changed the prediction.
    pub ignores_premise: bool,
    /// The original prediction was right.
    pub correct: bool,
}

/// A qualifying example left out of evidence selection because not every row was deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncompleteEvidence {
    /// Example id.
    pub example: String,
    /// Distinct rows the run deleted (one row-deletion item each).
    pub deleted: usize,
    /// Rows of the example's table.
    pub rows: usize,
}

/// Shares of examples, in percent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceSelection {
    /// Examples compared (complete evidence only).
    pub examples: usize,
    /// Mean precision, percent.
    pub precision: f64,
    /// Mean recall, percent.
    pub recall: f64,
    /// Share using all relevant rows.
    pub all: f64,
    /// Share using some.
    pub some: f64,
    /// Share using none (or only wrong rows).
    pub none: f64,
    /// Within "none": share where no deletion changes the prediction.
    pub ignores_premise_within_none: Option<f64>,
    /// Ignores the premise, share of all examples.
    pub ignores_premise: f64,
    /// Correct and all / some / none, shares of all examples (paper: 21% / 12% / 37%).
    pub correct_all: f64,
    /// Correct using some relevant rows.
    pub correct_some: f64,
    /// Correct using none.
    pub correct_none: f64,
    /// The per-example comparisons.
    pub per_example: Vec<EvidenceExample>,
    /// ENTAIL/CONTRADICT examples with relevant rows left out of every figure above because
    /// not all of their rows were deleted (a cap, or a cancelled run).
    #[serde(default)]
    pub incomplete: Vec<IncompleteEvidence>,
}

/// Row-deletion evidence of a run: per example position, the rows deleted and the rows whose
/// deletion changed the prediction. `None` when the run has no row-deletion item at all.
struct Deletions {
    deleted: BTreeMap<usize, BTreeSet<usize>>,
    changed: BTreeMap<usize, BTreeSet<usize>>,
}

/// Whether deleting the rows of `item` changed the model's prediction: what makes a row
/// model-relevant, for the figures and for the per-example view alike.
pub fn changes_prediction(run: &RunResult, item: &ProbeItem) -> bool {
    let t = run.transition(item);
    t.before != t.after
}

/// One single-row deletion of a run, as the per-example evidence view shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowDeletion {
    /// Index of its item in the run's `items`.
    pub item: usize,
    /// The prediction after the deletion.
    pub after: Label,
    /// Whether it changed the prediction ([`changes_prediction`]): the row is model-relevant.
    pub changed: bool,
}

/// The run's single-row deletions, by example position and row.
pub fn row_deletions(run: &RunResult) -> BTreeMap<usize, BTreeMap<usize, RowDeletion>> {
    let mut out: BTreeMap<usize, BTreeMap<usize, RowDeletion>> = BTreeMap::new();
    for (i, it) in run.items.iter().enumerate() {
        if it.probe != ProbeKind::RowDeletion {
            continue;
        }
        if let Edit::RowsDeleted { rows, .. } = &it.edit {
            if let [row] = rows.as_slice() {
                out.entry(it.example).or_default().insert(
                    *row,
                    RowDeletion {
                        item: i,
                        after: run.transition(it).after,
                        changed: changes_prediction(run, it),
                    },
                );
            }
        }
    }
    out
}

fn deletions(run: &RunResult) -> Option<Deletions> {
    let mut d = Deletions {
        deleted: BTreeMap::new(),
        changed: BTreeMap::new(),
    };
    let mut any = false;
    for it in run
        .items
        .iter()
        .filter(|it| it.probe == ProbeKind::RowDeletion)
    {
        let Edit::RowsDeleted { rows, .. } = &it.edit else {
            continue;
        };
        any = true;
        d.deleted
            .entry(it.example)
            .or_default()
            .extend(rows.iter().copied());
        if changes_prediction(run, it) {
            d.changed
                .entry(it.example)
                .or_default()
                .extend(rows.iter().copied());
        }
    }
    any.then_some(d)
}

/// The examples evidence selection is about: ENTAIL/CONTRADICT, at least one relevant row,
/// a table premise, in `group`. Yields `(position, example, table rows, human rows)`.
fn qualifying<'a>(
    run: &'a RunResult,
    group: Option<&'a Group>,
) -> impl Iterator<Item = (usize, &'a ProbeExample, usize, Vec<usize>)> + 'a {
    run.examples
        .iter()
        .enumerate()
        .filter_map(move |(pos, ex)| {
            let human = ex.relevant_rows.as_ref().filter(|h| !h.is_empty())?;
            let Premise::Table(table) = &ex.input.premise else {
                return None;
            };
            if ex.gold == Label::Neutral || !in_group(group, ex) {
                return None;
            }
            let mut human = human.clone();
            human.sort_unstable();
            human.dedup();
            Some((pos, ex, table.row_count(), human))
        })
}

/// The qualifying examples (see [`evidence_selection`]) in `group` whose rows were not all
/// deleted, so they are left out of evidence selection; empty when the run has no
/// row-deletion item at all.
pub fn incomplete_evidence(run: &RunResult, group: Option<&Group>) -> Vec<IncompleteEvidence> {
    compare(run, group).map(|(_, inc)| inc).unwrap_or_default()
}

/// How many of rows `0..rows` are in `deleted`.
fn complete_count(deleted: &BTreeSet<usize>, rows: usize) -> usize {
    deleted.range(..rows).count()
}

/// The comparisons of the qualifying examples with complete evidence, and the qualifying
/// examples without it; `None` when the run has no row-deletion item.
fn compare(
    run: &RunResult,
    group: Option<&Group>,
) -> Option<(Vec<EvidenceExample>, Vec<IncompleteEvidence>)> {
    let d = deletions(run)?;
    let mut per_example = Vec::new();
    let mut incomplete = Vec::new();
    for (pos, ex, rows, human) in qualifying(run, group) {
        let deleted = d.deleted.get(&pos).map_or(0, |s| complete_count(s, rows));
        if deleted < rows {
            incomplete.push(IncompleteEvidence {
                example: ex.id.clone(),
                deleted,
                rows,
            });
            continue;
        }
        let m: Vec<usize> = d
            .changed
            .get(&pos)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default();
        let hit = m.iter().filter(|r| human.contains(r)).count();
        let uses = if hit == human.len() {
            EvidenceUse::All
        } else if hit > 0 {
            EvidenceUse::Some
        } else {
            EvidenceUse::None
        };
        per_example.push(EvidenceExample {
            example: ex.id.clone(),
            precision: if m.is_empty() {
                0.0
            } else {
                hit as f64 / m.len() as f64
            },
            recall: hit as f64 / human.len() as f64,
            uses,
            ignores_premise: m.is_empty(),
            correct: run.original_prediction(ex) == ex.gold,
            human,
            model: m,
        });
    }
    Some((per_example, incomplete))
}

/// Evidence selection from the row-deletion items of the run's examples in `group` (`None` =
/// every example; all shares are then of the group's examples); `None` when none of them
/// qualifies with complete evidence (see the module documentation).
pub fn evidence_selection(run: &RunResult, group: Option<&Group>) -> Option<EvidenceSelection> {
    let (per_example, incomplete) = compare(run, group)?;
    if per_example.is_empty() {
        return None;
    }
    let n = per_example.len() as f64;
    let share = |f: &dyn Fn(&EvidenceExample) -> bool| {
        100.0 * per_example.iter().filter(|e| f(e)).count() as f64 / n
    };
    let none_count = per_example
        .iter()
        .filter(|e| e.uses == EvidenceUse::None)
        .count();
    Some(EvidenceSelection {
        examples: per_example.len(),
        precision: 100.0 * per_example.iter().map(|e| e.precision).sum::<f64>() / n,
        recall: 100.0 * per_example.iter().map(|e| e.recall).sum::<f64>() / n,
        all: share(&|e| e.uses == EvidenceUse::All),
        some: share(&|e| e.uses == EvidenceUse::Some),
        none: share(&|e| e.uses == EvidenceUse::None),
        ignores_premise_within_none: (none_count > 0).then(|| {
            100.0
                * per_example
                    .iter()
                    .filter(|e| e.uses == EvidenceUse::None && e.ignores_premise)
                    .count() as f64
                / none_count as f64
        }),
        ignores_premise: share(&|e| e.ignores_premise),
        correct_all: share(&|e| e.correct && e.uses == EvidenceUse::All),
        correct_some: share(&|e| e.correct && e.uses == EvidenceUse::Some),
        correct_none: share(&|e| e.correct && e.uses == EvidenceUse::None),
        per_example,
        incomplete,
    })
}
