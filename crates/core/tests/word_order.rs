//! Word-order probes and permutation-acceptance metrics (UNLI §4).

mod common;

use common::*;
use tabprobe_core::data::dataset::{Dataset, Example};
use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_core::data::table::{KeyValueTable, Table};
use tabprobe_core::linearize::Linearization;
use tabprobe_core::metrics::{
    omega_curve, run_word_order_metrics, word_order_metrics, PermutedExample,
};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::word_order::{PermutationTarget, WordOrderSettings};
use tabprobe_core::probe::{build_probe_set, Edit, Premise, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::report::sections;
use tabprobe_core::run::ProbeRun;
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};

#[test]
fn metrics_by_hand() {
    let p = |acc: bool, probs: [f32; 3], bleu: f64| (acc, probs, bleu);
    let z = [0.0, 0.0, 1.0];
    let examples = vec![
        // correct originally; 2 of 3 permutations accepted.
        PermutedExample {
            original_correct: true,
            permutations: vec![
                p(true, [1.0, 0.0, 0.0], 0.1),
                p(true, [0.5, 0.5, 0.0], 0.1),
                p(false, z, 0.1),
            ],
        },
        // correct originally; none accepted.
        PermutedExample {
            original_correct: true,
            permutations: vec![p(false, z, 0.5), p(false, z, 0.5), p(false, z, 0.5)],
        },
        // wrong originally; rescued by 1 of 3.
        PermutedExample {
            original_correct: false,
            permutations: vec![
                p(true, [0.5, 0.25, 0.25], 0.5),
                p(false, z, 0.5),
                p(false, z, 0.5),
            ],
        },
        // wrong, never rescued.
        PermutedExample {
            original_correct: false,
            permutations: vec![p(false, z, 0.5), p(false, z, 0.5), p(false, z, 0.5)],
        },
    ];
    let m = word_order_metrics(&examples, 2, 3, &[0.5]);
    assert_eq!((m.examples, m.skipped), (4, 2));
    assert_eq!(m.accuracy, 0.5);
    assert_eq!(m.omega_max, 0.5);
    // Ω_rand: more than 1/3 accepted — only the first example (1/3 is not more than 1/3).
    assert_eq!(m.omega_rand, 0.25);
    assert_eq!(m.omega, [(0.5, 0.25)]);
    // D^c = the two right examples, sharing 2/3 and 0: P^c = 1/3 (2/3 among those accepting
    // one); D^f = the rescued wrong example, 1/3.
    assert!((m.p_c.unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(m.p_c_accepted_only, Some(2.0 / 3.0));
    assert_eq!(m.p_f, Some(1.0 / 3.0));
    let ln2 = 2f64.ln();
    // Per-example mean entropies of accepted permutations: (0 + ln 2) / 2 for the first,
    // 1.5 ln 2 for the third; over both, ln 2.
    assert!((m.mean_entropy_accepted.unwrap() - ln2).abs() < 1e-12);
    assert!((m.mean_entropy_c.unwrap() - ln2 / 2.0).abs() < 1e-12);
    assert!((m.mean_entropy_f.unwrap() - 1.5 * ln2).abs() < 1e-12);
    // Shares 2/3, 0, 1/3, 0: Ω_x = 2/4 below x = 1/3, 1/4 up to 2/3, then 0.
    let curve = omega_curve(&examples);
    assert_eq!(curve.len(), 20);
    let at = |x: f64| curve.iter().find(|p| (p.0 - x).abs() < 1e-9).unwrap().1;
    assert_eq!(
        (at(0.0), at(0.3), at(0.35), at(0.65), at(0.7)),
        (0.5, 0.5, 0.25, 0.25, 0.0)
    );
    assert_eq!((m.bleu_bins[0].total, m.bleu_bins[0].accepted), (3, 2));
    assert_eq!((m.bleu_bins[3].total, m.bleu_bins[3].accepted), (9, 1));
    assert_eq!(m.bleu_bins[1].rate, None);
}

/// A bag-of-words model: the label depends only on which words the hypothesis contains.
struct BagOfWords;
impl PairScorer for BagOfWords {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        Ok(pairs
            .iter()
            .map(|p| {
                let w: Vec<&str> = p
                    .hypothesis
                    .split_whitespace()
                    .map(|w| w.trim_matches('.'))
                    .collect();
                score_of(if w.contains(&"pop") {
                    Label::Entail
                } else if w.contains(&"1979") || w.contains(&"hrs") {
                    Label::Contradict
                } else {
                    Label::Neutral
                })
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "bow".into(),
            weights_sha256: String::new(),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

#[test]
fn bag_of_words_model_has_pc_one_and_no_rescues() {
    let mut d = running_example();
    let mut short = d.examples[0].clone();
    short.id = Some("short".into());
    short.hypothesis = "It is pop.".into();
    let mut wrong = d.examples[0].clone();
    wrong.id = Some("H6".into());
    wrong.hypothesis = "Breakfast in America came out in the year 1979 in March.".into();
    d.examples.push(short);
    d.examples.push(wrong);
    let mut s = ProbeSettings::new(vec![ProbeKind::WordOrder], 11);
    s.linearization.strategy = Linearization::Paragraph;
    s.word_order = WordOrderSettings {
        q: 10,
        target: PermutationTarget::Both,
        max_short_words: 5,
    };
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    assert_eq!(set.items.len(), 5 * 10);
    assert!(set
        .skipped
        .iter()
        .any(|k| k.example == "short" && k.reason.contains("3 words")));
    for it in &set.items {
        let ex = &set.examples[it.example];
        let orig: Vec<&str> = ex.input.hypothesis.split_whitespace().collect();
        let perm: Vec<&str> = it.perturbed.hypothesis.split_whitespace().collect();
        assert!(orig.iter().zip(&perm).all(|(a, b)| a != b), "{:?}", perm);
        let Edit::WordsPermuted {
            premise_orders: Some(orders),
            ..
        } = &it.edit
        else {
            panic!()
        };
        assert!(orders
            .iter()
            .all(|o| o.iter().enumerate().all(|(i, &j)| i != j)));
        assert!(matches!(it.perturbed.premise, Premise::Text(_)));
    }
    let mut run = ProbeRun::new(set, 16);
    run.run(&mut BagOfWords, |_| {}, || false).unwrap();
    let run = run.finish(BagOfWords.model_id()).unwrap();
    let m = run_word_order_metrics(&run, &[], None);
    assert_eq!((m.examples, m.skipped), (5, 1));
    // The report lists the Ω_x curve the site plots: four examples accept all their
    // permutations, one none, so Ω_x = 4/5 = 80% at every x of the curve (x < 1); the
    // report gives every share in %.
    let secs = sections(&run);
    let curve = secs
        .iter()
        .find(|s| s.file() == "word_order_omega")
        .expect("an Ω_x section");
    assert_eq!(curve.header, ["group", "x", "omega_x"]);
    let all: Vec<&Vec<String>> = curve
        .rows
        .iter()
        .map(|r| &r.cells)
        .filter(|r| r[0] == "all")
        .collect();
    assert_eq!(all.len(), 20);
    for (k, r) in all.iter().enumerate() {
        assert_eq!(r[1], format!("{:.2}", k as f64 * 0.05));
        assert_eq!(r[2], "80.00");
    }
    let table = secs.iter().find(|s| s.file() == "word_order").unwrap();
    let col = |name: &str| table.header.iter().position(|h| h == name).unwrap();
    assert_eq!(table.rows[0].cells[col("p_c")], "100.00");
    assert_eq!(table.rows[0].cells[col("p_c_accepted_only")], "100.00");
    assert_eq!(m.accuracy, 0.8);
    assert_eq!(m.omega_max, 0.8);
    assert_eq!(m.p_c, Some(1.0)); // UNLI: a bag-of-words model has P^c = 100%
    assert_eq!(m.p_f, None); // …and rescues nothing
    let h = -(0.8f64 * 0.8f64.ln() + 2.0 * 0.1 * 0.1f64.ln());
    assert!((m.mean_entropy_accepted.unwrap() - h).abs() < 1e-6);
}

#[test]
fn hypothesis_only_target_keeps_the_premise() {
    let mut s = ProbeSettings::new(vec![ProbeKind::WordOrder], 1);
    s.word_order = WordOrderSettings {
        q: 3,
        target: PermutationTarget::Hypothesis,
        max_short_words: 5,
    };
    let set = build_probe_set(&running_example(), &s, &RuleSet::default()).unwrap();
    let it = &set.items[0];
    let ex = &set.examples[it.example];
    assert_eq!(
        set.pairs[it.perturbed_pair].premise,
        set.pairs[ex.pair].premise
    );
    assert_ne!(
        set.pairs[it.perturbed_pair].hypothesis,
        set.pairs[ex.pair].hypothesis
    );
}

/// UNLI Eq. 3: P^c averages Pr_cor over *all* of D^c (the originally right examples), an
/// example accepting none of its permutations counting 0; P^f averages over D^f, the
/// originally wrong examples with at least one accepted permutation (§3: "deemed correct
/// according to Ω_max"). Entropy is averaged per example first (each example's mean over its
/// accepted permutations), then over the examples that accept at least one.
#[test]
fn p_c_over_all_of_d_c_and_entropy_per_example() {
    let p = |acc: bool, probs: [f32; 3]| (acc, probs, 0.1);
    let z = [0.0, 0.0, 1.0];
    let (one, half, quarter) = ([1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.5, 0.25, 0.25]);
    let ex = |original_correct, permutations| PermutedExample {
        original_correct,
        permutations,
    };
    let examples = vec![
        // D^c: 1 of 2 accepted, entropy 0.
        ex(true, vec![p(true, one), p(false, z)]),
        // D^c: 3 of 4 accepted, each with entropy ln 2.
        ex(
            true,
            vec![p(true, half), p(true, half), p(true, half), p(false, z)],
        ),
        // D^c: none accepted.
        ex(true, vec![p(false, z), p(false, z)]),
        // D^f: 1 of 4 accepted, entropy ½ ln 2 + ¼ ln 4 + ¼ ln 4 = 1.5 ln 2.
        ex(
            false,
            vec![p(true, quarter), p(false, z), p(false, z), p(false, z)],
        ),
        // Wrong and never accepted: in neither D^c nor D^f.
        ex(false, vec![p(false, z), p(false, z)]),
    ];
    let m = word_order_metrics(&examples, 0, 3, &[]);
    // P^c = (1/2 + 3/4 + 0) / 3 = 5/12; the filtered variant (1/2 + 3/4) / 2 = 5/8.
    assert!((m.p_c.unwrap() - 5.0 / 12.0).abs() < 1e-12, "{:?}", m.p_c);
    assert_eq!(m.p_c_accepted_only, Some(0.625));
    // P^f = 1/4 (one example in D^f).
    assert_eq!(m.p_f, Some(0.25));
    let ln2 = std::f64::consts::LN_2;
    // Per-example means 0, ln 2 and 1.5 ln 2 → (0 + ln 2 + 1.5 ln 2) / 3 (pooled over the
    // five accepted permutations it would be 4.5 ln 2 / 5).
    assert!((m.mean_entropy_accepted.unwrap() - 2.5 * ln2 / 3.0).abs() < 1e-12);
    // D^c: (0 + ln 2) / 2 (pooled: 3 ln 2 / 4); D^f: 1.5 ln 2.
    assert!((m.mean_entropy_c.unwrap() - ln2 / 2.0).abs() < 1e-12);
    assert!((m.mean_entropy_f.unwrap() - 1.5 * ln2).abs() < 1e-12);
}

/// "Martin Luther King Jr. Day": a title holding "Jr." and a value ending in it. Each row's
/// sentence is one unit whatever the strategy, so nothing is cut into a short fragment.
fn mlk_dataset() -> Dataset {
    let mut d = Dataset::new("mlk");
    d.tables = vec![Table::KeyValue(KeyValueTable {
        id: "MLK".into(),
        title: "Martin Luther King Jr. Day".into(),
        rows: vec![
            row("Observed by", &["United States"]),
            row("Type", &["Federal holiday"]),
            row("Honoree", &["Martin Luther King Jr."]),
            row("Date", &["Third Monday of January"]),
        ],
    })];
    d.examples = vec![Example {
        id: Some("MLK1".into()),
        table: Some("MLK".into()),
        premise: None,
        hypothesis: "Martin Luther King Jr. Day is a federal holiday in the United States.".into(),
        label: Label::Entail,
        split: None,
        relevant_rows: None,
        categories: vec![],
        annotator: None,
        derived_from: None,
        operation: None,
        relevance_votes: None,
    }];
    d
}

#[test]
fn a_table_holding_jr_is_permuted_row_by_row_in_every_sentence_strategy() {
    let d = mlk_dataset();
    // (strategy, sentence units): the paragraphs have one per row, the templates one for the
    // title and one per row (horizontal) or per column (vertical: one column, the key).
    for (strategy, units) in [
        (Linearization::InfotabsCompat, 4),
        (Linearization::Paragraph, 4),
        (Linearization::HorizontalTemplate, 5),
    ] {
        let mut s = ProbeSettings::new(vec![ProbeKind::WordOrder], 3);
        s.linearization.strategy = strategy;
        s.word_order.q = 4;
        let set = build_probe_set(&d, &s, &RuleSet::default())
            .unwrap_or_else(|e| panic!("{strategy:?}: {e}"));
        assert!(set.skipped.is_empty(), "{strategy:?}: {:?}", set.skipped);
        assert_eq!(set.items.len(), 4, "{strategy:?}");
        let original = &set.pairs[set.examples[0].pair].premise;
        let mut words: Vec<&str> = original.split_whitespace().collect();
        words.sort_unstable();
        for it in &set.items {
            // The same words, moved only within their units; the text between units (the
            // INFOTABS paragraph's trailing space) is kept.
            let permuted = &set.pairs[it.perturbed_pair].premise;
            let mut w: Vec<&str> = permuted.split_whitespace().collect();
            w.sort_unstable();
            assert_eq!(w, words, "{strategy:?}");
            assert_eq!(permuted.ends_with(' '), original.ends_with(' '));
            let Edit::WordsPermuted {
                premise_orders: Some(orders),
                ..
            } = &it.edit
            else {
                panic!()
            };
            assert_eq!(orders.len(), units, "{strategy:?}");
        }
    }
}

/// MNLI-style premises: no split after titles, "St.", "Jr.", "U.S.", "D.C.", "Inc.", "e.g."
/// or initials, so the two sentences stay two and the example is not skipped as "short".
#[test]
fn a_plain_text_premise_splits_only_at_sentence_ends() {
    let premise = "Mr. Smith met Dr. J. R. R. Tolkien at St. Mary's in Washington, D.C. on a \
                   Monday. They talked about the U.S. economy, e.g. Acme Inc. and its rivals.";
    assert_eq!(
        tabprobe_core::probe::permutation::sentences(premise),
        [
            "Mr. Smith met Dr. J. R. R. Tolkien at St. Mary's in Washington, D.C. on a Monday.",
            "They talked about the U.S. economy, e.g. Acme Inc. and its rivals."
        ]
    );
    let mut d = Dataset::new("mnli");
    d.examples = vec![Example {
        id: Some("M1".into()),
        table: None,
        premise: Some(premise.into()),
        hypothesis: "Two men once talked about the economy on a Monday.".into(),
        label: Label::Entail,
        split: None,
        relevant_rows: None,
        categories: vec![],
        annotator: None,
        derived_from: None,
        operation: None,
        relevance_votes: None,
    }];
    let mut s = ProbeSettings::new(vec![ProbeKind::WordOrder], 5);
    s.word_order.q = 3;
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    assert!(set.skipped.is_empty(), "{:?}", set.skipped);
    for it in &set.items {
        let Edit::WordsPermuted {
            premise_orders: Some(orders),
            ..
        } = &it.edit
        else {
            panic!()
        };
        assert_eq!(orders.iter().map(Vec::len).collect::<Vec<_>>(), [17, 12]);
    }
}
