//! Metrics over probe results: invalid transitions (§3), scores with sampled standard
//! deviations (Tables 4, 7), evidence selection (§5.3), word-order acceptance (UNLI §4),
//! counterfactual pairing (Table 8), agreement of relevance annotations (§5.2) and breakdowns by
//! split and category (§4.8). Each metric has one form, over a [`Group`] of examples
//! (`None` = every example); a breakdown calls it once per group of [`groups`].

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

pub use agreement::{fleiss_kappa, relevance_agreement, RelevanceAgreement};
pub use evidence::{
    evidence_selection, incomplete_evidence, EvidenceMark, EvidenceSelection, EvidenceUse,
    IncompleteEvidence,
};
pub use group::{groups, in_group, item_in_group, Group};
pub use invalid::{InvalidTransitionTable, SplitColumn, SplitTransitions};
pub use paired::{
    paired_checks, paired_table, CounterfactualClass, PairedChecks, PairedError, PairedRow,
    PairedTable,
};
pub use scores::{
    perturbation_scores, sampled_accuracy, LeftOut, MeanSd, PerturbationScores, SampleOptions,
    ScoreView,
};
pub use transition_report::{set_graph, set_invalid_table, TransitionGraph, TransitionSet};
pub use word_order::{
    omega_curve, omega_curve_x, run_word_order_metrics, word_order_metrics, ExampleSet,
    PermutedExample, WordOrderMetrics,
};
