//! One-click suggestions for the hypothesis rewriter: every §4.4 perturbation core generates
//! for one example, with its expected label and certainty, in a fixed probe order.

use crate::label::Label;
use crate::probe::edit_table::KeyIndex;
use crate::probe::hypothesis::{self, HypothesisContext};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{Certainty, Edit, Expectation, ProbeKind};
    use crate::table::{KeyValueRow, KeyValueTable, Table};

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
