//! A long job's life in the worker. Every job that scores pairs (a probe run, a scoring job)
//! goes through one chunk loop, [`score_in_chunks`]: hand out a chunk, score it, check the
//! scores, take them, post the progress, yield so a [`crate::protocol::Request::Cancel`] can
//! land. Every job that ends without its answer ends with a [`JobError`] — a cancel is its own
//! case, never a message compared with a constant — which the host posts as the one failure
//! response, [`Response::JobFailed`].

use tabprobe_core::probe::ProbeSet;
use tabprobe_core::scoring::{Pair, PairScore};

use crate::outbox::post;
use crate::outputs::check_scores;
use crate::protocol::{JobError, Response};
use crate::scorer::Scorer;

/// A job's id and how to ask whether the page cancelled it.
pub struct Job<C: Fn() -> bool> {
    /// The id the page gave the job.
    pub id: u64,
    /// Whether a cancel of this job has arrived.
    pub cancelled: C,
}

impl<C: Fn() -> bool> Job<C> {
    /// Lets queued messages (a cancel) run, then says whether the job goes on: `Err` with
    /// [`JobError::Cancelled`] at `done` of `total` once the page cancelled it. The CPU path
    /// never awaits, so without this yield a cancel would only land after the job.
    pub async fn yield_now(&self, done: usize, total: usize) -> Result<(), JobError> {
        gloo_timers::future::TimeoutFuture::new(0).await;
        self.check(done, total)
    }

    /// `Err` with [`JobError::Cancelled`] at `done` of `total` when the page cancelled the job.
    pub fn check(&self, done: usize, total: usize) -> Result<(), JobError> {
        if (self.cancelled)() {
            Err(JobError::Cancelled { done, total })
        } else {
            Ok(())
        }
    }
}

/// The work of a job that scores pairs in chunks.
pub trait Chunks {
    /// The next chunk: its first pair's position in the job and its pairs, or `None` when
    /// every pair is handed out.
    fn next_chunk(&mut self) -> Option<(usize, Vec<Pair>)>;
    /// The probe set the pairs come from, when a probe run scores them (an error then names
    /// the example and item a pair belongs to).
    fn set(&self) -> Option<&ProbeSet>;
    /// Takes the checked scores of the chunk that starts at `from`.
    fn take(&mut self, from: usize, scores: Vec<PairScore>) -> Result<(), JobError>;
    /// Pairs scored and pairs in the job.
    fn progress(&self) -> (usize, usize);
}

/// Scores `work` with `scorer` chunk by chunk, posting [`Response::Progress`] for `job` at
/// the start and after every chunk. Ends with `Ok` when every pair is scored, or with the
/// first error: a cancel (checked before each chunk is scored), a scoring error, a
/// non-finite score (placed in the job by [`check_scores`]).
pub async fn score_in_chunks<C: Fn() -> bool>(
    job: &Job<C>,
    scorer: &Scorer,
    work: &mut impl Chunks,
) -> Result<(), JobError> {
    post_progress(job.id, work);
    while let Some((from, pairs)) = work.next_chunk() {
        let (done, total) = work.progress();
        job.check(done, total)?;
        let scores = scorer.score(&pairs, from, work.set()).await?;
        check_scores(&scorer.id().name, from, &pairs, &scores, work.set())?;
        work.take(from, scores)?;
        let (done, total) = post_progress(job.id, work);
        job.yield_now(done, total).await?;
    }
    Ok(())
}

/// Posts where `work` stands as [`Response::Progress`] of `job`; returns (done, total).
fn post_progress(job: u64, work: &impl Chunks) -> (usize, usize) {
    let (done, total) = work.progress();
    post(&Response::Progress { job, done, total });
    (done, total)
}

/// A scoring job's work: `pairs` in chunks of `chunk`, their scores in order.
pub struct PairsJob<'a> {
    pairs: &'a [Pair],
    chunk: usize,
    handed: usize,
    scores: Vec<PairScore>,
}

impl<'a> PairsJob<'a> {
    /// The work of scoring `pairs`, `chunk` at a time.
    pub fn new(pairs: &'a [Pair], chunk: usize) -> Self {
        PairsJob {
            pairs,
            chunk: chunk.max(1),
            handed: 0,
            scores: Vec::with_capacity(pairs.len()),
        }
    }

    /// The scores, in `pairs`' order.
    pub fn into_scores(self) -> Vec<PairScore> {
        self.scores
    }
}

impl Chunks for PairsJob<'_> {
    fn next_chunk(&mut self) -> Option<(usize, Vec<Pair>)> {
        let from = self.handed;
        let to = (from + self.chunk).min(self.pairs.len());
        if from == to {
            return None;
        }
        self.handed = to;
        Some((from, self.pairs[from..to].to_vec()))
    }

    fn set(&self) -> Option<&ProbeSet> {
        None
    }

    fn take(&mut self, _from: usize, scores: Vec<PairScore>) -> Result<(), JobError> {
        self.scores.extend(scores);
        Ok(())
    }

    fn progress(&self) -> (usize, usize) {
        (self.scores.len(), self.pairs.len())
    }
}
