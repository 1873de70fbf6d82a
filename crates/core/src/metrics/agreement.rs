//! Agreement of the relevant-row annotations (paper §5.2, "Inter-annotator Agreement"), when
//! each annotator's votes were imported ([`crate::data::dataset::Example::relevance_votes`]).
//!
//! The paper reports "the average Fleiss' kappa is 78 (std: 0.22)" and "in 82.4% of cases, at
//! least 3 out of 5 annotators marked the same relevant rows". Read closely:
//! - Fleiss' κ is over **rows**: each (example, row) is an item, rated relevant / not relevant
//!   by the example's annotators (majority voting is also "for each row"). We give κ pooled
//!   over every (example, row) item, and — since the paper gives an average with a standard
//!   deviation — the mean and standard deviation of each example's own κ over its rows.
//! - "At least 3 out of 5 marked the same relevant rows" is **per example**: at least three
//!   annotators chose exactly the same set of rows. We give the share of examples with at least
//!   three annotators where at least three ballots are identical (with five annotators, as in
//!   the paper, that is a majority agreeing on the whole set).
//!
//! Fleiss' κ needs the same number of raters per item in its original form; examples may have
//! different numbers of annotators here, so κ uses the standard generalisation (each item's
//! agreement `P_i` over its own `n_i` raters, category shares over all ratings), which equals
//! Fleiss' formula when every item has the same number of raters.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::group::{in_group, Group};
use crate::data::dataset::RelevanceBallot;
use crate::probe::{Premise, ProbeExample};
use crate::run::RunResult;

/// Fleiss' κ over `items`, each the number of raters who chose each category (all items with
/// the same number of categories). Items with fewer than two raters carry no agreement and are
/// left out. `None` when no item is left, or when every rating falls in one category (chance
/// agreement is then 1 and κ is undefined).
pub fn fleiss_kappa(items: &[Vec<usize>]) -> Option<f64> {
    let rated: Vec<&Vec<usize>> = items
        .iter()
        .filter(|c| c.iter().sum::<usize>() >= 2)
        .collect();
    if rated.is_empty() {
        return None;
    }
    let categories = rated.iter().map(|c| c.len()).max().unwrap_or(0);
    let mut per_category = vec![0usize; categories];
    let mut ratings = 0usize;
    let mut p_sum = 0.0;
    for counts in &rated {
        let n: usize = counts.iter().sum();
        let agree: usize = counts.iter().map(|&c| c * c).sum::<usize>() - n;
        p_sum += agree as f64 / (n * (n - 1)) as f64;
        for (j, &c) in counts.iter().enumerate() {
            per_category[j] += c;
        }
        ratings += n;
    }
    let p_bar = p_sum / rated.len() as f64;
    let p_e: f64 = per_category
        .iter()
        .map(|&c| {
            let p = c as f64 / ratings as f64;
            p * p
        })
        .sum();
    // 1 - p_e is exactly 0 only when every rating is in one category.
    (per_category.iter().filter(|&&c| c > 0).count() > 1).then(|| (p_bar - p_e) / (1.0 - p_e))
}

/// The agreement figures of a set of annotated examples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelevanceAgreement {
    /// Examples with at least two annotators' ballots.
    pub examples: usize,
    /// Examples by number of annotators (ballots), e.g. `{5: 120}`.
    pub annotators: BTreeMap<usize, usize>,
    /// (example, row) items rated.
    pub items: usize,
    /// Fleiss' κ over every (example, row) item, categories relevant / not relevant.
    pub kappa: Option<f64>,
    /// Mean of each example's own κ over its rows (the paper's "average Fleiss' kappa").
    pub kappa_per_example_mean: Option<f64>,
    /// Population standard deviation of the per-example κ.
    pub kappa_per_example_sd: Option<f64>,
    /// Examples whose own κ is defined (not every vote the same).
    pub kappa_per_example_n: usize,
    /// Examples with at least three annotators.
    pub examples_three_or_more: usize,
    /// Percent of those where at least three annotators marked exactly the same rows.
    pub same_rows_three: Option<f64>,
}

/// One example's ballots as `(example rows, ballots)`; ballots marking a row past the table
/// are counted as marking nothing there (validation rejects them at import).
fn agreement_of<'a>(
    annotated: impl IntoIterator<Item = (usize, &'a [RelevanceBallot])>,
) -> Option<RelevanceAgreement> {
    let mut pooled: Vec<Vec<usize>> = Vec::new();
    let mut per_example: Vec<f64> = Vec::new();
    let mut annotators: BTreeMap<usize, usize> = BTreeMap::new();
    let mut examples = 0;
    let (mut three, mut same_three) = (0usize, 0usize);
    for (rows, ballots) in annotated {
        if ballots.len() < 2 || rows == 0 {
            continue;
        }
        examples += 1;
        *annotators.entry(ballots.len()).or_default() += 1;
        // Items: the example's rows; categories: [relevant, not relevant].
        let items: Vec<Vec<usize>> = (0..rows)
            .map(|r| {
                let yes = ballots.iter().filter(|b| b.rows.contains(&r)).count();
                vec![yes, ballots.len() - yes]
            })
            .collect();
        if let Some(k) = fleiss_kappa(&items) {
            per_example.push(k);
        }
        pooled.extend(items);
        if ballots.len() >= 3 {
            three += 1;
            let mut sets: Vec<Vec<usize>> = ballots
                .iter()
                .map(|b| {
                    let mut s = b.rows.clone();
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect();
            sets.sort();
            let largest = sets
                .chunk_by(|a, b| a == b)
                .map(<[Vec<usize>]>::len)
                .max()
                .unwrap_or(0);
            if largest >= 3 {
                same_three += 1;
            }
        }
    }
    if examples == 0 {
        return None;
    }
    let n = per_example.len();
    let mean = (n > 0).then(|| per_example.iter().sum::<f64>() / n as f64);
    let sd = mean
        .map(|m| (per_example.iter().map(|k| (k - m) * (k - m)).sum::<f64>() / n as f64).sqrt());
    Some(RelevanceAgreement {
        examples,
        annotators,
        items: pooled.len(),
        kappa: fleiss_kappa(&pooled),
        kappa_per_example_mean: mean,
        kappa_per_example_sd: sd,
        kappa_per_example_n: n,
        examples_three_or_more: three,
        same_rows_three: (three > 0).then(|| 100.0 * same_three as f64 / three as f64),
    })
}

fn run_example(e: &ProbeExample) -> Option<(usize, &[RelevanceBallot])> {
    let ballots = e.relevance_votes.as_deref()?;
    let Premise::Table(t) = &e.input.premise else {
        return None;
    };
    Some((t.row_count(), ballots))
}

/// Agreement over the run's examples in `group` (`None` = every example); `None` when none of
/// them has two or more ballots.
pub fn relevance_agreement(run: &RunResult, group: Option<&Group>) -> Option<RelevanceAgreement> {
    agreement_of(
        run.examples
            .iter()
            .filter(|e| in_group(group, e))
            .filter_map(run_example),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wikipedia's worked example of Fleiss' κ: 10 subjects, 14 raters, 5 categories;
    /// P̄ = 0.378, P̄e = 0.213, κ = 0.210.
    #[test]
    fn wikipedia_worked_example() {
        let table = [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ];
        let items: Vec<Vec<usize>> = table.iter().map(|r| r.to_vec()).collect();
        let k = fleiss_kappa(&items).unwrap();
        // By hand: Σ P_i = 688/182 → P̄ = 0.378022; category shares 20, 28, 39, 21, 32 of 140
        // → P̄e = 4170/19600 = 0.212755; κ = (0.378022 − 0.212755) / (1 − 0.212755) = 0.20993.
        assert!((k - 0.20993).abs() < 1e-4, "{k}");
        assert_eq!(format!("{k:.3}"), "0.210");
    }

    #[test]
    fn undefined_when_every_vote_agrees_on_one_category() {
        assert_eq!(fleiss_kappa(&[vec![3, 0], vec![3, 0]]), None);
        assert_eq!(fleiss_kappa(&[vec![1, 0]]), None);
        // Perfect agreement over two categories is κ = 1.
        assert_eq!(fleiss_kappa(&[vec![3, 0], vec![0, 3]]), Some(1.0));
    }
}
