//! Nominal modifiers (§4): a true fact of the table attached to the title mention.

use super::{span_item, HypothesisContext};
use crate::data::label::Label;
use crate::data::table::Table;
use crate::probe::phrase::find_phrase;
use crate::probe::sentence::{modifier_slot, noun_key, plain_value, shares_a_stem};
use crate::probe::words::words;
use crate::probe::{Basis, Perturbation};
use crate::probe_kind::ProbeKind;
use crate::rng::Rng;

/// Nominal modifiers: a true single-valued fact of the table attached to the title mention
/// (`Breakfast in America, whose label is A&M, is …`): label-preserving, certain — the
/// conjunction of the claim with a true fact has the claim's truth. Generated only where the
/// sentence stays English: the key reads as a singular noun (`whose died is …` and `whose
/// genres is …` are not English; see `sentence::noun_key`), the value is a plain phrase (no
/// bracketed dates, lists or placeholders; `sentence::plain_value`), and the title mention
/// is followed by a verb, punctuation or the sentence's end — never by `'s` or inside a noun
/// phrase (`sentence::modifier_slot`); a value that repeats the title's words (`Johann Jacob
/// Schweppe, whose notable work is Schweppes founder`) is not a fact worth adding. Before
/// punctuation or at the end the modifier takes no
/// closing comma (`…, whose label is A&M.`).
pub fn nominal_modifiers(ctx: &HypothesisContext, rng: &mut Rng) -> Vec<Perturbation> {
    let Some(Table::KeyValue(t)) = ctx.table() else {
        return Vec::new();
    };
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let h = ctx.hypothesis;
    let Some((_, e)) = find_phrase(h, t.title.trim()) else {
        return Vec::new();
    };
    let Some(closing_comma) = modifier_slot(h, &words(h), e) else {
        return Vec::new();
    };
    let facts: Vec<(String, &str)> = t
        .rows
        .iter()
        .filter(|r| r.values.len() == 1)
        .filter_map(|r| Some((noun_key(&r.key)?, r.values[0].trim())))
        .filter(|(k, v)| plain_value(k, v) && !shares_a_stem(v, &t.title))
        .collect();
    if facts.is_empty() {
        return Vec::new();
    }
    let (k, v) = &facts[rng.below(facts.len())];
    let modifier = format!(", whose {k} is {v}{}", if closing_comma { "," } else { "" });
    vec![span_item(
        ctx,
        ProbeKind::NominalModifier,
        e,
        e,
        &modifier,
        ctx.gold,
        Basis::TrueFactAdded,
    )]
}
