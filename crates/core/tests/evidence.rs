//! Evidence selection (§5.3) on the running example.

mod common;

use common::*;
use tabprobe_core::metrics::{
    evidence_selection, incomplete_evidence, EvidenceUse, IncompleteEvidence,
};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
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
    let e = evidence_selection(&run(&running_example(), &mut EvidenceFake::new()), None).unwrap();
    // H1 (Genre, Length), H2 (Released), H5 (Length); H3 is NEUTRAL and left out.
    assert_eq!(e.examples, 3);
    assert_eq!(
        (e.precision, e.recall, e.all, e.none),
        (100.0, 100.0, 100.0, 0.0)
    );
    assert_eq!(e.per_example[0].model, [3, 4]);
    assert_eq!(e.correct_all, 100.0);
}

/// The per-example view's rows (`row_deletions`) mark as model-relevant exactly the rows the
/// figures count: for H1, rows 3 and 4 (Genre, Length), by hand as above.
#[test]
fn the_per_example_view_and_the_figures_share_one_rule() {
    use tabprobe_core::metrics::evidence::row_deletions;
    let r = run(&running_example(), &mut EvidenceFake::new());
    let e = evidence_selection(&r, None).unwrap();
    let per_row = row_deletions(&r);
    for ex in &e.per_example {
        let pos = r.examples.iter().position(|x| x.id == ex.example).unwrap();
        let changed: Vec<usize> = per_row[&pos]
            .iter()
            .filter(|(_, d)| d.changed)
            .map(|(&row, _)| row)
            .collect();
        assert_eq!(changed, ex.model, "{}", ex.example);
    }
    let h1 = r.examples.iter().position(|x| x.id == "H1").unwrap();
    let rows: Vec<usize> = per_row[&h1]
        .iter()
        .filter(|(_, d)| d.changed)
        .map(|(&r, _)| r)
        .collect();
    assert_eq!(rows, [3, 4]);
}

#[test]
fn partial_and_ignored_evidence_by_hand() {
    let mut d = running_example();
    // Annotators also marked Label (row 5) for H1: the model uses 2 of 3 rows.
    d.examples[0].relevant_rows = Some(vec![3, 4, 5]);
    let e = evidence_selection(&run(&d, &mut EvidenceFake::new()), None).unwrap();
    let h1 = &e.per_example[0];
    assert_eq!((h1.precision, h1.uses), (1.0, EvidenceUse::Some));
    assert!((h1.recall - 2.0 / 3.0).abs() < 1e-12);
    // Mean recall (2/3 + 1 + 1) / 3 = 8/9.
    assert!((e.recall - 800.0 / 9.0).abs() < 1e-9);
    assert!((e.some - 100.0 / 3.0).abs() < 1e-9);
    // A model that ignores the premise: nothing is model-relevant.
    let e = evidence_selection(&run(&running_example(), &mut HypothesisOnlyFake), None).unwrap();
    assert_eq!(
        (e.none, e.ignores_premise, e.precision, e.recall),
        (100.0, 100.0, 0.0, 0.0)
    );
    assert_eq!(e.ignores_premise_within_none, Some(100.0));
    // It is right on all three originals, so all its correct answers come from no evidence.
    assert_eq!(e.correct_none, 100.0);
}

fn run_with(
    d: &tabprobe_core::Dataset,
    s: &ProbeSettings,
    scorer: &mut impl PairScorer,
) -> RunResult {
    let set = build_probe_set(d, s, &RuleSet::default()).unwrap();
    let mut r = ProbeRun::new(set, 8);
    r.run(scorer, |_| {}, || false).unwrap();
    r.finish(scorer.model_id()).unwrap()
}

/// Issue 11 §5: an example whose rows were not all deleted is left out of every figure and
/// counted as incomplete. H1's deletion of Length (row 4, relevant) is missing, as after a
/// cancel: the old code counted H1 as using "some" evidence (recall 1/2), so the mean recall
/// was (1/2 + 1 + 1)/3 = 83.33% and "all" 66.67%.
#[test]
fn example_missing_a_row_deletion_is_incomplete_not_partial() {
    let mut r = run(&running_example(), &mut EvidenceFake::new());
    r.items.retain(|it| {
        !(r.examples[it.example].id == "H1"
            && matches!(&it.edit, tabprobe_core::probe::Edit::RowsDeleted { rows, .. } if rows == &[4]))
    });
    let e = evidence_selection(&r, None).unwrap();
    // H2 and H5 are compared (complete); H1 is incomplete: 6 of its 7 rows deleted.
    assert_eq!(e.examples, 2);
    assert_eq!((e.precision, e.recall, e.all), (100.0, 100.0, 100.0));
    assert_eq!(
        e.incomplete,
        vec![IncompleteEvidence {
            example: "H1".into(),
            deleted: 6,
            rows: 7
        }]
    );
    assert!(e.per_example.iter().all(|x| x.example != "H1"));
}

/// A per-example cap of 4 items: the 4-row Bridesmaids table (H5) is deleted row by row in
/// full, the 7-row Breakfast in America (H1, H2) is not — whichever 4 rows the seeded cap
/// keeps. Before the fix all three were compared (examples = 3).
#[test]
fn per_example_cap_leaves_only_complete_examples() {
    let mut s = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    s.caps.per_example = Some(4);
    let r = run_with(&running_example(), &s, &mut EvidenceFake::new());
    let e = evidence_selection(&r, None).unwrap();
    assert_eq!(e.examples, 1);
    assert_eq!(e.per_example[0].example, "H5");
    let inc: Vec<(&str, usize, usize)> = e
        .incomplete
        .iter()
        .map(|i| (i.example.as_str(), i.deleted, i.rows))
        .collect();
    assert_eq!(inc, [("H1", 4, 7), ("H2", 4, 7)]);
    // The report counts them and says why.
    let sec = tabprobe_core::report::sections(&r)
        .into_iter()
        .find(|s| s.file() == "evidence")
        .unwrap();
    assert_eq!(sec.header[2], "incomplete");
    assert_eq!(&sec.rows[0].cells[..3], ["all", "1", "2"]);
    assert!(
        sec.notes
            .iter()
            .any(|n| n.contains("2 example(s) left out as incomplete")),
        "{:?}",
        sec.notes
    );
    let per = tabprobe_core::report::sections(&r)
        .into_iter()
        .find(|s| s.file() == "evidence_examples")
        .unwrap();
    let uses: Vec<(&str, &str, &str)> = per
        .rows
        .iter()
        .map(|row| {
            (
                row.cells[0].as_str(),
                row.cells[5].as_str(),
                row.cells[8].as_str(),
            )
        })
        .collect();
    assert_eq!(
        uses,
        [
            ("H1", "incomplete", "4/7"),
            ("H2", "incomplete", "4/7"),
            ("H5", "all", "4/4")
        ]
    );
    // With a cap of 2, no example is complete: no figure, but the count is still there.
    s.caps.per_example = Some(2);
    let r = run_with(&running_example(), &s, &mut EvidenceFake::new());
    assert!(evidence_selection(&r, None).is_none());
    assert_eq!(incomplete_evidence(&r, None).len(), 3);
    let sec = tabprobe_core::report::sections(&r)
        .into_iter()
        .find(|s| s.file() == "evidence")
        .unwrap();
    assert_eq!(&sec.rows[0].cells[..4], ["all", "0", "3", ""]);
}
