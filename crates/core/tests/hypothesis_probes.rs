//! Hypothesis probes (§4.4) on the paper's running example (Figures 1–2, Table 3) and the
//! Table 4 scores.

mod common;

use common::*;
use tabprobe_core::label::Label::{self, Contradict as C, Entail as E};
use tabprobe_core::label::LabelSet;
use tabprobe_core::metrics::{perturbation_scores, sampled_accuracy, SampleOptions};
use tabprobe_core::probe::edit_table::KeyIndex;
use tabprobe_core::probe::hypothesis::{self, HypothesisContext};
use tabprobe_core::probe::{
    build_probe_set, Certainty, Edit, Expectation, Perturbation, Premise, ProbeKind, ProbeSettings,
};
use tabprobe_core::rng::Rng;
use tabprobe_core::rules::RuleSet;
use tabprobe_core::run::ProbeRun;
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};

fn ctx<'a>(
    premise: &'a Premise,
    h: &'a str,
    gold: Label,
    index: &'a KeyIndex,
) -> HypothesisContext<'a> {
    HypothesisContext {
        premise,
        hypothesis: h,
        gold,
        index,
    }
}

fn summary(p: &Perturbation) -> (String, Label, Certainty) {
    let Expectation::Label { labels } = &p.expectation else {
        panic!()
    };
    (p.perturbed.hypothesis.clone(), labels[0], p.certainty)
}

fn index() -> KeyIndex {
    KeyIndex::new(&[breakfast(), bridesmaids(), other_album()])
}

#[test]
fn monotone_over_in_h5_both_directions() {
    let ix = index();
    let prem = Premise::Table(bridesmaids());
    let got: Vec<_> = hypothesis::monotone_numbers(&ctx(&prem, H5, C, &ix))
        .iter()
        .map(summary)
        .collect();
    assert_eq!(
        got,
        [
            // `over` is upward monotone: a larger number keeps CONTRADICT (§4, H5).
            (
                "Bridesmaids has a running time of over 6 hrs.".to_string(),
                C,
                Certainty::Certain
            ),
            // Halving is the large reverse step: a flip that needs review.
            (
                "Bridesmaids has a running time of over 1.5 hrs.".to_string(),
                E,
                Certainty::Heuristic
            ),
        ]
    );
    // `before` on an ENTAIL hypothesis: a later year keeps ENTAIL.
    let h = "Breakfast in America was released before 1980.";
    let prem = Premise::Table(breakfast());
    let got: Vec<_> = hypothesis::monotone_numbers(&ctx(&prem, h, E, &ix))
        .iter()
        .map(summary)
        .collect();
    assert_eq!(got[0].0, "Breakfast in America was released before 1990.");
    assert_eq!((got[0].1, got[0].2), (E, Certainty::Certain));
    assert_eq!(got[1].0, "Breakfast in America was released before 1970.");
    assert_eq!((got[1].1, got[1].2), (C, Certainty::Heuristic));
    // `less than` on CONTRADICT: a smaller number keeps CONTRADICT.
    let h = "Breakfast in America is less than 40 minutes long.";
    let got = hypothesis::monotone_numbers(&ctx(&prem, h, C, &ix));
    assert_eq!(
        summary(&got[0]).0,
        "Breakfast in America is less than 20 minutes long."
    );
}

#[test]
fn table3_temporal_and_numeric_edits() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    // H1^E_C: 46 → 56, certain because the Length cell holds 46.
    let h1 = hypothesis::plain_numbers(&ctx(&prem, H1, E, &ix));
    assert_eq!(
        summary(&h1[0]),
        (
            "Breakfast in America is a pop album with a length of 56 minutes.".into(),
            C,
            Certainty::Certain
        )
    );
    assert_eq!(
        h1[0].edit,
        Edit::HypothesisSpan {
            start: 53,
            end: 55,
            before: "46".into(),
            after: "56".into()
        }
    );
    // H2^C_C: 1979 → 1989 keeps CONTRADICT only heuristically.
    let h2 = hypothesis::plain_numbers(&ctx(&prem, H2, C, &ix));
    assert_eq!(
        summary(&h2[0]),
        (
            "Breakfast in America was released at the end of 1989.".into(),
            C,
            Certainty::Heuristic
        )
    );
    // An ENTAIL number the table does not hold is a heuristic flip.
    let h = "Breakfast in America has 6 tracks.";
    assert_eq!(
        summary(&hypothesis::plain_numbers(&ctx(&prem, h, E, &ix))[0]).2,
        Certainty::Heuristic
    );
}

#[test]
fn negation_insert_and_remove() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    // H2^C_E (Table 3), marked for review because C→E flips were annotated by hand.
    assert_eq!(
        summary(&hypothesis::negation(&ctx(&prem, H2, C, &ix))[0]),
        (
            "Breakfast in America was not released at the end of 1979.".into(),
            E,
            Certainty::Heuristic
        )
    );
    assert_eq!(
        summary(&hypothesis::negation(&ctx(&prem, H1, E, &ix))[0]),
        (
            "Breakfast in America is not a pop album with a length of 46 minutes.".into(),
            C,
            Certainty::Certain
        )
    );
    let removed = hypothesis::negation(&ctx(&prem, "It was not released in 1979.", C, &ix));
    assert_eq!(summary(&removed[0]).0, "It was released in 1979.");
    let contracted = hypothesis::negation(&ctx(&prem, "It isn't a jazz album.", E, &ix));
    assert_eq!(summary(&contracted[0]).0, "It is a jazz album.");
    // `has 6 tracks`: `has` is the main verb, not an auxiliary, so nothing is generated.
    assert!(
        hypothesis::negation(&ctx(&prem, "Breakfast in America has 6 tracks.", E, &ix)).is_empty()
    );
}

#[test]
fn named_entity_aligned_to_genre_replaced_from_another_table() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    let got = hypothesis::named_entities(&ctx(&prem, H1, E, &ix), &mut Rng::new(1));
    assert_eq!(got.len(), 1);
    let Edit::HypothesisSpan {
        before,
        after,
        start,
        ..
    } = &got[0].edit
    else {
        panic!()
    };
    assert_eq!((before.as_str(), *start), ("pop", 26));
    assert!(after == "jazz" || after == "modal jazz", "{after}");
    assert_eq!(summary(&got[0]).1, C);
    // CONTRADICT examples are not touched (only E→C is certain).
    assert!(hypothesis::named_entities(&ctx(&prem, H2, C, &ix), &mut Rng::new(1)).is_empty());
}

#[test]
fn nominal_modifier_from_a_true_fact() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    let got = hypothesis::nominal_modifiers(&ctx(&prem, H1, E, &ix), &mut Rng::new(3));
    let (h, label, certainty) = summary(&got[0]);
    assert_eq!((label, certainty), (E, Certainty::Certain));
    let facts = [
        ", whose released is 29 March 1979,",
        ", whose recorded is May-December 1978,",
        ", whose studio is The Village Recorder (Studio B) in Los Angeles,",
        ", whose length is 46:06,",
        ", whose label is A&M,",
        ", whose producer is Peter Henderson, Supertramp,",
    ];
    let inserted = h
        .strip_prefix("Breakfast in America")
        .unwrap()
        .strip_suffix(" is a pop album with a length of 46 minutes.")
        .unwrap();
    assert!(facts.contains(&inserted), "{inserted}");
}

#[test]
fn quantifier_substitutions() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    let got = hypothesis::quantifiers(&ctx(&prem, "All songs were recorded in 1978.", E, &ix));
    assert_eq!(
        summary(&got[0]),
        (
            "Some songs were recorded in 1978.".into(),
            E,
            Certainty::Certain
        )
    );
    let got = hypothesis::quantifiers(&ctx(&prem, "Most songs are soft rock.", C, &ix));
    assert_eq!(summary(&got[0]).0, "All songs are soft rock.");
    let got = hypothesis::quantifiers(&ctx(&prem, "It has no jazz songs.", E, &ix));
    assert_eq!(
        summary(&got[0]),
        ("It has some jazz songs.".into(), C, Certainty::Certain)
    );
    assert!(hypothesis::quantifiers(&ctx(&prem, H3, Label::Neutral, &ix)).is_empty());
}

#[test]
fn sampled_accuracy_by_hand() {
    let opts = SampleOptions::default();
    let s = sampled_accuracy(&[true; 10], &opts, &mut Rng::new(0)).unwrap();
    assert_eq!((s.mean, s.sd, s.n), (100.0, 0.0, 10));
    let s = sampled_accuracy(&[false; 5], &opts, &mut Rng::new(0)).unwrap();
    assert_eq!((s.mean, s.sd), (0.0, 0.0));
    // 4 of 5 right, samples of 4: a sample scores 100% when it leaves out the wrong one
    // (probability 1/5) and 75% otherwise: expected mean 80, sd 25·√(0.2·0.8) = 10.
    let s = sampled_accuracy(&[true, true, false, true, true], &opts, &mut Rng::new(0)).unwrap();
    assert!((s.mean - 80.0).abs() < 3.0, "{s:?}");
    assert!((s.sd - 10.0).abs() < 2.0, "{s:?}");
    assert!(sampled_accuracy(&[], &opts, &mut Rng::new(0)).is_none());
}

/// Predicts CONTRADICT when the hypothesis has "not" or a number other than the table's,
/// else ENTAIL: a model that reads the hypothesis against the table's facts.
struct KeywordFake;
impl PairScorer for KeywordFake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        Ok(pairs
            .iter()
            .map(|p| {
                let h = &p.hypothesis;
                let wrong = h.contains(" not ")
                    || h.contains("56")
                    || h.contains("1989")
                    || h.contains("1979");
                score_of(if wrong { C } else { E })
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "keyword".into(),
            weights_sha256: String::new(),
            label_set: LabelSet::ThreeWay,
        }
    }
}

#[test]
fn table4_scores_on_the_running_example() {
    let s = ProbeSettings::new(vec![ProbeKind::PlainNumber, ProbeKind::Negation], 5);
    let set = build_probe_set(&running_example(), &s, &RuleSet::default()).unwrap();
    // H1 (E): 46→56 (flip) and `is not` (flip). H2 (C): 1979→1989 (preserved) and `was not`
    // (flip). H5's `3` is under `over` (not a plain number) and its `has` is a main verb;
    // H3 is NEUTRAL: skipped.
    assert_eq!(set.items.len(), 4);
    let mut run = ProbeRun::new(set, 8);
    run.run(&mut KeywordFake, |_| {}, || false).unwrap();
    let run = run.finish(KeywordFake.model_id()).unwrap();
    // H2's two items are heuristic: by default they are left out, and counted as such.
    let by_default = perturbation_scores(
        &run,
        &[ProbeKind::PlainNumber, ProbeKind::Negation],
        &SampleOptions {
            one_per_example: false,
            ..SampleOptions::default()
        },
        |_| true,
    );
    assert_eq!(by_default.left_out.heuristic_unreviewed, 2);
    assert_eq!(by_default.original.unwrap().n, 1);
    let opts = SampleOptions {
        one_per_example: false,
        include_heuristic: true,
        ..SampleOptions::default()
    };
    let t = perturbation_scores(
        &run,
        &[ProbeKind::PlainNumber, ProbeKind::Negation],
        &opts,
        |_| true,
    );
    // Originals H1 (E ✓) and H2 (1979 → C ✓).
    assert_eq!(
        t.original.unwrap(),
        tabprobe_core::metrics::MeanSd {
            mean: 100.0,
            sd: 0.0,
            n: 2
        }
    );
    // Preserved: H2 1989 → C ✓.
    assert_eq!(t.label_preserved.unwrap().mean, 100.0);
    assert_eq!(t.label_preserved.unwrap().n, 1);
    // Flipped: H1 56 → C ✓, H1 `is not` → C ✓, H2 `was not` → expected E, predicted C ✗.
    // Samples of round(0.8·3) = 2 score 100 (both ✓, chance 1/3) or 50: mean ≈ 66.7.
    let f = t.label_flipped.unwrap();
    assert_eq!(f.n, 3);
    assert!(f.mean > 55.0 && f.mean < 78.0, "{f:?}");
    // Certain-only keeps H1's two flips: both right.
    let certain = perturbation_scores(
        &run,
        &[ProbeKind::PlainNumber, ProbeKind::Negation],
        &SampleOptions {
            certain_only: true,
            one_per_example: false,
            ..SampleOptions::default()
        },
        |_| true,
    );
    assert_eq!(certain.label_flipped.unwrap().mean, 100.0);
    assert!(certain.label_preserved.is_none());
}
