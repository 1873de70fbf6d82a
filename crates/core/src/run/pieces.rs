//! A run file in pieces: small JSON texts that together hold one or more runs, so that moving
//! a large run between the worker and the page, or to and from the browser's storage, never
//! needs one long parse on the page's thread (the INFOTABS dev split's row-deletion run is
//! 34 MB of JSON; parsed whole it blocks the page for about 0.7 s). Each piece parses on its
//! own, a message or a task at a time.
//!
//! A run goes as a [`Piece::Head`] (the run with its examples, items and pairs left out),
//! then its examples, items and pairs in pieces of at most [`ENTRIES_PER_PIECE`] entries, in
//! order. Several runs follow one another: each head starts the next. [`RunAssembler`] takes
//! the pieces back, checks each run like [`super::parse_run`] does (format, version, shape,
//! every index) and names the piece and place of any problem.

use serde::{Deserialize, Serialize};

use super::{RunFileError, RunResult, ScoredPair, RUN_FORMAT, RUN_VERSION};
use crate::probe::{ProbeExample, ProbeItem};

/// Entries (examples, items or pairs) per piece: a piece of the INFOTABS dev split's
/// row-deletion items is then about 0.3 MB of JSON, parsed in about 10 ms in the browser on
/// this project's 2-core test machine (512 took 10–35 ms), well inside a 50 ms task.
pub const ENTRIES_PER_PIECE: usize = 256;

/// One piece as written: borrowed from the run.
#[derive(Serialize)]
enum PieceOut<'a> {
    Head(&'a RunResult),
    Examples(&'a [ProbeExample]),
    Items(&'a [ProbeItem]),
    Pairs(&'a [ScoredPair]),
}

/// One piece as read back.
#[derive(Deserialize)]
enum Piece {
    Head(Box<RunResult>),
    Examples(Vec<ProbeExample>),
    Items(Vec<ProbeItem>),
    Pairs(Vec<ScoredPair>),
}

/// The run without its examples, items and pairs (what a head piece carries). Every other
/// field is listed, so a field added to [`RunResult`] cannot be forgotten here.
fn head_of(run: &RunResult) -> RunResult {
    RunResult {
        format: run.format.clone(),
        version: run.version,
        model: run.model.clone(),
        settings: run.settings.clone(),
        rules: run.rules.clone(),
        label_set: run.label_set,
        examples: Vec::new(),
        items: Vec::new(),
        pairs: Vec::new(),
        hypothesis_only_pairs: run.hypothesis_only_pairs.clone(),
        hypothesis_only_model: run.hypothesis_only_model.clone(),
        skipped: run.skipped.clone(),
        unapplied_reviews: run.unapplied_reviews.clone(),
        cancelled_at: run.cancelled_at,
        shard: run.shard.clone(),
    }
}

/// The pieces of `run`, as JSON bytes, written one at a time as the iterator is read (so a
/// caller can yield between them).
pub fn run_pieces(run: &RunResult) -> impl Iterator<Item = Vec<u8>> + '_ {
    let head = std::iter::once_with(move || encode(&PieceOut::Head(&head_of(run))));
    let examples = run
        .examples
        .chunks(ENTRIES_PER_PIECE)
        .map(|c| encode(&PieceOut::Examples(c)));
    let items = run
        .items
        .chunks(ENTRIES_PER_PIECE)
        .map(|c| encode(&PieceOut::Items(c)));
    let pairs = run
        .pairs
        .chunks(ENTRIES_PER_PIECE)
        .map(|c| encode(&PieceOut::Pairs(c)));
    head.chain(examples).chain(items).chain(pairs)
}

/// The pieces of every run in `runs`, one run after the other.
pub fn runs_pieces(runs: &[RunResult]) -> impl Iterator<Item = Vec<u8>> + '_ {
    runs.iter().flat_map(run_pieces)
}

/// Pieces whose stored lengths do not add up to the bytes stored (or overflow): the saved
/// lengths and the Blob beside them disagree, so no piece can be cut safely.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}: its pieces hold {total} bytes; the lengths of its {pieces} pieces do not add up to that")]
pub struct PieceLengthsError {
    /// The source, as the caller named it.
    pub name: String,
    /// The bytes the pieces hold.
    pub total: usize,
    /// How many lengths were given.
    pub pieces: usize,
}

// The worker's and the page's loaders report errors as the text they show; this keeps their
// `?` working while core's own signature stays typed.
impl From<PieceLengthsError> for String {
    fn from(e: PieceLengthsError) -> String {
        e.to_string()
    }
}

/// Where each piece lies in `total` bytes of pieces stored one after the other, given their
/// `lengths` (as the page stores them beside the Blob); `name` names the source in the error
/// when the lengths do not add up to `total` (or overflow).
pub fn piece_ranges(
    name: &str,
    lengths: &[usize],
    total: usize,
) -> Result<Vec<std::ops::Range<usize>>, PieceLengthsError> {
    let sum = lengths
        .iter()
        .try_fold(0usize, |sum, &n| sum.checked_add(n));
    if sum != Some(total) {
        return Err(PieceLengthsError {
            name: name.to_string(),
            total,
            pieces: lengths.len(),
        });
    }
    let mut start = 0;
    Ok(lengths
        .iter()
        .map(|&n| {
            let range = start..start + n;
            start += n;
            range
        })
        .collect())
}

fn encode(piece: &PieceOut<'_>) -> Vec<u8> {
    // Serialising plain data into a Vec cannot fail (no maps with non-string keys, no I/O).
    serde_json::to_vec(piece).unwrap_or_default()
}

/// Takes pieces back, in the order they were written, into runs.
#[derive(Debug)]
pub struct RunAssembler {
    /// Names the source in errors, e.g. `saved run run-1700000000000`.
    name: String,
    runs: Vec<RunResult>,
    /// Pieces taken so far.
    pieces: usize,
}

impl RunAssembler {
    /// An assembler whose errors name `name`.
    pub fn new(name: impl Into<String>) -> Self {
        RunAssembler {
            name: name.into(),
            runs: Vec::new(),
            pieces: 0,
        }
    }

    /// Takes the next piece. A head must come first and must be of this build's run format
    /// and version; the error names the piece (counted from 0) and the place in it.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), RunFileError> {
        let k = self.pieces;
        self.pieces += 1;
        let file = format!("{}, piece {k}", self.name);
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                return Err(RunFileError::NotUtf8 {
                    file,
                    message: e.to_string(),
                })
            }
        };
        let piece: Piece =
            crate::data::json::parse_json_at(&file, text).map_err(RunFileError::shape)?;
        if let Piece::Head(head) = piece {
            if head.format != RUN_FORMAT {
                return Err(RunFileError::Format {
                    file,
                    path: "$.Head.format",
                    found: format!("{:?}", head.format),
                });
            }
            if head.version != RUN_VERSION {
                return Err(RunFileError::Version {
                    file,
                    path: "$.Head.version",
                    found: head.version.to_string(),
                });
            }
            self.runs.push(*head);
            return Ok(());
        }
        let Some(run) = self.runs.last_mut() else {
            return Err(RunFileError::NoHead { file });
        };
        match piece {
            Piece::Examples(e) => run.examples.extend(e),
            Piece::Items(i) => run.items.extend(i),
            Piece::Pairs(p) => run.pairs.extend(p),
            Piece::Head(_) => {}
        }
        Ok(())
    }

    /// Pieces taken so far.
    pub fn pieces(&self) -> usize {
        self.pieces
    }

    /// The runs, each checked ([`RunResult::check`]); at least one.
    pub fn finish(self) -> Result<Vec<RunResult>, RunFileError> {
        if self.runs.is_empty() {
            return Err(RunFileError::Empty { file: self.name });
        }
        for (k, run) in self.runs.iter().enumerate() {
            run.check().map_err(|problem| RunFileError::Invalid {
                file: format!("{}, run {k}", self.name),
                problem,
            })?;
        }
        Ok(self.runs)
    }

    /// The one run the pieces hold (e.g. a single model's run from the worker).
    pub fn finish_one(self) -> Result<RunResult, RunFileError> {
        let file = self.name.clone();
        let mut runs = self.finish()?;
        match runs.len() {
            1 => Ok(runs.remove(0)),
            runs => Err(RunFileError::NotOne { file, runs }),
        }
    }
}
