//! The BERT-style encoder families — RoBERTa, XLM-RoBERTa, BERT, ELECTRA, DistilBERT — on one
//! network ([`crate::blocks`]): RoBERTa's config keys (DistilBERT's translated into them), the
//! canonical tensor names, the other families' names translated to them, and loading.

pub mod config;
pub mod distilbert;
pub mod loader;
pub mod names;
pub mod rename;
pub mod walk;
