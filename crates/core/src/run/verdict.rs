//! An item's verdict — right, wrong, or not applicable to the model — judged by the rule its
//! figures use: the mark beside each item in the page's drill-downs and share links.

use serde::{Deserialize, Serialize};

use super::RunResult;
use crate::probe::{Expectation, ProbeItem};

/// What a run's prediction on an item amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The model did what a correct model does.
    Right,
    /// It did not.
    Wrong,
    /// The model cannot meet the expectation whatever it predicts: a two-way model and a rule
    /// (or expected label) whose only targets are NEUTRAL — "not applicable to a two-way
    /// model", as the invalid-transition tables say, never wrong.
    NotApplicable,
}

impl Verdict {
    /// The mark the page shows: `✓`, `✗` or `n/a`.
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Right => "✓",
            Verdict::Wrong => "✗",
            // The invalid-transition tables' cell for the same case.
            Verdict::NotApplicable => "n/a",
        }
    }
}

impl RunResult {
    /// The verdict on `item`: an accepted item by its reviewer's label, an item with expected
    /// labels by those, and a transition item by the run's rule for its operation (an
    /// operation without a rule is wrong, as the tables count it).
    pub fn verdict(&self, item: &ProbeItem) -> Verdict {
        let t = self.transition(item);
        let predictable = self.model.label_set.labels();
        if let Some(labels) = item.scored_labels() {
            if !labels.is_empty() && !labels.iter().any(|l| predictable.contains(l)) {
                return Verdict::NotApplicable;
            }
            return if labels.contains(&t.after) {
                Verdict::Right
            } else {
                Verdict::Wrong
            };
        }
        let Expectation::Transition { operation } = &item.expectation else {
            return Verdict::Wrong;
        };
        match self.rules.get(*operation) {
            Some(rule) if !rule.applicable(t.before, self.model.label_set) => {
                Verdict::NotApplicable
            }
            Some(rule) if rule.is_valid(t.before, t.after) => Verdict::Right,
            _ => Verdict::Wrong,
        }
    }
}
