//! What a running inoculation reports (docs/inoculation.md#running-it): the phase, the work done and planned, and
//! the time spent, from which the page shows progress and an estimate of the time left.

use serde::{Deserialize, Serialize};

/// What an inoculation is doing, for a progress display.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InoculationProgress {
    /// What is running.
    pub phase: Phase,
    /// Work done and planned, in forward-pair equivalents (a training pair counts 3: forward
    /// and backward); early stopping ends runs sooner, so `planned` is an upper bound.
    pub work: (f64, f64),
    /// Seconds since the start.
    pub elapsed: f64,
}

/// The phase of an inoculation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Phase {
    /// Scoring the evaluation pairs with model `model` (0: before; k: the kept model of the
    /// k-th size).
    Evaluating {
        /// Index into the result's models.
        model: usize,
        /// Pairs scored.
        done: usize,
        /// Pairs to score.
        total: usize,
    },
    /// Fine-tuning grid run `run` of `runs`.
    Training {
        /// 1-based.
        run: usize,
        /// Grid runs in all.
        runs: usize,
        /// Sample size.
        size: usize,
        /// Learning rate.
        learning_rate: f64,
        /// 1-based epoch.
        epoch: usize,
        /// Epochs at most.
        epochs: usize,
        /// Steps done in this run.
        step: usize,
        /// Steps planned in this run.
        steps: usize,
        /// Mean loss of the last step.
        loss: Option<f64>,
        /// Latest dev accuracy.
        dev_accuracy: Option<f64>,
    },
}

impl Phase {
    /// One line for a progress display, e.g. `n = 100, lr 1e-5 (run 3 of 9): epoch 2 of 30,
    /// step 18 of 390, loss 0.612, dev 58.1%` or `evaluating fine-tuned model 1: 400 of 3446
    /// pairs`.
    pub fn describe(&self) -> String {
        match self {
            Phase::Evaluating { model, done, total } => {
                let who = if *model == 0 {
                    "the model before inoculation".to_string()
                } else {
                    format!("fine-tuned model {model}")
                };
                format!("evaluating {who}: {done} of {total} pairs")
            }
            Phase::Training {
                run,
                runs,
                size,
                learning_rate,
                epoch,
                epochs,
                step,
                steps,
                loss,
                dev_accuracy,
            } => format!(
                "n = {size}, lr {learning_rate:e} (run {run} of {runs}): epoch {epoch} of {epochs}, \
                 step {step} of {steps}, loss {}, dev {}",
                loss.map_or("—".into(), |l| format!("{l:.3}")),
                dev_accuracy.map_or("—".into(), |a| format!("{:.1}%", 100.0 * a))
            ),
        }
    }
}

impl InoculationProgress {
    /// Seconds left, extrapolated from the pace so far (`None` before any work is done).
    /// Early stopping usually ends sooner than planned, so it errs long.
    pub fn remaining(&self) -> Option<f64> {
        let (done, planned) = self.work;
        (done > 0.0 && planned >= done).then(|| self.elapsed * (planned - done) / done)
    }

    /// Fraction of the planned work done, 0 to 1.
    pub fn fraction(&self) -> f64 {
        let (done, planned) = self.work;
        if planned > 0.0 {
            (done / planned).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_time_extrapolates_the_pace() {
        let p = InoculationProgress {
            phase: Phase::Evaluating {
                model: 0,
                done: 1,
                total: 4,
            },
            work: (25.0, 100.0),
            elapsed: 10.0,
        };
        // 25 units in 10 s: 75 more take 30 s.
        assert_eq!(p.remaining(), Some(30.0));
        assert_eq!(p.fraction(), 0.25);
        let start = InoculationProgress {
            work: (0.0, 100.0),
            ..p
        };
        assert_eq!(start.remaining(), None);
        let training = Phase::Training {
            run: 3,
            runs: 9,
            size: 100,
            learning_rate: 1e-5,
            epoch: 2,
            epochs: 30,
            step: 18,
            steps: 390,
            loss: Some(0.6123),
            dev_accuracy: Some(0.5806),
        };
        assert_eq!(
            training.describe(),
            "n = 100, lr 1e-5 (run 3 of 9): epoch 2 of 30, step 18 of 390, loss 0.612, dev 58.1%"
        );
    }
}
