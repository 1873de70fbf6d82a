//! Review state of generated probe items (issue 11 §4): every item is `certain` (its
//! expectation follows from the rule), `heuristic_unreviewed` (likely, not yet checked by a
//! person), `accepted` (a reviewer checked it and asserted its label) or `rejected` (a
//! reviewer found it wrong). Decisions are saved with the dataset as [`Review`]s keyed by the
//! stable item id `<example id>/<probe>/<n>`, applied whenever a probe set is built, and so
//! recorded in every run file. Score tables count certain and accepted items; heuristic
//! items only on request, rejected ones never.

use serde::{Deserialize, Serialize};

use crate::data::dataset::Dataset;
use crate::data::label::Label;
use crate::data::review::{parse_item_id, Review, ReviewDecision};
use crate::probe::{Certainty, ProbeExample, ProbeItem};

/// Where a generated item stands with respect to review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ReviewState {
    /// The expectation follows from the rule; counted without review.
    Certain,
    /// A heuristic expectation nobody has checked yet; left out of scores by default.
    HeuristicUnreviewed,
    /// A reviewer checked the item and asserted the perturbed input's label; scored against it.
    Accepted {
        /// The label the reviewer asserted.
        label: Label,
    },
    /// A reviewer found the item wrong (e.g. the edit makes no sense); never scored.
    Rejected,
}

impl ReviewState {
    /// The state an item has when generated, before any review.
    pub fn from_certainty(c: Certainty) -> ReviewState {
        match c {
            Certainty::Certain => ReviewState::Certain,
            Certainty::Heuristic => ReviewState::HeuristicUnreviewed,
        }
    }

    /// The snake_case name used in run files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewState::Certain => "certain",
            ReviewState::HeuristicUnreviewed => "heuristic_unreviewed",
            ReviewState::Accepted { .. } => "accepted",
            ReviewState::Rejected => "rejected",
        }
    }

    /// Whether a score table counts an item in this state: certain and accepted items
    /// always, heuristic-unreviewed ones only when `include_heuristic`, rejected ones never.
    pub fn is_counted(self, include_heuristic: bool) -> bool {
        match self {
            ReviewState::Certain | ReviewState::Accepted { .. } => true,
            ReviewState::HeuristicUnreviewed => include_heuristic,
            ReviewState::Rejected => false,
        }
    }
}

/// What a reviewer does to an item (the site's Accept / Reject / Reset buttons).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Accept the item with the label the reviewer asserts.
    Accept(Label),
    /// Reject the item.
    Reject,
    /// Forget any decision: the item goes back to its generated state.
    Reset,
}

/// Why a decision cannot be recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    /// The id is not `<example id>/<probe>/<n>`.
    #[error("{0:?} is not an item id of the form <example id>/<probe>/<n>")]
    BadItemId(String),
    /// The id's example is not in the dataset.
    #[error("the dataset has no example {0:?}")]
    UnknownExample(String),
    /// The asserted label is not one the dataset uses.
    #[error("the dataset's labels do not include {0} (a two-way dataset has no NEUTRAL)")]
    LabelNotAllowed(Label),
}

/// The id a probe run gives a dataset example: its `id`, or `#<index>` when it has none.
fn example_ids(dataset: &Dataset) -> impl Iterator<Item = String> + '_ {
    dataset
        .examples
        .iter()
        .enumerate()
        .map(|(i, e)| e.id.clone().unwrap_or_else(|| format!("#{i}")))
}

/// Records `decision` on item `item` of `dataset` (replacing an earlier decision on it);
/// `hypothesis` is the item's perturbed hypothesis as the reviewer saw it. Reviews stay
/// sorted by item id so the saved file does not depend on the order decisions were made.
/// On error the dataset is unchanged.
pub fn set_review(
    dataset: &mut Dataset,
    item: &str,
    hypothesis: &str,
    decision: Decision,
) -> Result<(), ReviewError> {
    let (example, _, _) = parse_item_id(item).ok_or_else(|| ReviewError::BadItemId(item.into()))?;
    if !example_ids(dataset).any(|e| e == example) {
        return Err(ReviewError::UnknownExample(example.to_string()));
    }
    let review = match decision {
        Decision::Accept(label) if !dataset.label_set.labels().contains(&label) => {
            return Err(ReviewError::LabelNotAllowed(label))
        }
        Decision::Accept(label) => Some((ReviewDecision::Accept, Some(label))),
        Decision::Reject => Some((ReviewDecision::Reject, None)),
        Decision::Reset => None,
    };
    dataset.reviews.retain(|r| r.item != item);
    if let Some((decision, label)) = review {
        dataset.reviews.push(Review {
            item: item.to_string(),
            decision,
            label,
            hypothesis: Some(hypothesis.to_string()),
        });
        dataset.reviews.sort_by(|a, b| a.item.cmp(&b.item));
    }
    Ok(())
}

/// [`set_review`] for an item of a probe set or run (the runner's and results' item lists).
pub fn set_item_review(
    dataset: &mut Dataset,
    item: &ProbeItem,
    decision: Decision,
) -> Result<(), ReviewError> {
    set_review(dataset, &item.id, &item.perturbed.hypothesis, decision)
}

/// The state a review gives an item; `None` for a malformed review (an `accept` without a
/// label, which validation refuses).
pub fn state_of(review: &Review) -> Option<ReviewState> {
    match (review.decision, review.label) {
        (ReviewDecision::Accept, Some(label)) => Some(ReviewState::Accepted { label }),
        (ReviewDecision::Accept, None) => None,
        (ReviewDecision::Reject, _) => Some(ReviewState::Rejected),
    }
}

/// The dataset's decision on `item`, if any (the site shows it beside the item).
pub fn review_of<'a>(dataset: &'a Dataset, item: &str) -> Option<&'a Review> {
    dataset.reviews.iter().find(|r| r.item == item)
}

/// Sets each item's review state from `reviews`. A review applies to the item with its id
/// when the hypotheses agree; otherwise (items renumbered because generation changed) to the
/// only item of the same example and probe with the review's hypothesis. Returns the ids of
/// reviews that name an item of the set but fit none: their decision was made on an item
/// that is no longer generated, so it is not applied (the runner lists them).
pub fn apply_reviews(
    items: &mut [ProbeItem],
    examples: &[ProbeExample],
    reviews: &[Review],
) -> Vec<String> {
    let mut unapplied = Vec::new();
    for review in reviews {
        let Some(state) = state_of(review) else {
            continue;
        };
        let fits = |it: &ProbeItem| {
            review
                .hypothesis
                .as_ref()
                .is_none_or(|h| *h == it.perturbed.hypothesis)
        };
        let by_id = items.iter().position(|it| it.id == review.item);
        let target = match by_id {
            Some(i) if fits(&items[i]) => Some(i),
            _ => parse_item_id(&review.item).and_then(|(example, probe, _)| {
                review.hypothesis.as_ref()?;
                let mut same = items.iter().enumerate().filter(|(_, it)| {
                    it.probe == probe
                        && examples.get(it.example).is_some_and(|e| e.id == example)
                        && fits(it)
                });
                match (same.next(), same.next()) {
                    (Some((i, _)), None) => Some(i),
                    _ => None,
                }
            }),
        };
        match target {
            Some(i) => items[i].review = state,
            None if by_id.is_some() => unapplied.push(review.item.clone()),
            None => {}
        }
    }
    unapplied
}
