//! What the worker checks before a score leaves it. A model with NaN or infinite weights (or
//! one that overflows) gives non-finite logits; JSON has no NaN, so serde would write `null`
//! and the page could not read the reply — the job would never end. The model crate refuses
//! such a score where it scores (core's `NonFinite`); here the error is placed in the job (its
//! pair numbered from the job's start, named by its example or item id, with the start of its
//! hypothesis), and helper workers' answers, which crossed a message boundary, are checked
//! again.
//!
//! Also here, with the cargo feature `test-hooks` only: the test hook a hostile fixture uses
//! to make the worker panic (`test_panic_requested`).

use tabprobe_core::probe::ProbeSet;
use tabprobe_core::scoring::{NonFinite, Pair, PairScore, ScoreError};

/// The `config.json` key that makes the worker host panic, for tests of a dying worker.
/// With the value [`TEST_PANIC_ON_SCORE`] the host panics when asked to score (or run a probe
/// set) with that model; loading it works as usual. Fixture:
/// `tests/fixtures/hostile/panic-model/`. A real checkpoint never carries it, and a page
/// survives the panic anyway (it restarts the worker).
#[cfg(feature = "test-hooks")]
pub const TEST_PANIC_KEY: &str = "tabprobe_test_panic";

/// The value of [`TEST_PANIC_KEY`] that panics on scoring.
#[cfg(feature = "test-hooks")]
pub const TEST_PANIC_ON_SCORE: &str = "on_score";

/// Whether `config_json` asks the worker to panic on scoring ([`TEST_PANIC_KEY`]). Bytes that
/// are not a JSON object ask for nothing (the model loader reports them).
#[cfg(feature = "test-hooks")]
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

pub use tabprobe_core::scoring::first_non_finite;

/// What the owner of pair `index` in `set` is called (core's [`ProbeSet::pair_owner`]).
pub fn pair_owner(set: &ProbeSet, index: usize) -> Option<String> {
    set.pair_owner(index)
}

/// Checks a batch of scores for the pairs `pairs`, which start at position `offset` of the job:
/// `Err` with core's [`NonFinite`] message for the first non-finite one. `set` names the owners
/// of a probe run's pairs. The model already refuses such scores where it scores; this is the
/// check on what helper workers send back, which crossed a message boundary.
pub fn check_scores(
    model: &str,
    offset: usize,
    pairs: &[Pair],
    scores: &[PairScore],
    set: Option<&ProbeSet>,
) -> Result<(), String> {
    NonFinite::check(model, Some(pairs), scores).map_err(|nf| {
        let owner = set.and_then(|s| s.pair_owner(offset + nf.index));
        nf.offset(offset).owned_by(owner).to_string()
    })
}

/// A scoring error of the job's pairs `offset..`, placed in the job: a non-finite score's pair
/// numbered from the job's start and named by its owner in `set`.
pub fn locate(e: ScoreError, offset: usize, set: Option<&ProbeSet>) -> String {
    match e {
        ScoreError::NonFinite(nf) => {
            let owner = set.and_then(|s| s.pair_owner(offset + nf.index));
            nf.offset(offset).owned_by(owner).to_string()
        }
        other => other.to_string(),
    }
}
