//! A cancelled run keeps what was scored (`ProbeRun::finish_partial`), a run file is checked
//! on reading (`parse_run`), and a second model's run supplies Table 8's hypothesis-only
//! scores (`RunResult::with_hypothesis_model`) — on the running example, worked by hand.

mod common;

use std::cell::Cell;

use common::*;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{parse_run, ProbeRun, Progress, RunError};
use tabprobe_core::scoring::PairScorer;
use tabprobe_core::Label;

fn row_deletion_run(batch: usize, hypothesis_only: bool) -> ProbeRun {
    let mut settings = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    settings.hypothesis_only = hypothesis_only;
    let set = build_probe_set(&running_example(), &settings, &RuleSet::default()).unwrap();
    ProbeRun::new(set, batch)
}

/// Runs `batches` batches, then cancels.
fn cancel_after(run: &mut ProbeRun, batches: usize, scorer: &mut impl PairScorer) {
    let seen = Cell::new(0);
    let err = run
        .run(
            scorer,
            |_| seen.set(seen.get() + 1),
            || seen.get() >= batches,
        )
        .unwrap_err();
    assert!(matches!(err, RunError::Cancelled { .. }), "{err}");
}

#[test]
fn cancelled_run_keeps_scored_examples_and_items() {
    // Pairs in first-seen order: the 4 originals (H1, H2, H3 on Breakfast in America, H5 on
    // Bridesmaids), then H1's row deletions (Breakfast in America has 7 rows), …
    let mut run = row_deletion_run(6, false);
    let total = run.progress().total;
    let mut fake = EvidenceFake::new();
    cancel_after(&mut run, 1, &mut fake);
    let r = run.finish_partial(fake.model_id());
    assert_eq!(r.cancelled_at, Some(Progress { done: 6, total }));
    assert_eq!(r.pairs.len(), 6);
    assert_eq!(r.examples.len(), 4);
    // Only H1's deletions of rows 0 and 1 (pairs 4 and 5) are complete.
    let ids: Vec<&str> = r.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["H1/row_deletion/0", "H1/row_deletion/1"]);
    r.check().unwrap();
    // It survives its own file format.
    let text = serde_json::to_string(&r).unwrap();
    assert_eq!(parse_run("partial.json", &text).unwrap(), r);
}

#[test]
fn cancel_inside_the_originals_drops_unscored_examples_and_renumbers_items() {
    let mut run = row_deletion_run(2, false);
    let mut fake = EvidenceFake::new();
    cancel_after(&mut run, 1, &mut fake);
    let r = run.finish_partial(fake.model_id());
    // Pairs 0 and 1 scored: H1 and H2 stay, no item is complete.
    let ids: Vec<&str> = r.examples.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["H1", "H2"]);
    assert!(r.items.is_empty());
    r.check().unwrap();
}

#[test]
fn complete_run_finishes_partial_like_finish() {
    let mut a = row_deletion_run(8, false);
    let mut b = a.clone();
    let mut fake = EvidenceFake::new();
    a.run(&mut fake, |_| {}, || false).unwrap();
    b.run(&mut fake, |_| {}, || false).unwrap();
    let id = fake.model_id();
    assert_eq!(a.finish_partial(id.clone()), b.finish(id).unwrap());
}

#[test]
fn parse_run_names_the_json_path_of_a_dangling_index() {
    let mut run = row_deletion_run(8, false);
    let mut fake = EvidenceFake::new();
    run.run(&mut fake, |_| {}, || false).unwrap();
    let r = run.finish(fake.model_id()).unwrap();
    let mut v = serde_json::to_value(&r).unwrap();
    v["items"][1]["perturbed_pair"] = 999.into();
    let err = parse_run("run.json", &v.to_string()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("run.json: $.items[1].perturbed_pair is 999, but the file has only"),
        "{err}"
    );
    let err = parse_run("d.json", r#"{"format":"tabprobe-dataset"}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "d.json: $.format is \"tabprobe-dataset\"; expected \"tabprobe-run\" (is this a run file \
         written by `tabprobe probe` or the site?)"
    );
    let err = parse_run("x.json", "{").unwrap_err();
    assert!(err.to_string().contains("x.json: line 1"), "{err}");
}

#[test]
fn second_model_supplies_hypothesis_only_scores() {
    let mut main = row_deletion_run(8, false);
    let mut evidence = EvidenceFake::new();
    main.run(&mut evidence, |_| {}, || false).unwrap();
    let main = main.finish(evidence.model_id()).unwrap();
    let mut second = row_deletion_run(8, true);
    second
        .run(&mut HypothesisOnlyFake, |_| {}, || false)
        .unwrap();
    let second = second.finish(HypothesisOnlyFake.model_id()).unwrap();
    let combined = main.with_hypothesis_model(&second).unwrap();
    assert_eq!(combined.hypothesis_only_pairs.len(), 4);
    assert_eq!(combined.pairs.len(), main.pairs.len() + 4);
    // The hypothesis-only fake answers each hypothesis's gold label without a premise.
    let hypo: Vec<Label> = combined
        .hypothesis_only_pairs
        .iter()
        .map(|&p| combined.predicted(p))
        .collect();
    assert_eq!(
        hypo,
        [
            Label::Entail,
            Label::Contradict,
            Label::Neutral,
            Label::Contradict
        ]
    );
    assert_eq!(
        combined.pairs[combined.hypothesis_only_pairs[0]]
            .pair
            .premise,
        ""
    );
    combined.check().unwrap();
    // The main run alone has no hypothesis-only scores to give.
    assert!(second.with_hypothesis_model(&main).is_err());
}
