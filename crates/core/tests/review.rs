//! Review state (issue 11 §4) on the paper's running example (Figure 1): every item's state
//! follows from its certainty at generation; reviews saved with the dataset are applied when
//! a probe set is built and recorded in run files; old run files still parse; item ids do
//! not depend on caps; the rewriter's suggestions carry the run's item ids.

mod common;

use common::*;
use tabprobe_core::data::import::merge::merge;
use tabprobe_core::data::label::Label::{Contradict as C, Entail as E, Neutral as N};
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::data::review::{Review, ReviewDecision};
use tabprobe_core::data::validate::ProblemKind;
use tabprobe_core::edit::{hypothesis_suggestions, review_suggestion, suggestion_item_ids};
use tabprobe_core::probe::edit_table::KeyIndex;
use tabprobe_core::probe::review::{
    set_item_review, set_review, Decision, ReviewError, ReviewState,
};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, Certainty, Edit, Premise, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{parse_run, ProbeRun};
use tabprobe_core::{parse_dataset, Dataset};

/// H1 "…is not a pop album…" (certain E→C) and H2 "…was not released…" (heuristic C→E).
fn negation_set(d: &Dataset) -> tabprobe_core::probe::ProbeSet {
    build_probe_set(
        d,
        &ProbeSettings::new(vec![ProbeKind::Negation], 5),
        &RuleSet::default(),
    )
    .unwrap()
}

fn state(set: &tabprobe_core::probe::ProbeSet, id: &str) -> ReviewState {
    set.items.iter().find(|i| i.id == id).unwrap().review
}

#[test]
fn generated_items_start_certain_or_heuristic_unreviewed() {
    let set = negation_set(&running_example());
    let got: Vec<(&str, Certainty, ReviewState)> = set
        .items
        .iter()
        .map(|i| (i.id.as_str(), i.certainty, i.review))
        .collect();
    assert_eq!(
        got,
        [
            ("H1/negation/0", Certainty::Certain, ReviewState::Certain),
            (
                "H2/negation/0",
                Certainty::Heuristic,
                ReviewState::HeuristicUnreviewed
            ),
        ]
    );
}

#[test]
fn decisions_are_saved_with_the_dataset_and_applied_to_the_probe_set() {
    let mut d = running_example();
    let h2 = "Breakfast in America was not released at the end of 1979.";
    set_review(&mut d, "H2/negation/0", h2, Decision::Accept(E)).unwrap();
    assert_eq!(
        d.reviews,
        [Review {
            item: "H2/negation/0".into(),
            decision: ReviewDecision::Accept,
            label: Some(E),
            hypothesis: Some(h2.into()),
        }]
    );
    // The dataset file round-trips with its reviews (and still validates).
    let back = parse_dataset("d.json", &d.to_json_pretty().unwrap()).unwrap();
    assert_eq!(back.reviews, d.reviews);
    let set = negation_set(&back);
    assert_eq!(
        state(&set, "H2/negation/0"),
        ReviewState::Accepted { label: E }
    );
    assert_eq!(state(&set, "H1/negation/0"), ReviewState::Certain);
    // A certain item can be rejected too; a new decision replaces the old; reset forgets it.
    let h1 = set.items.iter().find(|i| i.id == "H1/negation/0").unwrap();
    set_item_review(&mut d, h1, Decision::Reject).unwrap();
    set_review(&mut d, "H2/negation/0", h2, Decision::Reject).unwrap();
    let set = negation_set(&d);
    assert_eq!(state(&set, "H1/negation/0"), ReviewState::Rejected);
    assert_eq!(state(&set, "H2/negation/0"), ReviewState::Rejected);
    // Sorted by item id, whatever order the decisions came in.
    let ids: Vec<&str> = d.reviews.iter().map(|r| r.item.as_str()).collect();
    assert_eq!(ids, ["H1/negation/0", "H2/negation/0"]);
    set_review(&mut d, "H2/negation/0", h2, Decision::Reset).unwrap();
    assert_eq!(
        state(&negation_set(&d), "H2/negation/0"),
        ReviewState::HeuristicUnreviewed
    );
    assert_eq!(d.reviews.len(), 1);
}

#[test]
fn bad_decisions_are_refused_and_leave_the_dataset_alone() {
    let mut d = running_example();
    d.label_set = LabelSet::TwoWay;
    d.examples.retain(|e| e.label != N);
    let before = d.clone();
    assert_eq!(
        set_review(&mut d, "H2/negation", "x", Decision::Reject),
        Err(ReviewError::BadItemId("H2/negation".into()))
    );
    assert_eq!(
        set_review(&mut d, "H9/negation/0", "x", Decision::Reject),
        Err(ReviewError::UnknownExample("H9".into()))
    );
    assert_eq!(
        set_review(&mut d, "H2/negation/0", "x", Decision::Accept(N)),
        Err(ReviewError::LabelNotAllowed(N))
    );
    assert_eq!(d, before);
}

#[test]
fn a_file_with_bad_reviews_names_each_place() {
    let mut d = running_example();
    let review = |item: &str, decision, label| Review {
        item: item.into(),
        decision,
        label,
        hypothesis: None,
    };
    d.reviews = vec![
        review("H1/negation/0", ReviewDecision::Accept, None),
        review("H1/negation/0", ReviewDecision::Reject, Some(C)),
        review("H9/negation/0", ReviewDecision::Reject, None),
        review("H1/no_such_probe/0", ReviewDecision::Reject, None),
    ];
    let err = parse_dataset("d.json", &d.to_json_pretty().unwrap()).unwrap_err();
    let got: Vec<(ProblemKind, &str)> = err
        .problems
        .iter()
        .map(|p| (p.kind, p.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (ProblemKind::BadReview, "$.reviews[0].label"),
            (ProblemKind::DuplicateId, "$.reviews[1].item"),
            (ProblemKind::BadReview, "$.reviews[1].label"),
            (ProblemKind::BadReview, "$.reviews[2].item"),
            (ProblemKind::BadReview, "$.reviews[3].item"),
        ]
    );
}

#[test]
fn run_files_record_states_and_old_run_files_read_state_from_certainty() {
    let mut d = running_example();
    let h2 = "Breakfast in America was not released at the end of 1979.";
    set_review(&mut d, "H2/negation/0", h2, Decision::Accept(E)).unwrap();
    let mut run = ProbeRun::new(negation_set(&d), 8);
    run.run(&mut ConstantFake(E), |_| {}, || false).unwrap();
    let r = run
        .finish(tabprobe_core::scoring::PairScorer::model_id(&ConstantFake(
            E,
        )))
        .unwrap();
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains(r#""review":{"state":"accepted","label":"ENTAIL"}"#));
    assert!(json.contains(r#""review":{"state":"certain"}"#));
    assert_eq!(parse_run("run.json", &json).unwrap(), r);
    // A run file written before review states: no `review` field on any item.
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for it in v["items"].as_array_mut().unwrap() {
        it.as_object_mut().unwrap().remove("review");
    }
    let old = parse_run("old.json", &v.to_string()).unwrap();
    let states: Vec<ReviewState> = old.items.iter().map(|i| i.review).collect();
    assert_eq!(
        states,
        [ReviewState::Certain, ReviewState::HeuristicUnreviewed]
    );
}

/// Answers one label for every pair.
struct ConstantFake(tabprobe_core::Label);
impl tabprobe_core::scoring::PairScorer for ConstantFake {
    fn score(
        &mut self,
        pairs: &[tabprobe_core::scoring::Pair],
    ) -> Result<Vec<tabprobe_core::scoring::PairScore>, tabprobe_core::scoring::ScoreError> {
        Ok(pairs.iter().map(|_| score_of(self.0)).collect())
    }
    fn model_id(&self) -> tabprobe_core::scoring::ModelId {
        tabprobe_core::scoring::ModelId {
            name: "constant".into(),
            weights_sha256: String::new(),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

#[test]
fn item_ids_are_stable_under_caps_and_across_builds() {
    let d = running_example();
    let all = ProbeSettings::new(vec![ProbeKind::RowDeletion], 11);
    let full = build_probe_set(&d, &all, &RuleSet::default()).unwrap();
    assert_eq!(
        full,
        build_probe_set(&d, &all, &RuleSet::default()).unwrap()
    );
    let mut capped = all.clone();
    capped.caps.per_example = Some(2);
    let capped = build_probe_set(&d, &capped, &RuleSet::default()).unwrap();
    // Breakfast in America has 7 rows: H1's row deletions are H1/row_deletion/0..6, item r
    // deleting row r. The cap keeps two of them, under the ids they have uncapped.
    let h1: Vec<(&str, Vec<usize>)> = capped
        .items
        .iter()
        .filter(|i| i.id.starts_with("H1/"))
        .map(|i| match &i.edit {
            Edit::RowsDeleted { rows, .. } => (i.id.as_str(), rows.clone()),
            e => panic!("{e:?}"),
        })
        .collect();
    assert_eq!(h1.len(), 2);
    assert!(
        h1.iter().any(|(_, r)| r[0] >= 2),
        "this seed keeps rows 0 and 1: {h1:?}"
    );
    for (id, rows) in &h1 {
        assert_eq!(*id, format!("H1/row_deletion/{}", rows[0]));
    }
    for it in &capped.items {
        let same = full.items.iter().find(|f| f.id == it.id).unwrap();
        assert_eq!(same.edit, it.edit, "{}", it.id);
    }
}

#[test]
fn rewriter_suggestions_are_the_run_items_and_their_review_lands_on_them() {
    let mut d = running_example();
    let seed = 0;
    let set = build_probe_set(
        &d,
        &ProbeSettings::new(ProbeKind::HYPOTHESIS.to_vec(), seed),
        &RuleSet::default(),
    )
    .unwrap();
    let index = KeyIndex::new(&d.tables);
    let premise = Premise::Table(breakfast());
    let sugs = hypothesis_suggestions(&premise, H1, E, &index, seed, 0);
    let ids = suggestion_item_ids("H1", &sugs);
    let run_ids: Vec<&str> = set
        .items
        .iter()
        .filter(|i| i.id.starts_with("H1/"))
        .map(|i| i.id.as_str())
        .collect();
    let mut sorted_ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    sorted_ids.sort_unstable();
    let mut sorted_run = run_ids.clone();
    sorted_run.sort_unstable();
    assert_eq!(sorted_ids, sorted_run);
    for (id, s) in ids.iter().zip(&sugs) {
        let it = set.items.iter().find(|i| &i.id == id).unwrap();
        assert_eq!(it.perturbed.hypothesis, s.perturbed.hypothesis, "{id}");
    }
    // Accepting the negation suggestion is a review of H1/negation/0, not a new example.
    let k = sugs
        .iter()
        .position(|s| s.probe == ProbeKind::Negation)
        .unwrap();
    let examples = d.examples.len();
    let id = review_suggestion(&mut d, "H1", &sugs, k, Decision::Accept(C)).unwrap();
    assert_eq!(id, "H1/negation/0");
    assert_eq!(d.examples.len(), examples);
    assert_eq!(
        state(&negation_set(&d), &id),
        ReviewState::Accepted { label: C }
    );
    assert!(matches!(
        review_suggestion(&mut d, "H1", &sugs, sugs.len(), Decision::Reject),
        Err(ReviewError::BadItemId(_))
    ));
}

#[test]
fn a_review_made_on_another_perturbation_is_not_applied_and_is_listed() {
    let mut d = running_example();
    set_review(
        &mut d,
        "H2/negation/0",
        "Breakfast in America was never released.",
        Decision::Reject,
    )
    .unwrap();
    let set = negation_set(&d);
    assert_eq!(
        state(&set, "H2/negation/0"),
        ReviewState::HeuristicUnreviewed
    );
    assert_eq!(set.unapplied_reviews, ["H2/negation/0"]);
}

#[test]
fn merged_datasets_keep_their_reviews() {
    let mut base = running_example();
    set_review(
        &mut base,
        "H1/negation/0",
        "Breakfast in America is not a pop album with a length of 46 minutes.",
        Decision::Reject,
    )
    .unwrap();
    let mut add = Dataset::new("add");
    add.tables = vec![other_album()];
    let mut e = base.examples[0].clone();
    (e.id, e.table, e.relevant_rows) = (None, Some("T7".into()), None);
    e.hypothesis = "Kind of Blue is a jazz album.".into();
    add.examples.push(e);
    set_review(
        &mut add,
        "#0/negation/0",
        "Kind of Blue is not a jazz album.",
        Decision::Accept(C),
    )
    .unwrap();
    let m = merge(&base, add, "add.json").unwrap();
    let ids: Vec<&str> = m.reviews.iter().map(|r| r.item.as_str()).collect();
    // The added example without an id is the merged dataset's 5th: `#4`.
    assert_eq!(ids, ["#4/negation/0", "H1/negation/0"]);
    parse_dataset("m.json", &m.to_json_pretty().unwrap()).unwrap();
}
