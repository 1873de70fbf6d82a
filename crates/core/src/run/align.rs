//! Lining up two runs of the same probe set by example id, never by position: a run that
//! was cancelled (e.g. the second model of a two-model run) holds fewer examples, in an order
//! of its own, so position `p` of the main run may not exist in it, or be another example.

use std::collections::{HashMap, VecDeque};

use crate::run::RunResult;

/// For each id of `main`, in order, the position in `other` of the example with the same id,
/// or `None` when `other` has none (e.g. it was cancelled before scoring it). Ids repeated in
/// both lists are paired in order of appearance, each position of `other` used at most once.
pub fn align_by_id<'a>(
    main: impl IntoIterator<Item = &'a str>,
    other: impl IntoIterator<Item = &'a str>,
) -> Vec<Option<usize>> {
    let mut positions: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (q, id) in other.into_iter().enumerate() {
        positions.entry(id).or_default().push_back(q);
    }
    main.into_iter()
        .map(|id| positions.get_mut(id).and_then(|q| q.pop_front()))
        .collect()
}

impl RunResult {
    /// For each example of this run, the position of the same example (by id) in `other`,
    /// `None` where `other` does not hold it. See [`align_by_id`].
    pub fn examples_in(&self, other: &RunResult) -> Vec<Option<usize>> {
        align_by_id(
            self.examples.iter().map(|e| e.id.as_str()),
            other.examples.iter().map(|e| e.id.as_str()),
        )
    }
}
