//! One file per screen.

pub mod about;
pub mod dataset;
pub mod editor;
pub mod results;
pub mod rewriter;
pub mod runner;
pub mod share;
