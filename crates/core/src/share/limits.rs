//! What a decoded link or result file may carry (issue 12 §4). A link is small, but deflate
//! turns 49 KB into hundreds of thousands of rows; every decoded [`SharedResult`] is checked
//! here, in one linear pass, before the share page diffs, linearizes or renders anything.
//!
//! The limits sit far above any real result: the largest INFOTABS table (of 2,540, plus the
//! probing paper's counterfactual tables) has 41 rows, 68 values, 2,184 characters in all and
//! no cell over 553 characters; the demo dataset's largest has 19 rows; TabFact tables have
//! at most a few dozen records of a few dozen columns.

use super::{SharedInput, SharedResult, SharedScore};
use crate::data::table::Table;

use super::error::ShareError;

/// Most rows (keys, or records) in one shared table: 24× INFOTABS' largest table (41 rows).
pub const MAX_SHARE_ROWS: usize = 1_000;
/// Most cells in one shared table: keys and values (key–value), or header cells and record
/// cells (relational). INFOTABS' largest table has 109; a 50 × 30 TabFact table 1,530.
pub const MAX_SHARE_CELLS: usize = 20_000;
/// Most characters in any one text of a result (a cell, a key, a title, a hypothesis, a
/// plain-text premise, a name): 18× INFOTABS' longest cell (553).
pub const MAX_SHARE_TEXT_CHARS: usize = 10_000;
/// Most characters in all texts of a result together: 450× INFOTABS' largest table (2,184).
pub const MAX_SHARE_CHARS: usize = 1_000_000;
/// Most labels in one list (an expectation's labels, a rule's valid after-labels): there are
/// three labels.
pub const MAX_SHARE_LABELS: usize = 3;
/// Most other models whose predictions one result carries (a drill-down lines up a main
/// model and a few others; the runner loads two).
pub const MAX_SHARE_MODELS: usize = 8;
/// How far a prediction's three probabilities may sum from 1 (they are an f32 softmax).
pub const PROB_SUM_TOLERANCE: f32 = 1e-3;

/// Counts what a result carries and stops at the first limit passed.
struct Budget {
    chars: usize,
}

impl Budget {
    /// Counts `text`, named `what` in the error.
    fn text(&mut self, what: &str, text: &str) -> Result<(), ShareError> {
        let n = text.chars().count();
        within(what, n, MAX_SHARE_TEXT_CHARS, "characters")?;
        self.chars = self.chars.saturating_add(n);
        within(
            "the result's texts together",
            self.chars,
            MAX_SHARE_CHARS,
            "characters",
        )
    }

    fn texts<'a>(
        &mut self,
        what: &str,
        texts: impl IntoIterator<Item = &'a String>,
    ) -> Result<(), ShareError> {
        texts.into_iter().try_for_each(|t| self.text(what, t))
    }

    fn table(&mut self, which: &str, table: &Table) -> Result<(), ShareError> {
        let rows = format!("the {which} table");
        within(&rows, table.row_count(), MAX_SHARE_ROWS, "rows")?;
        self.text(&format!("the {which} table's id"), table.id())?;
        self.text(&format!("the {which} table's title"), table.title())?;
        let cell = format!("a cell of the {which} table");
        let cells = match table {
            Table::KeyValue(t) => t
                .rows
                .iter()
                .fold(0usize, |n, r| n.saturating_add(1 + r.values.len())),
            Table::Relational(t) => t
                .rows
                .iter()
                .fold(t.header.len(), |n, r| n.saturating_add(r.len())),
        };
        within(&rows, cells, MAX_SHARE_CELLS, "cells")?;
        match table {
            Table::KeyValue(t) => t.rows.iter().try_for_each(|r| {
                self.text(&cell, &r.key)?;
                self.texts(&cell, &r.values)
            }),
            Table::Relational(t) => {
                self.texts(&cell, &t.header)?;
                t.rows.iter().try_for_each(|r| self.texts(&cell, r))
            }
        }
    }

    fn input(&mut self, which: &str, input: &SharedInput) -> Result<(), ShareError> {
        if let Some(t) = &input.table {
            self.table(which, t)?;
        }
        if let Some(p) = &input.premise {
            self.text(&format!("the {which} premise"), p)?;
        }
        self.text(&format!("the {which} hypothesis"), &input.hypothesis)
    }
}

/// `Err(TooLarge)` when `found` passes `limit`.
fn within(what: &str, found: usize, limit: usize, unit: &'static str) -> Result<(), ShareError> {
    if found > limit {
        return Err(ShareError::TooLarge {
            what: what.to_string(),
            found,
            limit,
            unit,
        });
    }
    Ok(())
}

/// Checks one input by the dataset file's rules: its table's (a relational row has one cell
/// per header column) and its hypothesis' (not empty). A premise may be absent: hypothesis-only
/// items have none, and the edited item leaves out a table it did not change.
fn check_input(which: &str, input: &SharedInput) -> Result<(), ShareError> {
    use crate::data::validate::{table_rule_problems, ProblemKind};
    let bad = |rule: ProblemKind, at: String, message: String| ShareError::BadInput {
        which: which.to_string(),
        rule: rule.describe(),
        at,
        message,
    };
    if let Some(p) = input.table.iter().flat_map(table_rule_problems).next() {
        return Err(bad(p.kind, format!("table{}", p.path), p.message));
    }
    if input.hypothesis.trim().is_empty() {
        return Err(bad(
            ProblemKind::EmptyHypothesis,
            "hypothesis".into(),
            "expected a non-empty hypothesis".into(),
        ));
    }
    Ok(())
}

/// Checks one prediction: each probability in [0, 1], the three summing to 1 ± 1e-3.
fn check_score(which: &str, s: &SharedScore) -> Result<(), ShareError> {
    let bad = |reason: String| ShareError::BadPrediction {
        which: which.to_string(),
        reason,
    };
    if let Some(p) = s.probs.iter().find(|p| !(0.0..=1.0).contains(*p)) {
        return Err(bad(format!("probability {p} is outside [0, 1]")));
    }
    let sum: f32 = s.probs.iter().sum();
    if (sum - 1.0).abs() > PROB_SUM_TOLERANCE {
        return Err(bad(format!(
            "its probabilities sum to {sum}, not 1 (± {PROB_SUM_TOLERANCE})"
        )));
    }
    Ok(())
}

/// Checks a decoded result against the limits above and its predictions for plausibility;
/// linear in its size. [`super::decode`] and [`super::from_file`] call it, so a result that
/// reaches the share page has passed it.
pub fn check(r: &SharedResult) -> Result<(), ShareError> {
    let mut b = Budget { chars: 0 };
    b.text("the origin", &r.origin)?;
    b.text("the operation", &r.operation)?;
    if let Some(id) = &r.example_id {
        b.text("the example id", id)?;
    }
    b.input("original", &r.before)?;
    b.input("edited", &r.after)?;
    check_input("original", &r.before)?;
    check_input("edited item", &r.after)?;
    if let Some(m) = &r.model {
        b.text("the model name", &m.name)?;
        b.text("the model's weight hash", &m.weights_sha256)?;
    }
    if let Some(rule) = &r.rule {
        b.text("the rule's source", &rule.source)?;
        for list in rule.valid.values() {
            within(
                "a rule's list of valid labels",
                list.len(),
                MAX_SHARE_LABELS,
                "labels",
            )?;
        }
    }
    if let Some(crate::probe::Expectation::Label { labels }) = &r.expectation {
        within(
            "the expectation's labels",
            labels.len(),
            MAX_SHARE_LABELS,
            "labels",
        )?;
    }
    if let Some(p) = &r.predictions {
        check_score("the prediction on the original", &p.before)?;
        check_score("the prediction on the edited item", &p.after)?;
    }
    within(
        "the other models' predictions",
        r.other_models.len(),
        MAX_SHARE_MODELS,
        "models",
    )?;
    for o in &r.other_models {
        b.text("another model's name", &o.model.name)?;
        b.text("another model's weight hash", &o.model.weights_sha256)?;
        check_score(
            "another model's prediction on the original",
            &o.predictions.before,
        )?;
        check_score(
            "another model's prediction on the edited item",
            &o.predictions.after,
        )?;
    }
    Ok(())
}
