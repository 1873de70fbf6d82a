//! One-click suggestions for the hypothesis rewriter: every §4.4 perturbation core generates
//! for one example, with its expected label and certainty, in a fixed probe order.
//!
//! A suggestion *is* a generated probe item (same generator, same seed stream), so accepting
//! or rejecting one records a review of that item on the dataset ([`review_suggestion`]),
//! exactly as the runner's item lists do — it does not add a new example. Only a hypothesis
//! the user edited by hand becomes a hand-made example ([`crate::edit::add_hand_made`]).

use crate::data::dataset::Dataset;
use crate::data::label::Label;
use crate::data::review::item_id;
use crate::probe::edit_table::KeyIndex;
use crate::probe::hypothesis::{self, HypothesisContext};
use crate::probe::review::{set_review, Decision, ReviewError};
use crate::probe::{Perturbation, Premise};
use crate::rng::Rng;

/// All hypothesis perturbations of `hypothesis` against `premise` (monotone numbers, plain
/// numbers, named entities, negation, nominal modifiers, quantifiers), as the probe runner
/// generates them for the same seed and example index. NEUTRAL gives none (§4 (a)).
pub fn hypothesis_suggestions(
    premise: &Premise,
    hypothesis: &str,
    gold: Label,
    index: &KeyIndex,
    seed: u64,
    example_index: usize,
) -> Vec<Perturbation> {
    let ctx = HypothesisContext {
        premise,
        hypothesis,
        gold,
        index,
    };
    // The same RNG streams as `probe::build`, so a suggestion equals the run's item.
    let rng = |name: &str| Rng::derive(seed, &format!("{name}/{example_index}"));
    let mut out = hypothesis::monotone_numbers(&ctx);
    out.extend(hypothesis::plain_numbers(&ctx));
    out.extend(hypothesis::named_entities(&ctx, &mut rng("named_entity")));
    out.extend(hypothesis::negation(&ctx));
    out.extend(hypothesis::nominal_modifiers(
        &ctx,
        &mut rng("nominal_modifier"),
    ));
    out.extend(hypothesis::quantifiers(&ctx));
    out
}

/// The probe-run item id of each suggestion of example `example_id` (its dataset `id`, or
/// `#<index>`): `<example id>/<probe>/<n>`, `n` counting that probe's suggestions in order —
/// the id a probe run gives the same perturbation.
pub fn suggestion_item_ids(example_id: &str, suggestions: &[Perturbation]) -> Vec<String> {
    suggestions
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let n = suggestions[..k]
                .iter()
                .filter(|q| q.probe == p.probe)
                .count();
            item_id(example_id, p.probe, n)
        })
        .collect()
}

/// Records the rewriter's Accept (with the label the user asserts) / Reject / Reset of
/// suggestion `k` of `suggestions` (as [`hypothesis_suggestions`] returned them for the
/// dataset example `example_id`) as a review of that item; returns the item id. Out of range
/// `k` is a [`ReviewError::BadItemId`].
pub fn review_suggestion(
    dataset: &mut Dataset,
    example_id: &str,
    suggestions: &[Perturbation],
    k: usize,
    decision: Decision,
) -> Result<String, ReviewError> {
    let ids = suggestion_item_ids(example_id, suggestions);
    let (Some(id), Some(p)) = (ids.get(k), suggestions.get(k)) else {
        return Err(ReviewError::BadItemId(format!(
            "{example_id}/suggestion {k}"
        )));
    };
    set_review(dataset, id, &p.perturbed.hypothesis, decision)?;
    Ok(id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::table::{KeyValueRow, KeyValueTable, Table};
    use crate::probe::{Certainty, Edit, Expectation};
    use crate::probe_kind::ProbeKind;

    #[test]
    fn the_running_example_gets_negation_and_a_modifier() {
        let table = Table::KeyValue(KeyValueTable {
            id: "T1264".into(),
            title: "Breakfast in America".into(),
            rows: vec![KeyValueRow {
                key: "Label".into(),
                values: vec!["A&M".into()],
            }],
        });
        let premise = Premise::Table(table.clone());
        let index = KeyIndex::new(&[table]);
        let h = "Breakfast in America is a pop album.";
        let s = hypothesis_suggestions(&premise, h, Label::Entail, &index, 1, 0);
        let got: Vec<(ProbeKind, String, Certainty)> = s
            .iter()
            .map(|p| (p.probe, p.perturbed.hypothesis.clone(), p.certainty))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    ProbeKind::Negation,
                    "Breakfast in America is not a pop album.".to_string(),
                    Certainty::Certain
                ),
                (
                    ProbeKind::NominalModifier,
                    "Breakfast in America, whose label is A&M, is a pop album.".to_string(),
                    Certainty::Certain
                ),
            ]
        );
        assert_eq!(
            s[0].expectation,
            Expectation::Label {
                labels: vec![Label::Contradict]
            }
        );
        assert!(
            matches!(&s[0].edit, Edit::HypothesisSpan { before, after, .. } if before.is_empty() && after == " not")
        );
        assert!(hypothesis_suggestions(&premise, h, Label::Neutral, &index, 1, 0).is_empty());
    }
}
