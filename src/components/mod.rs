//! Reusable pieces of the page.

pub mod file_drop;
pub mod label_badge;
pub mod model_panel;
pub mod predictions;
pub mod problems;
pub mod table_view;
