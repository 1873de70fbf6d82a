//! Validity rules as data (docs/probes-and-metrics.md#transitions-and-validity-rules): for each table operation and each label predicted before
//! the edit, the labels a model may predict after it. The defaults are the paper's; a run can
//! override any rule, and the rule set it used is stored in its result.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::data::label::{Label, LabelSet};
use crate::probe_kind::ProbeKind;

/// A table operation whose effect on the label is given by a [`ValidityRule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Delete one row, relevance unknown (§5.1, Fig. 3, Table 5).
    RowDeletion,
    /// Delete a human-annotated relevant row, or all of them (§5.2, Fig. 4, Table 6). One rule
    /// for both probes; their figures are reported apart (single row / all rows at once).
    RelevantRowDeletion,
    /// Delete a row not annotated as relevant (Appendix, Table 16).
    IrrelevantRowDeletion,
    /// Insert a row with a key the table does not have (Appendix, Table 13).
    RowInsertion,
    /// Replace one value of a multi-valued row (Appendix, Table 14).
    RowValueUpdate,
    /// Reorder the rows (Appendix, Table 15).
    RowPermutation,
    /// Delete a row, then insert a row with a new key (Appendix, Table 17).
    DeleteThenInsert,
    /// Any edit that keeps the label: hypothesis or counterfactual (§4, §6). It judges the
    /// certain hypothesis-probe items whose expected label is the original's gold label, and
    /// the label-preserving counterfactuals (row swap, title swap, and shipped counterfactuals
    /// whose asserted label is the original's): the model's own `before → after` must keep its
    /// label (see `metrics::transition_report::TransitionSet`).
    LabelPreserving,
    /// Remove the whole premise (docs/probes-and-metrics.md#premise-removal): anything should become NEUTRAL.
    PremiseRemoval,
}

// The probes' vocabulary is unnumbered (`crate::probe_kind`); which rule judges a probe is
// this stage's knowledge, so the method lives here, beside the rules.
impl ProbeKind {
    /// The validity rule that judges this probe's transitions; `None` for probes judged by
    /// an expected label instead (hypothesis probes).
    pub fn operation(self) -> Option<Operation> {
        Some(match self {
            ProbeKind::RowDeletion => Operation::RowDeletion,
            ProbeKind::RowInsertion => Operation::RowInsertion,
            ProbeKind::RowValueUpdate => Operation::RowValueUpdate,
            ProbeKind::RowPermutation => Operation::RowPermutation,
            ProbeKind::DeleteThenInsert => Operation::DeleteThenInsert,
            ProbeKind::RelevantRowDeletion | ProbeKind::AllRelevantRowsDeletion => {
                Operation::RelevantRowDeletion
            }
            ProbeKind::IrrelevantRowDeletion => Operation::IrrelevantRowDeletion,
            ProbeKind::PremiseRemoval => Operation::PremiseRemoval,
            _ => return None,
        })
    }
}

impl Operation {
    /// Every operation, in the order of the table in docs/probes-and-metrics.md#default-rules.
    pub const ALL: [Operation; 9] = [
        Operation::RowDeletion,
        Operation::RelevantRowDeletion,
        Operation::IrrelevantRowDeletion,
        Operation::RowInsertion,
        Operation::RowValueUpdate,
        Operation::RowPermutation,
        Operation::DeleteThenInsert,
        Operation::LabelPreserving,
        Operation::PremiseRemoval,
    ];
}

/// For one operation: `before label → labels valid after`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidityRule {
    /// The operation this rule governs.
    pub operation: Operation,
    /// Valid after-labels for each before-label. A missing before-label allows nothing.
    pub valid: BTreeMap<Label, Vec<Label>>,
    /// Where the rule comes from (paper section / figure / table), or who edited it.
    #[serde(default)]
    pub source: String,
}

impl ValidityRule {
    /// A rule from its three rows (ENTAIL →, NEUTRAL →, CONTRADICT →).
    pub fn new(
        operation: Operation,
        entail: &[Label],
        neutral: &[Label],
        contradict: &[Label],
        source: &str,
    ) -> ValidityRule {
        let valid = [
            (Label::Entail, entail.to_vec()),
            (Label::Neutral, neutral.to_vec()),
            (Label::Contradict, contradict.to_vec()),
        ]
        .into_iter()
        .collect();
        ValidityRule {
            operation,
            valid,
            source: source.to_string(),
        }
    }

    /// The labels valid after the edit when the model predicted `before`.
    pub fn valid_after(&self, before: Label) -> &[Label] {
        self.valid.get(&before).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether `before → after` is a valid transition.
    pub fn is_valid(&self, before: Label, after: Label) -> bool {
        self.valid_after(before).contains(&after)
    }

    /// Whether the rule can be met, from `before`, by a model that predicts only `labels`: false
    /// when every valid after-label is one the model cannot predict — a two-way (TabFact) model
    /// never predicts NEUTRAL, so "everything → NEUTRAL" (relevant-row deletion, premise
    /// removal) cannot be met by it, and its transitions are "not applicable", not invalid. A
    /// rule that allows nothing at all stays applicable (every transition is then invalid, as
    /// its author said).
    pub fn applicable(&self, before: Label, labels: LabelSet) -> bool {
        let valid = self.valid_after(before);
        valid.is_empty() || valid.iter().any(|l| labels.labels().contains(l))
    }
}

/// The rules a run uses: one per operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSet {
    /// One rule per operation (later entries win if an operation repeats).
    pub rules: Vec<ValidityRule>,
}

impl Default for RuleSet {
    /// The table in docs/probes-and-metrics.md#default-rules.
    fn default() -> RuleSet {
        use Label::{Contradict as C, Entail as E, Neutral as N};
        use Operation as O;
        RuleSet {
            rules: vec![
                ValidityRule::new(
                    O::RowDeletion,
                    &[E, N],
                    &[N],
                    &[C, N],
                    "§5.1, Fig. 3, Table 5",
                ),
                ValidityRule::new(
                    O::RelevantRowDeletion,
                    &[N],
                    &[N],
                    &[N],
                    "§5.2, Fig. 4, Table 6",
                ),
                ValidityRule::new(
                    O::IrrelevantRowDeletion,
                    &[E],
                    &[N],
                    &[C],
                    "Appendix, Table 16",
                ),
                ValidityRule::new(
                    O::RowInsertion,
                    &[E],
                    &[E, N, C],
                    &[C],
                    "Appendix, Table 13",
                ),
                ValidityRule::new(
                    O::RowValueUpdate,
                    &[E, N, C],
                    &[E, N, C],
                    &[N, C],
                    "Appendix, Table 14 (C→E prohibited)",
                ),
                ValidityRule::new(O::RowPermutation, &[E], &[N], &[C], "Appendix, Table 15"),
                ValidityRule::new(
                    O::DeleteThenInsert,
                    &[E, N],
                    &[E, N, C],
                    &[C, N],
                    "Appendix, Table 17",
                ),
                ValidityRule::new(O::LabelPreserving, &[E], &[N], &[C], "§4, §6"),
                ValidityRule::new(
                    O::PremiseRemoval,
                    &[N],
                    &[N],
                    &[N],
                    "docs/probes-and-metrics.md#premise-removal",
                ),
            ],
        }
    }
}

impl RuleSet {
    /// The rule for `operation`, if the set has one.
    pub fn get(&self, operation: Operation) -> Option<&ValidityRule> {
        self.rules.iter().rev().find(|r| r.operation == operation)
    }

    /// Replaces (or adds) the rule for its operation: how a user's edit enters a run.
    pub fn set(&mut self, rule: ValidityRule) {
        self.rules.retain(|r| r.operation != rule.operation);
        self.rules.push(rule);
    }

    /// Whether `before → after` is valid for `operation`; `None` when the set has no rule.
    pub fn is_valid(&self, operation: Operation, before: Label, after: Label) -> Option<bool> {
        self.get(operation).map(|r| r.is_valid(before, after))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Label::{Contradict as C, Entail as E, Neutral as N};

    #[test]
    fn defaults_follow_spec_table() {
        let r = RuleSet::default();
        // Row-value update: C→E is the one prohibited transition (Appendix, Table 14).
        assert_eq!(r.is_valid(Operation::RowValueUpdate, C, E), Some(false));
        assert_eq!(r.is_valid(Operation::RowValueUpdate, E, C), Some(true));
        // Relevant-row deletion: only NEUTRAL is valid (deleting Length for H1, §5.2).
        for before in Label::ALL {
            for after in Label::ALL {
                assert_eq!(
                    r.is_valid(Operation::RelevantRowDeletion, before, after),
                    Some(after == N)
                );
            }
        }
        assert_eq!(
            r.get(Operation::RowDeletion).unwrap().valid_after(E),
            &[E, N]
        );
        assert_eq!(r.is_valid(Operation::RowInsertion, N, C), Some(true));
        assert_eq!(r.is_valid(Operation::RowInsertion, E, N), Some(false));
    }

    #[test]
    fn rules_round_trip_through_json_and_can_be_overridden() {
        let mut r = RuleSet::default();
        r.set(ValidityRule::new(
            Operation::RowPermutation,
            &[E, N],
            &[N],
            &[C],
            "user",
        ));
        assert_eq!(r.is_valid(Operation::RowPermutation, E, N), Some(true));
        assert_eq!(r.rules.len(), Operation::ALL.len());
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains(r#""ENTAIL":["ENTAIL","NEUTRAL"]"#), "{json}");
        let back: RuleSet = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }
}
