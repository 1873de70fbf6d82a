//! Hand editing (docs/using-the-site.md#the-table-editor and #the-hypothesis-rewriter): the pure logic behind the
//! views — an undo/redo history, a table draft whose rows remember where they came from, the
//! diff of an edited table against its original, hypothesis suggestions, hand-made probe items
//! appended to a dataset, relevance marks stored as annotation, and the three-way merge of
//! the working dataset when two tabs change it.

pub mod annotate;
pub mod diff;
pub mod diff_lines;
pub mod draft;
pub mod hand_made;
pub mod history;
pub mod merge;
pub mod suggest;

pub use annotate::{annotate_relevant_rows, AnnotateError};
pub use diff::{diff_tables, diff_with_origin, RowChange, TableDiff};
pub use diff_lines::{diff_lines, DiffLine, DiffMark};
pub use draft::TableDraft;
pub use hand_made::{add_hand_made, HandMadeError, HandMadeItem, HandMadeOperation};
pub use history::History;
pub use merge::{merge_datasets, MergeConflict, Merged, Side};
pub use suggest::{hypothesis_suggestions, review_suggestion, suggestion_item_ids};
