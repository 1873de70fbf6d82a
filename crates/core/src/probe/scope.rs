//! Where a word of a hypothesis sits, as the hypothesis probes need it to decide whether an
//! expected label is certain (docs/probes-and-metrics.md#hypothesis-probes, issue #11 §3): its clause and sentence, the negations
//! before it, the monotone phrase governing a number (with the negation that reverses it), and
//! whether a number is a day of the month, a year or a quantity.
//!
//! Everything here reads the words of [`words`](super::words::words) and the punctuation
//! between them; offsets are the words' own, so nothing slices user text anywhere else.

use super::words::{parse_number, Word};

/// Words that negate what follows them in their clause (and every `…n't`).
const NEGATIONS: [&str; 11] = [
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "nowhere", "without",
    "cannot",
];

/// Auxiliaries and copulas that may stand between a negation and the phrase it negates
/// (`has never been more than`, `is not over`).
const AUXILIARIES: [&str; 22] = [
    "is", "was", "are", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does",
    "did", "will", "would", "can", "could", "should", "must", "may", "might",
];

/// Words right before a monotone phrase that make it a statement about closeness, not a
/// bound (`just over 50` is false of 90): such items are never certain.
const CLOSENESS: [&str; 17] = [
    "just",
    "only",
    "slightly",
    "barely",
    "hardly",
    "scarcely",
    "exactly",
    "almost",
    "nearly",
    "approximately",
    "roughly",
    "about",
    "around",
    "marginally",
    "precisely",
    "little",
    "bit",
];

/// Words that make a number in their reach a range end, an approximation or a time bound
/// (`since 1994`, `about 60 years`, `until 2012`): moving it does not certainly flip the label.
const HEDGES: [&str; 18] = [
    "since",
    "until",
    "till",
    "through",
    "by",
    "from",
    "between",
    "within",
    "about",
    "around",
    "approximately",
    "roughly",
    "nearly",
    "almost",
    "circa",
    "close",
    "near",
    "some",
];

/// Month names and their usual abbreviations (`may` only capitalised: it is also a verb).
const MONTHS: [&str; 24] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// Words that introduce a year (`in 1979`, `the fall of 1852`, `before 1980`, `early 1970`).
const YEAR_CUES: [&str; 20] = [
    "in", "since", "before", "after", "until", "till", "through", "of", "by", "from", "during",
    "circa", "year", "early", "late", "mid", "middle", "spring", "summer", "between",
];

/// More year cues (seasons spelled otherwise).
const YEAR_CUES_2: [&str; 3] = ["fall", "autumn", "winter"];

/// Words that may link a day of the month to its month (`21 of August`, `6 to the 21 of
/// August`).
const DAY_LINKS: [&str; 8] = ["of", "the", "to", "and", "or", "through", "till", "until"];

/// A word's core, lower-cased for comparison (never sliced or shown).
pub(crate) fn lower(w: &Word) -> String {
    w.core.to_lowercase()
}

/// Whether a (lower-cased) word is a negation: `not`, `no`, `never`, …, or ends in `n't`.
pub(crate) fn is_negation(lower: &str) -> bool {
    NEGATIONS.contains(&lower) || lower.ends_with("n't") || lower.ends_with("n\u{2019}t")
}

/// What separates word `j` from word `j + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gap {
    /// Only spaces (or punctuation that does not end a clause, like `'` or `-`).
    Space,
    /// `,` `;` `:` brackets or a dash: a new clause may start.
    Clause,
    /// `.` `!` `?`, or the end of the text.
    Sentence,
}

fn gap(text: &str, ws: &[Word], j: usize) -> Gap {
    let (Some(a), Some(b)) = (ws.get(j), ws.get(j + 1)) else {
        return Gap::Sentence;
    };
    let between = text.get(a.end..b.start).unwrap_or("");
    if between.contains(['.', '!', '?']) {
        Gap::Sentence
    } else if between.contains([',', ';', ':', '(', ')', '[', ']', '\u{2013}', '\u{2014}']) {
        Gap::Clause
    } else {
        Gap::Space
    }
}

/// The negations of a word's sentence, by where they stand relative to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Negations {
    /// Before the word in its own clause (each one reverses what follows).
    pub before_in_clause: usize,
    /// Before the word, in an earlier clause of the sentence (scope unknown).
    pub before_elsewhere: usize,
    /// After the word, in the same sentence.
    pub after: usize,
}

impl Negations {
    /// Whether the sentence has any negation besides those excluded.
    pub fn any(&self) -> bool {
        self.before_in_clause + self.before_elsewhere + self.after > 0
    }

    /// Whether the negations before the word reverse it (an odd number in its clause).
    pub fn reverses(&self) -> bool {
        self.before_in_clause % 2 == 1
    }
}

/// The negations in the sentence of word `i`, leaving out the words at `skip`.
pub(crate) fn negations_around(text: &str, ws: &[Word], i: usize, skip: &[usize]) -> Negations {
    let mut n = Negations::default();
    let mut in_clause = true;
    for j in (0..i).rev() {
        match gap(text, ws, j) {
            Gap::Sentence => break,
            Gap::Clause => in_clause = false,
            Gap::Space => {}
        }
        if !skip.contains(&j) && is_negation(&lower(&ws[j])) {
            if in_clause {
                n.before_in_clause += 1;
            } else {
                n.before_elsewhere += 1;
            }
        }
    }
    for j in i + 1..ws.len() {
        if gap(text, ws, j - 1) == Gap::Sentence {
            break;
        }
        if !skip.contains(&j) && is_negation(&lower(&ws[j])) {
            n.after += 1;
        }
    }
    n
}

/// Whether word `j` is followed by word `j + 1` with only spaces between.
pub(crate) fn joined(text: &str, ws: &[Word], j: usize) -> bool {
    gap(text, ws, j) == Gap::Space
}

/// Direction of a monotone phrase (Table 2): what moving the number does to the label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Monotone {
    /// `over`, `more than`, `at least`: larger keeps CONTRADICT, smaller keeps ENTAIL.
    Upward,
    /// `under`, `less than`, `fewer than`, `at most`, `up to`: larger keeps ENTAIL, smaller
    /// keeps CONTRADICT.
    Downward,
    /// `before`, `prior to`, `earlier than` a year: later keeps ENTAIL, earlier CONTRADICT.
    Before,
    /// `after`, `later than` a year: later keeps CONTRADICT, earlier ENTAIL.
    After,
}

impl Monotone {
    /// The direction under a negation (`not over` = at most, `not before` = on or after).
    pub fn reversed(self) -> Monotone {
        match self {
            Monotone::Upward => Monotone::Downward,
            Monotone::Downward => Monotone::Upward,
            Monotone::Before => Monotone::After,
            Monotone::After => Monotone::Before,
        }
    }

    /// Whether the phrase speaks of dates (it then governs years only).
    pub fn is_temporal(self) -> bool {
        matches!(self, Monotone::Before | Monotone::After)
    }
}

/// The monotone phrase governing a number, with its direction after negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MonotoneHit {
    /// The direction, reversed once per negation that governs the phrase.
    pub dir: Monotone,
    /// Whether the direction is certain: no closeness word before the phrase, and no
    /// negation in the sentence before it other than one directly negating it (`no more
    /// than`, `is not over`, `has never been more than`).
    pub certain: bool,
    /// The phrase's first word (`over` in `over 16 days`).
    pub first: usize,
}

/// Two-word monotone phrases, matched before one-word ones.
const PHRASES_2: [(&str, &str, Monotone); 19] = [
    ("more", "than", Monotone::Upward),
    ("greater", "than", Monotone::Upward),
    ("larger", "than", Monotone::Upward),
    ("bigger", "than", Monotone::Upward),
    ("higher", "than", Monotone::Upward),
    ("longer", "than", Monotone::Upward),
    ("older", "than", Monotone::Upward),
    ("at", "least", Monotone::Upward),
    ("less", "than", Monotone::Downward),
    ("fewer", "than", Monotone::Downward),
    ("smaller", "than", Monotone::Downward),
    ("shorter", "than", Monotone::Downward),
    ("lower", "than", Monotone::Downward),
    ("younger", "than", Monotone::Downward),
    ("at", "most", Monotone::Downward),
    ("up", "to", Monotone::Downward),
    ("prior", "to", Monotone::Before),
    ("earlier", "than", Monotone::Before),
    ("later", "than", Monotone::After),
];

/// One-word monotone phrases.
const PHRASES_1: [(&str, Monotone); 6] = [
    ("over", Monotone::Upward),
    ("above", Monotone::Upward),
    ("under", Monotone::Downward),
    ("below", Monotone::Downward),
    ("before", Monotone::Before),
    ("after", Monotone::After),
];

/// The monotone phrase right before the number at word `i` (past a date's day and month
/// when the number is its year, and past one article: `over a 2 hour run time`), if any.
pub(crate) fn monotone_at(text: &str, ws: &[Word], i: usize) -> Option<MonotoneHit> {
    let mut anchor = date_start(ws, i);
    if anchor >= 1
        && matches!(lower(&ws[anchor - 1]).as_str(), "a" | "an" | "the")
        && joined(text, ws, anchor - 1)
    {
        anchor -= 1;
    }
    let l = |k: usize| lower(&ws[k]);
    let linked = |k: usize| joined(text, ws, k);
    let two = (anchor >= 2 && linked(anchor - 2) && linked(anchor - 1))
        .then(|| {
            let (a, b) = (l(anchor - 2), l(anchor - 1));
            PHRASES_2
                .iter()
                .find(|(x, y, _)| a == *x && b == *y)
                .map(|p| (anchor - 2, p.2))
        })
        .flatten();
    let one = || {
        (anchor >= 1 && linked(anchor - 1))
            .then(|| {
                let a = l(anchor - 1);
                PHRASES_1
                    .iter()
                    .find(|(x, _)| a == *x)
                    .map(|p| (anchor - 1, p.1))
            })
            .flatten()
    };
    let (first, base) = two.or_else(one)?;
    // A negation directly before the phrase, past auxiliaries only, reverses it exactly.
    let mut direct = None;
    let mut k = first;
    while k >= 1 && linked(k - 1) {
        let w = l(k - 1);
        if is_negation(&w) {
            direct = Some(k - 1);
            break;
        }
        if !AUXILIARIES.contains(&w.as_str()) {
            break;
        }
        k -= 1;
    }
    let close = first >= 1 && linked(first - 1) && CLOSENESS.contains(&l(first - 1).as_str());
    let others = negations_around(text, ws, direct.unwrap_or(first), &[]);
    let mut dir = base;
    if direct.is_some() {
        dir = dir.reversed();
    }
    if others.reverses() {
        dir = dir.reversed();
    }
    let certain = !close && others.before_in_clause == 0 && others.before_elsewhere == 0;
    Some(MonotoneHit {
        dir,
        certain,
        first,
    })
}

/// What a number in a hypothesis stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberRole {
    /// A day of the month (`30 March`, `August 22`, `the 6 to the 21 of August`): never
    /// perturbed as a number.
    Day,
    /// A year, by its context (a month, a full date, `in`/`since`/`before`/`after`/`of` …).
    Year,
    /// Anything else, four-digit numbers included (`over 1500 copies`).
    Quantity,
}

/// Whether a lower-cased word is a month name or its abbreviation (`may` included).
pub(crate) fn is_month_name(lower: &str) -> bool {
    MONTHS.contains(&lower)
}

fn is_month(w: &Word) -> bool {
    let l = w.core.to_lowercase();
    if l == "may" {
        return w.core == "May" || w.core == "MAY";
    }
    MONTHS.contains(&l.as_str())
}

fn day_number(w: &Word) -> bool {
    w.core.len() <= 2
        && w.core.chars().all(|c| c.is_ascii_digit())
        && w.core.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d))
}

fn is_day(ws: &[Word], i: usize) -> bool {
    if !day_number(&ws[i]) {
        return false;
    }
    if i >= 1 && is_month(&ws[i - 1]) {
        return true; // `March 30`, `on August 22, 2016`
    }
    // `30 March`, `21 of August`, `6 to the 21 of August`.
    for w in ws.iter().skip(i + 1).take(6) {
        if is_month(w) {
            return true;
        }
        if !(DAY_LINKS.contains(&lower(w).as_str()) || day_number(w)) {
            return false;
        }
    }
    false
}

fn four_digit_year_shape(w: &Word) -> bool {
    w.core.len() == 4
        && w.core.chars().all(|c| c.is_ascii_digit())
        && matches!(w.core.as_bytes().first(), Some(b'1' | b'2'))
}

fn is_year(ws: &[Word], i: usize) -> bool {
    if !four_digit_year_shape(&ws[i]) || i == 0 {
        return false;
    }
    let prev = &ws[i - 1];
    let p = lower(prev);
    if is_month(prev) || YEAR_CUES.contains(&p.as_str()) || YEAR_CUES_2.contains(&p.as_str()) {
        return true;
    }
    if i >= 2 {
        let p2 = lower(&ws[i - 2]);
        // `March 30, 1979`; `prior to 1980`, `earlier than 1980`, `later than 1970`.
        if (day_number(prev) && is_month(&ws[i - 2]))
            || matches!(
                (p2.as_str(), p.as_str()),
                ("prior", "to") | ("earlier", "than") | ("later", "than")
            )
        {
            return true;
        }
    }
    false
}

/// The role of the number at word `i`.
pub(crate) fn number_role(ws: &[Word], i: usize) -> NumberRole {
    if is_day(ws, i) {
        NumberRole::Day
    } else if is_year(ws, i) {
        NumberRole::Year
    } else {
        NumberRole::Quantity
    }
}

/// The first word of the date whose year is at word `i` (`30 March 1979`, `March 30, 1979`,
/// `30 of March 1979`); `i` itself when the number is not a dated year.
fn date_start(ws: &[Word], i: usize) -> usize {
    if !is_year(ws, i) {
        return i;
    }
    let mut s = i;
    if s >= 1 && is_month(&ws[s - 1]) {
        s -= 1;
        if s >= 1 && day_number(&ws[s - 1]) {
            s -= 1;
        } else if s >= 2 && lower(&ws[s - 1]) == "of" && day_number(&ws[s - 2]) {
            s -= 2;
        }
    } else if s >= 2 && day_number(&ws[s - 1]) && is_month(&ws[s - 2]) {
        s -= 2;
    }
    s
}

/// Whether the number at word `i` is hedged: a hedge word (`since`, `about`, `until`, …)
/// among the two words before it, `between` earlier in its clause, or the upper end of a
/// range (`1960 and 1970`, `6 to 21`).
pub(crate) fn hedged(text: &str, ws: &[Word], i: usize) -> bool {
    let mut k = i;
    let mut reach = 0;
    while k >= 1 && joined(text, ws, k - 1) {
        k -= 1;
        reach += 1;
        let w = lower(&ws[k]);
        if (reach <= 2 && HEDGES.contains(&w.as_str())) || w == "between" {
            return true;
        }
        if reach == 2
            && parse_number(ws[k].core).is_some()
            && matches!(lower(&ws[k + 1]).as_str(), "to" | "and" | "or")
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::words::words;
    use super::*;

    fn hit(h: &str, number: &str) -> Option<MonotoneHit> {
        let ws = words(h);
        let i = ws.iter().position(|w| w.core == number).unwrap();
        monotone_at(h, &ws, i).map(|m| MonotoneHit { first: 0, ..m })
    }

    fn role(h: &str, number: &str) -> NumberRole {
        let ws = words(h);
        let i = ws.iter().position(|w| w.core == number).unwrap();
        number_role(&ws, i)
    }

    #[test]
    fn monotone_phrases_and_their_negations() {
        let up = |certain| {
            Some(MonotoneHit {
                dir: Monotone::Upward,
                certain,
                first: 0,
            })
        };
        let down = |certain| {
            Some(MonotoneHit {
                dir: Monotone::Downward,
                certain,
                first: 0,
            })
        };
        assert_eq!(hit("It is over 46 minutes long.", "46"), up(true));
        assert_eq!(hit("It is no more than 47 minutes long.", "47"), down(true));
        assert_eq!(hit("It is not over 1 hour long.", "1"), down(true));
        assert_eq!(hit("It isn't over 1 hour long.", "1"), down(true));
        assert_eq!(
            hit("It has never been more than 47 minutes.", "47"),
            down(true)
        );
        assert_eq!(hit("It is at most 50 minutes.", "50"), down(true));
        assert_eq!(hit("It is up to 50 minutes.", "50"), down(true));
        assert_eq!(hit("It is at least 40 minutes.", "40"), up(true));
        assert_eq!(hit("It has fewer than 3 producers.", "3"), down(true));
        assert_eq!(hit("It has no fewer than 2 producers.", "2"), up(true));
        assert_eq!(hit("It has over a 2 hour run time.", "2"), up(true));
        // A negation further away reverses the direction, but its scope is a guess.
        assert_eq!(
            hit("It did not last more than 47 minutes.", "47"),
            down(false)
        );
        // A negation in another clause: direction kept, not certain.
        assert_eq!(
            hit("It is not jazz, and is over 40 minutes.", "40"),
            up(false)
        );
        // Closeness is not a bound.
        assert_eq!(hit("It is just over 46 minutes.", "46"), up(false));
        // A negation after the phrase does not reverse the number's direction.
        assert_eq!(hit("More than 5 songs were not recorded.", "5"), up(true));
        assert_eq!(hit("It has 46 minutes.", "46"), None);
        // `before` reaches the year of a full date.
        assert_eq!(
            hit("It came out before 30 March 1979.", "1979"),
            Some(MonotoneHit {
                dir: Monotone::Before,
                certain: true,
                first: 0,
            })
        );
        assert_eq!(
            hit("It came out not before March 30, 1979.", "1979"),
            Some(MonotoneHit {
                dir: Monotone::After,
                certain: true,
                first: 0,
            })
        );
    }

    #[test]
    fn days_years_and_quantities() {
        assert_eq!(role("before 30 March 1979", "30"), NumberRole::Day);
        assert_eq!(role("before 30 March 1979", "1979"), NumberRole::Year);
        assert_eq!(role("on August 22, 2016", "22"), NumberRole::Day);
        assert_eq!(role("on August 22, 2016", "2016"), NumberRole::Year);
        assert_eq!(
            role("between the 6 to the 21 of August", "6"),
            NumberRole::Day
        );
        assert_eq!(
            role("between the 6 to the 21 of August", "21"),
            NumberRole::Day
        );
        assert_eq!(role("in the fall of 1852", "1852"), NumberRole::Year);
        assert_eq!(role("sold over 1500 copies", "1500"), NumberRole::Quantity);
        assert_eq!(role("at the 2016 Olympics", "2016"), NumberRole::Quantity);
        assert_eq!(
            role("from 7 countries in 10 events", "7"),
            NumberRole::Quantity
        );
        assert_eq!(role("it may 5 times", "5"), NumberRole::Quantity);
        assert_eq!(role("on May 5", "5"), NumberRole::Day);
    }

    #[test]
    fn negations_by_clause() {
        let h = "It is not jazz, it is never over 40 and it isn't long.";
        let ws = words(h);
        let i = ws.iter().position(|w| w.core == "40").unwrap();
        assert_eq!(
            negations_around(h, &ws, i, &[]),
            Negations {
                before_in_clause: 1,
                before_elsewhere: 1,
                after: 1
            }
        );
    }

    #[test]
    fn hedges() {
        let at = |h: &str, n: &str| {
            let ws = words(h);
            let i = ws.iter().position(|w| w.core == n).unwrap();
            hedged(h, &ws, i)
        };
        assert!(at("active since 1994", "1994"));
        assert!(at("for about 60 years", "60"));
        assert!(at("between middle 1960 and early 1970", "1970"));
        assert!(at("from 6 to 21 August", "21"));
        assert!(!at("released at the end of 1979", "1979"));
        assert!(!at("a length of 46 minutes", "46"));
    }
}
