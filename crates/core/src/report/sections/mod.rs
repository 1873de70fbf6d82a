//! The report's sections, one file per section (as `metrics/` has one file per metric). Each
//! builder lays out figures that [`crate::metrics`] (and, for drawn figures,
//! [`super::figures`]) computed; they share only [`super::ReportOptions`] and the formatters
//! of `report/mod.rs`, which assembles them in paper order.

pub mod agreement;
pub mod evidence;
pub mod graphs;
pub mod invalid;
pub mod overview;
pub mod scores;
pub mod table1;
pub mod table8;
pub mod word_order;
