//! Hypothesis probes (§4.4) on the paper's running example (Figures 1–2, Table 3) and the
//! Table 4 scores.

mod common;

use common::*;
use tabprobe_core::data::label::Label::{self, Contradict as C, Entail as E};
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::data::table::{KeyValueTable, Table};
use tabprobe_core::metrics::{perturbation_scores, sampled_accuracy, SampleOptions, ScoreView};
use tabprobe_core::probe::edit_table::KeyIndex;
use tabprobe_core::probe::hypothesis::{self, HypothesisContext};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{
    build_probe_set, Certainty, Edit, Expectation, Perturbation, Premise, ProbeSettings,
};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::rng::Rng;
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
        // Heuristic since issue 43: every quantifier item is (its basis asks whether the
        // word is a determiner and the sentence English).
        (
            "Some songs were recorded in 1978.".into(),
            E,
            Certainty::Heuristic
        )
    );
    let got = hypothesis::quantifiers(&ctx(&prem, "Most songs are soft rock.", C, &ix));
    assert_eq!(summary(&got[0]).0, "All songs are soft rock.");
    let got = hypothesis::quantifiers(&ctx(&prem, "It has no jazz songs.", E, &ix));
    assert_eq!(
        summary(&got[0]),
        // Heuristic since issue 43: `no` → `some` flips only when the `no` phrase carries
        // the claim.
        ("It has some jazz songs.".into(), C, Certainty::Heuristic)
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
            precision: Default::default(),
            label_only: false,
            scores_file: false,
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
        ScoreView::PremiseAndHypothesis,
        None,
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
        ScoreView::PremiseAndHypothesis,
        None,
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
        ScoreView::PremiseAndHypothesis,
        None,
    );
    assert_eq!(certain.label_flipped.unwrap().mean, 100.0);
    assert!(certain.label_preserved.is_none());
}

// ---- Issue #11 §3: "certain" means certain. Every expected value below is worked by hand
// from Figure 1 (Breakfast in America: released 29 March 1979, length 46:06, genres pop / art
// rock / soft rock, producers Peter Henderson and Supertramp).

/// Every item of `items` as (hypothesis, label, certainty).
fn all(items: &[Perturbation]) -> Vec<(String, Label, Certainty)> {
    items.iter().map(summary).collect()
}

fn item(h: &str, label: Label, certainty: Certainty) -> (String, Label, Certainty) {
    (h.to_string(), label, certainty)
}

const CERTAIN: Certainty = Certainty::Certain;
const HEURISTIC: Certainty = Certainty::Heuristic;

#[test]
fn monotone_words_under_negation_or_an_upper_bound() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    let mono = |h: &str, gold| all(&hypothesis::monotone_numbers(&ctx(&prem, h, gold, &ix)));
    // 46 min ≤ 47: ENTAIL. `no more than` is downward: a larger bound keeps ENTAIL. (The old
    // code read `more than` alone and kept ENTAIL by halving: `no more than 23.5`, certain.)
    assert_eq!(
        mono("Breakfast in America is no more than 47 minutes long.", E),
        [
            item(
                "Breakfast in America is no more than 94 minutes long.",
                E,
                CERTAIN
            ),
            item(
                "Breakfast in America is no more than 23.5 minutes long.",
                C,
                HEURISTIC
            ),
        ]
    );
    // 46 min ≤ 1 hour: ENTAIL; `not over` = at most.
    assert_eq!(
        mono("Breakfast in America is not over 1 hour long.", E),
        [
            item("Breakfast in America is not over 2 hour long.", E, CERTAIN),
            item(
                "Breakfast in America is not over 0.5 hour long.",
                C,
                HEURISTIC
            ),
        ]
    );
    // `at most` and `up to` are upper bounds (the old code moved them as plain numbers).
    for bound in ["at most", "up to"] {
        assert_eq!(
            mono(
                &format!("Breakfast in America is {bound} 50 minutes long."),
                E
            ),
            [
                item(
                    &format!("Breakfast in America is {bound} 100 minutes long."),
                    E,
                    CERTAIN
                ),
                item(
                    &format!("Breakfast in America is {bound} 25 minutes long."),
                    C,
                    HEURISTIC
                ),
            ]
        );
    }
    // Two producers < 3: `fewer than` stays downward…
    assert_eq!(
        mono("Breakfast in America has fewer than 3 producers.", E),
        [
            item(
                "Breakfast in America has fewer than 6 producers.",
                E,
                CERTAIN
            ),
            item(
                "Breakfast in America has fewer than 1.5 producers.",
                C,
                HEURISTIC
            ),
        ]
    );
    // …and `no fewer than` (≥) is upward: a smaller bound keeps ENTAIL.
    assert_eq!(
        mono("Breakfast in America has no fewer than 2 producers.", E),
        [
            item(
                "Breakfast in America has no fewer than 1 producers.",
                E,
                CERTAIN
            ),
            item(
                "Breakfast in America has no fewer than 4 producers.",
                C,
                HEURISTIC
            ),
        ]
    );
    // 46 < 40 is false: CONTRADICT; `less than` is downward, a smaller bound keeps it.
    assert_eq!(
        mono("Breakfast in America is less than 40 minutes long.", C),
        [
            item(
                "Breakfast in America is less than 20 minutes long.",
                C,
                CERTAIN
            ),
            item(
                "Breakfast in America is less than 80 minutes long.",
                E,
                HEURISTIC
            ),
        ]
    );
    // `never` past the auxiliary `been` negates `more than` directly: reversed, certain.
    assert_eq!(
        mono(
            "Breakfast in America has never been more than 47 minutes long.",
            E
        ),
        [
            item(
                "Breakfast in America has never been more than 94 minutes long.",
                E,
                CERTAIN
            ),
            item(
                "Breakfast in America has never been more than 23.5 minutes long.",
                C,
                HEURISTIC
            ),
        ]
    );
    // `not … last more than`: reversed, but a negation that far away is only probably over
    // the phrase, so both items need review.
    assert_eq!(
        mono("Breakfast in America did not last more than 47 minutes.", E),
        [
            item(
                "Breakfast in America did not last more than 94 minutes.",
                E,
                HEURISTIC
            ),
            item(
                "Breakfast in America did not last more than 23.5 minutes.",
                C,
                HEURISTIC
            ),
        ]
    );
    // `just over` speaks of closeness: just over 23 minutes is false of 46.
    assert_eq!(
        mono("Breakfast in America is just over 46 minutes long.", E),
        [
            item(
                "Breakfast in America is just over 23 minutes long.",
                E,
                HEURISTIC
            ),
            item(
                "Breakfast in America is just over 92 minutes long.",
                C,
                HEURISTIC
            ),
        ]
    );
}

#[test]
fn numbers_in_dates_and_four_digit_quantities() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    let mono = |h: &str, gold| all(&hypothesis::monotone_numbers(&ctx(&prem, h, gold, &ix)));
    let plain = |h: &str, gold| all(&hypothesis::plain_numbers(&ctx(&prem, h, gold, &ix)));
    // Released 29 March 1979, before 30 March 1979: ENTAIL. 30 is a day (the old code
    // doubled it: `before 60 March 1979`, certain); the year under `before` moves by ten, a
    // later one keeping ENTAIL.
    let h = "Breakfast in America was released before 30 March 1979.";
    assert_eq!(
        mono(h, E),
        [
            item(
                "Breakfast in America was released before 30 March 1989.",
                E,
                CERTAIN
            ),
            item(
                "Breakfast in America was released before 30 March 1969.",
                C,
                HEURISTIC
            ),
        ]
    );
    // The plain-number probe moves neither (the old code flipped 1979 → 1989 to
    // "CONTRADICT, certain", and 30 → 40).
    assert_eq!(plain(h, E), []);
    // A date without `before`: the year flips the label (the table holds 1979), the day is
    // left alone (the old code also made `on 39 March 1979`).
    assert_eq!(
        plain("Breakfast in America was released on 29 March 1979.", E),
        [item(
            "Breakfast in America was released on 29 March 1989.",
            C,
            CERTAIN
        )]
    );
    // 46:06 is 2766 seconds, over 1500: ENTAIL. 1500 is a quantity, not a year: halved and
    // doubled (the old code moved it by ten as a year: 1490 / 1510).
    assert_eq!(
        mono("Breakfast in America is over 1500 seconds long.", E),
        [
            item("Breakfast in America is over 750 seconds long.", E, CERTAIN),
            item(
                "Breakfast in America is over 3000 seconds long.",
                C,
                HEURISTIC
            ),
        ]
    );
    // `after` a year: an earlier year keeps ENTAIL.
    assert_eq!(
        mono("Breakfast in America was released after 1970.", E),
        [
            item("Breakfast in America was released after 1960.", E, CERTAIN),
            item(
                "Breakfast in America was released after 1980.",
                C,
                HEURISTIC
            ),
        ]
    );
    // `since 1979` holds of 1989 too if it is still on sale: a hedge, so only heuristic (the
    // old code: certain, because the table holds 1979).
    assert_eq!(
        plain("Breakfast in America has been on sale since 1979.", E),
        [item(
            "Breakfast in America has been on sale since 1989.",
            C,
            HEURISTIC
        )]
    );
    // Under a negation the false year makes the statement true: ENTAIL, heuristic.
    assert_eq!(
        plain("Breakfast in America was not released in 1978.", E),
        [item(
            "Breakfast in America was not released in 1988.",
            E,
            HEURISTIC
        )]
    );
}

#[test]
fn quantifiers_under_negation_or_outside_a_determiner_are_not_generated() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    let quant = |h: &str, gold| all(&hypothesis::quantifiers(&ctx(&prem, h, gold, &ix)));
    // Pop is not rock: ENTAIL. `Not every` → `Not some` would reverse the direction (and is
    // not English); the old code made it, ENTAIL, certain.
    assert_eq!(
        quant("Not every genre of Breakfast in America is rock.", E),
        []
    );
    // `no` before a comparative is no determiner (the old code: `is some more than 47`,
    // CONTRADICT, certain); nor is `most` in `at most` or `the most popular`.
    assert_eq!(
        quant("Breakfast in America is no more than 47 minutes long.", E),
        []
    );
    assert_eq!(
        quant("Breakfast in America is at most 50 minutes long.", E),
        []
    );
    assert_eq!(
        quant("The most popular genre of Breakfast in America is pop.", E),
        []
    );
    // `no` before a singular (`some jazz genre` is not English) is not replaced; before a
    // plural it is, heuristically (issue 43: the `no` phrase may sit inside a disjunction).
    assert_eq!(quant("Breakfast in America has no jazz genre.", E), []);
    assert_eq!(
        quant("Breakfast in America has no jazz songs.", E),
        [item(
            "Breakfast in America has some jazz songs.",
            C,
            HEURISTIC
        )]
    );
    // A negation in an earlier clause: generated, but its scope is a guess.
    assert_eq!(
        quant(
            "Breakfast in America is not jazz, and all the genres are pop or rock.",
            E
        ),
        [item(
            "Breakfast in America is not jazz, and some of the genres are pop or rock.",
            E,
            HEURISTIC
        )]
    );
}

#[test]
fn named_entity_swap_certain_only_when_no_value_overlaps() {
    let prem = Premise::Table(breakfast());
    let h = "Breakfast in America is a pop album.";
    // The only other Genre value in the dataset is `rock`, which the row's `art rock` and
    // `soft rock` contain: the album *is* rock, so the swap is heuristic.
    let rock = Table::KeyValue(KeyValueTable {
        id: "T9".into(),
        title: "Some Rock Album".into(),
        rows: vec![row("Genre", &["rock"])],
    });
    let ix = KeyIndex::new(&[breakfast(), rock]);
    assert_eq!(
        all(&hypothesis::named_entities(
            &ctx(&prem, h, E, &ix),
            &mut Rng::new(1)
        )),
        [item("Breakfast in America is a rock album.", C, HEURISTIC)]
    );
    // `jazz` / `modal jazz` overlap nothing in the row or the hypothesis, but `Genre` is a
    // list row here (issue 43: a list's replacement may be a near-synonym): heuristic.
    let ix = index();
    let got = all(&hypothesis::named_entities(
        &ctx(&prem, h, E, &ix),
        &mut Rng::new(1),
    ));
    assert_eq!(got.len(), 1);
    assert!(
        [
            item("Breakfast in America is a jazz album.", C, HEURISTIC),
            item("Breakfast in America is a modal jazz album.", C, HEURISTIC)
        ]
        .contains(&got[0]),
        "{got:?}"
    );
}

/// Issue 43: a named-entity swap is certain only when it states a false fact about the
/// table's own subject — a single-valued row, named by the sentence, not its subject, with a
/// replacement of the same shape from a table of the same kind; the article follows.
#[test]
fn named_entity_certain_only_for_a_false_fact_about_the_subject() {
    use tabprobe_core::probe::Basis;
    let film = |id: &str, title: &str, lang: &str, dir: &str| {
        Table::KeyValue(KeyValueTable {
            id: id.into(),
            title: title.into(),
            rows: vec![
                row("Directed by", &[dir]),
                row("Language", &[lang]),
                row("Country", &["India"]),
                row("Birth name", &[dir]),
            ],
        })
    };
    let j = film("J", "Judwaa 2", "Hindi", "David Dhawan");
    let ix = KeyIndex::new(&[j.clone(), film("E", "Other", "English", "Ang Lee")]);
    let prem = Premise::Table(j);
    let run = |h: &str| {
        hypothesis::named_entities(&ctx(&prem, h, E, &ix), &mut Rng::new(0))
            .into_iter()
            .map(|p| (p.perturbed.hypothesis, p.basis))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        run("Judwaa 2 is a Hindi-language film."),
        [(
            "Judwaa 2 is an English-language film.".to_string(),
            Basis::EntityReplaced
        )]
    );
    // What the sentence is about: another film's director is another person (NEUTRAL).
    assert_eq!(
        run("David Dhawan directed a film in 2017.")[0],
        (
            "Ang Lee directed a film in 2017.".to_string(),
            Basis::Subject
        )
    );
    // The sentence names another relation than the row's key.
    assert_eq!(
        run("Judwaa 2 was made by people speaking Hindi.")[0].1,
        Basis::OtherRelation
    );
}

#[test]
fn negation_probe_certain_only_when_it_negates_the_claim() {
    let ix = index();
    let prem = Premise::Table(breakfast());
    let neg = |h: &str, gold| all(&hypothesis::negation(&ctx(&prem, h, gold, &ix)));
    // Art rock and soft rock are rock: ENTAIL; but `some … are not rock` is no denial of it.
    assert_eq!(
        neg("Some genres of Breakfast in America are rock.", E),
        [item(
            "Some genres of Breakfast in America are not rock.",
            C,
            HEURISTIC
        )]
    );
    // A second negation makes `is not never` — no plain denial either.
    assert_eq!(
        neg("Breakfast in America is never listed as jazz.", E),
        [item(
            "Breakfast in America is not never listed as jazz.",
            C,
            HEURISTIC
        )]
    );
    // A typographic apostrophe is a contraction too.
    assert_eq!(
        neg("Breakfast in America isn\u{2019}t a jazz album.", E),
        [item("Breakfast in America is a jazz album.", C, CERTAIN)]
    );
}

// ---- Issue #11 §1: no input text crashes a probe.

#[test]
fn multi_byte_and_case_changing_text_is_matched_not_crashed_on() {
    // `Éire` inside `Éireann … Éire`: the old matcher resumed one byte into `É` and panicked.
    let eire = Table::KeyValue(KeyValueTable {
        id: "IE".into(),
        title: "Éire".into(),
        rows: vec![row("Capital", &["Dublin"])],
    });
    let ix = KeyIndex::new(std::slice::from_ref(&eire));
    let prem = Premise::Table(eire.clone());
    let h = "Éireann is an old name; Éire is its Irish name.";
    assert_eq!(
        all(&hypothesis::nominal_modifiers(
            &ctx(&prem, h, E, &ix),
            &mut Rng::new(0)
        )),
        [item(
            "Éireann is an old name; Éire, whose capital is Dublin, is its Irish name.",
            E,
            CERTAIN
        )]
    );
    // KELVIN SIGN lower-cases to a one-byte `k`: the old matcher gave up on such text.
    let kpop = |id: &str, title: &str, genre: &str| {
        Table::KeyValue(KeyValueTable {
            id: id.into(),
            title: title.into(),
            rows: vec![row("Genre", &[genre])],
        })
    };
    let a = kpop("A", "Album A", "k-pop");
    let ix = KeyIndex::new(&[a.clone(), kpop("B", "Album B", "trot")]);
    let prem = Premise::Table(a);
    let got = hypothesis::named_entities(
        &ctx(&prem, "Album A is a \u{212A}-pop album.", E, &ix),
        &mut Rng::new(0),
    );
    // Heuristic since issue 43 (the sentence does not name the `Genre` relation, and the
    // two one-row tables are not of one kind); what is tested here is the match.
    assert_eq!(all(&got), [item("Album A is a trot album.", C, HEURISTIC)]);
    let Edit::HypothesisSpan {
        start, end, before, ..
    } = &got[0].edit
    else {
        panic!()
    };
    assert_eq!((*start, *end, before.as_str()), (13, 20, "\u{212A}-pop"));
    // The whole probe set on such text, every probe kind.
    let mut d = tabprobe_core::Dataset::new("unicode");
    d.tables = vec![eire, kpop("K", "İstanbul \u{212A}", "ẞ-pop")];
    for (i, (t, h)) in [
        ("IE", "Éireann is an old name; Éire is its Irish name."),
        ("K", "İSTANBUL \u{212A} is ß-POP, not over 30 March 1979."),
    ]
    .into_iter()
    .enumerate()
    {
        d.examples.push(tabprobe_core::Example {
            id: Some(format!("u{i}")),
            table: Some(t.into()),
            premise: None,
            hypothesis: h.into(),
            label: E,
            split: None,
            relevant_rows: Some(vec![0]),
            categories: vec![],
            annotator: None,
            derived_from: None,
            operation: None,
            relevance_votes: None,
        });
    }
    let mut s = ProbeSettings::new(ProbeKind::all(), 11);
    s.word_order.q = 2;
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    assert!(set
        .items
        .iter()
        .any(|it| it.probe == ProbeKind::NominalModifier));
}
