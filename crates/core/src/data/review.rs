//! A review decision as the dataset file saves it (`reviews`): which generated probe item, accept or
//! reject, and the label the reviewer asserts, and the item id's format that keys it
//! ([`item_id`], [`parse_item_id`]): the dataset's validator and merge read item ids, so the
//! format lives with the dataset, not with the probes that make the items. What reviews do to
//! probe sets is in `probe::review`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::data::label::Label;
use crate::probe_kind::ProbeKind;

/// A reviewer's verdict on an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewDecision {
    /// The item is sound; its perturbed input has the review's `label`.
    Accept,
    /// The item is wrong and must not be scored.
    Reject,
}

/// One review decision as saved in the dataset's `reviews` list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// The item's stable id, `<example id>/<probe>/<n>` (e.g. `H1/plain_number/0`): the
    /// example's `id` (or `#<index>` when it has none), the probe's snake_case name, and the
    /// item's position among that probe's perturbations of the example.
    pub item: String,
    /// Accept or reject.
    pub decision: ReviewDecision,
    /// For `accept`: the label the reviewer asserts for the perturbed input (required);
    /// absent for `reject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Label>,
    /// The perturbed hypothesis the reviewer saw. When present, the decision applies only
    /// to an item with this hypothesis, so a change in how items are generated can never
    /// move a decision onto a different item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypothesis: Option<String>,
}

/// The stable id of the `n`-th perturbation `probe` made of example `example`.
pub fn item_id(example: &str, probe: ProbeKind, n: usize) -> String {
    format!("{example}/{}/{n}", probe.as_str())
}

/// Splits an item id into example id, probe and position. Example ids may themselves hold
/// `/`, so the id is split at its last two slashes.
pub fn parse_item_id(id: &str) -> Option<(&str, ProbeKind, usize)> {
    let mut parts = id.rsplitn(3, '/');
    let n = parts.next()?.parse().ok()?;
    let probe = ProbeKind::from_name(parts.next()?)?;
    let example = parts.next().filter(|e| !e.is_empty())?;
    Some((example, probe, n))
}
