//! A probe run's file as it arrives from the model worker, piece by piece, and what a run
//! reports while it runs.

use tabprobe_core::run::pieces::RunAssembler;
use tabprobe_core::run::RunResult;
use tabprobe_core::scoring::PairScore;
use web_sys::Blob;

/// A probe run's file as the worker sent it: the run, and the pieces it came in (core's
/// `run::pieces`) as the worker's Blob, which the page stores as it is instead of
/// serialising the run again.
pub struct FinishedRun {
    /// The run file.
    pub run: RunResult,
    /// The byte length of each piece, in order.
    pub piece_bytes: Vec<usize>,
    /// The pieces, one after the other.
    pub blob: Blob,
}

/// What a probe run reports while it runs.
pub enum RunUpdate {
    /// `done` of `total` pairs are scored.
    Progress {
        /// Pairs scored.
        done: usize,
        /// Pairs in the run.
        total: usize,
    },
    /// The scores of pairs `from..from + scores.len()`, handed out in chunks of `chunk`.
    Scores {
        /// Pairs per chunk.
        chunk: usize,
        /// The first pair's position.
        from: usize,
        /// Their scores.
        scores: Vec<PairScore>,
    },
}

/// A run file arriving piece by piece: each piece is parsed when its message comes (a task
/// of its own), so no message handler parses the whole file.
pub(super) struct Arriving {
    assembler: RunAssembler,
    /// The byte length of each piece taken.
    piece_bytes: Vec<usize>,
    /// The first piece that did not read; the run then fails when it finishes.
    problem: Option<String>,
}

impl Arriving {
    pub(super) fn new() -> Self {
        Arriving {
            assembler: RunAssembler::new("the run file from the model worker"),
            piece_bytes: Vec::new(),
            problem: None,
        }
    }

    pub(super) fn take(&mut self, parts: Vec<Vec<u8>>) {
        if self.problem.is_some() {
            return;
        }
        if parts.len() != 1 {
            self.problem = Some(format!("a run piece came with {} byte parts", parts.len()));
            return;
        }
        for part in parts {
            match crate::timing::timed("run-piece-parse", || self.assembler.push(&part)) {
                Ok(()) => self.piece_bytes.push(part.len()),
                Err(e) => self.problem = Some(e.to_string()),
            }
        }
    }

    /// The run, when every piece `piece_bytes` lists came and read, with the Blob of them.
    pub(super) fn finish(
        self,
        piece_bytes: Vec<usize>,
        blob: Option<Blob>,
    ) -> Result<FinishedRun, String> {
        if let Some(p) = self.problem {
            return Err(p);
        }
        if self.piece_bytes != piece_bytes {
            return Err(format!(
                "the model worker sent {} pieces of the run's {}, or of other lengths",
                self.piece_bytes.len(),
                piece_bytes.len()
            ));
        }
        let blob = blob.ok_or("the model worker sent no Blob of the run's pieces")?;
        let blob_bytes = blob.size();
        let total: usize = piece_bytes.iter().sum();
        if blob_bytes != total as f64 {
            return Err(format!(
                "the Blob of the run's pieces holds {blob_bytes} bytes; the pieces {total}"
            ));
        }
        let run = self.assembler.finish_one().map_err(|e| e.to_string())?;
        Ok(FinishedRun {
            run,
            piece_bytes,
            blob,
        })
    }
}
