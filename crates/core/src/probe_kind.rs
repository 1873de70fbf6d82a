//! Which probe made an item: the probes' one vocabulary. It is unnumbered (see `lib.rs`)
//! because every stage names probes: the dataset's reviews key their item ids by a probe's
//! name ([`crate::data::review::item_id`]), probe sets and run files record it, and the report
//! groups by it. The rule that judges a probe's transitions is the probes stage's own
//! ([`ProbeKind::operation`], in `probe/rules.rs`).

use serde::{Deserialize, Serialize};

/// Which probe made an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    /// §4.1: delete one row (one item per row).
    RowDeletion,
    /// §4.1: insert a row with a key the table lacks, its value from another table.
    RowInsertion,
    /// §4.1: replace one value of a multi-valued row with a same-key value of another table.
    RowValueUpdate,
    /// §4.1: k random reorderings of the rows, the original order excluded.
    RowPermutation,
    /// §4.1: delete a row, then insert a row with a new key.
    DeleteThenInsert,
    /// §4.2: delete one human-annotated relevant row (one item per relevant row).
    RelevantRowDeletion,
    /// §4.2: delete all relevant rows at once.
    AllRelevantRowsDeletion,
    /// §4.2: delete one row not annotated as relevant.
    IrrelevantRowDeletion,
    /// §4.7: remove the whole premise.
    PremiseRemoval,
    /// §4.4: a number under a monotone word of Table 2 (`over`, `under`, `more than`, …).
    MonotoneNumber,
    /// §4.4: a number or date without a monotone word.
    PlainNumber,
    /// §4.4: a span equal to a table value replaced by a same-key value of another table.
    NamedEntity,
    /// §4.4: `not` / `n't` inserted or removed at the auxiliary.
    Negation,
    /// §4.4: a true table fact attached to the title mention.
    NominalModifier,
    /// §4.4: a quantifier substituted.
    Quantifier,
    /// §4.5: words of the hypothesis and/or premise permuted (q per example).
    WordOrder,
    /// §4.6: relevant rows' values moved to another table with the hypothesis (Figure 5).
    RowSwap,
    /// §4.6: the table takes another table's title, the hypothesis follows (Figure 6).
    TitleSwap,
    /// §4.6: a hand-made counterfactual shipped with the dataset (an example whose
    /// `derived_from` names this one), usually label-flipping.
    Counterfactual,
}

impl ProbeKind {
    /// The table probes, in the order docs/probes-and-metrics.md#probes lists them.
    pub const TABLE: [ProbeKind; 9] = [
        ProbeKind::RowDeletion,
        ProbeKind::RowInsertion,
        ProbeKind::RowValueUpdate,
        ProbeKind::RowPermutation,
        ProbeKind::DeleteThenInsert,
        ProbeKind::RelevantRowDeletion,
        ProbeKind::AllRelevantRowsDeletion,
        ProbeKind::IrrelevantRowDeletion,
        ProbeKind::PremiseRemoval,
    ];

    /// The hypothesis probes of §4.4.
    pub const HYPOTHESIS: [ProbeKind; 6] = [
        ProbeKind::MonotoneNumber,
        ProbeKind::PlainNumber,
        ProbeKind::NamedEntity,
        ProbeKind::Negation,
        ProbeKind::NominalModifier,
        ProbeKind::Quantifier,
    ];

    /// The word-order and counterfactual probes (§4.5, §4.6).
    pub const OTHER: [ProbeKind; 4] = [
        ProbeKind::WordOrder,
        ProbeKind::RowSwap,
        ProbeKind::TitleSwap,
        ProbeKind::Counterfactual,
    ];

    /// Every probe kind: table, hypothesis, then word-order and counterfactual probes.
    // It once left out `OTHER`, so `from_name("word_order")` (and the three counterfactual
    // names) failed although `as_str` produces them.
    pub fn all() -> Vec<ProbeKind> {
        ProbeKind::TABLE
            .into_iter()
            .chain(ProbeKind::HYPOTHESIS)
            .chain(ProbeKind::OTHER)
            .collect()
    }

    /// How people read it: `row deletion`.
    pub fn display_name(self) -> String {
        crate::display::readable(self.as_str())
    }

    /// The snake_case name used in JSON, ids and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::RowDeletion => "row_deletion",
            ProbeKind::RowInsertion => "row_insertion",
            ProbeKind::RowValueUpdate => "row_value_update",
            ProbeKind::RowPermutation => "row_permutation",
            ProbeKind::DeleteThenInsert => "delete_then_insert",
            ProbeKind::RelevantRowDeletion => "relevant_row_deletion",
            ProbeKind::AllRelevantRowsDeletion => "all_relevant_rows_deletion",
            ProbeKind::IrrelevantRowDeletion => "irrelevant_row_deletion",
            ProbeKind::PremiseRemoval => "premise_removal",
            ProbeKind::MonotoneNumber => "monotone_number",
            ProbeKind::PlainNumber => "plain_number",
            ProbeKind::NamedEntity => "named_entity",
            ProbeKind::Negation => "negation",
            ProbeKind::NominalModifier => "nominal_modifier",
            ProbeKind::Quantifier => "quantifier",
            ProbeKind::WordOrder => "word_order",
            ProbeKind::RowSwap => "row_swap",
            ProbeKind::TitleSwap => "title_swap",
            ProbeKind::Counterfactual => "counterfactual",
        }
    }

    /// Parses [`ProbeKind::as_str`] names.
    pub fn from_name(name: &str) -> Option<ProbeKind> {
        ProbeKind::all().into_iter().find(|p| p.as_str() == name)
    }
}
