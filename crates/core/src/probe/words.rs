//! Words of a hypothesis with their byte spans, and number handling shared by the
//! hypothesis probes. Kept deliberately simple: INFOTABS hypotheses are short, plain English.

/// One whitespace-separated token and its core (the token without surrounding punctuation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<'a> {
    /// The core text, e.g. `1979` in `1979.`.
    pub core: &'a str,
    /// Byte offset of the core in the sentence.
    pub start: usize,
    /// Byte offset just past the core.
    pub end: usize,
}

/// Splits `s` into words, trimming punctuation other than `'`, `&`, `-` and digits' `.`/`,`/`:`
/// from each token's ends.
pub fn words(s: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut pos = 0;
    for tok in s.split_whitespace() {
        let Some(off) = s[pos..].find(tok) else {
            continue;
        };
        let start = pos + off;
        pos = start + tok.len();
        let is_edge_punct = |c: char| !c.is_alphanumeric() && !matches!(c, '&' | '\'');
        let core_start = tok.len() - tok.trim_start_matches(is_edge_punct).len();
        let core = tok.trim_matches(is_edge_punct);
        if core.is_empty() {
            continue;
        }
        out.push(Word {
            core,
            start: start + core_start,
            end: start + core_start + core.len(),
        });
    }
    out
}

/// The value of a plain number (`46`, `1,200`, `3.5`), or `None` (also for digit strings too
/// long to be a finite `f64`).
pub fn parse_number(core: &str) -> Option<f64> {
    let plain: String = core.chars().filter(|c| *c != ',').collect();
    if plain.is_empty()
        || !plain.chars().all(|c| c.is_ascii_digit() || c == '.')
        || !plain.starts_with(|c: char| c.is_ascii_digit())
        || plain.matches('.').count() > 1
    {
        return None;
    }
    plain.parse().ok().filter(|x: &f64| x.is_finite())
}

/// Whether a number has the shape of a year (four digits, 1000–2999). Shape only: whether it
/// *is* a year depends on its context (a month, `in`, `before`, …), which the hypothesis
/// probes decide from the surrounding words; `over 1500 copies` is a quantity.
pub fn is_year(core: &str) -> bool {
    core.len() == 4
        && core.chars().all(|c| c.is_ascii_digit())
        && matches!(core.as_bytes()[0], b'1' | b'2')
}

/// A number written back: integers without a decimal point, others with at most two decimals.
/// Integers beyond `i64`'s exact range are written from the float itself (no saturation).
pub fn format_number(x: f64) -> String {
    if x.abs() >= 1e15 {
        format!("{x:.0}")
    } else if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// `s` with bytes `start..end` replaced by `with`.
pub fn splice(s: &str, start: usize, end: usize, with: &str) -> String {
    format!("{}{}{}", &s[..start], with, &s[end..])
}

/// Every number (by token) occurring in `text`, e.g. `46:06` holds 46. Zero-padded parts
/// (`06` in `46:06`) are clock or date fields, not quantities a hypothesis would state as `6`.
pub fn numbers_in(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .map(|t| t.trim_matches(|c| c == '.' || c == ','))
        .filter(|t| !(t.len() > 1 && t.starts_with('0')))
        .filter_map(parse_number)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_numbers() {
        let w = words("Bridesmaids has a running time of over 3 hrs.");
        assert_eq!(w.last().unwrap().core, "hrs");
        assert_eq!(w[7].core, "3");
        assert_eq!(parse_number("1,200"), Some(1200.0));
        assert_eq!(parse_number("46:06"), None);
        assert_eq!(format_number(1.5), "1.5");
        assert_eq!(format_number(6.0), "6");
        assert_eq!(numbers_in("46:06"), vec![46.0]);
        assert!(is_year("1979") && !is_year("46"));
        // Too long for a finite float: not a number the probes can move.
        assert_eq!(parse_number(&"9".repeat(400)), None);
        assert_eq!(format_number(2e20), "200000000000000000000");
    }
}
