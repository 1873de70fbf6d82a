//! Why an inoculation cannot be planned or its result put together: settings a user typed that
//! cannot work, a run without the items it needs, or predictions that do not fit the plan.
//! Each case is a variant, with the words the CLI and the page show.

/// An inoculation that cannot be planned or assembled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InoculationError {
    /// No probe chosen for the challenge set.
    #[error("choose at least one probe for the challenge set")]
    NoProbes,
    /// A sample size of 0, or none.
    #[error("sample sizes must be positive, e.g. 100, 200, 300")]
    SizesNotPositive,
    /// Sample sizes that do not increase (the samples are nested).
    #[error("sample sizes must increase (the samples are nested): got {0:?}")]
    SizesNotIncreasing(Vec<usize>),
    /// A learning rate outside (0, 1], or none.
    #[error("learning rates must be in (0, 1], e.g. 1e-4, 5e-5, 1e-5: got {0:?}")]
    LearningRates(Vec<f64>),
    /// Epochs outside 1..=1000.
    #[error("epochs must be 1 to 1000, got {0}")]
    Epochs(usize),
    /// A batch size outside 1..=1024.
    #[error("batch size must be 1 to 1024, got {0}")]
    BatchSize(usize),
    /// A negative or non-finite tolerance.
    #[error("the tolerance must be ≥ 0 percentage points, got {0}")]
    Tolerance(f64),
    /// A list entry that is not a number.
    #[error("{what}: cannot read {text:?} as a number")]
    NotANumber {
        /// The list (`sample sizes`, `--lrs`).
        what: String,
        /// The entry.
        text: String,
    },
    /// The run has no certain or accepted item of the chosen probes.
    #[error(
        "the run has no certain or accepted items of {probes} ({unreviewed} unreviewed, \
         {rejected} rejected): run those probes first"
    )]
    NoChallengeItems {
        /// The chosen probes, comma-separated.
        probes: String,
        /// Their heuristic items nobody reviewed.
        unreviewed: usize,
        /// Their rejected items.
        rejected: usize,
    },
    /// Fewer items with a single expected label than the largest sample.
    #[error(
        "n = {largest} needs {largest} items with a single expected label, but the challenge set \
         ({probes}) has {trainable} of {challenge} items: lower the sizes or add probes"
    )]
    TooFewTrainable {
        /// The largest sample size.
        largest: usize,
        /// The chosen probes, comma-separated.
        probes: String,
        /// Items with a single expected label.
        trainable: usize,
        /// Items in the challenge set.
        challenge: usize,
    },
    /// The largest sample takes every challenge item.
    #[error(
        "all {0} challenge items would be trained on: nothing is left to evaluate; lower the \
         largest size"
    )]
    NothingHeldOut(usize),
    /// No original example in the dev split.
    #[error("no original example in the dev split {0:?} for early stopping")]
    NoDev(String),
    /// Not one prediction list per model.
    #[error("{models} models but {lists} prediction lists")]
    PredictionLists {
        /// Models evaluated.
        models: usize,
        /// Prediction lists given.
        lists: usize,
    },
    /// A model's predictions do not match the evaluation pairs.
    #[error("expected {expected} predictions per model, got {got}")]
    PredictionCount {
        /// The evaluation pairs.
        expected: usize,
        /// The predictions of the first model that differs.
        got: usize,
    },
}
