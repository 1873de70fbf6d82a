//! Monotone and plain numbers (§4, Table 2): a number moved under a bound, or a plain fact's
//! number moved by ten.

use super::{falsified, flip, movable, span_item, table_text, HypothesisContext};
use crate::data::label::Label;
use crate::data::table::Table;
use crate::probe::scope::{
    hedged, lower, monotone_at, negations_around, number_role, Monotone, NumberRole,
};
use crate::probe::sentence::{over_a_duration, restricts_subject};
use crate::probe::words::{format_number, numbers_in, parse_number, words, Word};
use crate::probe::{Basis, Perturbation};
use crate::probe_kind::ProbeKind;

/// Whether increasing the number keeps `gold` under `m`.
fn larger_keeps(m: Monotone, gold: Label) -> bool {
    match m {
        Monotone::Upward | Monotone::After => gold == Label::Contradict,
        Monotone::Downward | Monotone::Before => gold == Label::Entail,
    }
}

/// The number moved up or down (§4's large step): years by ten, quantities twice / half.
fn moved(role: NumberRole, x: f64, up: bool) -> String {
    match (role, up) {
        (NumberRole::Year, true) => format_number(x + 10.0),
        (NumberRole::Year, false) => format_number(x - 10.0),
        (_, true) => format_number(x * 2.0),
        (_, false) => format_number(x / 2.0),
    }
}

/// Numbers under a monotone phrase (Table 2). The phrase sits right before the number (past
/// one article, and past the day and month when the number is a date's year): `over`,
/// `above`, `at least`, `more`/`greater`/`larger`/`bigger`/`higher`/`longer`/`older than`
/// (upward: larger keeps CONTRADICT, smaller keeps ENTAIL); `under`, `below`, `at most`, `up
/// to`, `less`/`fewer`/`smaller`/`shorter`/`lower`/`younger than` (downward); `before`/`prior
/// to`/`earlier than` and `after`/`later than` (years only: a later year keeps ENTAIL under
/// `before`, CONTRADICT under `after`). A negation directly
/// before the phrase, past auxiliaries only (`no more than`, `is not over`, `isn't over`,
/// `has never been more than`), reverses its direction exactly. Moving the number the
/// label-preserving way is certain when nothing else in the sentence can change that: no
/// other negation before the phrase (one in its clause reverses the direction again, and its
/// scope is a guess) and no closeness word before it (`just over 50` is not a bound).
/// Moving it the other way by the large step (half / twice, years ±10) is a heuristic flip.
/// A day of the month is never moved, nor a number that is part of the title mention.
pub fn monotone_numbers(ctx: &HypothesisContext) -> Vec<Perturbation> {
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let h = ctx.hypothesis;
    let ws = words(h);
    let mut out = Vec::new();
    for i in 0..ws.len() {
        let Some((x, role)) = movable(ctx, &ws, i) else {
            continue;
        };
        let Some(hit) = monotone_at(h, &ws, i) else {
            continue;
        };
        if x == 0.0 || (hit.dir.is_temporal() && role != NumberRole::Year) {
            continue; // doubling zero changes nothing; `before 3 hours` is no date
        }
        let up_keeps = larger_keeps(hit.dir, ctx.gold);
        let (w, keep, flipped) = (&ws[i], moved(role, x, up_keeps), moved(role, x, !up_keeps));
        let basis = if !hit.certain {
            Basis::BoundUnclear
        } else if over_a_duration(&ws, hit.first, i) {
            Basis::Duration
        } else {
            Basis::Bound
        };
        out.push(span_item(
            ctx,
            ProbeKind::MonotoneNumber,
            w.start,
            w.end,
            &keep,
            ctx.gold,
            basis,
        ));
        out.push(span_item(
            ctx,
            ProbeKind::MonotoneNumber,
            w.start,
            w.end,
            &flipped,
            flip(ctx.gold),
            Basis::ReverseStep,
        ));
    }
    out
}

/// Numbers and dates without a monotone phrase, moved by ten (`46 minutes` → `56`, `1979` →
/// `1989`): the fact becomes false, so ENTAIL → CONTRADICT, certain when a table cell holds
/// the number and nothing around it weakens the claim: no negation anywhere in the sentence
/// (with one before it in its clause the expected label is ENTAIL, heuristic) and no hedge
/// (`since`, `until`, `through`, `by`, `from`, `between`, `about`, `around`, `almost`, …, or
/// the upper end of a range). On CONTRADICT examples the label is kept, heuristically. A
/// year of a date under `before`/`after` belongs to the monotone probe (moving 1979 to 1989
/// under `before` keeps ENTAIL); a number under `before`/`after` that is not a year, and any
/// other number the monotone probe does not take, is moved here heuristically. Days of the
/// month and numbers in the title mention are never moved.
pub fn plain_numbers(ctx: &HypothesisContext) -> Vec<Perturbation> {
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let table_numbers: Vec<f64> = ctx
        .table()
        .map(table_text)
        .map(|t| numbers_in(&t))
        .unwrap_or_default();
    let h = ctx.hypothesis;
    let ws = words(h);
    let mut out = Vec::new();
    for i in 0..ws.len() {
        let Some((x, role)) = movable(ctx, &ws, i) else {
            continue;
        };
        let bounded = match monotone_at(h, &ws, i) {
            // The monotone probe moves it.
            Some(hit) if !hit.dir.is_temporal() || role == NumberRole::Year => continue,
            Some(_) => true,
            None => false,
        };
        let w = &ws[i];
        let neg = negations_around(h, &ws, i, &[]);
        let (expected, basis) = if neg.any() {
            (falsified(&neg), Basis::Negated)
        } else if ctx.gold != Label::Entail {
            (Label::Contradict, Basis::AlreadyFalse)
        } else if bounded {
            (Label::Contradict, Basis::NotAYear)
        } else if hedged(h, &ws, i) {
            (Label::Contradict, Basis::Hedged)
        } else if !table_numbers.contains(&x) {
            (Label::Contradict, Basis::NumberNotInTable)
        } else if in_a_name(&ws, i) {
            (Label::Contradict, Basis::NumberInName)
        } else if after_a_rank(&ws, i) {
            (Label::Contradict, Basis::RankedSet)
        } else if role == NumberRole::Year && !ctx.table().is_some_and(|t| dates_year(t, x)) {
            (Label::Contradict, Basis::YearAsIndex)
        } else if restricts_subject(&ws, i) {
            (Label::Contradict, Basis::RestrictsSubject)
        } else {
            (Label::Contradict, Basis::FactFalsified)
        };
        out.push(span_item(
            ctx,
            ProbeKind::PlainNumber,
            w.start,
            w.end,
            &format_number(x + 10.0),
            expected,
            basis,
        ));
    }
    out
}

/// Whether the number at word `i` is part of a name: a capitalised word other than a month
/// follows it (`the 2016 Olympics`, `2016 Summer Olympics`), so the moved number names
/// another entity rather than stating a false fact.
fn in_a_name(ws: &[Word], i: usize) -> bool {
    let capital_not_month = |w: &Word| {
        w.core.starts_with(char::is_uppercase) && !crate::probe::scope::is_month_name(&lower(w))
    };
    let next = ws.get(i + 1).is_some_and(capital_not_month);
    // `The BMW 3 series`: a capitalised word before it, other than the sentence's first.
    let prev = i >= 2 && capital_not_month(&ws[i - 1]);
    number_role(ws, i) != NumberRole::Day && (next || prev)
}

/// Whether the number counts a ranked set (`one of the first 20 elements`): a larger one
/// keeps the claim true.
fn after_a_rank(ws: &[Word], i: usize) -> bool {
    i >= 1
        && matches!(
            lower(&ws[i - 1]).as_str(),
            "first" | "last" | "top" | "final" | "initial" | "bottom"
        )
}

/// Whether a cell of the table dates an event in year `x`: the cell names a month, or holds
/// the year alone (`Released: 13 May 1985`, `Founded: 1998`). A year elsewhere indexes a
/// figure (`Deaths: 136 (2018)`), and a sentence about another year says nothing the table
/// can refute.
fn dates_year(t: &Table, x: f64) -> bool {
    let cells: Vec<&String> = match t {
        Table::KeyValue(t) => t.rows.iter().flat_map(|r| &r.values).collect(),
        Table::Relational(t) => t.rows.iter().flatten().collect(),
    };
    cells.iter().any(|c| {
        let ws = words(c);
        let has_year = ws.iter().any(|w| parse_number(w.core) == Some(x));
        let month = ws
            .iter()
            .any(|w| crate::probe::scope::is_month_name(&lower(w)));
        has_year && (month || ws.len() == 1)
    })
}
