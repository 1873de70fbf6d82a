//! Word-order permutations (UnNatural Language Inference, Sinha et al. 2021, §4): sentences
//! split into words, permuted so that no word keeps its position, and BLEU-2 of a
//! permutation against its original (their Figure 3).

use std::collections::HashMap;

use crate::rng::Rng;

/// Splits a plain-text premise into sentences, not after common abbreviations or initials
/// (see [`crate::linearize::sentences`]). Table premises are split by their linearizer instead
/// ([`crate::linearize::linearize_units`]).
pub fn sentences(text: &str) -> Vec<&str> {
    crate::linearize::sentences::sentences(text)
}

/// A random derangement of `words`: `order[i]` is the original index of the word now at `i`,
/// and no position holds the word it held before (compared as text, so a repeated word
/// cannot land on its twin's place). Falls back to an index derangement when the words make
/// a text derangement impossible (e.g. one word fills most positions). `None` for fewer than
/// two words.
pub fn derangement(words: &[&str], rng: &mut Rng) -> Option<Vec<usize>> {
    let n = words.len();
    if n < 2 {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    // A uniform shuffle is a derangement with probability ≈ 1/e, so a few hundred tries
    // practically never run out unless the words forbid it.
    for _ in 0..500 {
        rng.shuffle(&mut order);
        if (0..n).all(|i| words[order[i]] != words[i]) {
            return Some(order);
        }
    }
    for _ in 0..500 {
        rng.shuffle(&mut order);
        if (0..n).all(|i| order[i] != i) {
            return Some(order);
        }
    }
    // Deterministic fallback: rotate by one.
    Some((0..n).map(|i| (i + 1) % n).collect())
}

/// `words` reordered by `order`, joined by single spaces.
pub fn apply(words: &[&str], order: &[usize]) -> String {
    order
        .iter()
        .filter_map(|&i| words.get(i).copied())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Sentence BLEU-2 of `candidate` against `reference` (uniform weights over 1- and 2-grams,
/// clipped counts, brevity penalty, no smoothing: a permutation with no shared bigram scores 0).
pub fn bleu2(reference: &[&str], candidate: &[&str]) -> f64 {
    if candidate.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let precision = |n: usize| -> f64 {
        if candidate.len() < n {
            return 0.0;
        }
        let mut refc: HashMap<&[&str], usize> = HashMap::new();
        for g in reference.windows(n) {
            *refc.entry(g).or_insert(0) += 1;
        }
        let mut hits = 0;
        let mut total = 0;
        for g in candidate.windows(n) {
            total += 1;
            if let Some(c) = refc.get_mut(g) {
                if *c > 0 {
                    *c -= 1;
                    hits += 1;
                }
            }
        }
        hits as f64 / total as f64
    };
    let (p1, p2) = (precision(1), precision(2));
    if p1 == 0.0 || p2 == 0.0 {
        return 0.0;
    }
    let (c, r) = (candidate.len() as f64, reference.len() as f64);
    let bp = if c >= r { 1.0 } else { (1.0 - r / c).exp() };
    // The geometric mean exp(½ ln p1 + ½ ln p2) as sqrt(p1·p2): equal in exact arithmetic,
    // but sqrt is correctly rounded everywhere while ln/exp come from the platform's libm
    // (glibc natively, Rust's libm port in wasm32), and run files must be byte-identical
    // across both. Permutations keep the length, so `bp` is exactly 1 for them.
    bp * (p1 * p2).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bleu2_by_hand() {
        let r = ["a", "b", "c", "d"];
        assert_eq!(bleu2(&r, &r), 1.0);
        // d c b a: no shared bigram → 0.
        assert_eq!(bleu2(&r, &["d", "c", "b", "a"]), 0.0);
        // c d a b: bigrams cd, da, ab → cd and ab shared: p2 = 2/3, BLEU-2 = √(2/3).
        assert!((bleu2(&r, &["c", "d", "a", "b"]) - (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn sentences_of_a_paragraph() {
        let s = sentences("The Length of X are 46:06. The Label of X are A&M. ");
        assert_eq!(s, ["The Length of X are 46:06.", "The Label of X are A&M."]);
    }

    #[test]
    fn derangement_with_repeated_words() {
        let w = ["the", "cat", "saw", "the", "dog", "run"];
        let mut rng = Rng::new(9);
        for _ in 0..50 {
            let o = derangement(&w, &mut rng).unwrap();
            assert!((0..w.len()).all(|i| w[o[i]] != w[i]), "{o:?}");
        }
        assert_eq!(derangement(&["x"], &mut rng), None);
        // Impossible as text (x fills 3 of 4 places): an index derangement instead.
        let o = derangement(&["x", "x", "x", "y"], &mut rng).unwrap();
        assert!((0..4).all(|i| o[i] != i));
    }
}
