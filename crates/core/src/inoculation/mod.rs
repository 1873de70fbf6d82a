//! Inoculation by fine-tuning (docs/inoculation.md, the paper's §7 after Liu et al. 2019): from a
//! finished probe run, a challenge set of perturbed items, nested training samples of it, and —
//! once a model has been fine-tuned on each sample (in `tabprobe-model`) — the before/after
//! tables (the paper's Tables 9–12) and the outcome they show.
//!
//! Everything here is pure: [`plan::InoculationPlan`] says what to train on and what to
//! evaluate, [`result::InoculationResult`] holds every evaluated item with each model's
//! prediction, and [`tables`] counts the figures with the same predicate the drill-down uses.

pub mod cell;
mod error;
pub mod outcome;
pub mod plan;
pub mod progress;
pub mod result;
pub mod tables;

use serde::{Deserialize, Serialize};

use crate::probe_kind::ProbeKind;

pub use error::InoculationError;
pub use outcome::{outcome, Outcome};
pub use plan::{ChallengeItem, InoculationPlan, Sample};
pub use progress::{InoculationProgress, Phase};
pub use result::INOCULATION_VERSION;
pub use result::{
    EvaluatedItem, GridPoint, InoculationResult, ItemClass, ModelEvaluation, INOCULATION_FORMAT,
};
pub use tables::{Cell, Column};

/// What to inoculate on and how (docs/inoculation.md#what-is-computed). The defaults are the paper's grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InoculationSettings {
    /// The probes whose items form the challenge set.
    pub probes: Vec<ProbeKind>,
    /// Training sample sizes, nested: the smaller samples are prefixes of the larger.
    pub sizes: Vec<usize>,
    /// Learning rates tried for every size; the one with the best dev accuracy is kept.
    pub learning_rates: Vec<f64>,
    /// Passes over a sample, at most.
    pub epochs: usize,
    /// Stop after this many epochs in a row without a better dev accuracy.
    pub patience: usize,
    /// Training pairs per optimisation step.
    pub batch_size: usize,
    /// Seeds the sampling and the training order.
    pub seed: u64,
    /// The split of the run's original examples whose accuracy drives early stopping; `None`
    /// takes `dev` when the run has it, else every original example.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev_split: Option<String>,
    /// How many percentage points an accuracy must move to count as a change (the outcome
    /// rule of [`outcome`]).
    pub tolerance_pp: f64,
}

impl Default for InoculationSettings {
    fn default() -> Self {
        InoculationSettings {
            probes: Vec::new(),
            sizes: vec![100, 200, 300],
            learning_rates: vec![1e-4, 5e-5, 1e-5],
            epochs: 30,
            patience: 3,
            batch_size: 8,
            seed: 1,
            dev_split: None,
            tolerance_pp: 1.0,
        }
    }
}

impl InoculationSettings {
    /// Checks the numbers a user typed: sizes ascending and positive, learning rates finite
    /// and positive, at least one epoch, a non-negative tolerance.
    pub fn check(&self) -> Result<(), InoculationError> {
        if self.probes.is_empty() {
            return Err(InoculationError::NoProbes);
        }
        if self.sizes.is_empty() || self.sizes.contains(&0) {
            return Err(InoculationError::SizesNotPositive);
        }
        if self.sizes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(InoculationError::SizesNotIncreasing(self.sizes.clone()));
        }
        if self.learning_rates.is_empty()
            || self
                .learning_rates
                .iter()
                .any(|lr| !lr.is_finite() || *lr <= 0.0 || *lr > 1.0)
        {
            return Err(InoculationError::LearningRates(self.learning_rates.clone()));
        }
        if self.epochs == 0 || self.epochs > 1000 {
            return Err(InoculationError::Epochs(self.epochs));
        }
        if self.batch_size == 0 || self.batch_size > 1024 {
            return Err(InoculationError::BatchSize(self.batch_size));
        }
        if !self.tolerance_pp.is_finite() || self.tolerance_pp < 0.0 {
            return Err(InoculationError::Tolerance(self.tolerance_pp));
        }
        Ok(())
    }

    /// Parses a comma-separated list (`"100,200,300"`, `"1e-4, 5e-5"`), naming `what` in the
    /// error.
    pub fn parse_list<T: std::str::FromStr>(
        what: &str,
        text: &str,
    ) -> Result<Vec<T>, InoculationError> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<T>().map_err(|_| InoculationError::NotANumber {
                    what: what.to_string(),
                    text: s.to_string(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked() {
        let mut s = InoculationSettings {
            probes: vec![ProbeKind::RowDeletion],
            ..InoculationSettings::default()
        };
        assert_eq!(s.check(), Ok(()));
        s.sizes = vec![200, 100];
        assert_eq!(
            s.check(),
            Err(InoculationError::SizesNotIncreasing(vec![200, 100]))
        );
        assert!(s.check().unwrap_err().to_string().contains("nested"));
        s.sizes = vec![100];
        s.learning_rates = vec![f64::NAN];
        assert!(matches!(s.check(), Err(InoculationError::LearningRates(_))));
        s.learning_rates = vec![1e-5];
        s.probes.clear();
        assert_eq!(s.check(), Err(InoculationError::NoProbes));
    }

    #[test]
    fn lists_parse_with_the_field_named() {
        assert_eq!(
            InoculationSettings::parse_list::<usize>("--sizes", "100, 200,300"),
            Ok(vec![100, 200, 300])
        );
        assert_eq!(
            InoculationSettings::parse_list::<f64>("--lrs", "1e-4,5e-5"),
            Ok(vec![1e-4, 5e-5])
        );
        assert_eq!(
            InoculationSettings::parse_list::<usize>("--sizes", "100,x"),
            Err(InoculationError::NotANumber {
                what: "--sizes".into(),
                text: "x".into()
            })
        );
        assert_eq!(
            InoculationSettings::parse_list::<usize>("--sizes", "100,x")
                .unwrap_err()
                .to_string(),
            "--sizes: cannot read \"x\" as a number"
        );
    }
}
