//! Table 8's paired analysis (docs/probes-and-metrics.md#table-8-paired-counterfactual-analysis, paper §6): for each counterfactual item, whether the
//! full model is right on the counterfactual (C-THP) and on the original (O-THP), and whether
//! the hypothesis-only view is right on the original (O-Hypo).
//!
//! As in the paper, NEUTRAL is left out (§6 modifies only ENTAIL and CONTRADICT examples): an
//! item whose original's gold label or whose expected label is NEUTRAL enters no Table 8, and
//! is counted as left out. Label-preserving counterfactuals (row swap, title swap, and shipped
//! counterfactuals asserting the original's label) and label-flipping ones (hand-made and
//! imported counterfactual pairs asserting another label) are separate tables
//! ([`CounterfactualClass`]): pooled, the two kinds of error the paper tells apart would mix.
//! Only certain and reviewer-accepted items are counted (a heuristic row swap's expected label
//! needs review; an accepted item is scored by the reviewer's label, a rejected one never);
//! [`PairedTable::heuristic_left_out`] says how many unreviewed heuristic items were not.

use serde::{Deserialize, Serialize};

use super::group::{in_group, Group};
use super::transition_report::{counterfactual_table, expects_gold_label, trusted};
use crate::data::label::Label;
use crate::probe::review::ReviewState;
use crate::probe::{ProbeExample, ProbeItem};
use crate::run::RunResult;

/// Which counterfactuals a Table 8 is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterfactualClass {
    /// The counterfactual's label differs from the original's (the paper's Table 8: hand-made
    /// counterfactuals and imported pairs).
    LabelFlipping,
    /// The counterfactual keeps the original's label (row swap, title swap, Figures 5–6).
    LabelPreserving,
}

impl CounterfactualClass {
    /// Both classes, the paper's (label-flipping) first.
    pub const ALL: [CounterfactualClass; 2] = [
        CounterfactualClass::LabelFlipping,
        CounterfactualClass::LabelPreserving,
    ];

    /// `label_flipping` / `label_preserving`: the report's section files are
    /// `table8_paired_<name>`.
    pub fn as_str(self) -> &'static str {
        match self {
            CounterfactualClass::LabelFlipping => "label_flipping",
            CounterfactualClass::LabelPreserving => "label_preserving",
        }
    }

    /// The class of a counterfactual-table item (row swap, title swap, a shipped or hand-made
    /// counterfactual whose table differs from the original's); `None` for other items.
    pub fn of(run: &RunResult, item: &ProbeItem) -> Option<CounterfactualClass> {
        // A derived example on the original's own table rewrites the hypothesis: no
        // counterfactual table, no Table 8.
        if !counterfactual_table(run, item) {
            return None;
        }
        item.scored_labels()?;
        Some(if expects_gold_label(run, item) {
            CounterfactualClass::LabelPreserving
        } else {
            CounterfactualClass::LabelFlipping
        })
    }
}

/// One item's three checks (what a Table 8 row counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedChecks {
    /// Which Table 8 the item is in.
    pub class: CounterfactualClass,
    /// Full model right on the counterfactual.
    pub c_thp: bool,
    /// Full model right on the original.
    pub o_thp: bool,
    /// Hypothesis-only view right on the original.
    pub o_hypo: bool,
}

/// Whether an item is left out of Table 8 for NEUTRAL (its original's gold label, or the label
/// expected on the counterfactual).
fn neutral(ex: &ProbeExample, item: &ProbeItem) -> bool {
    ex.gold == Label::Neutral
        || item
            .scored_labels()
            .is_some_and(|labels| labels.contains(&Label::Neutral))
}

/// The checks of one counterfactual item; `None` when it is in no Table 8 (not a
/// counterfactual item, NEUTRAL, heuristic, or the run has no hypothesis-only scores). The site's
/// drill-down uses it so a row's items are exactly the ones the row counts.
pub fn paired_checks(run: &RunResult, item: &ProbeItem) -> Option<PairedChecks> {
    let class = CounterfactualClass::of(run, item)?;
    checks(run, item, class)
}

fn checks(run: &RunResult, item: &ProbeItem, class: CounterfactualClass) -> Option<PairedChecks> {
    let (Some(ex), Some(labels)) = (run.example_of(item), item.scored_labels()) else {
        return None;
    };
    if neutral(ex, item) || !trusted(item) {
        return None;
    }
    let hypo = *run.hypothesis_only_pairs.get(item.example)?;
    Some(PairedChecks {
        class,
        c_thp: labels.contains(&run.predicted(item.perturbed_pair)),
        o_thp: run.original_prediction(ex) == ex.gold,
        o_hypo: run.predicted(hypo) == ex.gold,
    })
}

/// One combination of the three checks and its share of the items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedRow {
    /// Full model right on the counterfactual.
    pub c_thp: bool,
    /// Full model right on the original.
    pub o_thp: bool,
    /// Hypothesis-only view right on the original.
    pub o_hypo: bool,
    /// Items with this combination.
    pub count: usize,
    /// Percent of all items.
    pub percent: f64,
    /// One of the four rows the paper's Table 8 lists.
    pub in_paper: bool,
}

/// Why Table 8 cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairedError {
    /// The run did not score hypothesis-only pairs.
    #[error("the run has no hypothesis-only scores; run it with `hypothesis_only` on")]
    NoHypothesisOnly,
    /// No counterfactual items (after NEUTRAL ones are left out).
    #[error("the run has no counterfactual items (NEUTRAL ones left out)")]
    NoItems,
}

/// One Table 8: its rows, how many items it counts and how many NEUTRAL items it left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedTable {
    /// Label-flipping or label-preserving counterfactuals.
    pub class: CounterfactualClass,
    /// All eight combinations, the paper's four first, then the other four.
    pub rows: Vec<PairedRow>,
    /// Items counted.
    pub items: usize,
    /// Items of the class left out because their original or expected label is NEUTRAL.
    pub neutral_left_out: usize,
    /// Items of the class (not NEUTRAL) left out because their expectation is heuristic.
    #[serde(default)]
    pub heuristic_left_out: usize,
}

/// Table 8 over the counterfactual items of `class` whose original example is in `group`
/// (`None` = every example). Fails when the run has no hypothesis-only scores, or when the
/// group has no item of the class (a breakdown leaves such a group out).
pub fn paired_table(
    run: &RunResult,
    class: CounterfactualClass,
    group: Option<&Group>,
) -> Result<PairedTable, PairedError> {
    let member = |it: &ProbeItem| CounterfactualClass::of(run, it) == Some(class);
    let keep = |ex: &ProbeExample| in_group(group, ex);
    let (rows, items) = table_of(run, class, member, &keep)?;
    let kept = |it: &&ProbeItem| member(it) && run.example_of(it).is_some_and(keep);
    let neutral_left_out = run
        .items
        .iter()
        .filter(kept)
        .filter(|it| run.example_of(it).is_some_and(|ex| neutral(ex, it)))
        .count();
    let heuristic_left_out = run
        .items
        .iter()
        .filter(kept)
        .filter(|it| {
            it.review == ReviewState::HeuristicUnreviewed
                && run.example_of(it).is_some_and(|ex| !neutral(ex, it))
        })
        .count();
    Ok(PairedTable {
        class,
        rows,
        items,
        neutral_left_out,
        heuristic_left_out,
    })
}

/// The eight rows over the items that pass `member` and whose example passes `keep`, and the
/// number of items counted.
fn table_of(
    run: &RunResult,
    class: CounterfactualClass,
    member: impl Fn(&ProbeItem) -> bool,
    keep: &impl Fn(&ProbeExample) -> bool,
) -> Result<(Vec<PairedRow>, usize), PairedError> {
    if run.hypothesis_only_pairs.len() != run.examples.len() {
        return Err(PairedError::NoHypothesisOnly);
    }
    let mut counts = [[[0usize; 2]; 2]; 2];
    let mut total = 0;
    for it in run.items.iter().filter(|it| member(it)) {
        if !run.example_of(it).is_some_and(keep) {
            continue;
        }
        let Some(c) = checks(run, it, class) else {
            continue;
        };
        counts[usize::from(c.c_thp)][usize::from(c.o_thp)][usize::from(c.o_hypo)] += 1;
        total += 1;
    }
    if total == 0 {
        return Err(PairedError::NoItems);
    }
    let paper = [
        (true, false, false),
        (false, true, false),
        (true, false, true),
        (false, true, true),
    ];
    let mut order: Vec<(bool, bool, bool)> = paper.to_vec();
    for c in [true, false] {
        for o in [true, false] {
            for h in [true, false] {
                if !order.contains(&(c, o, h)) {
                    order.push((c, o, h));
                }
            }
        }
    }
    let rows = order
        .into_iter()
        .map(|(c, o, h)| {
            let count = counts[usize::from(c)][usize::from(o)][usize::from(h)];
            PairedRow {
                c_thp: c,
                o_thp: o,
                o_hypo: h,
                count,
                percent: 100.0 * count as f64 / total as f64,
                in_paper: paper.contains(&(c, o, h)),
            }
        })
        .collect();
    Ok((rows, total))
}
