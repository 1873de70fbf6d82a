//! Negation (§4): `not` inserted or removed at the first auxiliary.

use super::{flip, span_item, HypothesisContext};
use crate::data::label::Label;
use crate::probe::scope::{lower, negations_around};
use crate::probe::sentence::{count_after, second_verb_after};
use crate::probe::words::words;
use crate::probe::{Basis, Perturbation};
use crate::probe_kind::ProbeKind;

const AUXILIARIES: [&str; 16] = [
    "is", "was", "are", "were", "has", "have", "had", "did", "does", "do", "can", "could", "will",
    "would", "should", "must",
];

/// Words before the auxiliary that make negating it not negate the claim: an existential or
/// counting subject (`Some songs are not pop` may be as true as `Some songs are pop`) or a
/// subordinate clause the auxiliary belongs to (`The album that was recorded …`).
const WEAK_SUBJECT: [&str; 23] = [
    "some", "many", "few", "several", "any", "that", "which", "who", "whom", "whose", "where",
    "when", "if", "because", "although", "though", "while", "whether", "since", "after", "until",
    "as", "than",
];

/// Determiners that make an existential subject when they open the sentence (`A song is …`,
/// `Two songs are …`); elsewhere they are usually inside a name (`Death of a Virgin`).
const WEAK_OPENING: [&str; 7] = ["a", "an", "one", "two", "three", "four", "five"];

/// `core` without a final `n't` (or `n’t`), keeping its case: `isn't` → `is`.
fn strip_nt(core: &str) -> Option<&str> {
    ["n't", "n\u{2019}t"].iter().find_map(|suffix| {
        let cut = core.len().checked_sub(suffix.len())?;
        core.get(cut..)
            .filter(|tail| tail.eq_ignore_ascii_case(suffix))
            .and_then(|_| core.get(..cut))
    })
}

/// Negation at the first auxiliary: insert `not`, or remove `not` / `n't` (`’` too). ENTAIL →
/// CONTRADICT is certain when the negation negates the claim: no other negation in the
/// sentence (a double negation reads otherwise), no existential subject or subordinate
/// clause before the auxiliary (see `WEAK_SUBJECT`, `WEAK_OPENING`; `as` and `than` open a
/// comparison's clause), no second finite verb after it (the auxiliary may then sit in a
/// relative clause of the subject: `The band X is associated with is Metallica`), and no count
/// after it (`was not married four times` is true of five marriages read as exactly four).
/// CONTRADICT → ENTAIL always needs review (§4: annotated manually).
pub fn negation(ctx: &HypothesisContext) -> Vec<Perturbation> {
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let expected = flip(ctx.gold);
    let h = ctx.hypothesis;
    let ws = words(h);
    let certainty = |i: usize, removed: &[usize]| {
        let weak = ws[..i]
            .iter()
            .any(|w| WEAK_SUBJECT.contains(&lower(w).as_str()))
            || ws[..i]
                .first()
                .is_some_and(|w| WEAK_OPENING.contains(&lower(w).as_str()));
        if ctx.gold != Label::Entail {
            Basis::FlipToEntail
        } else if negations_around(h, &ws, i, removed).any() {
            Basis::Negated
        } else if weak {
            Basis::WeakSubject
        } else if second_verb_after(&ws, i) {
            Basis::RelativeClause
        } else if count_after(&ws, i) {
            Basis::CountNegated
        } else {
            Basis::ClaimNegated
        }
    };
    for (i, w) in ws.iter().enumerate() {
        let lower_w = lower(w);
        if let Some(stem) = strip_nt(w.core) {
            let stem_l = stem.to_lowercase();
            if AUXILIARIES.contains(&stem_l.as_str()) || stem_l == "ca" || stem_l == "wo" {
                // `isn't` → `is`; `can't`/`won't` → `can`/`will`.
                let after = match stem_l.as_str() {
                    "ca" => "can".to_string(),
                    "wo" => "will".to_string(),
                    _ => stem.to_string(),
                };
                return vec![span_item(
                    ctx,
                    ProbeKind::Negation,
                    w.start,
                    w.end,
                    &after,
                    expected,
                    certainty(i, &[i]),
                )];
            }
        }
        if !AUXILIARIES.contains(&lower_w.as_str()) {
            continue;
        }
        let next = ws.get(i + 1);
        if let Some(n) = next.filter(|n| n.core.eq_ignore_ascii_case("not")) {
            // Remove ` not` with the space before it.
            return vec![span_item(
                ctx,
                ProbeKind::Negation,
                w.end,
                n.end,
                "",
                expected,
                certainty(i, &[i + 1]),
            )];
        }
        // `has 6 tracks` would read `has not 6 tracks`: only negate has/have/had as auxiliaries.
        if matches!(lower_w.as_str(), "has" | "have" | "had")
            && !next.is_some_and(|n| {
                let c = lower(n);
                c == "been" || c.ends_with("ed") || c.ends_with("en")
            })
        {
            continue;
        }
        return vec![span_item(
            ctx,
            ProbeKind::Negation,
            w.end,
            w.end,
            " not",
            expected,
            certainty(i, &[]),
        )];
    }
    Vec::new()
}
