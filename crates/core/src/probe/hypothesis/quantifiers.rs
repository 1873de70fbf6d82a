//! Quantifiers (§4): a determiner replaced along its monotonicity.

use super::{flip, span_item, HypothesisContext};
use crate::data::label::Label;
use crate::probe::scope::{joined, lower, negations_around, number_role, NumberRole};
use crate::probe::words::{parse_number, words, Word};
use crate::probe::{Basis, Perturbation};
use crate::probe_kind::ProbeKind;

/// Comparatives and other words after which `no` is not a determiner (`no more than`, `no
/// longer`, `no one`): `no` → `some` would not be English there.
const NOT_A_NOUN_AFTER_NO: [&str; 21] = [
    "more", "less", "fewer", "longer", "later", "earlier", "sooner", "better", "worse", "greater",
    "larger", "smaller", "higher", "lower", "bigger", "older", "younger", "matter", "doubt", "way",
    "one",
];

/// Prepositions after which a quantifier is a pronoun or adverb, not a determiner (`released
/// many within the same year`).
const PREPOSITIONS_AFTER_PRONOUN: [&str; 11] = [
    "within", "in", "on", "at", "for", "to", "from", "by", "with", "during", "across",
];

/// Whether a plural noun follows the word at `i` within its phrase (the next three words, no
/// punctuation between): `no jazz songs` → `some jazz songs` is English, `no known cure` →
/// `some known cure` is not.
fn plural_ahead(h: &str, ws: &[Word], i: usize) -> bool {
    (i + 1..ws.len().min(i + 4))
        .take_while(|&k| joined(h, ws, k - 1))
        .any(|k| {
            let l = lower(&ws[k]);
            l.ends_with('s') && !l.ends_with("ss") && l.len() > 3
        })
}

/// Whether byte `pos` of `h` is inside a quotation: double quotes toggle; a single quote
/// opens after a non-letter before a letter and closes after a letter before a non-letter
/// (an apostrophe inside a word, `Republic's`, does neither).
fn in_quotes(h: &str, pos: usize) -> bool {
    let chars: Vec<char> = h[..pos].chars().collect();
    let (mut double, mut single) = (false, false);
    for (k, &c) in chars.iter().enumerate() {
        let before = k
            .checked_sub(1)
            .map(|p| chars[p])
            .is_some_and(char::is_alphanumeric);
        let after = chars.get(k + 1).copied().is_some_and(char::is_alphanumeric);
        match c {
            '"' | '\u{201c}' | '\u{201d}' => double = !double,
            '\'' | '\u{2018}' | '\u{2019}' if !before && after => single = true,
            '\'' | '\u{2018}' | '\u{2019}' if before && !after && single => single = false,
            _ => {}
        }
    }
    double || single
}

/// Copulas after which a quantifier is an adverb or floats (`is all famous`, `are all
/// deceased`).
const COPULAS: [&str; 7] = ["is", "are", "was", "were", "be", "been", "being"];

/// Adverbs that make a quantifier part of a degree phrase (`virtually all`, `almost every`).
const ADVERBS_BEFORE_QUANTIFIER: [&str; 8] = [
    "virtually",
    "almost",
    "nearly",
    "practically",
    "basically",
    "essentially",
    "just",
    "only",
];

/// Whether the quantifier at word `i` is a determiner the substitution can replace
/// (never after `a`/`an` or a degree adverb, `every` only before a plural — `some year` is
/// not what `every year` says —, never before an adverb: `most very big`): followed
/// directly by a word (no punctuation between), and not in a fixed phrase — `no` before a
/// comparative or `no one`; `most` after `the`/`at`/`a`/a possessive (`the most popular`, `at
/// most`); `many` after `as`/`how`/`so`/`too` (`three times as many … as`); `all` after `at`
/// or a pronoun (`they all`); `some` before a number (`some 50 people` = about 50).
fn determiner(h: &str, ws: &[Word], i: usize, q: &str) -> bool {
    let Some(next) = ws.get(i + 1).filter(|_| joined(h, ws, i)) else {
        return false;
    };
    let next_l = lower(next);
    let prev = i.checked_sub(1).map(|p| lower(&ws[p])).unwrap_or_default();
    // Inside a name or a quotation (`Bringing It All Back Home`, `the All India Institute`,
    // `'May All be Healthy'`): a capital past the sentence's first word, or an odd number of
    // quotation marks before it.
    let capital = i > 0 && ws[i].core.starts_with(char::is_uppercase);
    if capital || in_quotes(h, ws[i].start) {
        return false;
    }
    // An adverb or a floating quantifier after a copula (`is all famous`, `are all deceased`,
    // `was most Islamic`, `There are all distributors`), or before a number word (`sold all
    // millions of records`) or `often`/`well`: no determiner.
    // `the third most populous`, `most popular`: a superlative; `all continents except …`.
    let adjective = [
        "ous", "ful", "ive", "able", "ible", "ic", "al", "ar", "ent", "ant",
    ]
    .iter()
    .any(|e| next_l.ends_with(e));
    let except = ws
        .iter()
        .skip(i + 1)
        .take(3)
        .any(|w| matches!(lower(w).as_str(), "except" | "but"));
    if (q == "most" && adjective) || except {
        return false;
    }
    if COPULAS.contains(&prev.as_str())
        || matches!(
            next_l.as_str(),
            "often" | "well" | "millions" | "thousands" | "hundreds" | "dozens" | "billions"
        )
    {
        return false;
    }
    // `a many`, `virtually all`, `every year`, `most very big`, `released many within`: no
    // determiner `some` can take.
    if matches!(prev.as_str(), "a" | "an")
        || PREPOSITIONS_AFTER_PRONOUN.contains(&next_l.as_str())
        || ADVERBS_BEFORE_QUANTIFIER.contains(&prev.as_str())
        || (q == "every" && !next_l.ends_with('s'))
        || next_l == "very"
        || (next_l.ends_with("ly") && next_l != "only")
    {
        return false;
    }
    match q {
        // `no breaks` → `some breaks`; `no known cure` → `some known cure` is not English.
        "no" => {
            plural_ahead(h, ws, i)
                && !NOT_A_NOUN_AFTER_NO.contains(&next_l.as_str())
                && !next_l.ends_with("er")
                && ws.get(i + 2).is_none_or(|w| lower(w) != "than")
        }
        // `most at risk`: a superlative, not a quantifier.
        "most" => {
            !matches!(next_l.as_str(), "at" | "in")
                && !matches!(
                    prev.as_str(),
                    "the"
                        | "at"
                        | "a"
                        | "an"
                        | "its"
                        | "his"
                        | "her"
                        | "their"
                        | "our"
                        | "my"
                        | "your"
                        | "whose"
                )
                && !prev.ends_with("'s")
                && !prev.ends_with("\u{2019}s")
        }
        "many" => !matches!(prev.as_str(), "as" | "how" | "so" | "too" | "that" | "this"),
        // Not floating (`Social workers all went`): after a plural noun `all` is no determiner.
        "all" => {
            let pronoun = matches!(
                prev.as_str(),
                "at" | "they" | "we" | "you" | "them" | "us" | "these" | "those"
            );
            let plural_noun = prev.ends_with('s')
                && !matches!(
                    prev.as_str(),
                    "is" | "was" | "has" | "its" | "his" | "as" | "this"
                );
            !pronoun && !plural_noun
        }
        "some" => parse_number(next.core).is_none(),
        _ => true,
    }
}

/// Quantifiers: `all`/`every`/`most`/`many` → `some` (`some of` before a determiner: `all the
/// songs` → `some of the songs`) keeps ENTAIL; `some`/`many`/`most` →
/// `all` keeps CONTRADICT; `no` → `some` flips the label. These follow from the quantifiers'
/// monotonicity when the restrictor is non-empty, which INFOTABS hypotheses assume — but only
/// when the word is a determiner and the new sentence is English, which word shapes cannot
/// tell reliably: three hand adjudications found 58–87 % of such items right (issue 43,
/// docs/probes-and-metrics.md#certain-precision), so **every quantifier item is heuristic**,
/// its basis saying what a reviewer decides. Not generated: a quantifier that is not a
/// determiner (see `determiner`: `no more than`, `the most popular`, `at most`, a name or a
/// quotation, after a copula), and one under a negation in its clause (`Not every` → `Not
/// some` reverses the direction and is not English).
pub fn quantifiers(ctx: &HypothesisContext) -> Vec<Perturbation> {
    let h = ctx.hypothesis;
    let ws = words(h);
    let mut out = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let lower_w = lower(w);
        let (after, expected) = match (ctx.gold, lower_w.as_str()) {
            (Label::Entail, "all" | "every" | "most" | "many") => ("some", Label::Entail),
            (Label::Contradict, "some" | "many" | "most") => ("all", Label::Contradict),
            (Label::Entail | Label::Contradict, "no") => ("some", flip(ctx.gold)),
            _ => continue,
        };
        // `all` takes a plural (`all city` is not English).
        // `many years after` → `all years after` is not what anyone writes.
        let span_of_time = matches!(
            ws.get(i + 1).map(lower).as_deref(),
            Some(
                "years" | "times" | "days" | "months" | "decades" | "weeks" | "hours" | "sessions"
            )
        );
        if !determiner(h, &ws, i, &lower_w)
            || (after == "all" && (!plural_ahead(h, &ws, i) || span_of_time))
        {
            continue;
        }
        let neg = negations_around(h, &ws, i, &[i]);
        if neg.before_in_clause > 0 {
            continue;
        }
        // A quantity (not a year or a day) may be a total over all of them.
        let collective = after == "some"
            && (0..ws.len()).any(|k| {
                parse_number(ws[k].core).is_some() && number_role(&ws, k) == NumberRole::Quantity
            });
        let basis = if neg.before_elsewhere > 0 {
            Basis::EarlierNegation
        } else if ctx.gold == Label::Contradict && expected == Label::Entail {
            // §4: every CONTRADICT → ENTAIL flip is annotated by hand; the claim may be false
            // for another reason than `no` (`24 hours a day with no breaks`).
            Basis::FlipToEntail
        } else if lower_w == "no" {
            // A flip holds only when the `no` phrase carries the claim (`… or have no
            // religion` inside a disjunction does not).
            Basis::NoToSome
        } else if neg.after > 0 {
            Basis::Negated
        } else if collective {
            Basis::Collective
        } else {
            Basis::QuantifierMonotone
        };
        // `all the songs` → `some of the songs`: `some` takes no second determiner.
        let after = match ws.get(i + 1).map(lower).as_deref() {
            Some(
                "the" | "its" | "his" | "her" | "their" | "these" | "those" | "this" | "that"
                | "my" | "our" | "your",
            ) if after == "some" => "some of",
            _ => after,
        };
        let after = if w.core.starts_with(char::is_uppercase) {
            let mut c = after.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        } else {
            after.to_string()
        };
        out.push(span_item(
            ctx,
            ProbeKind::Quantifier,
            w.start,
            w.end,
            &after,
            expected,
            basis,
        ));
    }
    out
}
