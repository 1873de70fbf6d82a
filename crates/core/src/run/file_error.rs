//! Why a run file (or the pieces a saved run is kept in) cannot be read: each case a variant
//! that names the file, the place in it and what was expected, so the CLI, the worker and the
//! page say the same words and a caller can tell the cases apart.

use super::{RUN_FORMAT, RUN_VERSION};
use crate::data::json::JsonError;

/// A run file that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunFileError {
    /// Not JSON at all.
    #[error("{file}: line {line}, column {column}: not JSON: {message}")]
    NotJson {
        /// The source.
        file: String,
        /// Line of the first error.
        line: usize,
        /// Column of the first error.
        column: usize,
        /// serde_json's words.
        message: String,
    },
    /// A piece that is not UTF-8 text.
    #[error("{file}: not UTF-8 text: {message}")]
    NotUtf8 {
        /// The piece.
        file: String,
        /// Where the bytes stop being UTF-8.
        message: String,
    },
    /// Not a tabprobe run: its format marker is another (or absent).
    #[error(
        "{file}: {path} is {found}; expected {RUN_FORMAT:?} (is this a run file written by \
         `tabprobe probe` or the site?)"
    )]
    Format {
        /// The source.
        file: String,
        /// Where the marker is (`$.format`, or `$.Head.format` in pieces).
        path: &'static str,
        /// What it holds, as JSON reads it.
        found: String,
    },
    /// A run of another version of the format.
    #[error("{file}: {path} is {found}; this build reads version {RUN_VERSION}")]
    Version {
        /// The source.
        file: String,
        /// Where the version is.
        path: &'static str,
        /// What it holds.
        found: String,
    },
    /// JSON of another shape.
    #[error(transparent)]
    Shape(JsonError),
    /// A score is `null`: what a tabprobe that did not refuse NaN outputs wrote.
    #[error(
        "{0} — a score is null where a number belongs: the model gave NaN or infinite outputs, \
         which JSON cannot hold; this run cannot be reported, resumed or merged: score it again \
         with a working checkpoint"
    )]
    NullScore(JsonError),
    /// Pieces that do not start with a run's head.
    #[error("{file}: expected the head of a run first (a piece {{\"Head\": …}})")]
    NoHead {
        /// The piece.
        file: String,
    },
    /// Pieces that hold no run.
    #[error("{file}: holds no run")]
    Empty {
        /// The pieces' name.
        file: String,
    },
    /// Pieces that hold several runs where one was expected.
    #[error("{file}: holds {runs} runs; expected one")]
    NotOne {
        /// The pieces' name.
        file: String,
        /// How many they hold.
        runs: usize,
    },
    /// A run whose contents do not hold together.
    #[error("{file}: {problem}")]
    Invalid {
        /// The source (and the run, in pieces holding several).
        file: String,
        /// What is wrong.
        problem: RunCheckError,
    },
}

impl RunFileError {
    /// The error for JSON of another shape, told apart when a score is `null`.
    pub(crate) fn shape(e: JsonError) -> RunFileError {
        // serde's words are the only sign of a null where a number belongs.
        if e.path.contains(".score.") && e.message.contains("invalid type: null") {
            RunFileError::NullScore(e)
        } else {
            RunFileError::Shape(e)
        }
    }
}

/// What [`super::RunResult::check`] finds wrong in a run: an index that points nowhere, or a
/// score that is not finite.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunCheckError {
    /// An index past the end of what it indexes.
    #[error("{path} is {index}, but the file has only {len} {of}")]
    Dangling {
        /// The JSON path of the index.
        path: String,
        /// Its value.
        index: usize,
        /// How many there are.
        len: usize,
        /// What it indexes (`pairs`, `examples`).
        of: &'static str,
    },
    /// A score past f32's range (JSON cannot hold NaN; 1e39 reads as infinity).
    #[error(
        "$.pairs[{pair}].score holds a number that is not finite (logits {logits:?}, \
         probabilities {probs:?}); a run with it cannot be reported, resumed or merged: score it \
         again with a working checkpoint"
    )]
    NotFinite {
        /// The pair.
        pair: usize,
        /// Its logits.
        logits: Vec<f32>,
        /// Its probabilities.
        probs: [f32; 3],
    },
}
