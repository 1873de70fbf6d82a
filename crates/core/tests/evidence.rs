//! Evidence selection (§5.3) on the running example.

mod common;

use common::*;
use tabprobe_core::metrics::{evidence_selection, EvidenceUse};
use tabprobe_core::probe::{build_probe_set, ProbeKind, ProbeSettings};
use tabprobe_core::rules::RuleSet;
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::PairScorer;

fn run(d: &tabprobe_core::Dataset, scorer: &mut impl PairScorer) -> RunResult {
    let set = build_probe_set(
        d,
        &ProbeSettings::new(vec![ProbeKind::RowDeletion], 1),
        &RuleSet::default(),
    )
    .unwrap();
    let mut r = ProbeRun::new(set, 8);
    r.run(scorer, |_| {}, || false).unwrap();
    r.finish(scorer.model_id()).unwrap()
}

#[test]
fn evidence_grounded_model_uses_all_relevant_rows() {
    let e = evidence_selection(&run(&running_example(), &mut EvidenceFake::new())).unwrap();
    // H1 (Genre, Length), H2 (Released), H5 (Length); H3 is NEUTRAL and left out.
    assert_eq!(e.examples, 3);
    assert_eq!(
        (e.precision, e.recall, e.all, e.none),
        (100.0, 100.0, 100.0, 0.0)
    );
    assert_eq!(e.per_example[0].model, [3, 4]);
    assert_eq!(e.correct_all, 100.0);
}

#[test]
fn partial_and_ignored_evidence_by_hand() {
    let mut d = running_example();
    // Annotators also marked Label (row 5) for H1: the model uses 2 of 3 rows.
    d.examples[0].relevant_rows = Some(vec![3, 4, 5]);
    let e = evidence_selection(&run(&d, &mut EvidenceFake::new())).unwrap();
    let h1 = &e.per_example[0];
    assert_eq!((h1.precision, h1.uses), (1.0, EvidenceUse::Some));
    assert!((h1.recall - 2.0 / 3.0).abs() < 1e-12);
    // Mean recall (2/3 + 1 + 1) / 3 = 8/9.
    assert!((e.recall - 800.0 / 9.0).abs() < 1e-9);
    assert!((e.some - 100.0 / 3.0).abs() < 1e-9);
    // A model that ignores the premise: nothing is model-relevant.
    let e = evidence_selection(&run(&running_example(), &mut HypothesisOnlyFake)).unwrap();
    assert_eq!(
        (e.none, e.ignores_premise, e.precision, e.recall),
        (100.0, 100.0, 0.0, 0.0)
    );
    assert_eq!(e.ignores_premise_within_none, Some(100.0));
    // It is right on all three originals, so all its correct answers come from no evidence.
    assert_eq!(e.correct_none, 100.0);
}
