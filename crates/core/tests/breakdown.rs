//! docs/probes-and-metrics.md#breakdown-by-split-and-category: evidence selection, word-order metrics and Table 8 split by split and by
//! reasoning category, hand-worked on the running example (H1, H2 in split a1; H3, H5 in a2;
//! H1 is numerical + lexical, H2 temporal).

mod common;

use common::*;
use tabprobe_core::data::dataset::Example;
use tabprobe_core::data::label::Label;
use tabprobe_core::data::table::Table;
use tabprobe_core::metrics::{
    evidence_selection, groups, paired_table, run_word_order_metrics, set_graph,
    CounterfactualClass, EvidenceUse, Group, TransitionSet,
};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::word_order::PermutationTarget;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};
use tabprobe_core::{Dataset, LabelSet};

fn run_with(d: &Dataset, s: &ProbeSettings, scorer: &mut impl PairScorer) -> RunResult {
    let set = build_probe_set(d, s, &RuleSet::default()).unwrap();
    let mut r = ProbeRun::new(set, 5);
    r.run(scorer, |_| {}, || false).unwrap();
    r.finish(scorer.model_id()).unwrap()
}

fn names(g: &[Group]) -> Vec<String> {
    g.iter().map(Group::label).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn groups_are_splits_then_categories_sorted() {
    let d = running_example();
    let r = run_with(
        &d,
        &ProbeSettings::new(vec![ProbeKind::PremiseRemoval], 0),
        &mut EvidenceFake::new(),
    );
    assert_eq!(
        names(&groups(&r)),
        [
            "split:a1",
            "split:a2",
            "category:lexical",
            "category:numerical",
            "category:temporal"
        ]
    );
}

#[test]
fn evidence_selection_per_split_and_category_by_hand() {
    let mut d = running_example();
    // Annotators also marked Label (row 5) for H1: the evidence fake uses Genre and Length
    // only, so H1 uses "some" (recall 2/3); H2 and H5 use "all" (recall 1).
    d.examples[0].relevant_rows = Some(vec![3, 4, 5]);
    let r = run_with(
        &d,
        &ProbeSettings::new(vec![ProbeKind::RowDeletion], 1),
        &mut EvidenceFake::new(),
    );
    // Groups with no qualifying example are left out (none here).
    let by: Vec<(Group, _)> = groups(&r)
        .into_iter()
        .filter_map(|g| Some((g.clone(), evidence_selection(&r, Some(&g))?)))
        .collect();
    assert_eq!(
        names(&by.iter().map(|(g, _)| g.clone()).collect::<Vec<_>>()),
        [
            "split:a1",
            "split:a2",
            "category:lexical",
            "category:numerical",
            "category:temporal"
        ]
    );
    // a1 = {H1 some, H2 all}: recall (2/3 + 1) / 2 = 5/6, precision 1, half all, half some.
    let a1 = &by[0].1;
    assert_eq!(a1.examples, 2);
    assert!(close(a1.recall, 250.0 / 3.0), "{}", a1.recall);
    assert_eq!(
        (a1.precision, a1.all, a1.some, a1.none),
        (100.0, 50.0, 50.0, 0.0)
    );
    assert_eq!((a1.correct_all, a1.correct_some), (50.0, 50.0));
    // a2 = {H5 all}; H3 is NEUTRAL and does not count.
    let a2 = &by[1].1;
    assert_eq!((a2.examples, a2.all, a2.recall), (1, 100.0, 100.0));
    assert_eq!(a2.per_example[0].example, "H5");
    // lexical and numerical = {H1}; temporal = {H2}.
    for (g, e) in &by[2..4] {
        assert_eq!(e.examples, 1, "{g:?}");
        assert_eq!(e.per_example[0].uses, EvidenceUse::Some);
        assert!(close(e.recall, 200.0 / 3.0));
    }
    assert_eq!((by[4].1.examples, by[4].1.all), (1, 100.0));
}

/// Predicts ENTAIL when the hypothesis starts with "Breakfast", CONTRADICT otherwise. A
/// derangement moves the first word, so every permutation of H1/H2/H3 is CONTRADICT.
struct FirstWordFake;

impl PairScorer for FirstWordFake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        Ok(pairs
            .iter()
            .map(|p| {
                score_of(if p.hypothesis.starts_with("Breakfast") {
                    Label::Entail
                } else {
                    Label::Contradict
                })
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "first-word-fake".into(),
            weights_sha256: "2".repeat(64),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

#[test]
fn word_order_metrics_per_split_and_category_by_hand() {
    let mut d = running_example();
    // A four-word hypothesis: skipped (at most five words), counted in a2 and "short".
    d.examples.push(Example {
        id: Some("S1".into()),
        table: Some("T996".into()),
        premise: None,
        hypothesis: "Bridesmaids is a film.".into(),
        label: Label::Entail,
        split: Some("a2".into()),
        relevant_rows: None,
        relevance_votes: None,
        categories: vec!["short".into()],
        annotator: None,
        derived_from: None,
        operation: None,
    });
    let mut s = ProbeSettings::new(vec![ProbeKind::WordOrder], 5);
    s.word_order.q = 4;
    s.word_order.target = PermutationTarget::Hypothesis;
    let r = run_with(&d, &s, &mut FirstWordFake);
    // Originals: H1 E right; H2 (gold C) E wrong; H3 (gold N) E wrong; H5 C right.
    // Permutations are all C: accepted for H2 and H5 (gold C), never for H1 and H3.
    let all = run_word_order_metrics(&r, &[], None);
    assert_eq!((all.examples, all.skipped), (4, 1));
    assert_eq!(
        (all.accuracy, all.omega_max, all.omega_rand),
        (0.5, 0.5, 0.5)
    );
    // D^c = {H1 (right, 0 of 4 accepted), H5 (right, 4 of 4)}: P^c = (0 + 1) / 2 (UNLI
    // Eq. 3); among those accepting one (UNLU's code), only H5. D^f = {H2} (wrong, 4 of 4).
    assert_eq!(
        (all.p_c, all.p_c_accepted_only, all.p_f),
        (Some(0.5), Some(1.0), Some(1.0))
    );

    // Groups with neither permuted nor skipped examples are left out.
    let by: Vec<(Group, _)> = groups(&r)
        .into_iter()
        .map(|g| (g.clone(), run_word_order_metrics(&r, &[], Some(&g))))
        .filter(|(_, m)| m.examples > 0 || m.skipped > 0)
        .collect();
    let get = |name: &str| {
        by.iter()
            .find(|(g, _)| g.label() == name)
            .map(|(_, m)| m)
            .unwrap_or_else(|| panic!("no group {name}"))
    };
    // a1 = {H1 right but never accepted, H2 wrong but rescued}.
    let a1 = get("split:a1");
    assert_eq!(
        (a1.examples, a1.skipped, a1.accuracy, a1.omega_max),
        (2, 0, 0.5, 0.5)
    );
    assert_eq!(
        (a1.p_c, a1.p_c_accepted_only, a1.p_f),
        (Some(0.0), None, Some(1.0))
    );
    // a2 = {H3 wrong never accepted, H5 right always accepted} + S1 skipped.
    let a2 = get("split:a2");
    assert_eq!(
        (a2.examples, a2.skipped, a2.accuracy, a2.omega_max),
        (2, 1, 0.5, 0.5)
    );
    assert_eq!((a2.p_c, a2.p_f), (Some(1.0), None));
    let lexical = get("category:lexical");
    assert_eq!(
        (lexical.examples, lexical.accuracy, lexical.omega_max),
        (1, 1.0, 0.0)
    );
    assert_eq!(lexical.mean_entropy_accepted, None);
    let temporal = get("category:temporal");
    assert_eq!(
        (temporal.accuracy, temporal.omega_max, temporal.p_f),
        (0.0, 1.0, Some(1.0))
    );
    // score_of gives (0.8, 0.1, 0.1): entropy −(0.8 ln 0.8 + 2 · 0.1 ln 0.1) ≈ 0.639032.
    let h = temporal.mean_entropy_accepted.unwrap();
    assert!((h - 0.639032).abs() < 1e-5, "{h}");
    // A group with only a skipped example still reports its skip.
    let short = get("category:short");
    assert_eq!((short.examples, short.skipped), (0, 1));
    // Skips add up: only S1, in a2 and short.
    assert_eq!(
        get("split:a1").skipped + get("split:a2").skipped,
        all.skipped
    );
}

fn derived(id: &str, table: &str, from: &str, h: &str, label: Label) -> Example {
    Example {
        id: Some(id.into()),
        table: Some(table.into()),
        premise: None,
        hypothesis: h.into(),
        label,
        split: Some("a1".into()),
        relevant_rows: None,
        relevance_votes: None,
        categories: vec![],
        annotator: None,
        derived_from: Some(from.into()),
        operation: Some("hand-made".into()),
    }
}

#[test]
fn table8_per_split_and_category_by_hand() {
    let mut d = running_example();
    let edit = |id: &str, row: usize, value: &str| {
        let mut t = breakfast();
        if let Table::KeyValue(t) = &mut t {
            t.id = id.into();
            t.rows[row].values = vec![value.into()];
        }
        t
    };
    // H1-cf: Length 46:06 → 36:06 flips H1 to CONTRADICT. H2-cf: the label changes, which
    // H2 does not rely on: still CONTRADICT.
    d.tables.push(edit("T1264_cf1", 4, "36:06"));
    d.tables.push(edit("T1264_cf2", 5, "Columbia"));
    d.examples
        .push(derived("H1-cf", "T1264_cf1", "H1", H1, Label::Contradict));
    d.examples
        .push(derived("H2-cf", "T1264_cf2", "H2", H2, Label::Contradict));
    let mut s = ProbeSettings::new(vec![ProbeKind::Counterfactual], 2);
    s.hypothesis_only = true;
    let r = run_with(&d, &s, &mut EvidenceFake::new());
    // The evidence fake: H1-cf lacks "46:06" → NEUTRAL (✗ C-THP); H1 original ✓; with an
    // empty premise NEUTRAL (✗ O-Hypo). H2-cf still has "29 March 1979" → C (✓); H2 ✓; ✗.
    // H1-cf flips H1's label, H2-cf keeps H2's: a group's items are in its label-flipping and
    // its label-preserving Table 8 (a group without items of a class has no table of it).
    let tables = |g: &Group| -> Vec<tabprobe_core::metrics::PairedTable> {
        CounterfactualClass::ALL
            .iter()
            .filter_map(|&c| paired_table(&r, c, Some(g)).ok())
            .collect()
    };
    // One combination's items over both tables, and their share of the group's items.
    let pct = |g: &Group, c, o, h| {
        let ts = tables(g);
        let items: usize = ts.iter().map(|t| t.items).sum();
        let count: usize = ts
            .iter()
            .flat_map(|t| &t.rows)
            .filter(|r| (r.c_thp, r.o_thp, r.o_hypo) == (c, o, h))
            .map(|r| r.count)
            .sum();
        (count, 100.0 * count as f64 / items as f64)
    };
    // Groups with counterfactual items only: a1 (both), lexical/numerical (H1), temporal (H2).
    let by: Vec<Group> = groups(&r)
        .into_iter()
        .filter(|g| !tables(g).is_empty())
        .collect();
    assert_eq!(
        names(&by),
        [
            "split:a1",
            "category:lexical",
            "category:numerical",
            "category:temporal"
        ]
    );
    let a1 = &by[0];
    assert_eq!(pct(a1, false, true, false), (1, 50.0));
    assert_eq!(pct(a1, true, true, false), (1, 50.0));
    let lexical = &by[1];
    assert_eq!(pct(lexical, false, true, false), (1, 100.0));
    assert!(
        tables(lexical)[0]
            .rows
            .iter()
            .find(|r| !r.c_thp && r.o_thp && !r.o_hypo)
            .unwrap()
            .in_paper
    );
    let temporal = &by[3];
    assert_eq!(pct(temporal, true, true, false), (1, 100.0));
    assert_eq!(pct(temporal, false, true, false), (0, 0.0));
}

#[test]
fn transition_graphs_per_category_by_hand() {
    // Row deletion on the 7-row running example with the evidence fake: H1 (numerical,
    // lexical; ENTAIL) turns NEUTRAL when Genre or Length goes (2 of 7), H2 (temporal;
    // CONTRADICT) when Released goes (1 of 7). H3/H5 have no categories.
    let d = running_example();
    let r = run_with(
        &d,
        &ProbeSettings::new(vec![ProbeKind::RowDeletion], 1),
        &mut EvidenceFake::new(),
    );
    // One graph per category whose examples have row-deletion items.
    let by: Vec<(String, tabprobe_core::metrics::TransitionGraph)> = groups(&r)
        .into_iter()
        .filter_map(|g| {
            let Group::Category(c) = &g else { return None };
            let graph = set_graph(&r, TransitionSet::RowDeletion, Some(&g))?;
            (!graph.splits.is_empty()).then(|| (c.clone(), graph))
        })
        .collect();
    let cats: Vec<&str> = by.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(cats, ["lexical", "numerical", "temporal"]);
    let edge = |g: &tabprobe_core::metrics::TransitionGraph, from: Label, to: Label| {
        g.pooled
            .iter()
            .find(|e| e.from == from && e.to == to)
            .map(|e| (e.count, e.percent, e.valid))
    };
    let numerical = &by[1].1;
    assert_eq!(
        edge(numerical, Label::Entail, Label::Entail).map(|e| e.0),
        Some(5)
    );
    let (count, percent, valid) = edge(numerical, Label::Entail, Label::Neutral).unwrap();
    assert_eq!(count, 2);
    assert!(close(percent, 200.0 / 7.0) && valid, "{percent}");
    let temporal = &by[2].1;
    let (count, percent, valid) = edge(temporal, Label::Contradict, Label::Neutral).unwrap();
    assert_eq!(count, 1);
    assert!(close(percent, 100.0 / 7.0) && valid, "{percent}");
    assert!(close(
        edge(temporal, Label::Contradict, Label::Contradict)
            .unwrap()
            .1,
        600.0 / 7.0
    ));
    // Only H2 is temporal: no ENTAIL edges there.
    assert_eq!(
        edge(temporal, Label::Entail, Label::Neutral)
            .map(|e| e.0)
            .unwrap_or(0),
        0
    );
}
