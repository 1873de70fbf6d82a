//! Transition graphs and invalid-transition tables computed from a finished run, per split
//! and per category (docs/probes-and-metrics.md#transition-sets, #breakdown-by-split-and-category).
//!
//! The report draws one graph and one table per [`TransitionSet`]: the items one rule judges,
//! cut the way the paper cuts them. Most sets are one table probe. Relevant-row deletion is two
//! (Table 6's single relevant row deleted, and all relevant rows deleted at once — pooled, an
//! example with two relevant rows would count three times in one row). The label-preserving
//! rule (docs/probes-and-metrics.md#transition-sets) judges two sets: hypothesis edits and counterfactual tables whose expected
//! label is the original's gold label.

use serde::{Deserialize, Serialize};

use super::group::{item_in_group, Group};
use super::invalid::{group_by_split, InvalidTransitionTable, SplitColumn, SplitTransitions};
use crate::data::label::Label;
use crate::metrics::transitions::{TransitionEdge, TransitionMatrix};
use crate::probe::review::ReviewState;
use crate::probe::rules::Operation;
use crate::probe::{Expectation, ProbeItem};
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;

/// The items of one transition graph and invalid-transition table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransitionSet {
    /// Row deletion (§5.1, Figure 3, Table 5).
    RowDeletion,
    /// One human-relevant row deleted (§5.2, Figure 4, Table 6).
    RelevantRowDeletion,
    /// All human-relevant rows deleted at once (examples with at least two; §5.2, Table 6's rule).
    AllRelevantRowsDeletion,
    /// An irrelevant row deleted (Appendix, Table 16).
    IrrelevantRowDeletion,
    /// Row insertion (Appendix, Table 13).
    RowInsertion,
    /// Row-value update (Appendix, Table 14).
    RowValueUpdate,
    /// Row permutation (Appendix, Table 15).
    RowPermutation,
    /// Delete then insert (Appendix, Table 17).
    DeleteThenInsert,
    /// Hypothesis edits whose expected label is the gold label (§4; also derived examples
    /// that rewrite the hypothesis on the original's table), judged by the label-preserving
    /// rule on the model's own transition.
    LabelPreservingHypothesis,
    /// Counterfactual tables whose expected label is the gold label (§6: row and title swaps,
    /// and shipped counterfactuals that assert the original's label).
    LabelPreservingCounterfactual,
    /// Premise removal (docs/probes-and-metrics.md#premise-removal).
    PremiseRemoval,
}

impl TransitionSet {
    /// Every set, in the order of the table in docs/probes-and-metrics.md#default-rules.
    pub const ALL: [TransitionSet; 11] = [
        TransitionSet::RowDeletion,
        TransitionSet::RelevantRowDeletion,
        TransitionSet::AllRelevantRowsDeletion,
        TransitionSet::IrrelevantRowDeletion,
        TransitionSet::RowInsertion,
        TransitionSet::RowValueUpdate,
        TransitionSet::RowPermutation,
        TransitionSet::DeleteThenInsert,
        TransitionSet::LabelPreservingHypothesis,
        TransitionSet::LabelPreservingCounterfactual,
        TransitionSet::PremiseRemoval,
    ];

    /// The rule that judges the set (the user can edit it; each operation judges some set).
    pub fn operation(self) -> Operation {
        match self {
            TransitionSet::RowDeletion => Operation::RowDeletion,
            TransitionSet::RelevantRowDeletion | TransitionSet::AllRelevantRowsDeletion => {
                Operation::RelevantRowDeletion
            }
            TransitionSet::IrrelevantRowDeletion => Operation::IrrelevantRowDeletion,
            TransitionSet::RowInsertion => Operation::RowInsertion,
            TransitionSet::RowValueUpdate => Operation::RowValueUpdate,
            TransitionSet::RowPermutation => Operation::RowPermutation,
            TransitionSet::DeleteThenInsert => Operation::DeleteThenInsert,
            TransitionSet::LabelPreservingHypothesis
            | TransitionSet::LabelPreservingCounterfactual => Operation::LabelPreserving,
            TransitionSet::PremiseRemoval => Operation::PremiseRemoval,
        }
    }

    /// The snake_case name: the report's section files are `graph_<name>` and
    /// `invalid_<name>`. Single-probe sets keep their operation's name.
    pub fn as_str(self) -> &'static str {
        match self {
            TransitionSet::RowDeletion => "row_deletion",
            TransitionSet::RelevantRowDeletion => "relevant_row_deletion",
            TransitionSet::AllRelevantRowsDeletion => "all_relevant_rows_deletion",
            TransitionSet::IrrelevantRowDeletion => "irrelevant_row_deletion",
            TransitionSet::RowInsertion => "row_insertion",
            TransitionSet::RowValueUpdate => "row_value_update",
            TransitionSet::RowPermutation => "row_permutation",
            TransitionSet::DeleteThenInsert => "delete_then_insert",
            TransitionSet::LabelPreservingHypothesis => "label_preserving_hypothesis",
            TransitionSet::LabelPreservingCounterfactual => "label_preserving_counterfactual",
            TransitionSet::PremiseRemoval => "premise_removal",
        }
    }

    /// Parses [`TransitionSet::as_str`] names.
    pub fn from_name(name: &str) -> Option<TransitionSet> {
        TransitionSet::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// What the set holds, in words.
    pub fn describe(self) -> &'static str {
        match self {
            TransitionSet::RowDeletion => "one row deleted",
            TransitionSet::RelevantRowDeletion => "one relevant row deleted",
            TransitionSet::AllRelevantRowsDeletion => "all relevant rows deleted at once",
            TransitionSet::IrrelevantRowDeletion => "one irrelevant row deleted",
            TransitionSet::RowInsertion => "a row with a new key inserted",
            TransitionSet::RowValueUpdate => "one value of a multi-valued row updated",
            TransitionSet::RowPermutation => "rows permuted",
            TransitionSet::DeleteThenInsert => "a row deleted, then a new one inserted",
            TransitionSet::LabelPreservingHypothesis => {
                "label-preserving hypothesis edits, certain items"
            }
            TransitionSet::LabelPreservingCounterfactual => {
                "label-preserving counterfactuals: row swap, title swap, same-label"
            }
            TransitionSet::PremiseRemoval => "premise removed",
        }
    }

    /// The set's heading: `row deletion — one row deleted (Table 5)`.
    pub fn title(self) -> String {
        format!(
            "{} — {} ({})",
            crate::display::readable(self.as_str()),
            self.describe(),
            self.paper_table()
        )
    }

    /// The paper table (or section) the set's invalid-transition table mirrors.
    pub fn paper_table(self) -> &'static str {
        match self {
            TransitionSet::RowDeletion => "Table 5",
            TransitionSet::RelevantRowDeletion => "Table 6",
            TransitionSet::AllRelevantRowsDeletion => "Table 6",
            TransitionSet::IrrelevantRowDeletion => "Table 16",
            TransitionSet::RowInsertion => "Table 13",
            TransitionSet::RowValueUpdate => "Table 14",
            TransitionSet::RowPermutation => "Table 15",
            TransitionSet::DeleteThenInsert => "Table 17",
            TransitionSet::LabelPreservingHypothesis => "§4",
            TransitionSet::LabelPreservingCounterfactual => "§6",
            TransitionSet::PremiseRemoval => "not in the paper",
        }
    }

    /// Whether `item` of `run` belongs to the set.
    pub fn contains(self, run: &RunResult, item: &ProbeItem) -> bool {
        let probe = |k: ProbeKind| item.probe == k && judged_by(item, self.operation());
        match self {
            TransitionSet::RowDeletion => probe(ProbeKind::RowDeletion),
            TransitionSet::RelevantRowDeletion => probe(ProbeKind::RelevantRowDeletion),
            TransitionSet::AllRelevantRowsDeletion => probe(ProbeKind::AllRelevantRowsDeletion),
            TransitionSet::IrrelevantRowDeletion => probe(ProbeKind::IrrelevantRowDeletion),
            TransitionSet::RowInsertion => probe(ProbeKind::RowInsertion),
            TransitionSet::RowValueUpdate => probe(ProbeKind::RowValueUpdate),
            TransitionSet::RowPermutation => probe(ProbeKind::RowPermutation),
            TransitionSet::DeleteThenInsert => probe(ProbeKind::DeleteThenInsert),
            TransitionSet::PremiseRemoval => probe(ProbeKind::PremiseRemoval),
            TransitionSet::LabelPreservingHypothesis => {
                hypothesis_edit(run, item) && label_preserving_item(run, item)
            }
            TransitionSet::LabelPreservingCounterfactual => {
                counterfactual_table(run, item) && label_preserving_item(run, item)
            }
        }
    }
}

/// A hypothesis edit: a §4.4 probe's item, or a shipped / hand-made derived example whose
/// premise is the original's (a rewritten hypothesis on the same table).
pub fn hypothesis_edit(run: &RunResult, item: &ProbeItem) -> bool {
    ProbeKind::HYPOTHESIS.contains(&item.probe)
        || (item.probe == ProbeKind::Counterfactual && !premise_changed(run, item))
}

/// A counterfactual table (§6): a row or title swap, or a shipped / hand-made derived example
/// whose premise differs from the original's. A derived example on the original's own table is
/// a hypothesis edit, not a counterfactual.
pub fn counterfactual_table(run: &RunResult, item: &ProbeItem) -> bool {
    matches!(item.probe, ProbeKind::RowSwap | ProbeKind::TitleSwap)
        || (item.probe == ProbeKind::Counterfactual && premise_changed(run, item))
}

fn premise_changed(run: &RunResult, item: &ProbeItem) -> bool {
    run.example_of(item)
        .is_none_or(|ex| ex.input.premise != item.perturbed.premise)
}

/// The counterfactual probes (§4.6): row swap, title swap, shipped counterfactuals.
pub const COUNTERFACTUAL_PROBES: [ProbeKind; 3] = [
    ProbeKind::RowSwap,
    ProbeKind::TitleSwap,
    ProbeKind::Counterfactual,
];

/// Whether an item with an expected label expects the original example's gold label (the same
/// test as Tables 4 and 7's "label preserved" column).
pub fn expects_gold_label(run: &RunResult, item: &ProbeItem) -> bool {
    match (item.scored_labels(), run.example_of(item)) {
        (Some(labels), Some(ex)) => labels.contains(&ex.gold),
        _ => false,
    }
}

/// Whether an item's expectation can be trusted without a person's review. A heuristic item's
/// expected label may be wrong, so judging the model by it would be judging the heuristic: the
/// label-preserving transition sets and Table 8 count only these items (and say how many they
/// left out).
// A reviewer's acceptance makes an item as trustworthy as a certain one (judged by the
// reviewer's label, see `ProbeItem::scored_labels`); a rejected item never counts.
pub fn trusted(item: &ProbeItem) -> bool {
    matches!(
        item.review,
        ReviewState::Certain | ReviewState::Accepted { .. }
    )
}

/// Label-preserving items judged by the label-preserving rule: trusted, and the expected label
/// is the gold label.
fn label_preserving_item(run: &RunResult, item: &ProbeItem) -> bool {
    trusted(item) && expects_gold_label(run, item)
}

/// Heuristic items that would be in `set` once reviewed: what the report says it left out.
pub fn heuristic_left_out(run: &RunResult, set: TransitionSet) -> usize {
    let kind: fn(&RunResult, &ProbeItem) -> bool = match set {
        TransitionSet::LabelPreservingHypothesis => hypothesis_edit,
        TransitionSet::LabelPreservingCounterfactual => counterfactual_table,
        _ => return 0,
    };
    run.items
        .iter()
        .filter(|it| {
            kind(run, it)
                && it.review == ReviewState::HeuristicUnreviewed
                && expects_gold_label(run, it)
        })
        .count()
}

/// The split an item is counted in (its example's; `None` when it has none): which
/// [`SplitColumn`] of the invalid-transition tables and which graph the item enters.
pub fn split_of<'a>(run: &'a RunResult, item: &ProbeItem) -> Option<&'a str> {
    run.example_of(item).and_then(|e| e.split.as_deref())
}

fn judged_by(item: &ProbeItem, operation: Operation) -> bool {
    matches!(item.expectation, Expectation::Transition { operation: o } if o == operation)
}

/// The transition graph of one transition set: edges with percentages (one figure per split, as
/// the paper's number triples) and validity under the run's rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransitionGraph {
    /// The operation whose rule judges the set.
    pub operation: Operation,
    /// Per split: its edges.
    pub splits: Vec<(SplitColumn, Vec<TransitionEdge>)>,
    /// All splits pooled.
    pub pooled: Vec<TransitionEdge>,
    /// Labels of the model from which the rule cannot be met by it (a two-way model and a
    /// rule whose only valid target is NEUTRAL): their edges are "not applicable to a two-way
    /// model", not invalid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_applicable: Vec<Label>,
}

/// The transition graph of `set` over its items whose example is in `group` (`None` = every
/// example); `None` when the run has no rule for the set.
pub fn set_graph(
    run: &RunResult,
    set: TransitionSet,
    group: Option<&Group>,
) -> Option<TransitionGraph> {
    graph_of(run, set.operation(), set_splits(run, set, group))
}

/// Per split, the transitions of the items of `set` whose example is in `group`.
fn set_splits(run: &RunResult, set: TransitionSet, group: Option<&Group>) -> Vec<SplitTransitions> {
    group_by_split(
        run.items
            .iter()
            .filter(|it| set.contains(run, it) && item_in_group(run, group, it))
            .map(|it| (split_of(run, it), run.transition(it))),
    )
}

fn graph_of(
    run: &RunResult,
    operation: Operation,
    splits: Vec<SplitTransitions>,
) -> Option<TransitionGraph> {
    let rule = run.rules.get(operation)?;
    let labels = run.model.label_set;
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
            .map(|s| (s.split.clone(), s.matrix.edges_for(rule, labels)))
            .collect(),
        pooled: pooled.edges_for(rule, labels),
        not_applicable: labels
            .labels()
            .iter()
            .copied()
            .filter(|&l| !rule.applicable(l, labels))
            .collect(),
    })
}

/// The invalid-transition table of `set` over its items whose example is in `group` (`None` =
/// every example; one column per split); `None` without a rule or without items.
pub fn set_invalid_table(
    run: &RunResult,
    set: TransitionSet,
    group: Option<&Group>,
) -> Option<InvalidTransitionTable> {
    let rule = run.rules.get(set.operation())?;
    let splits = set_splits(run, set, group);
    (!splits.is_empty()).then(|| InvalidTransitionTable::new(&splits, rule, run.model.label_set))
}
