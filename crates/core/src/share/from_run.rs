//! A probe item of a run as a share link's result (issue 18 §2): the example's input and the
//! item's perturbed input, the operation, the rule that judges it, its expectation and
//! certainty, and each model's predictions before and after — all read from the run files, so
//! a drill-down, the evidence view and the word-order items share the same thing.

use super::{SharedInput, SharedModelPredictions, SharedPredictions, SharedResult};
use crate::probe::review::ReviewState;
use crate::probe::{Expectation, Premise, ProbeInput, ProbeItem};
use crate::run::RunResult;

/// A run input as a share input (a removed premise is neither table nor text).
fn input(i: &ProbeInput) -> SharedInput {
    let (table, premise) = match &i.premise {
        Premise::Table(t) => (Some(t.clone()), None),
        Premise::Text(p) => (None, Some(p.clone())),
        Premise::Empty => (None, None),
    };
    SharedInput {
        table,
        premise,
        hypothesis: i.hypothesis.clone(),
    }
}

/// The scores `run` gave the item with id `id` (original, perturbed); `None` when the run
/// does not hold it or its pairs are missing (a damaged file).
fn predictions(run: &RunResult, id: &str) -> Option<SharedPredictions> {
    let it = run.items.iter().find(|i| i.id == id)?;
    Some(SharedPredictions {
        before: (&run.pairs.get(it.original_pair)?.score).into(),
        after: (&run.pairs.get(it.perturbed_pair)?.score).into(),
    })
}

/// The share result of `item` of `run` (its model's predictions), with the predictions of
/// every run of `others` that holds an item of the same id (other models on the same probe
/// set; a run that lacks it is left out). The expectation is the reviewer's label for an
/// accepted item, as the score tables judge it. `None` when the item's example or pairs are
/// not in `run`. The result is compacted: an unchanged after-table is left out.
pub fn from_run_item(
    run: &RunResult,
    item: &ProbeItem,
    others: &[&RunResult],
) -> Option<SharedResult> {
    let ex = run.example_of(item)?;
    let expectation = match item.review {
        ReviewState::Accepted { label } => Expectation::Label {
            labels: vec![label],
        },
        _ => item.expectation.clone(),
    };
    let rule = match &item.expectation {
        Expectation::Transition { operation } => run.rules.get(*operation).cloned(),
        Expectation::Label { .. } => None,
    };
    let other_models = others
        .iter()
        .filter_map(|o| {
            Some(SharedModelPredictions {
                model: o.model.clone(),
                predictions: predictions(o, &item.id)?,
            })
        })
        .collect();
    let result = SharedResult {
        origin: format!("probe item {}", item.id),
        example_id: Some(ex.id.clone()),
        operation: item.probe.as_str().to_string(),
        before: input(&ex.input),
        after: input(&item.perturbed),
        gold: Some(ex.gold),
        rule,
        expectation: Some(expectation),
        certainty: Some(item.certainty),
        basis: item.basis,
        model: Some(run.model.clone()),
        predictions: Some(SharedPredictions {
            before: (&run.pairs.get(item.original_pair)?.score).into(),
            after: (&run.pairs.get(item.perturbed_pair)?.score).into(),
        }),
        other_models,
        linearization: run.settings.linearization,
    };
    Some(result.compact())
}
