//! One figure of the inoculation tables: a model, a split and a column, with the predicate
//! that says which items it counts (shared by the tables, the outcome and the drill-downs).

use serde::{Deserialize, Serialize};

use crate::inoculation::{EvaluatedItem, InoculationResult, ItemClass};

/// Which items a figure counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    /// Every original example of the split (Tables 9 and 11).
    OriginalTest,
    /// The challenge table's "Original": originals with held-out items derived from them.
    ChallengeOriginal,
    /// Held-out items of one class.
    Challenge(ItemClass),
    /// Every held-out challenge item (the outcome's challenge figure).
    ChallengeAll,
}

/// One figure: a model, a split (`None`: all splits pooled) and a column.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cell {
    /// Index into [`InoculationResult::models`].
    pub model: usize,
    /// The split, or all.
    pub split: Option<String>,
    /// Which items.
    pub column: Column,
}

impl Cell {
    /// Whether the figure counts `item` (in its denominator).
    pub fn counts(&self, item: &EvaluatedItem) -> bool {
        if self.split.as_ref().is_some_and(|s| *s != item.split) {
            return false;
        }
        match self.column {
            Column::OriginalTest => item.class == ItemClass::Original,
            Column::ChallengeOriginal => {
                item.class == ItemClass::Original && item.held_out_items > 0
            }
            Column::Challenge(class) => class != ItemClass::Original && item.class == class,
            Column::ChallengeAll => item.class != ItemClass::Original,
        }
    }

    /// `(correct, counted)` over `result`'s items.
    pub fn tally(&self, result: &InoculationResult) -> (usize, usize) {
        result
            .items
            .iter()
            .filter(|it| self.counts(it))
            .fold((0, 0), |(right, all), it| {
                (right + usize::from(it.correct(self.model)), all + 1)
            })
    }

    /// Accuracy in percent; `None` when the cell counts nothing.
    pub fn percent(&self, result: &InoculationResult) -> Option<f64> {
        let (right, all) = self.tally(result);
        (all > 0).then(|| 100.0 * right as f64 / all as f64)
    }
}
