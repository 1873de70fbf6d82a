//! Table 8's paired analysis (SPEC §4.6): for each counterfactual item, whether the full model
//! is right on the counterfactual (C-THP) and on the original (O-THP), and whether the
//! hypothesis-only view is right on the original (O-Hypo).

use serde::{Deserialize, Serialize};

use super::group::{groups, Group};
use crate::probe::{Expectation, ProbeExample, ProbeKind};
use crate::run::RunResult;

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
    /// No counterfactual items.
    #[error("the run has no counterfactual items")]
    NoItems,
}

/// Table 8 over the items of `probes` (e.g. row swap, title swap, shipped counterfactuals):
/// all eight combinations, the paper's four flagged, in the paper's order first.
pub fn paired_counterfactual(
    run: &RunResult,
    probes: &[ProbeKind],
) -> Result<Vec<PairedRow>, PairedError> {
    paired_counterfactual_where(run, probes, |_| true)
}

/// [`paired_counterfactual`] over the items whose original example passes `keep`.
pub fn paired_counterfactual_where(
    run: &RunResult,
    probes: &[ProbeKind],
    keep: impl Fn(&ProbeExample) -> bool,
) -> Result<Vec<PairedRow>, PairedError> {
    if run.hypothesis_only_pairs.len() != run.examples.len() {
        return Err(PairedError::NoHypothesisOnly);
    }
    let mut counts = [[[0usize; 2]; 2]; 2];
    let mut total = 0;
    for it in run.items.iter().filter(|it| probes.contains(&it.probe)) {
        let (Some(ex), Expectation::Label { labels }) = (run.example_of(it), &it.expectation)
        else {
            continue;
        };
        if !keep(ex) {
            continue;
        }
        let c = labels.contains(&run.predicted(it.perturbed_pair));
        let o = run.original_prediction(ex) == ex.gold;
        let h = run.predicted(run.hypothesis_only_pairs[it.example]) == ex.gold;
        counts[usize::from(c)][usize::from(o)][usize::from(h)] += 1;
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
    Ok(order
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
        .collect())
}

/// Table 8 per split and per reasoning category (SPEC §4.8); groups without counterfactual
/// items are left out. Fails only when the run has no hypothesis-only scores at all.
pub fn paired_counterfactual_by_group(
    run: &RunResult,
    probes: &[ProbeKind],
) -> Result<Vec<(Group, Vec<PairedRow>)>, PairedError> {
    let mut out = Vec::new();
    for g in groups(run) {
        match paired_counterfactual_where(run, probes, |ex| g.contains(ex)) {
            Ok(rows) => out.push((g, rows)),
            Err(PairedError::NoItems) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}
