//! Where an example's human-relevant rows (`relevant_rows`, docs/data-formats.md#examples) are in a probe item's
//! perturbed table: each table probe moves rows by its own edit (a deletion shifts the rows
//! after it up, a permutation reorders them), so the example's indices cannot be reused as
//! they are — marking them on the perturbed table would mark the wrong rows.

use super::Edit;

/// The indices, in the perturbed table, of the example's relevant rows `relevant` (indices
/// into the original table) after `edit`. A deleted relevant row is gone; a row appended by an
/// insertion is never relevant. Edits that leave the rows in place (value updates, hypothesis
/// edits, word order, title swaps) keep them. `None` when the perturbed premise is not the
/// original table edited row by row (a row swap's other table, a shipped counterfactual, a
/// removed premise): the example's annotation says nothing about its rows.
pub fn relevant_rows_after(edit: &Edit, relevant: &[usize]) -> Option<Vec<usize>> {
    let mut out: Vec<usize> = match edit {
        Edit::RowsDeleted { rows, .. } => relevant
            .iter()
            .filter(|r| !rows.contains(r))
            .map(|&r| r - rows.iter().filter(|&&d| d < r).count())
            .collect(),
        Edit::DeletedThenInserted { deleted_row, .. } => relevant
            .iter()
            .filter(|&&r| r != *deleted_row)
            .map(|&r| if r > *deleted_row { r - 1 } else { r })
            .collect(),
        Edit::RowInserted { at, .. } => relevant
            .iter()
            .map(|&r| if r >= *at { r + 1 } else { r })
            .collect(),
        Edit::RowsPermuted { order } => order
            .iter()
            .enumerate()
            .filter(|(_, o)| relevant.contains(o))
            .map(|(i, _)| i)
            .collect(),
        Edit::ValueUpdated { .. }
        | Edit::HypothesisSpan { .. }
        | Edit::WordsPermuted { .. }
        | Edit::TitleSwapped { .. } => relevant.to_vec(),
        Edit::PremiseRemoved | Edit::RowsSwapped { .. } | Edit::Counterfactual { .. } => {
            return None
        }
    };
    out.sort_unstable();
    out.dedup();
    Some(out)
}
