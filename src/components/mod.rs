//! Reusable pieces of the page.

pub mod evidence_marks;
pub mod file_drop;
pub mod glossary_term;
pub mod hub_load;
pub mod import_summary;
pub mod in_chunks;
pub mod interrupted_run;
pub mod kept_note;
pub mod label_badge;
pub mod live_prediction;
pub mod model_panel;
pub mod open_item;
pub mod other_tabs;
pub mod predictions;
pub mod probe_facts;
pub mod problems;
pub mod progress_bar;
pub mod row_editor;
pub mod run_estimate;
pub mod save_item;
pub mod score_tables;
pub mod share_button;
pub mod table_diff;
pub mod table_view;
pub mod transition_graph;
pub mod workbench;
