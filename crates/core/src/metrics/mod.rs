//! Metrics over probe results: invalid transitions (§3), scores with sampled standard
//! deviations (Tables 4, 7), evidence selection (§5.3), word-order acceptance (UNLI §4),
//! counterfactual pairing (Table 8), agreement of relevance annotations (§5.2) and breakdowns by
//! split and category (§4.8).

pub mod agreement;
pub mod entropy;
pub mod evidence;
pub mod group;
pub mod invalid;
pub mod paired;
pub mod scores;
pub mod transition_report;
pub mod transitions;
pub mod word_order;

pub use agreement::{
    fleiss_kappa, relevance_agreement, relevance_agreement_by_group, relevance_agreement_dataset,
    relevance_agreement_where, RelevanceAgreement,
};
pub use evidence::{
    evidence_selection, evidence_selection_by_group, evidence_selection_where,
    incomplete_evidence_where, EvidenceSelection, EvidenceUse, IncompleteEvidence,
};
pub use group::{groups, Group};
pub use invalid::{InvalidTransitionTable, SplitTransitions};
pub use paired::{
    paired_checks, paired_counterfactual, paired_counterfactual_by_group,
    paired_counterfactual_where, paired_table, paired_table_where, paired_tables_by_group,
    CounterfactualClass, PairedChecks, PairedError, PairedRow, PairedTable,
};
pub use scores::{
    perturbation_scores, perturbation_scores_in, sampled_accuracy, LeftOut, MeanSd,
    PerturbationScores, SampleOptions, ScoreView,
};
pub use transition_report::{
    invalid_table, invalid_tables_by_category, set_graph, set_graph_where, set_graphs_by_category,
    set_invalid_table, set_invalid_table_where, set_invalid_tables_by_category, transition_graph,
    transition_graph_where, transition_graphs_by_category, TransitionGraph, TransitionSet,
};
pub use word_order::{
    omega_curve, omega_curve_x, run_word_order_metrics, run_word_order_metrics_by_group,
    word_order_metrics, ExampleSet, PermutedExample, WordOrderMetrics,
};
