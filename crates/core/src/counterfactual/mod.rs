//! Counterfactual tables (SPEC §4.6, paper §6): label-preserving row swaps and title swaps
//! generated automatically, and hand-made label-flipping pairs loaded from the tabprobe TSV.

pub mod swap;
pub mod tsv;

pub use swap::{row_swap, title_swap};
pub use tsv::{
    counterfactual_dataset, pair_examples, parse_counterfactual_tsv, CounterfactualError,
    CounterfactualPair,
};
