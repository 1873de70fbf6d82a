//! Metrics over probe results: invalid transitions (§3), scores with sampled standard
//! deviations (Tables 4, 7), evidence selection (§5.3), word-order acceptance (UNLI §4),
//! counterfactual pairing (Table 8) and breakdowns by split and category (§4.8).

pub mod evidence;
pub mod group;
pub mod invalid;
pub mod paired;
pub mod scores;
pub mod transition_report;
pub mod word_order;

pub use evidence::{
    evidence_selection, evidence_selection_by_group, evidence_selection_where, EvidenceSelection,
    EvidenceUse,
};
pub use group::{groups, Group};
pub use invalid::{InvalidTransitionTable, SplitTransitions};
pub use paired::{
    paired_counterfactual, paired_counterfactual_by_group, paired_counterfactual_where,
    PairedError, PairedRow,
};
pub use scores::{
    perturbation_scores, perturbation_scores_in, sampled_accuracy, LeftOut, MeanSd,
    PerturbationScores, SampleOptions, ScoreView,
};
pub use transition_report::{
    invalid_table, invalid_tables_by_category, transition_graph, transition_graph_where,
    transition_graphs_by_category, TransitionGraph,
};
pub use word_order::{
    run_word_order_metrics, run_word_order_metrics_by_group, word_order_metrics, PermutedExample,
    WordOrderMetrics,
};
