//! One file per screen.

pub mod about;
pub mod dataset;
pub mod editor;
pub mod rewriter;
pub mod share;
pub mod results;
pub mod runner;
