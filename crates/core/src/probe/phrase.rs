//! Case-insensitive whole-word phrase matching on user text, with byte offsets that are valid
//! in the original string.
//!
//! Lower-casing a whole string changes byte lengths outside ASCII (`K` KELVIN SIGN is 3 bytes,
//! its lower case `k` is 1; `İ` lower-cases to two characters), so offsets found in a
//! lower-cased copy cannot be used to slice the original. Here each character is case-folded
//! on its own and every folded character remembers the byte range of the character it came
//! from: a match may only start at the first folded character of an original character and
//! end at the last one, so its range always lies on character boundaries of the original.

/// One case-folded character and the original character it came from.
#[derive(Debug, Clone, Copy)]
struct Folded {
    /// The folded character.
    c: char,
    /// Byte range of the original character.
    start: usize,
    end: usize,
    /// Whether this is the first / last folded character of that original character.
    first: bool,
    last: bool,
}

/// The case-folded form of one character, compared but never shown.
fn fold_char(ch: char) -> Vec<char> {
    match ch {
        // `İ` lower-cases to `i` + COMBINING DOT ABOVE; matching it as `i` lets `İstanbul`
        // match `istanbul`, as a reader would expect.
        'İ' => vec!['i'],
        // Final and medial sigma are one letter.
        'ς' => vec!['σ'],
        _ => ch
            .to_lowercase()
            .map(|c| if c == 'ς' { 'σ' } else { c })
            .collect(),
    }
}

fn fold(s: &str) -> Vec<Folded> {
    let mut out = Vec::with_capacity(s.len());
    for (start, ch) in s.char_indices() {
        let end = start + ch.len_utf8();
        let folded = fold_char(ch);
        let n = folded.len();
        for (k, c) in folded.into_iter().enumerate() {
            out.push(Folded {
                c,
                start,
                end,
                first: k == 0,
                last: k + 1 == n,
            });
        }
    }
    out
}

/// Every case-insensitive whole-word occurrence of `needle` in `hay`, as byte ranges of `hay`
/// (each on character boundaries), in order; overlapping occurrences are all listed. Whole
/// word: the characters just outside the range are not alphanumeric. An empty (or
/// whitespace-only after folding, i.e. empty) needle matches nowhere.
pub fn phrase_matches(hay: &str, needle: &str) -> Vec<(usize, usize)> {
    let n: Vec<char> = fold(needle).iter().map(|f| f.c).collect();
    let h = fold(hay);
    let mut out = Vec::new();
    if n.is_empty() || n.len() > h.len() {
        return out;
    }
    for k in 0..=h.len() - n.len() {
        let (first, last) = (&h[k], &h[k + n.len() - 1]);
        if !first.first || !last.last {
            continue; // would cut an original character in two
        }
        if !h[k..k + n.len()].iter().zip(&n).all(|(a, b)| a.c == *b) {
            continue;
        }
        let (s, e) = (first.start, last.end);
        let ok_left = hay[..s]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let ok_right = hay[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if ok_left && ok_right {
            out.push((s, e));
        }
    }
    out
}

/// The first case-insensitive whole-word occurrence of `needle` in `hay` (see
/// [`phrase_matches`]).
pub fn find_phrase(hay: &str, needle: &str) -> Option<(usize, usize)> {
    phrase_matches(hay, needle).into_iter().next()
}

/// Whether either phrase occurs, as whole words and ignoring case, inside the other (`rock`
/// and `art rock`; equal phrases count).
pub fn overlaps_as_words(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    find_phrase(a, b).is_some() || find_phrase(b, a).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_whole_words() {
        assert_eq!(find_phrase("a Pop album", "pop"), Some((2, 5)));
        assert_eq!(find_phrase("popular pop", "pop"), Some((8, 11)));
        assert_eq!(find_phrase("popular", "pop"), None);
        assert_eq!(find_phrase("anything", ""), None);
        assert_eq!(phrase_matches("pop, pop", "POP"), vec![(0, 3), (5, 8)]);
    }

    #[test]
    fn multi_byte_first_character() {
        // The old matcher resumed at byte s + 1, inside `É`, and panicked.
        let h = "Éireann is not Éire.";
        let (s, e) = find_phrase(h, "éire").unwrap();
        assert_eq!((s, e), (16, 21));
        assert_eq!(&h[s..e], "Éire");
    }

    #[test]
    fn case_mappings_that_change_length() {
        // KELVIN SIGN (3 bytes) lower-cases to `k` (1 byte).
        let h = "a \u{212A}-pop album";
        let (s, e) = find_phrase(h, "k-pop").unwrap();
        assert_eq!(&h[s..e], "\u{212A}-pop");
        // `İ` lower-cases to two characters; it matches `i`.
        let h = "İstanbul and Izmir";
        assert_eq!(find_phrase(h, "istanbul"), Some((0, 9)));
        assert_eq!(find_phrase(h, "izmir"), Some((14, 19)));
        // `ß` has no one-character upper case; `ẞ` lower-cases to it.
        assert_eq!(find_phrase("Straße", "STRAẞE"), Some((0, 7)));
        assert_eq!(find_phrase("ΟΔΥΣΣΕΥΣ", "οδυσσευς"), Some((0, 16)));
        // `İ` folds to `i` alone, so the decomposed `i` + COMBINING DOT ABOVE is longer.
        assert_eq!(find_phrase("İ", "i\u{307}"), None);
    }

    #[test]
    fn containment_as_words() {
        assert!(overlaps_as_words("rock", "art rock"));
        assert!(overlaps_as_words("Art Rock", "rock"));
        assert!(overlaps_as_words("jazz", "JAZZ"));
        assert!(!overlaps_as_words("art", "artist"));
        assert!(!overlaps_as_words("", "pop"));
    }
}
