//! What the worker checks before a score leaves it. A model with NaN or infinite weights (or
//! one that overflows) gives non-finite logits; JSON has no NaN, so serde would write `null`
//! and the page could not read the reply — the job would never end. Every score is checked
//! here first, and the first bad one ends the job with an error that names the model and the
//! pair (its example or item id and the start of its hypothesis).
//!
//! Also here: the test hook a hostile fixture uses to make the worker panic (see
//! [`test_panic_requested`]).

use tabprobe_core::probe::ProbeSet;
use tabprobe_core::scoring::{Pair, PairScore};

/// The `config.json` key that makes the worker host panic, for tests of a dying worker.
/// With the value [`TEST_PANIC_ON_SCORE`] the host panics when asked to score (or run a probe
/// set) with that model; loading it works as usual. Fixture:
/// `tests/fixtures/hostile/panic-model/`. A real checkpoint never carries it, and a page
/// survives the panic anyway (it restarts the worker).
pub const TEST_PANIC_KEY: &str = "tabprobe_test_panic";

/// The value of [`TEST_PANIC_KEY`] that panics on scoring.
pub const TEST_PANIC_ON_SCORE: &str = "on_score";

/// How many characters of a hypothesis an error quotes.
const HYPOTHESIS_QUOTE_CHARS: usize = 60;

/// Whether `config_json` asks the worker to panic on scoring ([`TEST_PANIC_KEY`]). Bytes that
/// are not a JSON object ask for nothing (the model loader reports them).
pub fn test_panic_requested(config_json: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(config_json)
        .ok()
        .and_then(|v| {
            v.get(TEST_PANIC_KEY)
                .and_then(|p| p.as_str())
                .map(|p| p == TEST_PANIC_ON_SCORE)
        })
        .unwrap_or(false)
}

/// The position in `scores` of the first score with a non-finite logit or probability.
pub fn first_non_finite(scores: &[PairScore]) -> Option<usize> {
    scores
        .iter()
        .position(|s| s.logits.iter().chain(&s.probs).any(|x| !x.is_finite()))
}

/// What the owner of pair `index` in `set` is called: the example whose original it is, else
/// the item that reads it (perturbed, original or hypothesis-only).
pub fn pair_owner(set: &ProbeSet, index: usize) -> Option<String> {
    let example = |i: usize| set.examples.get(i).map(|e| e.id.as_str());
    if let Some(e) = set.examples.iter().find(|e| e.pair == index) {
        return Some(format!("example {}", e.id));
    }
    if let Some(k) = set.hypothesis_only_pairs.iter().position(|&p| p == index) {
        if let Some(id) = example(k) {
            return Some(format!("example {id}, hypothesis only"));
        }
    }
    set.items
        .iter()
        .find(|it| {
            it.perturbed_pair == index
                || it.original_pair == index
                || it.hypothesis_only_pair == Some(index)
        })
        .map(|it| format!("item {}", it.id))
}

/// The error for a non-finite score of `model` on `pair`, number `index` (0-based) of the
/// job, owned by `owner` (see [`pair_owner`]; `None` for a plain scoring job).
pub fn non_finite_message(
    model: &str,
    index: usize,
    pair: &Pair,
    owner: Option<&str>,
    score: &PairScore,
) -> String {
    let mut quote: String = pair
        .hypothesis
        .chars()
        .take(HYPOTHESIS_QUOTE_CHARS)
        .collect();
    if quote.len() < pair.hypothesis.len() {
        quote.push('…');
    }
    let owner = owner.map(|o| format!("{o}, ")).unwrap_or_default();
    format!(
        "model {model:?} gave non-finite outputs (logits {:?}) on pair {} ({owner}hypothesis {quote:?}); \
         the job was stopped — the checkpoint's weights are probably broken (NaN or infinite values)",
        score.logits,
        index + 1
    )
}

/// Checks a batch of scores for the pairs `pairs`, which start at position `offset` of the job:
/// `Err` with [`non_finite_message`] for the first non-finite one. `set` names the owners of a
/// probe run's pairs.
pub fn check_scores(
    model: &str,
    offset: usize,
    pairs: &[Pair],
    scores: &[PairScore],
    set: Option<&ProbeSet>,
) -> Result<(), String> {
    let Some(k) = first_non_finite(scores) else {
        return Ok(());
    };
    let index = offset + k;
    let owner = set.and_then(|s| pair_owner(s, index));
    let empty = Pair {
        premise: String::new(),
        hypothesis: String::new(),
        order: Default::default(),
    };
    let pair = pairs.get(k).unwrap_or(&empty);
    Err(non_finite_message(
        model,
        index,
        pair,
        owner.as_deref(),
        &scores[k],
    ))
}
