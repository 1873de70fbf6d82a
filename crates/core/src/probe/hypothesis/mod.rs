//! Hypothesis probes (docs/probes-and-metrics.md#hypothesis-probes, paper §4 and Table 2): edits of the hypothesis with the table
//! unchanged, over ENTAIL and CONTRADICT examples only (NEUTRAL needs table changes, §4 (a)).
//! Every item carries the edited span before/after, the expected label and its certainty.
//!
//! "Certain" means the expected label follows from the rule whatever the hypothesis says
//! around the edit; wherever the surrounding words can change that (a negation, a closeness
//! word, a date, a value that overlaps the new one) the item is heuristic, or not generated
//! when the edit would not be English. Each function's doc states its rules exactly; the
//! docs/probes-and-metrics.md#hypothesis-probes repeats them for readers. Offsets are byte offsets of
//! the original hypothesis, always on character boundaries (see [`super::phrase`]).
//!
//! One file per probe kind: `numbers.rs` (monotone and plain numbers), `entities.rs`,
//! `negation.rs`, `modifiers.rs`, `quantifiers.rs`; this file holds what they share.

mod entities;
mod modifiers;
mod negation;
mod numbers;
mod quantifiers;

pub use entities::named_entities;
pub use modifiers::nominal_modifiers;
pub use negation::negation;
pub use numbers::{monotone_numbers, plain_numbers};
pub use quantifiers::quantifiers;

use super::edit_table::KeyIndex;
use super::phrase::find_phrase;
use super::scope::{number_role, Negations, NumberRole};
use super::words::{parse_number, splice, Word};
use super::{Basis, Edit, Expectation, Perturbation, Premise, ProbeInput, ProbeKind};
use crate::data::label::Label;
use crate::data::table::Table;

/// One example as the hypothesis probes see it.
#[derive(Debug, Clone, Copy)]
pub struct HypothesisContext<'a> {
    /// The premise, kept unchanged.
    pub premise: &'a Premise,
    /// The hypothesis to edit.
    pub hypothesis: &'a str,
    /// The gold label.
    pub gold: Label,
    /// Where keys occur across the dataset (for named-entity replacements).
    pub index: &'a KeyIndex,
}

impl HypothesisContext<'_> {
    fn table(&self) -> Option<&Table> {
        match self.premise {
            Premise::Table(t) => Some(t),
            _ => None,
        }
    }
}

pub(super) fn flip(l: Label) -> Label {
    match l {
        Label::Entail => Label::Contradict,
        Label::Contradict => Label::Entail,
        Label::Neutral => Label::Neutral,
    }
}

pub(super) fn span_item(
    ctx: &HypothesisContext,
    probe: ProbeKind,
    start: usize,
    end: usize,
    after: &str,
    expected: Label,
    basis: Basis,
) -> Perturbation {
    let h = ctx.hypothesis;
    Perturbation {
        probe,
        edit: Edit::HypothesisSpan {
            start,
            end,
            before: h[start..end].to_string(),
            after: after.to_string(),
        },
        perturbed: ProbeInput {
            premise: ctx.premise.clone(),
            hypothesis: splice(h, start, end, after),
        },
        expectation: Expectation::Label {
            labels: vec![expected],
        },
        certainty: basis.certainty(),
        basis,
    }
}

/// Where the table's title (key–value) or caption (relational) is mentioned in the
/// hypothesis: numbers inside it name the entity (`Judwaa 2`), they are not quantities.
pub(super) fn title_span(ctx: &HypothesisContext) -> Option<(usize, usize)> {
    ctx.table()
        .and_then(|t| find_phrase(ctx.hypothesis, t.title().trim()))
}

pub(super) fn inside(w: &Word, span: Option<(usize, usize)>) -> bool {
    span.is_some_and(|(s, e)| w.start < e && s < w.end)
}

/// A number word the number probes may move: a number, not a day of the month, not part of
/// the title mention.
pub(super) fn movable(ctx: &HypothesisContext, ws: &[Word], i: usize) -> Option<(f64, NumberRole)> {
    let x = parse_number(ws[i].core)?;
    let role = number_role(ws, i);
    (role != NumberRole::Day && !inside(&ws[i], title_span(ctx))).then_some((x, role))
}

/// The label a statement gets when one of its facts is made false: CONTRADICT, or ENTAIL
/// when a negation before it in its clause denies the (now false) fact.
pub(super) fn falsified(neg: &Negations) -> Label {
    if neg.reverses() {
        Label::Entail
    } else {
        Label::Contradict
    }
}

pub(super) fn table_text(t: &Table) -> String {
    match t {
        Table::KeyValue(t) => t
            .rows
            .iter()
            .flat_map(|r| r.values.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        Table::Relational(t) => t
            .rows
            .iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join(" "),
    }
}
