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
use super::sentence::{
    count_after, is_name_key, is_subject, key_echoed, modifier_slot, noun_key, over_a_duration,
    plain_value, restricts_subject, same_shape, second_verb_after,
};
use super::words::{format_number, numbers_in, parse_number, splice, words, Word};
use super::{Basis, Edit, Expectation, Perturbation, Premise, ProbeInput, ProbeKind};
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
    let capital_not_month =
        |w: &Word| w.core.starts_with(char::is_uppercase) && !super::scope::is_month_name(&lower(w));
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
        let month = ws.iter().any(|w| super::scope::is_month_name(&lower(w)));
        has_year && (month || ws.len() == 1)
    })
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
    /// The row's key.
    key: &'a str,
    /// The row's values (the matched one included).
    row_values: &'a [String],
    /// Same-key values of other tables the table does not hold, with their table's id.
    pool: Vec<(&'a str, &'a String)>,
}

/// Whether `after` shares a word with `text`, ignoring case and the endings that make a
/// gendered or agent form (`actress`/`actor`, `producer`/`produce`): a near-form of a value
/// the table holds is not a false fact.
fn shares_a_stem(after: &str, text: &str) -> bool {
    fn stem(w: &str) -> String {
        let w = w.to_lowercase();
        for suffix in ["resses", "ress", "esses", "ess", "ers", "er", "ors", "or", "s"] {
            if let Some(s) = w.strip_suffix(suffix) {
                if s.chars().count() >= 3 {
                    return s.to_string();
                }
            }
        }
        w
    }
    let stems: Vec<String> = words(text).iter().map(|w| stem(w.core)).collect();
    words(after)
        .iter()
        .filter(|w| w.core.chars().count() >= 3)
        .any(|w| stems.contains(&stem(w.core)))
}

/// Whether swapping `[s, e)` for `after` certainly makes the hypothesis false as far as the
/// words go: `after` is not contained in, does not contain, and shares no word stem with any
/// value of the table, its title or any other span of the hypothesis (its other table values);
/// and does not occur elsewhere in the hypothesis.
fn swap_is_clean(
    h: &str,
    (s, e): (usize, usize),
    after: &str,
    table_values: &[&str],
    others: &[(usize, usize)],
) -> bool {
    let disjoint = |&(a, b): &(usize, usize)| b <= s || e <= a;
    let table_ok = table_values
        .iter()
        .all(|v| !overlaps_as_words(after, v) && !shares_a_stem(after, v));
    let spans_ok = others
        .iter()
        .filter(|sp| disjoint(sp))
        .all(|&(a, b)| !overlaps_as_words(after, &h[a..b]));
    let elsewhere = phrase_matches(h, after)
        .iter()
        .any(|&(a, b)| a < s || e < b);
    table_ok && spans_ok && !elsewhere
}

/// The span's start and its replacement with the indefinite article before it made to agree
/// (`a Hindi-language` → `an English-language`): the article joins the edited span when the
/// replacement changes it.
fn with_article(h: &str, start: usize, after: &str) -> (usize, String) {
    let before = &h[..start];
    let article = ["a ", "an ", "A ", "An "].into_iter().find(|a| {
        before.ends_with(a)
            && before[..before.len() - a.len()]
                .chars()
                .last()
                .is_none_or(|c| !c.is_alphanumeric())
    });
    let Some(a) = article else {
        return (start, after.to_string());
    };
    let vowel = after
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    let capital = a.starts_with('A');
    let want = match (vowel, capital) {
        (true, true) => "An ",
        (true, false) => "an ",
        (false, true) => "A ",
        (false, false) => "a ",
    };
    if want == a {
        (start, after.to_string())
    } else {
        (start - a.len(), format!("{want}{after}"))
    }
}

/// Keys two tables share: tables of one kind (two films, two people) share many; a
/// university and a beer share `Type` and little else, and there the key means another
/// thing. A donor table is of the same kind when it shares at least three keys and a third
/// of the table's keys.
fn same_kind(index: &KeyIndex, table: &crate::data::table::KeyValueTable, donor: &str) -> bool {
    let shared = table
        .rows
        .iter()
        .filter(|r| {
            index
                .keys
                .get(&r.key)
                .is_some_and(|srcs| srcs.iter().any(|(id, _)| id == donor))
        })
        .count();
    shared >= 3 && 3 * shared >= table.rows.len()
}

/// Named entities (§4's parser step: the table tells a span's type): a span of the hypothesis
/// equal (as whole words, ignoring case) to a value of the example's own table, outside the
/// title mention, is replaced by a value of the same key from another table (one the table
/// does not hold): ENTAIL → CONTRADICT. A value inside the title mention (`Jefferson
/// Starship`) is never swapped: the new sentence would not be English.
///
/// Certain only when the replacement states a false fact about the table's own subject:
/// no negation in the sentence; the span is not what the sentence is about (its opening noun
/// phrase or a possessor: swapping it describes another entity, NEUTRAL); the row is not a
/// name row (`Birth name`, `Also known as`); the row holds one value (a list row's
/// replacement may be a near-synonym, or the list read as open); the donor table is of the
/// same kind (see `same_kind`) and the replacement has the value's shape
/// (`sentence::same_shape`); the sentence states the row's relation (`sentence::key_echoed`:
/// `directed by X` for `Directed by`, not `on the same side as X` for `Supporting character
/// of`); and the swap is clean (see `swap_is_clean`). Every other item
/// is heuristic, its [`Basis`] saying what a reviewer decides.
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
    let table_values: Vec<&str> = t
        .rows
        .iter()
        .flat_map(|r| &r.values)
        .map(|v| v.trim())
        .chain(std::iter::once(t.title.trim()))
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
            // The first mention outside the title mention (`Chance The Rapper is an American
            // rapper` swaps the occupation, not a word of the name); the whole title mention
            // may be swapped (it is the sentence's subject, so heuristic), a part of it never.
            let found = phrase_matches(h, v);
            let usable = found.iter().find(|&&(s, e)| {
                title.is_none_or(|(a, b)| e <= a || b <= s || (a, b) == (s, e))
            });
            let Some(&(s, e)) = usable else {
                continue;
            };
            if spans.iter().any(|sp| s < sp.end && sp.start < e) {
                continue;
            }
            let pool: Vec<(&str, &String)> = ctx
                .index
                .keys
                .get(&row.key)
                .map(|srcs| {
                    srcs.iter()
                        .filter(|(id, _)| id != &t.id)
                        .flat_map(|(id, vs)| vs.iter().map(move |x| (id.as_str(), x)))
                        .filter(|(_, x)| {
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
                key: &row.key,
                row_values: &row.values,
                pool,
            });
        }
    }
    let ws = words(h);
    let mut out = Vec::new();
    for sp in spans {
        let (donor, after) = sp.pool[rng.below(sp.pool.len())];
        let after = after.trim().to_string();
        let others: Vec<(usize, usize)> = mentions
            .iter()
            .copied()
            .filter(|&m| m != (sp.start, sp.end))
            .collect();
        let first_word = ws.iter().position(|w| w.end > sp.start).unwrap_or(0);
        let neg = negations_around(h, &ws, first_word, &[]);
        let (expected, basis) = if neg.any() {
            (falsified(&neg), Basis::Negated)
        } else if is_subject(h, &ws, sp.start, sp.end) {
            (Label::Contradict, Basis::Subject)
        } else if is_name_key(sp.key) {
            (Label::Contradict, Basis::NameRow)
        } else if sp.row_values.len() != 1 {
            (Label::Contradict, Basis::ListRow)
        } else if !same_kind(ctx.index, t, donor) || !same_shape(&h[sp.start..sp.end], &after) {
            (Label::Contradict, Basis::OtherKindOfTable)
        } else if !key_echoed(h, sp.key, sp.start, sp.end) {
            (Label::Contradict, Basis::OtherRelation)
        } else if !swap_is_clean(h, (sp.start, sp.end), &after, &table_values, &others) {
            (Label::Contradict, Basis::Overlaps)
        } else {
            (Label::Contradict, Basis::EntityReplaced)
        };
        let (start, after) = with_article(h, sp.start, &after);
        out.push(span_item(
            ctx,
            ProbeKind::NamedEntity,
            start,
            sp.end,
            &after,
            expected,
            basis,
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

/// Adverbs that make a quantifier part of a degree phrase (`virtually all`, `almost every`).
const ADVERBS_BEFORE_QUANTIFIER: [&str; 8] = [
    "virtually", "almost", "nearly", "practically", "basically", "essentially", "just", "only",
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
            !matches!(next_l.as_str(), "at" | "in") && !matches!(
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
        // Not floating (`Social workers all went`): after a plural noun `all` is no determiner.
        "all" => {
            !matches!(
                prev.as_str(),
                "at" | "they" | "we" | "you" | "them" | "us" | "these" | "those"
            ) && !(prev.ends_with('s')
                && !matches!(prev.as_str(), "is" | "was" | "has" | "its" | "his" | "as" | "this"))
        }
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
