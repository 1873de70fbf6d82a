//! One file per screen.

pub mod about;
pub mod dataset;
