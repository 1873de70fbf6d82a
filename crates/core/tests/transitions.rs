//! Transition matrices, graph edges and invalid-transition tables, on hand-counted data.

use tabprobe_core::label::{Label, LabelSet};
use tabprobe_core::metrics::InvalidTransitionTable;
use tabprobe_core::rules::{Operation, RuleSet};
use tabprobe_core::transitions::{Transition, TransitionMatrix};
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
    assert_eq!(table.splits, vec!["a1", "a2"]);
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
