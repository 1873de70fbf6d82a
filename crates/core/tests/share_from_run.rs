//! A probe item of a run as a share result (`share::from_run_item`, issue 18 §2): checked by
//! hand on the running example, with the one-edge graph the share page draws from it, and the
//! link sizes over the demo run's row-deletion items (when a demo run file is at hand).

mod common;

use common::*;
use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_core::data::table::Table;
use tabprobe_core::probe::rules::{Operation, RuleSet};
use tabprobe_core::probe::{build_probe_set, Certainty, Expectation, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::PairScorer;
use tabprobe_core::share::view::SharePage;
use tabprobe_core::share::{
    decode, encode, from_run_item, link_chars, SharedScore, MAX_LINK_CHARS,
};

fn run_with(scorer: &mut impl PairScorer) -> RunResult {
    let set = build_probe_set(
        &running_example(),
        &ProbeSettings::new(vec![ProbeKind::RowDeletion], 5),
        &RuleSet::default(),
    )
    .unwrap();
    let mut r = ProbeRun::new(set, 8);
    r.run(scorer, |_| {}, || false).unwrap();
    r.finish(scorer.model_id()).unwrap()
}

fn keys(t: &Table) -> Vec<String> {
    match t {
        Table::KeyValue(t) => t.rows.iter().map(|r| r.key.clone()).collect(),
        Table::Relational(_) => unreachable!("the running example is key-value"),
    }
}

/// H1 ("… a pop album with a length of 46 minutes", ENTAIL) with Genre (row 3, the only
/// "pop") deleted: the evidence fake says ENTAIL before and NEUTRAL after; the
/// hypothesis-only fake says ENTAIL both times. Row deletion's rule allows ENTAIL → ENTAIL or
/// NEUTRAL, so the one edge ENTAIL → NEUTRAL is valid (black).
#[test]
fn a_row_deletion_item_shares_its_tables_rule_expectation_and_both_models() {
    let run = run_with(&mut EvidenceFake::new());
    let other = run_with(&mut HypothesisOnlyFake);
    let item = run
        .items
        .iter()
        .find(|i| i.id == "H1/row_deletion/3")
        .expect("H1's deletion of Genre");
    let r = from_run_item(&run, item, &[&other]).expect("the item is in the run");

    assert_eq!(r.origin, "probe item H1/row_deletion/3");
    assert_eq!(r.operation, "row_deletion");
    assert_eq!(r.example_id.as_deref(), Some("H1"));
    assert_eq!(r.gold, Some(Label::Entail));
    assert_eq!(r.before.table.as_ref(), Some(&breakfast()));
    assert_eq!(r.before.hypothesis, H1);
    assert_eq!(r.after.hypothesis, H1);
    let after = r
        .after
        .table
        .as_ref()
        .expect("a deletion changes the table");
    assert_eq!(
        keys(after),
        ["Released", "Recorded", "Studio", "Length", "Label", "Producer"]
    );
    let rule = r.rule.as_ref().expect("a table probe carries its rule");
    assert_eq!(rule.operation, Operation::RowDeletion);
    assert_eq!(
        rule.valid_after(Label::Entail),
        [Label::Entail, Label::Neutral]
    );
    assert_eq!(
        r.expectation,
        Some(Expectation::Transition {
            operation: Operation::RowDeletion
        })
    );
    assert_eq!(r.certainty, Some(Certainty::Certain));
    assert_eq!(
        r.model.as_ref().map(|m| m.name.as_str()),
        Some("evidence-fake")
    );
    let p = r.predictions.as_ref().expect("the run scored both pairs");
    assert_eq!(p.before, SharedScore::from(&score_of(Label::Entail)));
    assert_eq!(p.after, SharedScore::from(&score_of(Label::Neutral)));
    assert_eq!(r.other_models.len(), 1);
    assert_eq!(r.other_models[0].model.name, "hypothesis-only-fake");
    assert_eq!(
        r.other_models[0].predictions.after,
        SharedScore::from(&score_of(Label::Entail))
    );
    assert_eq!(r.linearization, run.settings.linearization);

    // The link gives back the same result, and the page draws one black edge E → N.
    let back = decode(&encode(&r).unwrap()).unwrap();
    assert_eq!(back, r);
    let page = SharePage::new(&back);
    let t = page.transition.expect("predictions give a transition");
    assert_eq!(
        (t.from, t.to, t.valid),
        (Label::Entail, Label::Neutral, Some(true))
    );
    assert_eq!(
        t.verdict,
        "ENTAIL → NEUTRAL is allowed: after ENTAIL the rule allows ENTAIL, NEUTRAL"
    );
    let e = t.edge();
    assert!(e.valid && !e.not_applicable);
    assert_eq!(page.other_models.len(), 1);
}

/// The same item predicted CONTRADICT after: not allowed by the rule, drawn red.
#[test]
fn an_invalid_transition_is_red() {
    let run = run_with(&mut EvidenceFake::new());
    let item = run
        .items
        .iter()
        .find(|i| i.id == "H1/row_deletion/3")
        .unwrap();
    let mut r = from_run_item(&run, item, &[]).unwrap();
    assert!(r.other_models.is_empty());
    r.predictions.as_mut().unwrap().after = SharedScore::from(&score_of(Label::Contradict));
    let t = SharePage::new(&r).transition.unwrap();
    assert_eq!(t.valid, Some(false));
    assert_eq!(
        t.verdict,
        "ENTAIL → CONTRADICT is not allowed: after ENTAIL the rule allows ENTAIL, NEUTRAL"
    );
    assert!(!t.edge().valid && !t.edge().not_applicable);
    // A hand edit judged by its asserted label: as expected when the after-label matches.
    r.rule = None;
    r.expectation = Some(Expectation::Label {
        labels: vec![Label::Contradict],
    });
    let t = SharePage::new(&r).transition.unwrap();
    assert_eq!(t.valid, Some(true));
    assert_eq!(
        t.verdict,
        "ENTAIL → CONTRADICT is as expected: the edited item's expected label is CONTRADICT"
    );
    // No predictions, no edge.
    r.predictions = None;
    assert_eq!(SharePage::new(&r).transition, None);
    let _ = LabelSet::ThreeWay;
}

/// The share-link lengths (whole URL, after a 60-character site address, as share.rs
/// allows) of every row-deletion item of `run`, sorted; printed with median and maximum.
fn row_deletion_link_lengths(run: &RunResult, what: &str) -> Vec<usize> {
    let base = "https://example.github.io/tabprobe/".to_string() + &"x".repeat(25);
    let mut lengths: Vec<usize> = run
        .items
        .iter()
        .filter(|i| i.probe == ProbeKind::RowDeletion)
        .map(|i| {
            let r = from_run_item(run, i, &[]).unwrap();
            link_chars(&base, &encode(&r).unwrap()).unwrap()
        })
        .collect();
    assert!(!lengths.is_empty(), "{what}: no row deletions");
    lengths.sort_unstable();
    let fit = lengths.iter().filter(|&&l| l <= MAX_LINK_CHARS).count();
    println!(
        "row-deletion share links over {} items of {what}: min {} · median {} · max {} characters; {} fit in {}",
        lengths.len(),
        lengths[0],
        lengths[lengths.len() / 2],
        lengths[lengths.len() - 1],
        fit,
        MAX_LINK_CHARS
    );
    lengths
}

/// Every row-deletion item of the whole demo dataset (all splits), with the hash fake's
/// probabilities (full-precision f32 values, as a real model's): a typical INFOTABS
/// row-deletion link stays under 2,000 characters.
#[test]
fn demo_dataset_row_deletion_links_fit() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../public/demo/dataset.json"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        println!("skipped: the demo dataset is not at {path}");
        return;
    };
    let demo = tabprobe_core::parse_dataset("dataset.json", &text).unwrap();
    let mut settings = ProbeSettings::new(vec![ProbeKind::RowDeletion], 5);
    settings.caps.per_example = None;
    let set = build_probe_set(&demo, &settings, &RuleSet::default()).unwrap();
    let mut r = ProbeRun::new(set, 64);
    let mut scorer = HashFake;
    r.run(&mut scorer, |_| {}, || false).unwrap();
    let run = r.finish(scorer.model_id()).unwrap();
    let lengths = row_deletion_link_lengths(&run, "the demo dataset (hash-fake scores)");
    let median = lengths[lengths.len() / 2];
    assert!(median < MAX_LINK_CHARS, "median link {median} characters");
    let fit = lengths.iter().filter(|&&l| l <= MAX_LINK_CHARS).count();
    assert!(
        fit * 10 >= lengths.len() * 9,
        "only {fit} of {} fit",
        lengths.len()
    );
}

/// The same over the demo run scored by the bundled demo model in the browser (exported by
/// `tests/browser/probe_share.test.mjs` to `tests/artifacts/demo-row-deletion-run.json`, or
/// the file `TABPROBE_DEMO_RUN` names). Skipped, saying so, when no such file is there.
#[test]
fn demo_run_row_deletion_links_fit() {
    let path = std::env::var("TABPROBE_DEMO_RUN").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/artifacts/demo-row-deletion-run.json"
        )
        .to_string()
    });
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!(
            "skipped: no demo run file at {path} (run tests/browser/probe_share.test.mjs first)"
        );
        return;
    };
    let run = tabprobe_core::run::parse_run("demo run", &text).unwrap();
    let what = format!("the demo run ({})", run.model.name);
    let lengths = row_deletion_link_lengths(&run, &what);
    let median = lengths[lengths.len() / 2];
    assert!(median < MAX_LINK_CHARS, "median link {median} characters");
}
