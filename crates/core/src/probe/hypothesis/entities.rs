//! Named entities (§4): a table value in the hypothesis swapped for another table's value of
//! the same key.

use super::{falsified, span_item, title_span, HypothesisContext};
use crate::data::label::Label;
use crate::data::table::Table;
use crate::probe::edit_table::KeyIndex;
use crate::probe::phrase::{overlaps_as_words, phrase_matches};
use crate::probe::scope::negations_around;
use crate::probe::sentence::{is_name_key, is_subject, key_echoed, same_shape, shares_a_stem};
use crate::probe::words::{parse_number, words};
use crate::probe::{Basis, Perturbation};
use crate::probe_kind::ProbeKind;
use crate::rng::Rng;

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
            let usable = found
                .iter()
                .find(|&&(s, e)| title.is_none_or(|(a, b)| e <= a || b <= s || (a, b) == (s, e)));
            let Some(&(s, e)) = usable else {
                continue;
            };
            if spans.iter().any(|sp| s < sp.end && sp.start < e) {
                continue;
            }
            let pool: Vec<(&str, &String)> = ctx
                .index
                .values_elsewhere(&row.key, &t.id)
                .map(|(id, x)| (id.as_str(), x))
                .filter(|(_, x)| {
                    let x = x.trim().to_lowercase();
                    !x.is_empty() && !own.contains(&x)
                })
                .collect();
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
