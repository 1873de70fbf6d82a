//! Sentence splitting for plain-text premises (MNLI/SNLI style), where no linearizer says
//! where sentences end. A sentence ends at `.`, `!` or `?` (and any closing quotes or
//! brackets after it) followed by whitespace, except after a common abbreviation ("Mr.",
//! "Dr.", "St.", "Jr.", "Inc.", "etc.", "vs.", "No. 5", …), a dotted abbreviation ("U.S.",
//! "D.C.", "e.g.", "i.e.", "a.m.") or a single-letter initial ("J. R. R. Tolkien").
//!
//! The word-order probe (UNLI §4) permutes words within each sentence and skips examples with
//! a sentence of five words or fewer, so a wrong split both changes what is permuted and
//! drops whole examples. When an abbreviation really does end a sentence ("… in the U.S. It
//! …") the two sentences stay one unit: a longer unit, never a short fragment.

use std::ops::Range;

/// Abbreviations (lower-cased, without the final period) after which a period does not end
/// a sentence. Titles, name suffixes, company forms, months, street and unit words, and
/// Latin forms; words that are also ordinary sentence-final words are left out.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "rev", "hon", "gen", "col", "capt", "lt", "sgt", "gov", "sen",
    "pres", "st", "mt", "ft", "jr", "sr", "inc", "ltd", "co", "corp", "bros", "llc", "plc", "dept",
    "univ", "assn", "ave", "blvd", "rd", "jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "etc", "vs", "cf", "al", "approx", "est", "vol", "pp",
];

/// Abbreviations that only count as such before a number ("No. 5", "p. 12"), since as
/// words they often end a sentence ("The answer was no.").
const BEFORE_NUMBER: &[&str] = &["no", "nos", "p", "art", "op"];

/// Characters that may close a sentence after its final punctuation.
fn is_closer(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '}' | '”' | '’' | '»')
}

/// Characters that may open a word before its letters.
fn is_opener(c: char) -> bool {
    matches!(c, '"' | '\'' | '(' | '[' | '{' | '“' | '‘' | '«')
}

/// Whether `word` (a whitespace-delimited token ending in `.`) is an abbreviation, given the
/// token after it.
fn is_abbreviation(word: &str, next: &str) -> bool {
    let word = word.trim_start_matches(is_opener);
    let Some(stem) = word.strip_suffix('.') else {
        return false;
    };
    // A single letter: an initial ("J."), or the last letter of "U.S.", "e.g.", "D.C.".
    let letters: Vec<&str> = stem.split('.').collect();
    if !stem.is_empty()
        && letters
            .iter()
            .all(|l| l.chars().count() == 1 && l.chars().all(char::is_alphabetic))
    {
        return true;
    }
    let lower = stem.to_lowercase();
    if ABBREVIATIONS.contains(&lower.as_str()) {
        return true;
    }
    BEFORE_NUMBER.contains(&lower.as_str())
        && next
            .trim_start_matches(is_opener)
            .starts_with(|c: char| c.is_ascii_digit())
}

/// The byte ranges of the sentences of `text`, trimmed, in order; empty sentences are left
/// out.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut push = |range: Range<usize>| {
        let s = &text[range.clone()];
        let lead = s.len() - s.trim_start().len();
        let trail = s.len() - s.trim_end().len();
        if lead + trail < s.len() {
            out.push(range.start + lead..range.end - trail);
        }
    };
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if !matches!(c, '.' | '!' | '?') {
            i += 1;
            continue;
        }
        // The sentence would end after the punctuation and any closers.
        let mut j = i + 1;
        while j < chars.len() && (is_closer(chars[j].1) || matches!(chars[j].1, '.' | '!' | '?')) {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |&(b, _)| b);
        let followed_by_space = chars.get(j).is_some_and(|&(_, c)| c.is_whitespace());
        if !followed_by_space {
            i = j;
            continue;
        }
        if c == '.' && j == i + 1 {
            // A lone period: look at the token it ends and the one after it.
            let word_start = text[..at].rfind(char::is_whitespace).map_or(0, |k| {
                k + text[k..].chars().next().map_or(1, char::len_utf8)
            });
            let word = &text[word_start..end];
            let rest = text[end..].trim_start();
            let next = rest.split(char::is_whitespace).next().unwrap_or("");
            if is_abbreviation(word, next) {
                i = j;
                continue;
            }
        }
        push(start..end);
        start = end;
        i = j;
    }
    push(start..text.len());
    out
}

/// The sentences of `text`, trimmed (see [`sentence_spans`]).
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text).into_iter().map(|r| &text[r]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_and_initials_do_not_end_sentences() {
        assert_eq!(
            sentences("Martin Luther King Jr. was born in Atlanta. He was a pastor."),
            [
                "Martin Luther King Jr. was born in Atlanta.",
                "He was a pastor."
            ]
        );
        assert_eq!(
            sentences("J. R. R. Tolkien wrote it. Vol. 2 followed."),
            ["J. R. R. Tolkien wrote it.", "Vol. 2 followed."]
        );
        // "No." before a number is an abbreviation, as a word it ends the sentence.
        assert_eq!(
            sentences("It was No. 1 in the U.K. for weeks. The answer was no. Then it was yes!"),
            [
                "It was No. 1 in the U.K. for weeks.",
                "The answer was no.",
                "Then it was yes!"
            ]
        );
    }

    #[test]
    fn closers_unicode_and_edges() {
        assert_eq!(
            sentences("He said \"Go.\" Then (quietly.) she left?! Éire is green. Ünd"),
            [
                "He said \"Go.\"",
                "Then (quietly.)",
                "she left?!",
                "Éire is green.",
                "Ünd"
            ]
        );
        assert_eq!(sentences("  "), Vec::<&str>::new());
        assert_eq!(sentences("No end"), ["No end"]);
        assert_eq!(sentences("3.5 is a number. "), ["3.5 is a number."]);
        assert_eq!(sentence_spans(" ab. c"), [1..4, 5..6]);
    }
}
