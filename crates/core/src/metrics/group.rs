//! Groups of examples for the breakdowns of docs/probes-and-metrics.md#breakdown-by-split-and-category: one group per split and one per
//! reasoning category. An example with several categories belongs to each of them, so
//! category groups may overlap (as in INFOTABS' per-category analysis).
//!
//! Every metric has one form, taking `group: Option<&Group>` (`None` = every example): a
//! breakdown is the same call once per group of [`groups`], so a figure over a group and its
//! row in the report cannot be computed two ways.

use serde::{Deserialize, Serialize};

use crate::probe::{ProbeExample, ProbeItem};
use crate::run::RunResult;

/// A split or a reasoning category.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "by", content = "name", rename_all = "snake_case")]
pub enum Group {
    /// Examples whose `split` is this name.
    Split(String),
    /// Examples whose `categories` include this name.
    Category(String),
}

impl Group {
    /// `split:<name>` or `category:<name>`: the name used in reports and CSV files.
    pub fn label(&self) -> String {
        match self {
            Group::Split(s) => format!("split:{s}"),
            Group::Category(c) => format!("category:{c}"),
        }
    }

    /// Whether `example` belongs to the group.
    pub fn contains(&self, example: &ProbeExample) -> bool {
        match self {
            Group::Split(s) => example.split.as_deref() == Some(s.as_str()),
            Group::Category(c) => example.categories.iter().any(|x| x == c),
        }
    }
}

/// Whether `example` is in `group` (every example when `None`): what a metric's group
/// argument means.
pub fn in_group(group: Option<&Group>, example: &ProbeExample) -> bool {
    group.is_none_or(|g| g.contains(example))
}

/// Whether `item`'s original example is in `group`; with `None` every item is, even one whose
/// example the run lacks.
pub fn item_in_group(run: &RunResult, group: Option<&Group>, item: &ProbeItem) -> bool {
    group.is_none_or(|g| run.example_of(item).is_some_and(|e| g.contains(e)))
}

/// The split every example of the run is in, when there is exactly one such split (and no
/// example without a split): a report then names it once, not as `all` and `split:<name>`.
pub fn only_split(run: &RunResult) -> Option<&str> {
    let first = run.examples.first()?.split.as_deref()?;
    run.examples
        .iter()
        .all(|e| e.split.as_deref() == Some(first))
        .then_some(first)
}

/// The groups of a run: its splits (sorted), then its categories (sorted). Examples without a
/// split belong to no split group; examples without categories to no category group. A run
/// whose examples are all in one split has no split group (see [`only_split`]).
pub fn groups(run: &RunResult) -> Vec<Group> {
    let mut splits: Vec<&String> = run
        .examples
        .iter()
        .filter_map(|e| e.split.as_ref())
        .collect();
    splits.sort();
    splits.dedup();
    if only_split(run).is_some() {
        // One split holding every example: its group would repeat `all` row for row.
        splits.clear();
    }
    let mut cats: Vec<&String> = run.examples.iter().flat_map(|e| &e.categories).collect();
    cats.sort();
    cats.dedup();
    splits
        .into_iter()
        .map(|s| Group::Split(s.clone()))
        .chain(cats.into_iter().map(|c| Group::Category(c.clone())))
        .collect()
}
