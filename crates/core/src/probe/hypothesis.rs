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

use super::edit_table::KeyIndex;
use super::phrase::{find_phrase, overlaps_as_words, phrase_matches};
use super::scope::{
    hedged, joined, lower, monotone_at, negations_around, number_role, Monotone, Negations,
    NumberRole,
};
use super::words::{format_number, numbers_in, parse_number, splice, words, Word};
use super::{Certainty, Edit, Expectation, Perturbation, Premise, ProbeInput, ProbeKind};
use crate::data::label::Label;
use crate::data::table::Table;
use crate::rng::Rng;

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

fn flip(l: Label) -> Label {
    match l {
        Label::Entail => Label::Contradict,
        Label::Contradict => Label::Entail,
        Label::Neutral => Label::Neutral,
    }
}

fn span_item(
    ctx: &HypothesisContext,
    probe: ProbeKind,
    start: usize,
    end: usize,
    after: &str,
    expected: Label,
    certainty: Certainty,
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
        certainty,
    }
}

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

/// Where the table's title (key–value) or caption (relational) is mentioned in the
/// hypothesis: numbers inside it name the entity (`Judwaa 2`), they are not quantities.
fn title_span(ctx: &HypothesisContext) -> Option<(usize, usize)> {
    ctx.table()
        .and_then(|t| find_phrase(ctx.hypothesis, t.title().trim()))
}

fn inside(w: &Word, span: Option<(usize, usize)>) -> bool {
    span.is_some_and(|(s, e)| w.start < e && s < w.end)
}

/// A number word the number probes may move: a number, not a day of the month, not part of
/// the title mention.
fn movable(ctx: &HypothesisContext, ws: &[Word], i: usize) -> Option<(f64, NumberRole)> {
    let x = parse_number(ws[i].core)?;
    let role = number_role(ws, i);
    (role != NumberRole::Day && !inside(&ws[i], title_span(ctx))).then_some((x, role))
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
        let certainty = if hit.certain {
            Certainty::Certain
        } else {
            Certainty::Heuristic
        };
        out.push(span_item(
            ctx,
            ProbeKind::MonotoneNumber,
            w.start,
            w.end,
            &keep,
            ctx.gold,
            certainty,
        ));
        out.push(span_item(
            ctx,
            ProbeKind::MonotoneNumber,
            w.start,
            w.end,
            &flipped,
            flip(ctx.gold),
            Certainty::Heuristic,
        ));
    }
    out
}

/// The label a statement gets when one of its facts is made false: CONTRADICT, or ENTAIL
/// when a negation before it in its clause denies the (now false) fact.
fn falsified(neg: &Negations) -> Label {
    if neg.reverses() {
        Label::Entail
    } else {
        Label::Contradict
    }
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
        let (expected, certainty) = if neg.any() {
            (falsified(&neg), Certainty::Heuristic)
        } else if ctx.gold == Label::Entail
            && table_numbers.contains(&x)
            && !bounded
            && !hedged(h, &ws, i)
        {
            (Label::Contradict, Certainty::Certain)
        } else {
            (Label::Contradict, Certainty::Heuristic)
        };
        out.push(span_item(
            ctx,
            ProbeKind::PlainNumber,
            w.start,
            w.end,
            &format_number(x + 10.0),
            expected,
            certainty,
        ));
    }
    out
}

fn table_text(t: &Table) -> String {
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

/// One matched span of a named-entity swap, before its replacement is drawn.
struct EntitySpan<'a> {
    start: usize,
    end: usize,
    /// The row's values (the matched one included).
    row_values: &'a [String],
    /// Same-key values of other tables the table does not hold.
    pool: Vec<&'a String>,
}

/// Whether swapping `[s, e)` for `after` certainly makes the hypothesis false: `after` is not
/// contained in, and does not contain, any value of the same row or any other span of the
/// hypothesis (its other table values and its title mention), as whole words ignoring case;
/// does not occur elsewhere in the hypothesis; and the span is not a part of the title mention.
fn swap_is_clean(
    h: &str,
    (s, e): (usize, usize),
    after: &str,
    row_values: &[String],
    others: &[(usize, usize)],
    title: Option<(usize, usize)>,
) -> bool {
    let disjoint = |&(a, b): &(usize, usize)| b <= s || e <= a;
    let row_ok = row_values.iter().all(|v| !overlaps_as_words(after, v));
    let spans_ok = others
        .iter()
        .chain(title.iter())
        .filter(|sp| disjoint(sp))
        .all(|&(a, b)| !overlaps_as_words(after, &h[a..b]));
    let elsewhere = phrase_matches(h, after)
        .iter()
        .any(|&(a, b)| a < s || e < b);
    let part_of_title = title.is_some_and(|t| !disjoint(&t) && t != (s, e));
    row_ok && spans_ok && !elsewhere && !part_of_title
}

/// Named entities: a span of the hypothesis equal (as whole words, ignoring case) to a value
/// of the example's own table is replaced by a value of the same key from another table (one
/// the table does not hold): ENTAIL → CONTRADICT. The table tells us the span's type (§4's
/// parser step). Certain only when the swap is clean (see `swap_is_clean`: "pop" → "rock" is
/// heuristic when the row holds "art rock") and the sentence has no negation (with one before
/// the span in its clause the expected label is ENTAIL, heuristic).
pub fn named_entities(ctx: &HypothesisContext, rng: &mut Rng) -> Vec<Perturbation> {
    let Some(Table::KeyValue(t)) = ctx.table() else {
        return Vec::new();
    };
    if ctx.gold != Label::Entail {
        return Vec::new();
    }
    let h = ctx.hypothesis;
    let own: Vec<String> = t
        .rows
        .iter()
        .flat_map(|r| &r.values)
        .map(|v| v.trim().to_lowercase())
        .collect();
    // Every mention of a table value: the hypothesis's other spans.
    let mentions: Vec<(usize, usize)> = t
        .rows
        .iter()
        .flat_map(|r| &r.values)
        .flat_map(|v| phrase_matches(h, v.trim()))
        .collect();
    let title = title_span(ctx);
    // First the spans (in row and value order), then one seeded draw per span in that order.
    let mut spans: Vec<EntitySpan> = Vec::new();
    for row in &t.rows {
        for v in &row.values {
            let v = v.trim();
            // Numbers belong to the number probes; very short values match by accident.
            if v.chars().count() < 3 || parse_number(v).is_some() {
                continue;
            }
            // The first mention outside the title when there is one: `Chance The Rapper is an
            // American rapper` swaps the occupation, not a word of the name.
            let found = phrase_matches(h, v);
            let outside_title = found
                .iter()
                .find(|&&(s, e)| title.is_none_or(|(a, b)| e <= a || b <= s));
            let Some(&(s, e)) = outside_title.or(found.first()) else {
                continue;
            };
            if spans.iter().any(|sp| s < sp.end && sp.start < e) {
                continue;
            }
            let pool: Vec<&String> = ctx
                .index
                .keys
                .get(&row.key)
                .map(|srcs| {
                    srcs.iter()
                        .filter(|(id, _)| id != &t.id)
                        .flat_map(|(_, vs)| vs)
                        .filter(|x| {
                            let x = x.trim().to_lowercase();
                            !x.is_empty() && !own.contains(&x)
                        })
                        .collect()
                })
                .unwrap_or_default();
            if pool.is_empty() {
                continue;
            }
            spans.push(EntitySpan {
                start: s,
                end: e,
                row_values: &row.values,
                pool,
            });
        }
    }
    let ws = words(h);
    let mut out = Vec::new();
    for sp in spans {
        let after = sp.pool[rng.below(sp.pool.len())].trim().to_string();
        let others: Vec<(usize, usize)> = mentions
            .iter()
            .copied()
            .filter(|&m| m != (sp.start, sp.end))
            .collect();
        let first_word = ws.iter().position(|w| w.end > sp.start).unwrap_or(0);
        let neg = negations_around(h, &ws, first_word, &[]);
        let clean = swap_is_clean(h, (sp.start, sp.end), &after, sp.row_values, &others, title);
        let (expected, certainty) = if neg.any() {
            (falsified(&neg), Certainty::Heuristic)
        } else if clean {
            (Label::Contradict, Certainty::Certain)
        } else {
            (Label::Contradict, Certainty::Heuristic)
        };
        out.push(span_item(
            ctx,
            ProbeKind::NamedEntity,
            sp.start,
            sp.end,
            &after,
            expected,
            certainty,
        ));
    }
    out
}

const AUXILIARIES: [&str; 16] = [
    "is", "was", "are", "were", "has", "have", "had", "did", "does", "do", "can", "could", "will",
    "would", "should", "must",
];

/// Words before the auxiliary that make negating it not negate the claim: an existential or
/// counting subject (`Some songs are not pop` may be as true as `Some songs are pop`) or a
/// subordinate clause the auxiliary belongs to (`The album that was recorded …`).
const WEAK_SUBJECT: [&str; 21] = [
    "some", "many", "few", "several", "any", "that", "which", "who", "whom", "whose", "where",
    "when", "if", "because", "although", "though", "while", "whether", "since", "after", "until",
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
/// sentence (a double negation reads otherwise) and no existential subject or subordinate
/// clause before the auxiliary (see `WEAK_SUBJECT`, `WEAK_OPENING`). CONTRADICT → ENTAIL always needs review
/// (§4: annotated manually).
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
        if ctx.gold == Label::Entail && !weak && !negations_around(h, &ws, i, removed).any() {
            Certainty::Certain
        } else {
            Certainty::Heuristic
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

/// Nominal modifiers: a true single-valued fact of the table attached to the title mention
/// (`Breakfast in America, whose label is A&M, is …`): label-preserving, certain.
pub fn nominal_modifiers(ctx: &HypothesisContext, rng: &mut Rng) -> Vec<Perturbation> {
    let Some(Table::KeyValue(t)) = ctx.table() else {
        return Vec::new();
    };
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let Some((_, e)) = find_phrase(ctx.hypothesis, t.title.trim()) else {
        return Vec::new();
    };
    let facts: Vec<(&str, &str)> = t
        .rows
        .iter()
        .filter(|r| r.values.len() == 1 && !r.key.trim().is_empty())
        .map(|r| (r.key.trim(), r.values[0].trim()))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    if facts.is_empty() {
        return Vec::new();
    }
    let (k, v) = facts[rng.below(facts.len())];
    let modifier = format!(", whose {} is {},", k.to_lowercase(), v);
    vec![span_item(
        ctx,
        ProbeKind::NominalModifier,
        e,
        e,
        &modifier,
        ctx.gold,
        Certainty::Certain,
    )]
}

/// Comparatives and other words after which `no` is not a determiner (`no more than`, `no
/// longer`, `no one`): `no` → `some` would not be English there.
const NOT_A_NOUN_AFTER_NO: [&str; 21] = [
    "more", "less", "fewer", "longer", "later", "earlier", "sooner", "better", "worse", "greater",
    "larger", "smaller", "higher", "lower", "bigger", "older", "younger", "matter", "doubt", "way",
    "one",
];

/// Whether the quantifier at word `i` is a determiner the substitution can replace: followed
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
    match q {
        "no" => {
            !NOT_A_NOUN_AFTER_NO.contains(&next_l.as_str())
                && !next_l.ends_with("er")
                && ws.get(i + 2).is_none_or(|w| lower(w) != "than")
        }
        "most" => {
            !matches!(
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
            ) && !prev.ends_with("'s")
                && !prev.ends_with("\u{2019}s")
        }
        "many" => !matches!(prev.as_str(), "as" | "how" | "so" | "too" | "that" | "this"),
        "all" => !matches!(
            prev.as_str(),
            "at" | "they" | "we" | "you" | "them" | "us" | "these" | "those"
        ),
        "some" => parse_number(next.core).is_none(),
        _ => true,
    }
}

/// Quantifiers: `all`/`every`/`most`/`many` → `some` (`some of` before a determiner: `all the
/// songs` → `some of the songs`) keeps ENTAIL; `some`/`many`/`most` →
/// `all` keeps CONTRADICT; `no` → `some` flips the label. These follow from the quantifiers'
/// monotonicity when the restrictor is non-empty, which INFOTABS hypotheses assume, and are
/// certain when the quantifier is a determiner (see `determiner`) and no negation stands
/// before it in the sentence. Not generated: a quantifier that is not a determiner (`no more
/// than`, `the most popular`, `at most`), and one under a negation in its clause (`Not every`
/// → `Not some` reverses the direction and is not English). A negation before it in an
/// earlier clause of the sentence makes the item heuristic (its scope is a guess).
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
        if !determiner(h, &ws, i, &lower_w) {
            continue;
        }
        let neg = negations_around(h, &ws, i, &[i]);
        if neg.before_in_clause > 0 {
            continue;
        }
        let certainty = if neg.before_elsewhere > 0 {
            Certainty::Heuristic
        } else {
            Certainty::Certain
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
            certainty,
        ));
    }
    out
}
