//! Transitions and the transition graph (docs/probes-and-metrics.md#the-transition-graph, Figures 3, 4, 7–11): counts of
//! `before → after` predictions, and each edge as a percentage of its source node.

use serde::{Deserialize, Serialize};

use crate::data::label::{Label, LabelSet};
use crate::probe::rules::ValidityRule;
use crate::run::Transition;

fn idx(l: Label) -> usize {
    match l {
        Label::Entail => 0,
        Label::Neutral => 1,
        Label::Contradict => 2,
    }
}

/// Counts of transitions, `counts[before][after]` in canonical label order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransitionMatrix {
    /// `counts[before][after]`.
    pub counts: [[u64; 3]; 3],
}

/// One edge of the transition graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransitionEdge {
    /// Source node: the label before.
    pub from: Label,
    /// Target node: the label after (a self-loop when equal).
    pub to: Label,
    /// Number of perturbed examples on this edge.
    pub count: u64,
    /// `100 × count / (all transitions out of from)`; the edges out of a node sum to 100.
    pub percent: f64,
    /// Whether the rule allows this transition (drawn black) or not (drawn red).
    pub valid: bool,
    /// The rule cannot be met from `from` by this model (a two-way model and a rule whose only
    /// valid target is NEUTRAL, see [`ValidityRule::applicable`]): drawn neither valid nor
    /// invalid, and `valid` is then false only because nothing the model can say is valid.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_applicable: bool,
}

impl TransitionMatrix {
    /// Counts `transitions`.
    pub fn from_transitions<I: IntoIterator<Item = Transition>>(transitions: I) -> Self {
        let mut m = TransitionMatrix::default();
        for t in transitions {
            m.add(t);
        }
        m
    }

    /// Adds one transition.
    pub fn add(&mut self, t: Transition) {
        self.counts[idx(t.before)][idx(t.after)] += 1;
    }

    /// How many transitions leave `from`.
    pub fn total_from(&self, from: Label) -> u64 {
        self.counts[idx(from)].iter().sum()
    }

    /// `before → after` count.
    pub fn count(&self, from: Label, to: Label) -> u64 {
        self.counts[idx(from)][idx(to)]
    }

    /// Edge percentage of its source node, `None` when nothing leaves `from` (never a
    /// division by zero: a two-way model has no NEUTRAL node).
    pub fn percent(&self, from: Label, to: Label) -> Option<f64> {
        let total = self.total_from(from);
        (total > 0).then(|| 100.0 * self.count(from, to) as f64 / total as f64)
    }

    /// The graph's edges with a non-zero count, coloured by `rule` (for a model that can
    /// predict all three labels).
    pub fn edges(&self, rule: &ValidityRule) -> Vec<TransitionEdge> {
        self.edges_for(rule, LabelSet::ThreeWay)
    }

    /// The graph's edges with a non-zero count, coloured by `rule` for a model predicting
    /// `labels`: edges out of a label whose rule the model cannot meet are `not_applicable`.
    pub fn edges_for(&self, rule: &ValidityRule, labels: LabelSet) -> Vec<TransitionEdge> {
        let mut out = Vec::new();
        for from in Label::ALL {
            for to in Label::ALL {
                let count = self.count(from, to);
                if let (true, Some(percent)) = (count > 0, self.percent(from, to)) {
                    out.push(TransitionEdge {
                        from,
                        to,
                        count,
                        percent,
                        valid: rule.is_valid(from, to),
                        not_applicable: !rule.applicable(from, labels),
                    });
                }
            }
        }
        out
    }

    /// How many transitions out of `from` the rule forbids.
    pub fn invalid_from(&self, from: Label, rule: &ValidityRule) -> u64 {
        Label::ALL
            .into_iter()
            .filter(|to| !rule.is_valid(from, *to))
            .map(|to| self.count(from, to))
            .sum()
    }
}
