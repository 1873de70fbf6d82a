//! Table probes and the probe-run engine on the paper's running example (Figure 1).

mod common;

use common::*;
use tabprobe_core::data::label::Label::{self, Contradict as C, Entail as E, Neutral as N};
use tabprobe_core::data::table::Table;
use tabprobe_core::metrics::{groups, set_graph, set_invalid_table, Group, TransitionSet};
use tabprobe_core::probe::rules::{Operation, RuleSet};
use tabprobe_core::probe::{build_probe_set, Caps, Edit, Premise, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{ProbeRun, RunError, RunResult};
use tabprobe_core::scoring::PairScorer;

fn settings(probes: &[ProbeKind]) -> ProbeSettings {
    ProbeSettings::new(probes.to_vec(), 42)
}

fn run_with(probes: &[ProbeKind], scorer: &mut impl PairScorer) -> RunResult {
    let set = build_probe_set(&running_example(), &settings(probes), &RuleSet::default()).unwrap();
    let mut run = ProbeRun::new(set, 4);
    run.run(scorer, |_| {}, || false).unwrap();
    run.finish(scorer.model_id()).unwrap()
}

fn keys(t: &Premise) -> Vec<String> {
    match t {
        Premise::Table(Table::KeyValue(t)) => t.rows.iter().map(|r| r.key.clone()).collect(),
        _ => panic!("not a key-value table"),
    }
}

#[test]
fn row_deletion_makes_one_table_per_row() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[ProbeKind::RowDeletion]),
        &RuleSet::default(),
    )
    .unwrap();
    // 7 rows × H1, H2, H3 + 4 rows × H5.
    assert_eq!(set.items.len(), 7 * 3 + 4);
    let length = set
        .items
        .iter()
        .find(|i| i.id == "H1/row_deletion/4")
        .unwrap();
    assert_eq!(
        length.edit,
        Edit::RowsDeleted {
            rows: vec![4],
            keys: vec!["Length".into()]
        }
    );
    assert_eq!(
        keys(&length.perturbed.premise),
        ["Released", "Recorded", "Studio", "Genre", "Label", "Producer"]
    );
    // The original pair of H1 is shared by its 7 items and scored once.
    let originals = 4;
    let perturbed_distinct = 7 * 3 + 4; // each hypothesis differs, so no two items coincide
    assert_eq!(set.counts().forward_passes, originals + perturbed_distinct);
}

#[test]
fn relevant_deletion_of_length_for_h1_only_allows_neutral() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[
            ProbeKind::RelevantRowDeletion,
            ProbeKind::AllRelevantRowsDeletion,
            ProbeKind::IrrelevantRowDeletion,
        ]),
        &RuleSet::default(),
    )
    .unwrap();
    let h1: Vec<_> = set
        .items
        .iter()
        .filter(|i| i.id.starts_with("H1/"))
        .collect();
    // Genre and Length on their own, both together, and the 5 other rows as irrelevant.
    assert_eq!(h1.len(), 2 + 1 + 5);
    let len = h1
        .iter()
        .find(|i| {
            i.edit
                == Edit::RowsDeleted {
                    rows: vec![4],
                    keys: vec!["Length".into()],
                }
        })
        .unwrap();
    assert_eq!(len.probe, ProbeKind::RelevantRowDeletion);
    let rule = set.rules.get(Operation::RelevantRowDeletion).unwrap();
    assert_eq!(rule.valid_after(E), &[N]);
    let all = h1
        .iter()
        .find(|i| i.probe == ProbeKind::AllRelevantRowsDeletion)
        .unwrap();
    assert_eq!(
        all.edit,
        Edit::RowsDeleted {
            rows: vec![3, 4],
            keys: vec!["Genre".into(), "Length".into()]
        }
    );
}

#[test]
fn relevance_probes_explain_missing_annotations() {
    let mut d = running_example();
    d.examples[0].relevant_rows = None;
    let set = build_probe_set(
        &d,
        &settings(&[ProbeKind::RelevantRowDeletion]),
        &RuleSet::default(),
    )
    .unwrap();
    assert!(set.items.iter().all(|i| !i.id.starts_with("H1/")));
    let skip = set.skipped.iter().find(|s| s.example == "H1").unwrap();
    assert!(
        skip.reason.contains("no relevant rows annotated"),
        "{}",
        skip.reason
    );
}

#[test]
fn row_insertion_draws_a_new_key_from_another_table() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[ProbeKind::RowInsertion]),
        &RuleSet::default(),
    )
    .unwrap();
    let h1: Vec<_> = set
        .items
        .iter()
        .filter(|i| i.id.starts_with("H1/"))
        .collect();
    assert_eq!(h1.len(), 3, "settings.insertions = 3");
    // Breakfast in America lacks exactly these keys of the other tables.
    let lacking = ["Country", "Directed by", "Language"];
    for it in &h1 {
        let Edit::RowInserted {
            at,
            key,
            values,
            from_table,
        } = &it.edit
        else {
            panic!()
        };
        assert_eq!(*at, 7);
        assert!(lacking.contains(&key.as_str()), "{key}");
        assert_eq!(from_table, "T996");
        let want = match key.as_str() {
            "Country" => "United States",
            "Directed by" => "Paul Feig",
            _ => "English",
        };
        assert_eq!(values, &vec![want.to_string()]);
        assert_eq!(keys(&it.perturbed.premise).len(), 8);
    }
}

#[test]
fn value_update_replaces_one_genre_with_another_tables_genre() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[ProbeKind::RowValueUpdate]),
        &RuleSet::default(),
    )
    .unwrap();
    let h1: Vec<_> = set
        .items
        .iter()
        .filter(|i| i.id.starts_with("H1/"))
        .collect();
    assert_eq!(h1.len(), 1, "Genre is the only multi-valued row");
    let Edit::ValueUpdated {
        row,
        key,
        before,
        after,
        from_table,
        value_index,
    } = &h1[0].edit
    else {
        panic!()
    };
    assert_eq!(
        (*row, key.as_str(), from_table.as_str()),
        (3, "Genre", "T7")
    );
    assert!(["pop", "art rock", "soft rock"].contains(&before.as_str()));
    assert!(["jazz", "modal jazz"].contains(&after.as_str()));
    let Premise::Table(Table::KeyValue(t)) = &h1[0].perturbed.premise else {
        panic!()
    };
    assert_eq!(&t.rows[3].values[*value_index], after);
    // C→E is the prohibited transition of this rule.
    assert_eq!(
        set.rules.is_valid(Operation::RowValueUpdate, C, E),
        Some(false)
    );
}

#[test]
fn permutation_gives_k_distinct_non_identity_orders() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[ProbeKind::RowPermutation]),
        &RuleSet::default(),
    )
    .unwrap();
    let h1: Vec<_> = set
        .items
        .iter()
        .filter(|i| i.id.starts_with("H1/"))
        .collect();
    assert_eq!(h1.len(), 5);
    let mut orders = Vec::new();
    for it in h1 {
        let Edit::RowsPermuted { order } = &it.edit else {
            panic!()
        };
        assert_ne!(order, &(0..7).collect::<Vec<_>>());
        let mut s = order.clone();
        s.sort();
        assert_eq!(s, (0..7).collect::<Vec<_>>());
        orders.push(order.clone());
    }
    orders.sort();
    orders.dedup();
    assert_eq!(orders.len(), 5);
}

#[test]
fn delete_then_insert_and_premise_removal() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[ProbeKind::DeleteThenInsert, ProbeKind::PremiseRemoval]),
        &RuleSet::default(),
    )
    .unwrap();
    let dti: Vec<_> = set
        .items
        .iter()
        .filter(|i| i.id.starts_with("H1/delete_then_insert"))
        .collect();
    assert_eq!(dti.len(), 7);
    for it in &dti {
        let Edit::DeletedThenInserted {
            deleted_key,
            inserted_key,
            ..
        } = &it.edit
        else {
            panic!()
        };
        let k = keys(&it.perturbed.premise);
        assert!(!k.contains(deleted_key));
        assert!(k.contains(inserted_key));
        assert_eq!(k.len(), 7);
    }
    let pr: Vec<_> = set
        .items
        .iter()
        .filter(|i| i.probe == ProbeKind::PremiseRemoval)
        .collect();
    assert_eq!(pr.len(), 4);
    assert_eq!(set.pairs[pr[0].perturbed_pair].premise, "");
}

#[test]
fn caps_limit_items_per_example_and_per_run() {
    let mut s = settings(&[ProbeKind::RowDeletion]);
    s.caps = Caps {
        per_example: Some(2),
        per_run: None,
    };
    let set = build_probe_set(&running_example(), &s, &RuleSet::default()).unwrap();
    assert_eq!(set.items.len(), 4 * 2);
    s.caps = Caps {
        per_example: Some(2),
        per_run: Some(3),
    };
    let set = build_probe_set(&running_example(), &s, &RuleSet::default()).unwrap();
    assert_eq!(set.counts().items, 3);
    assert_eq!(set.counts().per_probe[&ProbeKind::RowDeletion], 3);
}

#[test]
fn same_seed_same_bytes_other_seed_other_permutations() {
    let probes = [
        ProbeKind::RowPermutation,
        ProbeKind::RowInsertion,
        ProbeKind::RowValueUpdate,
    ];
    let a = build_probe_set(&running_example(), &settings(&probes), &RuleSet::default()).unwrap();
    let b = build_probe_set(&running_example(), &settings(&probes), &RuleSet::default()).unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let mut s = settings(&probes);
    s.seed = 43;
    let c = build_probe_set(&running_example(), &s, &RuleSet::default()).unwrap();
    assert_ne!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&c).unwrap()
    );
}

#[test]
fn evidence_grounded_model_has_no_invalid_relevant_deletions() {
    let mut fake = EvidenceFake::new();
    let run = run_with(
        &[
            ProbeKind::RelevantRowDeletion,
            ProbeKind::AllRelevantRowsDeletion,
        ],
        &mut fake,
    );
    let t = set_invalid_table(&run, TransitionSet::RelevantRowDeletion, None).unwrap();
    let names: Vec<&str> = t.splits.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["a1", "a2"]);
    assert_eq!(t.average, [Some(0.0), Some(0.0)]);
}

#[test]
fn hypothesis_only_model_fails_every_relevant_deletion() {
    let run = run_with(
        &[
            ProbeKind::RelevantRowDeletion,
            ProbeKind::AllRelevantRowsDeletion,
        ],
        &mut HypothesisOnlyFake,
    );
    let t = set_invalid_table(&run, TransitionSet::RelevantRowDeletion, None).unwrap();
    // a1: H1 (E) 2 items all stay E → 100%; H2 (C) 1 item stays C → 100%; no NEUTRAL.
    assert_eq!(t.rows[0].per_split, [Some(100.0), None]);
    assert_eq!(t.rows[1].per_split, [None, Some(0.0)]); // H3 N→N is valid
    assert_eq!(t.rows[2].per_split, [Some(100.0), Some(100.0)]);
    assert_eq!(t.average, [Some(100.0), Some(50.0)]);
    assert_eq!(t.rows[0].mean, Some(100.0));
}

#[test]
fn row_deletion_graph_for_the_evidence_fake() {
    let run = run_with(&[ProbeKind::RowDeletion], &mut EvidenceFake::new());
    let g = set_graph(&run, TransitionSet::RowDeletion, None).unwrap();
    // a1: H1 (E) 7 deletions, 2 hit evidence (Genre, Length) → E→N 2/7; H2 (C) 1 of 7 → C→N.
    let (name, edges) = &g.splits[0];
    assert_eq!(name.name(), "a1");
    let pct = |f: Label, t: Label| {
        edges
            .iter()
            .find(|e| e.from == f && e.to == t)
            .map(|e| e.percent)
    };
    assert_eq!(pct(E, N), Some(200.0 / 7.0));
    assert_eq!(pct(E, E), Some(500.0 / 7.0));
    assert_eq!(pct(C, N), Some(100.0 / 7.0));
    assert!(edges.iter().all(|e| e.valid));
    let t = set_invalid_table(&run, TransitionSet::RowDeletion, None).unwrap();
    assert_eq!(t.mean_average, Some(0.0));
    // Category breakdown: H1 is "numerical" and "lexical", H2 "temporal".
    let cats: Vec<(String, _)> = groups(&run)
        .into_iter()
        .filter_map(|g| {
            let Group::Category(c) = &g else { return None };
            Some((
                c.clone(),
                set_invalid_table(&run, TransitionSet::RowDeletion, Some(&g))?,
            ))
        })
        .collect();
    let names: Vec<&str> = cats.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(names, ["lexical", "numerical", "temporal"]);
    assert_eq!(cats[2].1.rows[2].per_split, [Some(0.0)]);
    assert_eq!(cats[2].1.rows[0].per_split, [None]);
}

#[test]
fn distinct_pairs_are_scored_once_in_batches_with_progress_and_cancel() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[ProbeKind::RowDeletion, ProbeKind::IrrelevantRowDeletion]),
        &RuleSet::default(),
    )
    .unwrap();
    // Irrelevant deletions repeat row deletions' tables: nothing new to score.
    let distinct = set.pairs.len();
    assert_eq!(distinct, 4 + 25);
    let mut run = ProbeRun::new(set.clone(), 10);
    let mut fake = EvidenceFake::new();
    let mut seen = Vec::new();
    run.run(&mut fake, |p| seen.push(p.done), || false).unwrap();
    assert_eq!(fake.scored, distinct);
    assert_eq!(fake.batches, 3);
    assert_eq!(seen, [10, 20, 29]);
    // Cancel after the first batch, then resume.
    let mut run = ProbeRun::new(set, 10);
    let calls = std::cell::Cell::new(0);
    let err = run
        .run(
            &mut EvidenceFake::new(),
            |_| {},
            || {
                calls.set(calls.get() + 1);
                calls.get() > 1
            },
        )
        .unwrap_err();
    assert_eq!(
        err,
        RunError::Cancelled {
            done: 10,
            total: 29
        }
    );
    assert!(matches!(
        run.clone().finish(fake.model_id()),
        Err(RunError::Incomplete { done: 10, .. })
    ));
    run.run(&mut EvidenceFake::new(), |_| {}, || false).unwrap();
    assert!(run.finish(fake.model_id()).is_ok());
}

#[test]
fn step_api_matches_the_synchronous_run_and_the_file_recomputes_metrics() {
    let set = build_probe_set(
        &running_example(),
        &settings(&[ProbeKind::RowDeletion]),
        &RuleSet::default(),
    )
    .unwrap();
    let mut fake = EvidenceFake::new();
    let mut stepped = ProbeRun::new(set.clone(), 7);
    while let Some(batch) = stepped.next_batch() {
        let again = stepped.next_batch().unwrap(); // re-asking hands out the same batch
        assert_eq!(batch, again);
        let scores = fake.score(&batch).unwrap();
        assert!(stepped.submit(scores[..scores.len() - 1].to_vec()).is_err() || batch.len() == 1);
        stepped.submit(fake.score(&batch).unwrap()).unwrap();
    }
    let a = stepped.finish(fake.model_id()).unwrap();
    let mut sync = ProbeRun::new(set, 3);
    sync.run(&mut EvidenceFake::new(), |_| {}, || false)
        .unwrap();
    let b = sync.finish(fake.model_id()).unwrap();
    assert_eq!(a, b);
    let json = serde_json::to_string(&a).unwrap();
    let back: RunResult = serde_json::from_str(&json).unwrap();
    assert_eq!(
        set_invalid_table(&back, TransitionSet::RowDeletion, None),
        set_invalid_table(&a, TransitionSet::RowDeletion, None)
    );
    assert!(
        json.contains("\"seed\":42")
            && json.contains("\"rules\"")
            && json.contains("evidence-fake")
    );
}

/// Hypothesis-first changes only which text the model reads first: the probe set holds the
/// same texts in the same fields (so the model still truncates the premise, never the
/// hypothesis), each pair marked hypothesis-first.
#[test]
fn hypothesis_first_probe_set_keeps_premise_and_hypothesis_in_their_fields() {
    use tabprobe_core::scoring::PairOrder;
    let d = running_example();
    let mut s = ProbeSettings::new(ProbeKind::all(), 7);
    s.hypothesis_only = true;
    let first = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    s.linearization.order = PairOrder::HypothesisFirst;
    let second = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    assert!(!first.pairs.is_empty());
    assert_eq!(first.pairs.len(), second.pairs.len());
    for (a, b) in first.pairs.iter().zip(&second.pairs) {
        assert_eq!(a.order, PairOrder::PremiseFirst);
        assert_eq!(b.order, PairOrder::HypothesisFirst);
        assert_eq!((&a.premise, &a.hypothesis), (&b.premise, &b.hypothesis));
    }
    for (e, &i) in second.examples.iter().zip(&second.hypothesis_only_pairs) {
        assert_eq!(second.pairs[i].premise, "");
        assert_eq!(second.pairs[i].hypothesis, e.input.hypothesis);
    }
}
