//! Transition graphs and invalid-transition tables computed from a finished run, per split
//! and per category (SPEC §3, §4.8).

use serde::{Deserialize, Serialize};

use super::invalid::{group_by_split, InvalidTransitionTable, SplitTransitions};
use crate::probe::{Expectation, ProbeItem};
use crate::rules::Operation;
use crate::run::RunResult;
use crate::transitions::{TransitionEdge, TransitionMatrix};

/// The split name used for examples without one.
pub const NO_SPLIT: &str = "all";

fn split_of<'a>(run: &'a RunResult, item: &ProbeItem) -> &'a str {
    run.example_of(item)
        .and_then(|e| e.split.as_deref())
        .unwrap_or(NO_SPLIT)
}

fn judged_by(item: &ProbeItem, operation: Operation) -> bool {
    matches!(item.expectation, Expectation::Transition { operation: o } if o == operation)
}

/// Per-split transition matrices of the items judged by `operation` that pass `keep`.
pub fn split_transitions(
    run: &RunResult,
    operation: Operation,
    keep: impl Fn(&ProbeItem) -> bool,
) -> Vec<SplitTransitions> {
    group_by_split(
        run.items
            .iter()
            .filter(|it| judged_by(it, operation) && keep(it))
            .map(|it| (split_of(run, it), run.transition(it))),
    )
}

/// The transition graph of one operation: edges with percentages (one figure per split, as
/// the paper's number triples) and validity under the run's rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransitionGraph {
    /// The operation.
    pub operation: Operation,
    /// Per split: its matrix and edges.
    pub splits: Vec<(String, Vec<TransitionEdge>)>,
    /// All splits pooled.
    pub pooled: Vec<TransitionEdge>,
}

/// The transition graph of `operation` in `run`; `None` if the run has no rule for it.
pub fn transition_graph(run: &RunResult, operation: Operation) -> Option<TransitionGraph> {
    transition_graph_where(run, operation, |_| true)
}

/// The run's reasoning categories, sorted and distinct.
fn categories(run: &RunResult) -> Vec<&String> {
    let mut cats: Vec<&String> = run.examples.iter().flat_map(|e| &e.categories).collect();
    cats.sort();
    cats.dedup();
    cats
}

/// Keeps the items whose example carries `category`.
fn in_category<'a>(run: &'a RunResult, category: &'a str) -> impl Fn(&ProbeItem) -> bool + 'a {
    move |it| {
        run.example_of(it)
            .is_some_and(|e| e.categories.iter().any(|c| c == category))
    }
}

/// One transition graph per reasoning category (SPEC §4.8), categories sorted; a category
/// whose examples have no item judged by `operation` is left out.
pub fn transition_graphs_by_category(
    run: &RunResult,
    operation: Operation,
) -> Vec<(String, TransitionGraph)> {
    categories(run)
        .into_iter()
        .filter_map(|c| {
            let g = transition_graph_where(run, operation, in_category(run, c))?;
            (!g.splits.is_empty()).then(|| (c.clone(), g))
        })
        .collect()
}

/// Like [`transition_graph`], restricted to items that pass `keep`.
pub fn transition_graph_where(
    run: &RunResult,
    operation: Operation,
    keep: impl Fn(&ProbeItem) -> bool,
) -> Option<TransitionGraph> {
    let rule = run.rules.get(operation)?;
    let splits = split_transitions(run, operation, keep);
    let mut pooled = TransitionMatrix::default();
    for s in &splits {
        for from in 0..3 {
            for to in 0..3 {
                pooled.counts[from][to] += s.matrix.counts[from][to];
            }
        }
    }
    Some(TransitionGraph {
        operation,
        splits: splits
            .iter()
            .map(|s| (s.split.clone(), s.matrix.edges(rule)))
            .collect(),
        pooled: pooled.edges(rule),
    })
}

/// The invalid-transition table of `operation` (one column per split); `None` without a rule
/// or without items.
pub fn invalid_table(run: &RunResult, operation: Operation) -> Option<InvalidTransitionTable> {
    invalid_table_where(run, operation, |_| true)
}

/// Like [`invalid_table`], restricted to items that pass `keep`.
pub fn invalid_table_where(
    run: &RunResult,
    operation: Operation,
    keep: impl Fn(&ProbeItem) -> bool,
) -> Option<InvalidTransitionTable> {
    let rule = run.rules.get(operation)?;
    let splits = split_transitions(run, operation, keep);
    (!splits.is_empty()).then(|| InvalidTransitionTable::new(&splits, rule, run.model.label_set))
}

/// One invalid-transition table per reasoning category (SPEC §4.8), categories sorted.
pub fn invalid_tables_by_category(
    run: &RunResult,
    operation: Operation,
) -> Vec<(String, InvalidTransitionTable)> {
    categories(run)
        .into_iter()
        .filter_map(|c| {
            let t = invalid_table_where(run, operation, in_category(run, c))?;
            Some((c.clone(), t))
        })
        .collect()
}
