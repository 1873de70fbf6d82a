//! Which of §7's three outcomes (Liu et al. 2019) an inoculation shows (docs/inoculation.md#what-is-computed).
//!
//! Let Δo be the change in accuracy on the original test sets (every original example of the
//! run, pooled) and Δc the change on the held-out challenge set (every held-out item, pooled),
//! after − before, in percentage points, and τ the tolerance (default 1 pp). Then:
//! - Outcome 1 (the gap closes; the challenge items were a lack of data): Δc > τ and Δo ≥ −τ;
//! - Outcome 3 (a trade-off; new examples bring ambiguity or contradictions): Δc > τ and
//!   Δo < −τ;
//! - Outcome 2 (nothing moves; a model weakness or a changed distribution): |Δc| ≤ τ and
//!   |Δo| ≤ τ;
//! - none of the three otherwise (the challenge accuracy fell, or only the originals moved).

use serde::{Deserialize, Serialize};

use crate::inoculation::cell::{Cell, Column};
use crate::inoculation::InoculationResult;

/// The outcome of one size's inoculation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Outcome 1: the challenge set improves and the original holds.
    GapCloses {
        /// Δ original, pp.
        original: f64,
        /// Δ challenge, pp.
        challenge: f64,
    },
    /// Outcome 2: neither moves beyond the tolerance.
    NothingMoves {
        /// Δ original, pp.
        original: f64,
        /// Δ challenge, pp.
        challenge: f64,
    },
    /// Outcome 3: the challenge set improves and the original drops.
    TradeOff {
        /// Δ original, pp.
        original: f64,
        /// Δ challenge, pp.
        challenge: f64,
    },
    /// None of the three.
    Neither {
        /// Δ original, pp.
        original: f64,
        /// Δ challenge, pp.
        challenge: f64,
    },
}

/// The outcome from the changes `original` = Δo and `challenge` = Δc (percentage points) with
/// tolerance `tolerance` (see the module docs).
pub fn outcome(original: f64, challenge: f64, tolerance: f64) -> Outcome {
    if challenge > tolerance && original >= -tolerance {
        Outcome::GapCloses {
            original,
            challenge,
        }
    } else if challenge > tolerance {
        Outcome::TradeOff {
            original,
            challenge,
        }
    } else if challenge.abs() <= tolerance && original.abs() <= tolerance {
        Outcome::NothingMoves {
            original,
            challenge,
        }
    } else {
        Outcome::Neither {
            original,
            challenge,
        }
    }
}

/// The outcome of model `m` of `result` against the model before (model 0). A side with no
/// items counts as unchanged.
pub fn of_model(result: &InoculationResult, m: usize) -> Outcome {
    let delta = |column: Column| {
        let at = |model: usize| {
            Cell {
                model,
                split: None,
                column,
            }
            .percent(result)
        };
        match (at(0), at(m)) {
            (Some(before), Some(after)) => after - before,
            _ => 0.0,
        }
    };
    outcome(
        delta(Column::OriginalTest),
        delta(Column::ChallengeAll),
        result.settings.tolerance_pp,
    )
}

impl Outcome {
    /// 1, 2 or 3; `None` for none of the three.
    pub fn number(self) -> Option<u8> {
        match self {
            Outcome::GapCloses { .. } => Some(1),
            Outcome::NothingMoves { .. } => Some(2),
            Outcome::TradeOff { .. } => Some(3),
            Outcome::Neither { .. } => None,
        }
    }

    /// (Δ original, Δ challenge) in percentage points.
    pub fn deltas(self) -> (f64, f64) {
        match self {
            Outcome::GapCloses {
                original,
                challenge,
            }
            | Outcome::NothingMoves {
                original,
                challenge,
            }
            | Outcome::TradeOff {
                original,
                challenge,
            }
            | Outcome::Neither {
                original,
                challenge,
            } => (original, challenge),
        }
    }

    /// One line: the outcome's name, its reading and the two changes.
    pub fn describe(self) -> String {
        let (o, c) = self.deltas();
        let what = match self {
            Outcome::GapCloses { .. } => {
                "Outcome 1 — the challenge set improves and the original test sets hold: the \
                 failures were a lack of such examples in training"
            }
            Outcome::NothingMoves { .. } => {
                "Outcome 2 — neither moves: the model cannot adapt to this phenomenon (a model \
                 weakness) or the distribution changed"
            }
            Outcome::TradeOff { .. } => {
                "Outcome 3 — the challenge set improves but the original test sets drop: the \
                 new examples bring ambiguity or contradictions (the paper's finding)"
            }
            Outcome::Neither { .. } => {
                "none of §7's three outcomes — the challenge set did not improve beyond the \
                 tolerance, but the original test sets moved, or the challenge set dropped"
            }
        };
        format!("{what} (Δ original {o:+.2} pp, Δ challenge {c:+.2} pp)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_on_hand_made_numbers() {
        // The paper's Table 9/10 (hypothesis perturbations, n = 100): α1 74.88 → 67.44,
        // α1 label-flipped 51.48 → 57.91: challenge +6.43, original −7.44 → Outcome 3.
        let o = outcome(67.44 - 74.88, 57.91 - 51.48, 1.0);
        assert_eq!(o.number(), Some(3));
        assert_eq!(
            o.describe().split(" (Δ").nth(1),
            Some(" original -7.44 pp, Δ challenge +6.43 pp)")
        );
        assert_eq!(outcome(-0.5, 4.0, 1.0).number(), Some(1));
        assert_eq!(outcome(-1.0, 1.01, 1.0).number(), Some(1), "−τ still holds");
        assert_eq!(outcome(-1.01, 1.01, 1.0).number(), Some(3));
        assert_eq!(outcome(0.9, -1.0, 1.0).number(), Some(2), "both within ±τ");
        assert_eq!(
            outcome(3.0, 0.0, 1.0).number(),
            None,
            "only the original moved"
        );
        assert_eq!(
            outcome(0.0, -5.0, 1.0).number(),
            None,
            "the challenge set dropped"
        );
        assert_eq!(
            outcome(0.0, 1.0, 1.0).number(),
            Some(2),
            "exactly τ is no change"
        );
    }
}
