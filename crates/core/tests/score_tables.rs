//! Tables 1, 4 and 7 on the paper's running example (Figure 1), every figure worked by hand:
//! which items count by review state (issue 11 §4), NEUTRAL left out and label-preserving
//! counterfactuals kept apart from label-flipping ones (§6), and the hypothesis-only rows
//! (§8) — from the same model with an empty premise or from a second model.
//!
//! With two items, a sample of 80% is round(1.6) = 2 items: every sample is the whole set,
//! so the mean is exact and the sd 0.

mod common;

use common::*;
use tabprobe_core::data::label::Label::{Contradict as C, Entail as E};
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::metrics::{
    perturbation_scores, LeftOut, MeanSd, PerturbationScores, SampleOptions, ScoreView,
};
use tabprobe_core::probe::review::{set_review, Decision, ReviewState};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::report::{sections, sections_with, table1_section, ReportOptions, Section};
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};
use tabprobe_core::Dataset;

/// With a premise: CONTRADICT when the hypothesis says "not", "1979" or "3 hrs", else
/// ENTAIL. With an empty premise: always ENTAIL. So H1 ✓ (E), H2 ✓ (C), H3 ✗ (N), H5 ✓ (C);
/// alone, every hypothesis is ENTAIL.
struct Fake(&'static str);
impl PairScorer for Fake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        Ok(pairs
            .iter()
            .map(|p| {
                let h = &p.hypothesis;
                let c = !p.premise.is_empty()
                    && (h.contains(" not ") || h.contains("1979") || h.contains("3 hrs"));
                score_of(if c { C } else { E })
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: self.0.into(),
            weights_sha256: String::new(),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

/// The negation rows' scores over every example, as the full model sees them.
fn neg_scores(run: &RunResult, opts: &SampleOptions) -> PerturbationScores {
    perturbation_scores(run, &NEG, opts, ScoreView::PremiseAndHypothesis, None)
}

fn run_of(d: &Dataset, s: &ProbeSettings, clear_premises: bool) -> RunResult {
    let mut set = build_probe_set(d, s, &RuleSet::default()).unwrap();
    if clear_premises {
        // As the site does for a model trained on the hypothesis alone.
        for p in &mut set.pairs {
            p.premise.clear();
        }
    }
    let mut fake = Fake(if clear_premises { "hypo" } else { "full" });
    let mut run = ProbeRun::new(set, 4);
    run.run(&mut fake, |_| {}, || false).unwrap();
    run.finish(fake.model_id()).unwrap()
}

fn negation_run(d: &Dataset, hypothesis_only_items: bool) -> RunResult {
    let mut s = ProbeSettings::new(vec![ProbeKind::Negation], 5);
    s.hypothesis_only_items = hypothesis_only_items;
    run_of(d, &s, false)
}

fn ms(mean: f64, n: usize) -> Option<MeanSd> {
    Some(MeanSd { mean, sd: 0.0, n })
}

const NEG: [ProbeKind; 1] = [ProbeKind::Negation];
const H2_NOT: &str = "Breakfast in America was not released at the end of 1979.";

#[test]
fn table4_counts_certain_items_and_says_how_many_heuristic_ones_it_left_out() {
    // H1/negation/0 (certain, E→C) predicted C ✓; H2/negation/0 (heuristic, C→E) predicted C ✗.
    let run = negation_run(&running_example(), false);
    let opts = SampleOptions::default();
    let t = neg_scores(&run, &opts);
    assert_eq!(
        (t.original, t.label_preserved, t.label_flipped),
        (ms(100.0, 1), None, ms(100.0, 1))
    );
    assert_eq!(
        t.left_out,
        LeftOut {
            heuristic_unreviewed: 1,
            ..LeftOut::default()
        }
    );
    // On request the heuristic item counts: originals H1 ✓ H2 ✓; flips H1 ✓ H2 ✗ = 50%.
    let with = SampleOptions {
        include_heuristic: true,
        ..opts
    };
    let t = neg_scores(&run, &with);
    assert_eq!((t.original, t.label_flipped), (ms(100.0, 2), ms(50.0, 2)));
    assert_eq!(t.left_out.heuristic_unreviewed, 0);
    assert_eq!(t.left_out.heuristic_included, 1);
}

#[test]
fn accepted_items_are_scored_against_the_reviewers_label_and_rejected_ones_never() {
    let opts = SampleOptions::default();
    // The reviewer confirms ENTAIL for H2's negation: it counts as a flip, predicted C ✗.
    let mut d = running_example();
    set_review(&mut d, "H2/negation/0", H2_NOT, Decision::Accept(E)).unwrap();
    let t = neg_scores(&negation_run(&d, false), &opts);
    assert_eq!(
        (t.original, t.label_preserved, t.label_flipped),
        (ms(100.0, 2), None, ms(50.0, 2))
    );
    assert_eq!(t.left_out, LeftOut::default());
    // The reviewer asserts CONTRADICT instead: now label-preserving, and predicted C ✓.
    set_review(&mut d, "H2/negation/0", H2_NOT, Decision::Accept(C)).unwrap();
    let t = neg_scores(&negation_run(&d, false), &opts);
    assert_eq!(
        (t.original, t.label_preserved, t.label_flipped),
        (ms(100.0, 2), ms(100.0, 1), ms(100.0, 1))
    );
    // Rejected: left out (and counted as such), even when heuristic items are included.
    set_review(&mut d, "H2/negation/0", H2_NOT, Decision::Reject).unwrap();
    let with = SampleOptions {
        include_heuristic: true,
        ..opts
    };
    let t = neg_scores(&negation_run(&d, false), &with);
    assert_eq!((t.original, t.label_flipped), (ms(100.0, 1), ms(100.0, 1)));
    assert_eq!(
        t.left_out,
        LeftOut {
            rejected: 1,
            ..LeftOut::default()
        }
    );
}

fn section<'a>(secs: &'a [Section], file: &str) -> &'a Section {
    secs.iter().find(|s| s.file() == file).unwrap()
}

fn rows_of<'a>(s: &'a Section, group: &str) -> Vec<Vec<&'a str>> {
    s.rows
        .iter()
        .filter(|r| r.cells[0] == group)
        .map(|r| r.cells.iter().map(String::as_str).collect())
        .collect()
}

#[test]
fn table4_report_has_hypothesis_only_view_rows_and_left_out_columns() {
    let run = negation_run(&running_example(), true);
    // Every item has its hypothesis scored alone, in a pair with an empty premise.
    for it in &run.items {
        let p = &run.pairs[it.hypothesis_only_pair.unwrap()].pair;
        assert_eq!(
            (p.premise.as_str(), &p.hypothesis),
            ("", &it.perturbed.hypothesis)
        );
    }
    let secs = sections(&run);
    let t4 = section(&secs, "table4_scores");
    assert_eq!(
        t4.header[..3]
            .iter()
            .chain(&t4.header[12..])
            .collect::<Vec<_>>(),
        [
            "group",
            "probe",
            "model",
            "heuristic_left_out",
            "rejected_left_out",
            "neutral_left_out"
        ]
    );
    // Prem+Hypo as above; alone the model says ENTAIL: H1 original ✓, H1's flip (C) ✗.
    assert_eq!(
        rows_of(t4, "all"),
        [
            [
                "all",
                "negation",
                "prem+hypo",
                "1",
                "100.00",
                "0.00",
                "",
                "",
                "",
                "1",
                "100.00",
                "0.00",
                "1",
                "0",
                "0"
            ],
            [
                "all",
                "negation",
                "hypo-only view",
                "1",
                "100.00",
                "0.00",
                "",
                "",
                "",
                "1",
                "0.00",
                "0.00",
                "1",
                "0",
                "0"
            ],
        ]
    );
    assert!(
        t4.notes
            .iter()
            .any(|n| n.contains("1 heuristic item(s) nobody has reviewed are left out")),
        "{:?}",
        t4.notes
    );
    assert!(
        t4.notes
            .iter()
            .any(|n| n.starts_with("hypo-only view rows: full itself with an empty premise")),
        "{:?}",
        t4.notes
    );
    // Included on request: H2's original alone is E ✗ (gold C), its flip E ✓ (expected E).
    let secs = sections_with(
        &run,
        &ReportOptions {
            include_heuristic: true,
            ..ReportOptions::default()
        },
    );
    let t4 = section(&secs, "table4_scores");
    assert_eq!(
        rows_of(t4, "all"),
        [
            [
                "all",
                "negation",
                "prem+hypo",
                "2",
                "100.00",
                "0.00",
                "",
                "",
                "",
                "2",
                "50.00",
                "0.00",
                "0",
                "0",
                "0"
            ],
            [
                "all",
                "negation",
                "hypo-only view",
                "2",
                "50.00",
                "0.00",
                "",
                "",
                "",
                "2",
                "50.00",
                "0.00",
                "0",
                "0",
                "0"
            ],
        ]
    );
    assert!(
        t4.notes
            .iter()
            .any(|n| n.contains("1 heuristic item(s) nobody has reviewed are INCLUDED on request")),
        "{:?}",
        t4.notes
    );
}

#[test]
fn hypothesis_only_rows_from_a_second_hypothesis_only_model_are_labelled_so() {
    let d = running_example();
    let mut s = ProbeSettings::new(vec![ProbeKind::Negation], 5);
    let main = run_of(&d, &s, false);
    s.hypothesis_only = true; // the site forces this on the second model's set
    let second = run_of(&d, &s, true);
    let combined = main.with_hypothesis_model(&second).unwrap();
    assert_eq!(
        combined
            .hypothesis_only_model
            .as_ref()
            .map(|m| m.name.as_str()),
        Some("hypo")
    );
    let with = SampleOptions {
        include_heuristic: true,
        ..SampleOptions::default()
    };
    let t = perturbation_scores(&combined, &NEG, &with, ScoreView::HypothesisOnly, None);
    // The second model says ENTAIL to everything: originals H1 ✓ H2 ✗; flips H1 ✗ H2 ✓.
    assert_eq!((t.original, t.label_flipped), (ms(50.0, 2), ms(50.0, 2)));
    let secs = sections(&combined);
    let t4 = section(&secs, "table4_scores");
    assert_eq!(rows_of(t4, "all")[1][2], "hypo-only model");
    assert!(
        t4.notes
            .iter()
            .any(|n| n.starts_with("hypo-only model rows: hypo, a second model's run")),
        "{:?}",
        t4.notes
    );
    // Without item scores in the second run, items get none (never the main model's).
    let mut s2 = ProbeSettings::new(vec![ProbeKind::Negation], 5);
    s2.hypothesis_only = true;
    let normal_second = run_of(&d, &s2, false);
    let c2 = main.with_hypothesis_model(&normal_second).unwrap();
    assert!(c2.items.iter().all(|i| i.hypothesis_only_pair.is_none()));
}

/// The running example's two tables plus H1's label-flipping counterfactual (Length 36:06,
/// CONTRADICT), a hand-made example in a split the run does not probe as an original.
fn counterfactual_dataset() -> Dataset {
    let mut d = running_example();
    d.tables.truncate(2);
    let mut cf = breakfast();
    if let tabprobe_core::data::table::Table::KeyValue(t) = &mut cf {
        t.id = "T1264~edit1".into();
        t.rows[4].values = vec!["36:06".into()];
    }
    d.tables.push(cf);
    let mut e = d.examples[0].clone();
    e.id = Some("H1~hand1".into());
    e.table = Some("T1264~edit1".into());
    e.label = C;
    e.split = Some("cf".into());
    e.derived_from = Some("H1".into());
    e.operation = Some("hand_edit_table".into());
    d.examples.push(e);
    d
}

#[test]
fn table7_leaves_neutral_out_and_keeps_swaps_apart_from_label_flips() {
    let mut s = ProbeSettings::new(
        vec![
            ProbeKind::RowSwap,
            ProbeKind::TitleSwap,
            ProbeKind::Counterfactual,
        ],
        3,
    );
    s.splits = Some(vec!["a1".into(), "a2".into()]);
    let run = run_of(&counterfactual_dataset(), &s, false);
    let ids: Vec<&str> = run.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "H5/row_swap/0",
            "H1/title_swap/0",
            "H2/title_swap/0",
            "H3/title_swap/0",
            "H5/title_swap/0",
            "H1/counterfactual/0"
        ]
    );
    let secs = sections(&run);
    let t7 = section(&secs, "table7_scores");
    let cells = |r: &Vec<&str>| -> Vec<String> {
        [1usize, 3, 4, 6, 7, 9, 10, 14]
            .iter()
            .map(|&i| r[i].to_string())
            .collect()
    };
    let got: Vec<Vec<String>> = rows_of(t7, "all").iter().map(cells).collect();
    // row swap: H5 ✓. Title swaps: H1 ✓ H2 ✓ H5 ✓, H3 (NEUTRAL) left out. The swaps pooled:
    // every item, as the paper samples Table 7 (§6; H5 has two, both ✓): 4 items of 3
    // originals. The hand-made counterfactual: H1 on the edited table, expected C, predicted
    // E ✗ — its own row, never pooled with the swaps.
    let want: Vec<Vec<&str>> = vec![
        vec!["row_swap", "1", "100.00", "1", "100.00", "", "", "0"],
        vec!["title_swap", "3", "100.00", "3", "100.00", "", "", "1"],
        vec![
            "label_preserving",
            "3",
            "100.00",
            "4",
            "100.00",
            "",
            "",
            "1",
        ],
        vec!["counterfactual", "1", "100.00", "", "", "1", "0.00", "0"],
    ];
    assert_eq!(got, want);
    assert!(
        t7.notes
            .iter()
            .any(|n| n == "w/o NEUTRAL, as the paper: 1 item(s) of NEUTRAL examples left out"),
        "{:?}",
        t7.notes
    );
}

#[test]
fn table1_accuracy_per_split_beside_hypothesis_only_and_majority() {
    let mut s = ProbeSettings::new(vec![ProbeKind::Negation], 5);
    s.hypothesis_only = true;
    let full = run_of(&running_example(), &s, false);
    // a1: H1 E ✓, H2 C ✓; alone both E: H1 ✓ H2 ✗; gold E, C: tie → ENTAIL 50%.
    // a2: H3 N ✗ (says E), H5 C ✓; alone H3 ✗ H5 ✗; gold N, C: tie → NEUTRAL 50%.
    // all: 3 of 4; alone 1 of 4; gold E, C, N, C → CONTRADICT 50%.
    let want = [
        ["a1", "full", "2", "100.00", "50.00", "ENTAIL", "50.00"],
        ["a2", "full", "2", "50.00", "0.00", "NEUTRAL", "50.00"],
        ["all", "full", "4", "75.00", "25.00", "CONTRADICT", "50.00"],
    ];
    let secs = sections(&full);
    let t1 = section(&secs, "table1_accuracy");
    assert_eq!(
        t1.header,
        [
            "split",
            "model",
            "examples",
            "accuracy",
            "hypothesis_only",
            "majority_label",
            "majority_baseline"
        ]
    );
    let cells: Vec<Vec<String>> = t1.rows.iter().map(|r| r.cells.clone()).collect();
    assert_eq!(cells, want.map(|r| r.map(String::from)));
    // Both loaded models side by side; the hypothesis-only model is named so, and its
    // accuracy is its hypothesis-only figure (everything ENTAIL: H1 only, then H1 of 4).
    let hypo = run_of(&running_example(), &s, true);
    let t1 = table1_section(&[&full, &hypo]);
    let rows: Vec<Vec<&str>> = t1
        .rows
        .iter()
        .map(|r| r.cells.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(rows[0], want[0]);
    assert_eq!(
        rows[1],
        [
            "a1",
            "hypo (hypothesis only)",
            "2",
            "50.00",
            "50.00",
            "ENTAIL",
            "50.00"
        ]
    );
    assert_eq!(
        rows[5],
        [
            "all",
            "hypo (hypothesis only)",
            "4",
            "25.00",
            "25.00",
            "CONTRADICT",
            "50.00"
        ]
    );
    // Without hypothesis-only scores the column is empty and a note says why.
    let plain = run_of(
        &running_example(),
        &ProbeSettings::new(vec![ProbeKind::Negation], 5),
        false,
    );
    let secs = sections(&plain);
    let t1 = section(&secs, "table1_accuracy");
    assert_eq!(t1.rows[2].cells[4], "");
    assert!(t1
        .notes
        .iter()
        .any(|n| n.contains("no hypothesis-only scores")));
}

#[test]
fn the_run_table_counts_items_by_review_state() {
    let mut d = running_example();
    set_review(&mut d, "H2/negation/0", H2_NOT, Decision::Reject).unwrap();
    let run = negation_run(&d, false);
    let secs = sections(&run);
    let overview = section(&secs, "run");
    let get = |k: &str| {
        overview
            .rows
            .iter()
            .find(|r| r.cells[0] == k)
            .map(|r| r.cells[1].as_str())
    };
    assert_eq!(
        ["certain", "heuristic_unreviewed", "accepted", "rejected"]
            .map(|s| get(&format!("items_{s}"))),
        [Some("1"), Some("0"), Some("0"), Some("1")]
    );
}

/// Issue 15 §3: a model that reads no premise gets its probe set from core's premise mode —
/// the same items as the full model, every pair without a premise (so the table probes'
/// pairs collapse onto their originals, which is what such a model sees), and the run says
/// it reads the hypothesis alone.
#[test]
fn a_hypothesis_only_probe_set_has_the_same_items_and_no_premise() {
    use tabprobe_core::linearize::PremiseMode;
    use tabprobe_core::probe::rules::RuleSet;
    use tabprobe_core::probe::{build_probe_set, ProbeSettings};
    use tabprobe_core::probe_kind::ProbeKind;
    let d = running_example();
    let mut s = ProbeSettings::new(vec![ProbeKind::RowDeletion, ProbeKind::Negation], 3);
    s.hypothesis_only = true;
    let full = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    s.linearization.premise = PremiseMode::HypothesisOnly;
    let hypo = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    let ids = |set: &tabprobe_core::probe::ProbeSet| {
        set.items.iter().map(|i| i.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&full), ids(&hypo));
    assert!(hypo.pairs.iter().all(|p| p.premise.is_empty()));
    assert!(full.pairs.iter().any(|p| !p.premise.is_empty()));
    // A row deletion leaves the hypothesis as it is: without a premise it is its original.
    for it in hypo
        .items
        .iter()
        .filter(|i| i.probe == ProbeKind::RowDeletion)
    {
        assert_eq!(
            it.perturbed_pair, hypo.examples[it.example].pair,
            "{}",
            it.id
        );
    }
    // Four hypotheses and their negations: the only distinct texts left.
    let negations = hypo
        .items
        .iter()
        .filter(|i| i.probe == ProbeKind::Negation)
        .count();
    assert_eq!(hypo.pairs.len(), d.examples.len() + negations);
    assert!(full.pairs.len() > hypo.pairs.len());
}

/// Issue 43 item 3, by hand: Table 4 draws one item per gold example (§4), so an example with
/// a label-preserving and a label-flipping item counts once; the per-column reading counts it
/// in both columns.
#[test]
fn table4_draws_one_item_per_gold_example() {
    let s = ProbeSettings::new(vec![ProbeKind::Negation, ProbeKind::NominalModifier], 5);
    let run = run_of(&running_example(), &s, false);
    let kinds = [ProbeKind::Negation, ProbeKind::NominalModifier];
    let certain = |p: ProbeKind| {
        run.items
            .iter()
            .filter(|it| it.probe == p && it.review == ReviewState::Certain)
            .map(|it| run.examples[it.example].id.clone())
            .collect::<Vec<_>>()
    };
    let (neg, nm) = (
        certain(ProbeKind::Negation),
        certain(ProbeKind::NominalModifier),
    );
    // H1 has both a certain negation (ENTAIL → CONTRADICT, flipped) and a certain modifier
    // (ENTAIL kept, preserved).
    assert!(neg.contains(&"H1".to_string()) && nm.contains(&"H1".to_string()));
    let mut examples: Vec<&String> = neg.iter().chain(&nm).collect();
    examples.sort();
    examples.dedup();
    let n = |m: &Option<MeanSd>| m.map_or(0, |m| m.n);
    let paper = perturbation_scores(
        &run,
        &kinds,
        &SampleOptions::default(),
        ScoreView::PremiseAndHypothesis,
        None,
    );
    // Certain items: negation H1; modifiers H1, H2, H5 — three gold examples, so n = 3.
    assert_eq!(examples.len(), 3);
    assert_eq!(n(&paper.label_preserved) + n(&paper.label_flipped), 3);
    let per_column = SampleOptions {
        per_column: true,
        ..SampleOptions::default()
    };
    let old = perturbation_scores(
        &run,
        &kinds,
        &per_column,
        ScoreView::PremiseAndHypothesis,
        None,
    );
    // Per column: every example with a modifier is in the preserved column, every one with a
    // negation in the flipped one (all golds here are ENTAIL or CONTRADICT with one item
    // each per probe), so H1 counts twice.
    assert_eq!((n(&old.label_preserved), n(&old.label_flipped)), (3, 1));
}
