//! The little sentence structure the hypothesis probes need beyond string matching
//! (docs/probes-and-metrics.md#hypothesis-probes): whether a span is what the sentence is
//! about, whether a table key reads as a noun after `whose`, where a modifier can be attached
//! as English, whether `over` heads a duration, and what follows a negated auxiliary.
//!
//! Deliberately conservative: each function answers "yes" only on shapes seen to be safe on
//! real INFOTABS hypotheses; anything else makes an item heuristic or not generated.

use super::scope::{is_negation, lower};
use super::words::{parse_number, Word};

/// Determiners that may open a subject before the span (`The Louvre …`).
const OPENERS: [&str; 3] = ["the", "a", "an"];

/// Whether `[start, end)` is what the sentence is about: the sentence's first noun phrase
/// (its first words, past an opening determiner), or a possessor (`X's real name`).
/// Swapping such a span makes the sentence describe another entity, which the table does
/// not describe (NEUTRAL), not a false fact about this one.
pub(crate) fn is_subject(text: &str, ws: &[Word], start: usize, end: usize) -> bool {
    let first_content = ws
        .iter()
        .position(|w| !OPENERS.contains(&lower(w).as_str()))
        .unwrap_or(0);
    let opens = ws
        .get(first_content)
        .is_some_and(|w| w.start >= start && w.start < end);
    // After a fronted clause (`Used for extensive form games, the Ultimatum game is …`): the
    // first content word after the first comma.
    let fronted = text
        .get(..start)
        .and_then(|b| b.find(','))
        .is_some_and(|comma| {
            ws.iter()
                .filter(|w| w.start > comma)
                .find(|w| !OPENERS.contains(&lower(w).as_str()))
                .is_some_and(|w| w.start >= start && w.start < end)
        });
    let opens = opens || fronted;
    let possessor = text
        .get(end..)
        .is_some_and(|rest| rest.starts_with("'s") || rest.starts_with("\u{2019}s"));
    opens || possessor
}

/// Keys whose value names the entity itself (another value names another entity).
pub(crate) fn is_name_key(key: &str) -> bool {
    let k = key.to_lowercase();
    ["name", "known as", "alias", "born", "nickname", "title"]
        .iter()
        .any(|n| k.contains(n))
}

/// Last words that make a key a verb or a prepositional phrase, not a noun (`Directed by`,
/// `Born`, `Also known as`, `Years active`).
const NOT_NOUN_ENDINGS: [&str; 16] = [
    "by", "of", "as", "in", "for", "to", "with", "from", "on", "at", "born", "active", "known",
    "held", "built", "written",
];

/// Keys that name an activity whose value is a person (`whose cinematography is Yves
/// Belanger` equates a person with an activity).
const ACTIVITY_KEYS: [&str; 9] = [
    "cinematography",
    "music",
    "editing",
    "screenplay",
    "story",
    "narration",
    "choreography",
    "animation",
    "design",
];

/// The key as a noun phrase for `whose {key} is {value}`, or `None` when the key is not a
/// singular noun phrase of letters: a verb or participle (`Died`, `Released`, `Directed
/// by`), a plural (`Genres`, `Children`: `whose genres is` is not English), or a key with
/// brackets or digits (`Spouse(s)`). Acronyms keep their case (`MP`).
pub(crate) fn noun_key(key: &str) -> Option<String> {
    let key = key.trim();
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '\'')
    {
        return None;
    }
    // The head noun: the last word, or the first of `years of service`.
    let lower_key = key.to_lowercase();
    let head = lower_key.split(" of ").next().unwrap_or(&lower_key);
    let last = head.split_whitespace().last()?.to_string();
    if ACTIVITY_KEYS.iter().any(|a| lower_key.contains(a)) {
        return None;
    }
    // Any plural word (`Fields ofemployment`): `whose fields … is` is not English.
    let plural_word = |w: &str| {
        w.ends_with('s') && !["ss", "us", "is"].iter().any(|e| w.ends_with(e)) && w.len() > 3
    };
    if lower_key.split_whitespace().any(plural_word) {
        return None;
    }
    let plural = last.ends_with('s') && !["ss", "us", "is"].iter().any(|e| last.ends_with(e))
        || matches!(last.as_str(), "children" | "people" | "alumni" | "media");
    if NOT_NOUN_ENDINGS.contains(&last.as_str()) || last.ends_with("ed") || plural {
        return None;
    }
    Some(if key.chars().all(|c| !c.is_lowercase()) {
        key.to_string()
    } else {
        key.to_lowercase()
    })
}

/// Whether a table value can stand after `whose {key} is` as a plain phrase: short, one
/// line, without bracketed dates or notes (`13 May 1985 (1985-05-13)`), commas (a list:
/// `Actor, comedian`, whose comma would end the clause), placeholders (`List of awards and
/// nominations`), or a year after a key that does not name a date.
pub(crate) fn plain_value(key: &str, v: &str) -> bool {
    let v = v.trim();
    let words = v.split_whitespace().count();
    let k = key.to_lowercase();
    // A date stands after a key that names a date (`whose current constitution is 10 June
    // 1980` equates a document with a day).
    let dated = v.split(|c: char| !c.is_ascii_digit()).any(|d| d.len() == 4)
        || v.split_whitespace()
            .any(|w| super::scope::is_month_name(&w.to_lowercase()));
    let date_key = ["date", "year", "founded", "established", "opened", "period"]
        .iter()
        .any(|d| k.contains(d));
    (1..=6).contains(&words)
        && (!dated || date_key)
        && !v.contains(['(', ')', '[', ']', ';', '\n', '|', ','])
        && !v.to_lowercase().starts_with("list of")
        && !v.to_lowercase().starts_with("see ")
}

/// Past-tense and present verbs common right after a subject in INFOTABS hypotheses, beyond
/// the auxiliaries and `-ed` forms (which are taken as verbs too).
const VERBS: [&str; 40] = [
    "is", "was", "are", "were", "has", "had", "have", "does", "did", "can", "could", "will",
    "would", "became", "began", "won", "made", "took", "wrote", "sang", "grew", "went", "came",
    "held", "led", "left", "met", "ran", "saw", "sold", "spent", "got", "gave", "lives", "plays",
    "contains", "includes", "features", "consists", "makes",
];

/// Where a modifier can follow the title mention ending at byte `end` as English: `Some(true)`
/// when a verb follows (the modifier needs a closing comma), `Some(false)` at the end of the
/// sentence or before punctuation (no closing comma: `…, whose label is A&M.`), `None`
/// elsewhere — before `'s` (`X, whose …,'s run time`), inside a longer name or noun phrase
/// (`the Jeffery album`).
pub(crate) fn modifier_slot(text: &str, ws: &[Word], end: usize) -> Option<bool> {
    let rest = text.get(end..)?;
    if rest.starts_with("'s") || rest.starts_with("\u{2019}s") || rest.starts_with('\'') {
        return None;
    }
    let after = rest.trim_start();
    if after.is_empty() || after.starts_with(['.', '!', '?', ',', ';', ':']) {
        return Some(false);
    }
    let next = ws.iter().find(|w| w.start >= end)?;
    let l = lower(next);
    let verb = VERBS.contains(&l.as_str())
        || (l.ends_with("ed") && l.len() > 4)
        || is_negation(&l)
        || l.ends_with("n't");
    verb.then_some(true)
}

/// Units after which `over N` may state a span of time (`took place over 16 days`).
const DURATIONS: [&str; 22] = [
    "second",
    "seconds",
    "minute",
    "minutes",
    "min",
    "mins",
    "hour",
    "hours",
    "hr",
    "hrs",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "decade",
    "decades",
    "centuries",
    "seasons",
];

/// Words before `over` that make `over N days` a bound (`of over`, `for over`, `is over`).
const BOUND_BEFORE_OVER: [&str; 12] = [
    "of", "for", "is", "was", "are", "were", "be", "been", "being", "lasted", "lasts", "well",
];

/// Whether the monotone word at `phrase` is `over` heading a duration (the number at
/// `number` followed by a time unit) where it may mean "throughout" rather than "more than":
/// any word before it other than those of [`BOUND_BEFORE_OVER`].
pub(crate) fn over_a_duration(ws: &[Word], phrase: usize, number: usize) -> bool {
    let is_over = ws.get(phrase).is_some_and(|w| lower(w) == "over");
    let unit = ws
        .get(number + 1)
        .is_some_and(|w| DURATIONS.contains(&lower(w).as_str()));
    // The word before `over`, past a negation (`is not over 2 hours`).
    let before = ws[..phrase]
        .iter()
        .rev()
        .map(lower)
        .find(|l| !is_negation(l));
    let bound = before.is_some_and(|l| BOUND_BEFORE_OVER.contains(&l.as_str()));
    is_over && unit && !bound
}

/// Words that open a relative or subordinate clause.
const RELATIVIZERS: [&str; 9] = [
    "that", "which", "who", "whom", "whose", "where", "when", "because", "while",
];

/// Finite verbs that may follow a subject.
const FINITE: [&str; 8] = ["is", "was", "are", "were", "has", "have", "had", "does"];

/// Whether another finite auxiliary follows word `i` in its sentence with no relativizer or
/// conjunction between: then the auxiliary at `i` may belong to a relative clause of the
/// subject (`The most popular band X is associated with is Metallica`).
pub(crate) fn second_verb_after(ws: &[Word], i: usize) -> bool {
    for w in ws.iter().skip(i + 1) {
        let l = lower(w);
        if RELATIVIZERS.contains(&l.as_str()) || l == "and" || l == "but" || l == "or" {
            return false;
        }
        if FINITE.contains(&l.as_str()) {
            return true;
        }
    }
    false
}

/// Number words for counts (`married four times`, `two volumes`).
const COUNT_WORDS: [&str; 16] = [
    "once", "twice", "thrice", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "eleven", "twelve", "several", "multiple",
];

/// Whether a count follows word `i` — a number word (`four`, `twice`, `several`) or a
/// figure before `times` — while a measure (`a length of 46 minutes`) or a year is not one:
/// negating the sentence then depends on reading the count as exactly or at least.
pub(crate) fn count_after(ws: &[Word], i: usize) -> bool {
    ws.iter().enumerate().skip(i + 1).any(|(k, w)| {
        let times = ws.get(k + 1).is_some_and(|n| lower(n) == "times");
        COUNT_WORDS.contains(&lower(w).as_str()) || (parse_number(w.core).is_some() && times)
    })
}

/// Whether `after` shares a word with `text`, ignoring case and the endings that make a
/// gendered or agent form (`actress`/`actor`, `producer`/`produce`): a near-form of a value
/// the table holds is not a false fact.
pub(crate) fn shares_a_stem(after: &str, text: &str) -> bool {
    fn stem(w: &str) -> String {
        let w = w.to_lowercase();
        for suffix in [
            "resses", "ress", "esses", "ess", "ers", "er", "ors", "or", "s",
        ] {
            if let Some(s) = w.strip_suffix(suffix) {
                if s.chars().count() >= 3 {
                    return s.to_string();
                }
            }
        }
        w
    }
    let stems: Vec<String> = super::words::words(text)
        .iter()
        .map(|w| stem(w.core))
        .collect();
    super::words::words(after)
        .iter()
        .filter(|w| w.core.chars().count() >= 3)
        .any(|w| stems.contains(&stem(w.core)))
}

/// Whether a replacement has the shape of the value it replaces: both capitalised or both
/// not (`limited series` → `Test cricket`, `multiple` → `Single` change the kind of word),
/// and no list (a comma) where the value held none.
pub(crate) fn same_shape(before: &str, after: &str) -> bool {
    let cap = |s: &str| s.trim().starts_with(char::is_uppercase);
    cap(before) == cap(after) && (before.contains(',') || !after.contains(','))
}

/// Words too common to tie a key to a sentence.
const KEY_STOPWORDS: [&str; 8] = ["from", "with", "the", "and", "for", "into", "type", "other"];

/// Whether the sentence states the row's relation: a word of the key (four letters or more,
/// not a stop word) shares its first five letters with a word of the sentence outside the
/// span (`Directed by` ~ `directed`, `Language` ~ `Hindi-language`, `Origin` ~
/// `originated`). Otherwise the sentence may relate the entity by another relation (`on the
/// same side as Superman` for `Supporting character of: Superman`), and another value need
/// not be false.
pub(crate) fn key_echoed(text: &str, key: &str, start: usize, end: usize) -> bool {
    let prefix = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
    let key_words: Vec<String> = key
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4 && !KEY_STOPWORDS.contains(&w.to_lowercase().as_str()))
        .map(prefix)
        .collect();
    let outside = format!(
        "{} {}",
        text.get(..start).unwrap_or(""),
        text.get(end..).unwrap_or("")
    );
    super::words::words(&outside)
        .iter()
        .flat_map(|w| w.core.split('-'))
        .filter(|w| w.chars().count() >= 4)
        .any(|w| key_words.contains(&prefix(w)))
}

/// Whether the number at word `i` restricts the sentence's subject: it stands before the
/// main verb, right after `with` or `of` (`Consoles with 128 bytes of RAM are …`). Moving it
/// makes the sentence about other things, which the table may not describe.
pub(crate) fn restricts_subject(ws: &[Word], i: usize) -> bool {
    let verb_before = ws[..i].iter().any(|w| {
        let l = lower(w);
        VERBS.contains(&l.as_str()) || (l.ends_with("ed") && l.len() > 4)
    });
    let linked = i >= 1 && matches!(lower(&ws[i - 1]).as_str(), "with" | "of");
    linked && !verb_before
}

#[cfg(test)]
mod tests {
    use super::super::words::words;
    use super::*;

    #[test]
    fn subjects_and_possessors() {
        let h = "Nicolas Poussin is dead.";
        let ws = words(h);
        assert!(is_subject(h, &ws, 0, 15));
        let h = "The Louvre holds it.";
        assert!(is_subject(h, &words(h), 4, 10));
        let h = "Chance's real name is Chancelor.";
        assert!(is_subject(h, &words(h), 0, 6));
        let h = "It was painted by Caravaggio.";
        assert!(!is_subject(h, &words(h), 18, 28));
    }

    #[test]
    fn keys_that_read_as_nouns() {
        assert_eq!(noun_key("Label").as_deref(), Some("label"));
        assert_eq!(noun_key("MP").as_deref(), Some("MP"));
        assert_eq!(noun_key("Running time").as_deref(), Some("running time"));
        for k in [
            "Died",
            "Released",
            "Directed by",
            "Also known as",
            "Years active",
            "Genres",
            "Spouse(s)",
            "Born",
            "Children",
        ] {
            assert_eq!(noun_key(k), None, "{k}");
        }
        assert_eq!(noun_key("Years of service"), None);
        assert_eq!(noun_key("Cinematography"), None);
        assert!(plain_value("Label", "A&M"));
        assert!(plain_value("Release date", "June 2009"));
        assert!(!plain_value("Current constitution", "10 June 1980"));
        assert!(!plain_value("Abdication to Liu Song", "10 July 420"));
        assert!(!plain_value("Occupation", "Actor, comedian"));
        assert!(!plain_value("Released", "13 May 1985 ( 1985-05-13 )"));
        assert!(!plain_value("Awards", "List of awards and nominations"));
    }

    #[test]
    fn where_a_modifier_fits() {
        let h = "Jeffery's run time is long.";
        assert_eq!(modifier_slot(h, &words(h), 7), None);
        let h = "It was released by Jeffery.";
        assert_eq!(modifier_slot(h, &words(h), 26), Some(false));
        let h = "Jeffery was released in 2016.";
        assert_eq!(modifier_slot(h, &words(h), 7), Some(true));
        let h = "The Jeffery album sold well.";
        assert_eq!(modifier_slot(h, &words(h), 11), None);
    }

    #[test]
    fn over_as_throughout() {
        let h = "18 events took place over 16 days.";
        let ws = words(h);
        assert!(over_a_duration(&ws, 4, 5));
        let h = "It has a running time of over 6 hrs.";
        let ws = words(h);
        assert!(!over_a_duration(&ws, 6, 7));
    }

    #[test]
    fn relative_clauses_and_counts() {
        let h = "The most popular band X is associated with is Metallica.";
        let ws = words(h);
        assert!(second_verb_after(&ws, 5));
        let h = "It is an album that was released in 1985.";
        assert!(!second_verb_after(&words(h), 1));
        let h = "She was married four times.";
        assert!(count_after(&words(h), 1));
        let h = "She was married 4 times.";
        assert!(count_after(&words(h), 1));
        let h = "It is a pop album with a length of 46 minutes.";
        assert!(!count_after(&words(h), 1));
        let h = "She was born in 1975.";
        assert!(!count_after(&words(h), 1));
    }
}
