//! Transition matrices, graph edges and invalid-transition tables, on hand-counted data.

use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_core::metrics::transitions::TransitionMatrix;
use tabprobe_core::metrics::InvalidTransitionTable;
use tabprobe_core::probe::rules::{Operation, RuleSet};
use tabprobe_core::run::Transition;
use Label::{Contradict as C, Entail as E, Neutral as N};

fn t(before: Label, after: Label) -> Transition {
    Transition { before, after }
}

/// Split a1: E→E ×3, E→C ×1, N→N ×2, N→E ×2, C→C ×4; split a2: E→N ×1, C→E ×1.
fn hand_counted() -> Vec<(&'static str, Transition)> {
    let mut v = Vec::new();
    v.extend(std::iter::repeat_n(("a1", t(E, E)), 3));
    v.push(("a1", t(E, C)));
    v.extend(std::iter::repeat_n(("a1", t(N, N)), 2));
    v.extend(std::iter::repeat_n(("a1", t(N, E)), 2));
    v.extend(std::iter::repeat_n(("a1", t(C, C)), 4));
    v.push(("a2", t(E, N)));
    v.push(("a2", t(C, E)));
    v
}

#[test]
fn row_deletion_invalid_table_by_hand() {
    let rules = RuleSet::default();
    let rule = rules.get(Operation::RowDeletion).unwrap();
    let table = InvalidTransitionTable::from_transitions(hand_counted(), rule, LabelSet::ThreeWay);
    let names: Vec<&str> = table.splits.iter().map(|s| s.name()).collect();
    assert_eq!(names, vec!["a1", "a2"]);
    // ENTAIL: a1 1 of 4 (E→C) = 25%; a2 0 of 1 (E→N is valid) = 0%; mean 12.5.
    assert_eq!(table.rows[0].per_split, vec![Some(25.0), Some(0.0)]);
    assert_eq!(table.rows[0].mean, Some(12.5));
    // NEUTRAL: a1 2 of 4 (N→E) = 50%; a2 never predicted NEUTRAL.
    assert_eq!(table.rows[1].per_split, vec![Some(50.0), None]);
    assert_eq!(table.rows[1].mean, Some(50.0));
    // CONTRADICT: a1 0 of 4; a2 1 of 1 (C→E).
    assert_eq!(table.rows[2].per_split, vec![Some(0.0), Some(100.0)]);
    // Average over the labels present: a1 (25+50+0)/3 = 25; a2 (0+100)/2 = 50.
    assert_eq!(table.average, vec![Some(25.0), Some(50.0)]);
    assert_eq!(table.mean_average, Some(37.5));
    assert!(table.notes.is_empty());
}

#[test]
fn perfect_model_has_no_invalid_transitions() {
    let rules = RuleSet::default();
    let rule = rules.get(Operation::RelevantRowDeletion).unwrap();
    let items = [("dev", t(E, N)), ("dev", t(C, N)), ("dev", t(N, N))];
    let table = InvalidTransitionTable::from_transitions(items, rule, LabelSet::ThreeWay);
    assert_eq!(table.average, vec![Some(0.0)]);
    // The adversarial model keeps its label: every E and C transition is invalid.
    let items = [
        ("dev", t(E, E)),
        ("dev", t(C, C)),
        ("dev", t(N, N)),
        ("dev", t(E, N)),
    ];
    let table = InvalidTransitionTable::from_transitions(items, rule, LabelSet::ThreeWay);
    assert_eq!(table.rows[0].per_split, vec![Some(50.0)]);
    assert_eq!(table.rows[1].per_split, vec![Some(0.0)]);
    assert_eq!(table.rows[2].per_split, vec![Some(100.0)]);
    assert_eq!(table.average, vec![Some(50.0)]);
}

#[test]
fn two_way_model_says_it_never_predicts_neutral() {
    let rules = RuleSet::default();
    let rule = rules.get(Operation::RowDeletion).unwrap();
    let items = [("test", t(E, C)), ("test", t(C, C))];
    let table = InvalidTransitionTable::from_transitions(items, rule, LabelSet::TwoWay);
    assert_eq!(table.rows.len(), 2);
    assert_eq!(table.rows[0].label, E);
    assert_eq!(table.rows[1].label, C);
    assert_eq!(table.average, vec![Some(50.0)]);
    assert!(
        table.notes[0].contains("never predicts NEUTRAL"),
        "{:?}",
        table.notes
    );
    // The matrix never divides by zero for the missing node.
    let m = TransitionMatrix::from_transitions(items.iter().map(|(_, t)| *t));
    assert_eq!(m.percent(N, N), None);
}

#[test]
fn edges_out_of_each_node_sum_to_100_and_are_coloured() {
    let m = TransitionMatrix::from_transitions(hand_counted().into_iter().map(|(_, t)| t));
    let rules = RuleSet::default();
    let edges = m.edges(rules.get(Operation::RowDeletion).unwrap());
    for from in Label::ALL {
        let sum: f64 = edges
            .iter()
            .filter(|e| e.from == from)
            .map(|e| e.percent)
            .sum();
        assert!((sum - 100.0).abs() < 1e-9, "{from}: {sum}");
    }
    let e_to_c = edges.iter().find(|e| e.from == E && e.to == C).unwrap();
    assert_eq!(e_to_c.count, 1);
    assert_eq!(e_to_c.percent, 20.0); // 1 of E's 5 transitions (a1 4 + a2 1)
    assert!(!e_to_c.valid);
    assert!(
        edges
            .iter()
            .find(|e| e.from == E && e.to == N)
            .unwrap()
            .valid
    );
}

mod common;

use common::*;
use tabprobe_core::metrics::transition_report::COUNTERFACTUAL_PROBES;
use tabprobe_core::metrics::{set_graph, set_invalid_table, TransitionSet};
use tabprobe_core::probe::rules::ValidityRule;
use tabprobe_core::probe::{build_probe_set, Certainty, Expectation, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::report::{sections, Section};
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};
use tabprobe_core::Dataset;

fn run_with(
    d: &Dataset,
    s: &ProbeSettings,
    rules: &RuleSet,
    scorer: &mut impl PairScorer,
) -> RunResult {
    let set = build_probe_set(d, s, rules).unwrap();
    let mut r = ProbeRun::new(set, 8);
    r.run(scorer, |_| {}, || false).unwrap();
    r.finish(scorer.model_id()).unwrap()
}

fn section(run: &RunResult, file: &str) -> Option<Section> {
    sections(run).into_iter().find(|s| s.file() == file)
}

/// Like the evidence fake, but a hypothesis keeps its label while *any* of its facts is left
/// (a model that needs only one of H1's two relevant rows).
struct AnyEvidenceFake;

impl PairScorer for AnyEvidenceFake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        let facts = EvidenceFake::new().facts;
        Ok(pairs
            .iter()
            .map(|p| {
                let l = facts
                    .iter()
                    .find(|(h, _, _)| *h == p.hypothesis)
                    .map(|(_, l, needs)| {
                        if needs.is_empty() || needs.iter().any(|n| p.premise.contains(n)) {
                            *l
                        } else {
                            N
                        }
                    })
                    .unwrap_or(N);
                score_of(l)
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "any-evidence-fake".into(),
            weights_sha256: "2".repeat(64),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

/// Issue 11 §6, paper Table 6: single relevant-row deletions and all-relevant-rows deletions
/// are separate tables in the paper's layout (label rows × split columns + Average). H1 (a1,
/// E) has two relevant rows, Genre and Length; the fake keeps ENTAIL while either is left, so
/// each single deletion is E→E (invalid) and deleting both is E→N (valid). H2 (a1, C), H5
/// (a2, C) lose their one relevant row: C→N; H3 (a2, N) stays N.
///   single: a1 E 2/2 = 100, C 0/1 = 0 → Average 50; a2 N 0, C 0 → 0; mean of Averages 25.
///   all:    a1 E 0/1 = 0.
/// The old pooled table put H1's three items in one row: a1 E 2/3 = 66.67.
#[test]
fn table6_single_and_all_relevant_rows_are_separate_tables() {
    let s = ProbeSettings::new(
        vec![
            ProbeKind::RelevantRowDeletion,
            ProbeKind::AllRelevantRowsDeletion,
        ],
        1,
    );
    let r = run_with(
        &running_example(),
        &s,
        &RuleSet::default(),
        &mut AnyEvidenceFake,
    );
    let single = section(&r, "invalid_relevant_row_deletion").unwrap();
    assert_eq!(single.header, ["group", "before", "a1", "a2", "mean"]);
    assert!(single.title.starts_with("Table 6 — "), "{}", single.title);
    // The rows over every example (category blocks follow).
    let rows: Vec<Vec<&str>> = single.rows[..4]
        .iter()
        .map(|r| r.cells.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["all", "ENTAIL", "100.00", "", "100.00"],
            ["all", "NEUTRAL", "", "0.00", "0.00"],
            ["all", "CONTRADICT", "0.00", "0.00", "0.00"],
            ["all", "Average", "50.00", "0.00", "25.00"],
        ]
    );
    let all = section(&r, "invalid_all_relevant_rows_deletion").unwrap();
    assert_eq!(all.header, ["group", "before", "a1", "mean"]);
    assert_eq!(all.rows[0].cells[..3], ["all", "ENTAIL", "0.00"]);
    // The graphs are separate too: the single one has E→E 2 (100%), the other E→N 1.
    let g = set_graph(&r, TransitionSet::RelevantRowDeletion, None).unwrap();
    let ee = g.pooled.iter().find(|e| e.from == E && e.to == E).unwrap();
    assert_eq!((ee.count, ee.percent, ee.valid), (2, 100.0, false));
    let g = set_graph(&r, TransitionSet::AllRelevantRowsDeletion, None).unwrap();
    assert_eq!(g.pooled.len(), 1);
    assert_eq!((g.pooled[0].from, g.pooled[0].to), (E, N));
    // One rule judges both sets: together they hold 3 ENTAIL items.
    let from_e: u64 = [
        TransitionSet::RelevantRowDeletion,
        TransitionSet::AllRelevantRowsDeletion,
    ]
    .into_iter()
    .flat_map(|set| set_graph(&r, set, None).unwrap().pooled)
    .filter(|e| e.from == E)
    .map(|e| e.count)
    .sum();
    assert_eq!(from_e, 3);
}

/// Issue 11 §7: the label-preserving rule (docs/probes-and-metrics.md#transition-sets) judges label-preserving counterfactuals.
/// Title swap (Figure 6) renames Breakfast in America in H1, H2, H3 and Bridesmaids in H5;
/// the hypothesis-only fake knows only the original hypotheses, so every swapped pair reads
/// NEUTRAL: H1 E→N and H2 C→N (a1), H3 N→N and H5 C→N (a2).
///   a1: E 100, C 100 → Average 100; a2: N 0, C 100 → 50; mean 75.
/// Editing the rule to allow E→N and C→N makes every cell 0: the rule changes the figure.
#[test]
fn label_preserving_rule_judges_counterfactuals_and_is_editable() {
    let s = ProbeSettings::new(vec![ProbeKind::TitleSwap], 3);
    let r = run_with(
        &running_example(),
        &s,
        &RuleSet::default(),
        &mut HypothesisOnlyFake,
    );
    assert_eq!(r.items.len(), 4);
    let t = set_invalid_table(&r, TransitionSet::LabelPreservingCounterfactual, None).unwrap();
    let names: Vec<&str> = t.splits.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["a1", "a2"]);
    assert_eq!(t.rows[0].per_split, [Some(100.0), None]);
    assert_eq!(t.rows[1].per_split, [None, Some(0.0)]);
    assert_eq!(t.rows[2].per_split, [Some(100.0), Some(100.0)]);
    assert_eq!(t.average, [Some(100.0), Some(50.0)]);
    assert_eq!(t.mean_average, Some(75.0));
    // The report has the table and the graph (the old report had neither).
    let sec = section(&r, "invalid_label_preserving_counterfactual").unwrap();
    assert_eq!(
        sec.rows[3].cells,
        ["all", "Average", "100.00", "50.00", "75.00"]
    );
    assert!(section(&r, "graph_label_preserving_counterfactual").is_some());
    // Edit the rule: E→{E,N}, N→{N}, C→{C,N}.
    let mut rules = RuleSet::default();
    rules.set(ValidityRule::new(
        Operation::LabelPreserving,
        &[E, N],
        &[N],
        &[C, N],
        "user",
    ));
    let r = run_with(&running_example(), &s, &rules, &mut HypothesisOnlyFake);
    let t = set_invalid_table(&r, TransitionSet::LabelPreservingCounterfactual, None).unwrap();
    assert_eq!(t.mean_average, Some(0.0));
}

/// Hypothesis edits that keep the label are judged by the same rule: the set holds exactly the
/// certain hypothesis-probe items expecting the gold label, and with the hypothesis-only fake
/// (every edited hypothesis reads NEUTRAL) every ENTAIL and CONTRADICT source is 100% invalid.
#[test]
fn label_preserving_rule_judges_hypothesis_edits() {
    let s = ProbeSettings::new(ProbeKind::HYPOTHESIS.to_vec(), 5);
    let r = run_with(
        &running_example(),
        &s,
        &RuleSet::default(),
        &mut HypothesisOnlyFake,
    );
    let members: Vec<_> = r
        .items
        .iter()
        .filter(|it| TransitionSet::LabelPreservingHypothesis.contains(&r, it))
        .collect();
    assert!(!members.is_empty());
    for it in &r.items {
        let gold = r.examples[it.example].gold;
        let preserving = it.certainty == Certainty::Certain
            && it.expectation == Expectation::Label { labels: vec![gold] };
        assert_eq!(
            TransitionSet::LabelPreservingHypothesis.contains(&r, it),
            preserving,
            "{}",
            it.id
        );
        assert!(!TransitionSet::LabelPreservingCounterfactual.contains(&r, it));
    }
    let t = set_invalid_table(&r, TransitionSet::LabelPreservingHypothesis, None).unwrap();
    for row in &t.rows {
        for v in row.per_split.iter().flatten() {
            assert_eq!(
                *v,
                if row.label == N { 0.0 } else { 100.0 },
                "{:?}",
                row.label
            );
        }
    }
    assert!(section(&r, "invalid_label_preserving_hypothesis").is_some());
    assert!(COUNTERFACTUAL_PROBES.contains(&ProbeKind::RowSwap));
}

/// Every editable rule judges some figure: each operation is the rule of some transition set.
#[test]
fn every_operation_judges_some_transition_set() {
    for op in Operation::ALL {
        assert!(
            TransitionSet::ALL.iter().any(|s| s.operation() == op),
            "{op:?} judges nothing"
        );
    }
    for s in TransitionSet::ALL {
        assert_eq!(TransitionSet::from_name(s.as_str()), Some(s));
    }
}

/// A two-way (TabFact-style) model never predicts NEUTRAL.
struct TwoWayFake;

impl PairScorer for TwoWayFake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        HypothesisOnlyFake.score(pairs)
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "two-way-fake".into(),
            weights_sha256: "4".repeat(64),
            label_set: LabelSet::TwoWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

/// Issue 11 §7: on a two-way run, a rule whose only valid target is NEUTRAL (relevant-row
/// deletion, premise removal) is "not applicable to a two-way model" in the table and the
/// graph, never 100% invalid. The running example without H3 (NEUTRAL), two-way: the fake
/// keeps E and C under every table edit, so the old report read ENTAIL 100, CONTRADICT 100.
/// Row deletion (E→{E,N}, C→{C,N}) stays applicable: 0% invalid.
#[test]
fn two_way_model_marks_neutral_only_rules_not_applicable() {
    let mut d = running_example();
    d.examples.retain(|e| e.label != N);
    d.label_set = LabelSet::TwoWay;
    let s = ProbeSettings::new(
        vec![
            ProbeKind::RowDeletion,
            ProbeKind::RelevantRowDeletion,
            ProbeKind::PremiseRemoval,
        ],
        1,
    );
    let r = run_with(&d, &s, &RuleSet::default(), &mut TwoWayFake);
    for set in [
        TransitionSet::RelevantRowDeletion,
        TransitionSet::PremiseRemoval,
    ] {
        let t = set_invalid_table(&r, set, None).unwrap();
        assert!(t.not_applicable, "{set:?}");
        assert!(t
            .rows
            .iter()
            .all(|r| r.not_applicable && r.per_split.iter().all(Option::is_none)));
        assert_eq!(t.mean_average, None);
        let g = set_graph(&r, set, None).unwrap();
        assert_eq!(g.not_applicable, [E, C]);
        assert!(g.pooled.iter().all(|e| e.not_applicable));
        let sec = section(&r, &format!("invalid_{}", set.as_str())).unwrap();
        assert_eq!(sec.rows[0].cells[..3], ["all", "ENTAIL", "n/a"]);
        assert!(
            sec.notes
                .iter()
                .any(|n| n.contains("not applicable to a two-way model")),
            "{:?}",
            sec.notes
        );
        assert!(!sec
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .any(|c| c == "100.00"));
        let graph = section(&r, &format!("graph_{}", set.as_str())).unwrap();
        assert!(graph.rows.iter().all(|row| row.cells[5] == "n/a"));
    }
    let t = set_invalid_table(&r, TransitionSet::RowDeletion, None).unwrap();
    assert!(!t.not_applicable);
    assert_eq!(t.mean_average, Some(0.0));
    // Each item's mark says the same as the tables: n/a where the rule only allows NEUTRAL,
    // right (✓) on row deletion, whose E→E and C→C are valid.
    use tabprobe_core::run::verdict::Verdict;
    for item in &r.items {
        let want = match item.probe {
            ProbeKind::RowDeletion => Verdict::Right,
            _ => Verdict::NotApplicable,
        };
        assert_eq!(r.verdict(item), want, "{:?} {}", item.probe, item.id);
    }
    assert_eq!(Verdict::NotApplicable.mark(), "n/a");
    assert!(r
        .items
        .iter()
        .any(|i| i.probe == ProbeKind::RelevantRowDeletion));
}
