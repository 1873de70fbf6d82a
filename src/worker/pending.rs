//! What the page waits for from the model worker: every request (a load, a job, an export…)
//! gets an id and waits in one table keyed by it ([`Pending`]), as the kind of answer it
//! expects ([`Waiting`]); [`dispatch`] hands each message of the worker to the request it
//! answers ([`Response::request_id`]), and a worker that dies fails the whole table.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::channel::oneshot;
use tabprobe_core::data::import::{ImportError, ImportReport};
use tabprobe_core::inoculation::{InoculationProgress, InoculationResult};
use tabprobe_core::probe::ProbeCounts;
use tabprobe_core::report::FullReport;
use tabprobe_core::scoring::PairScore;
use tabprobe_core::Dataset;
use tabprobe_worker::protocol::{JobError, ModelInfo, Response};
use web_sys::Blob;

use crate::worker::arriving::{Arriving, FinishedRun, RunUpdate};
use crate::worker::watch::Watch;

/// How a job (scoring, a probe run, an inoculation) ended without its answer.
#[derive(Debug, Clone, PartialEq)]
pub enum JobFailure {
    /// The worker ended it: cancelled, or failed with its reason.
    Ended(JobError),
    /// The worker died or stopped answering (the job did not end by itself): a probe run's
    /// kept scores are then kept for resuming.
    Lost(String),
}

impl JobFailure {
    /// What happened, for the user.
    pub fn message(&self) -> String {
        match self {
            JobFailure::Ended(error) => error.to_string(),
            JobFailure::Lost(message) => message.clone(),
        }
    }

    /// Whether the user cancelled it.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, JobFailure::Ended(JobError::Cancelled { .. }))
    }

    /// Whether the worker was lost under it.
    pub fn is_lost(&self) -> bool {
        matches!(self, JobFailure::Lost(_))
    }
}

/// Files as (name, bytes), e.g. a fine-tuned checkpoint's Hugging Face folder.
pub type NamedFiles = Vec<(String, Vec<u8>)>;

/// The future of a job's result and its elapsed milliseconds.
pub type JobResult<T> = futures::future::LocalBoxFuture<'static, Result<(T, f64), JobFailure>>;

/// A job waiting for its result `T` (scores, a run file, an inoculation result) and the
/// elapsed milliseconds; `P` is what its progress reports carry (pairs done and total, or an
/// inoculation's phase).
pub(super) struct Job<T, P = (usize, usize)> {
    pub(super) done: oneshot::Sender<Result<(T, f64), JobFailure>>,
    pub(super) progress: Box<dyn Fn(P)>,
}

/// What one request waits for, by the kind of its answer.
pub(super) enum Waiting {
    /// A load, a move or a scores import: the model's info.
    Load(oneshot::Sender<Result<ModelInfo, String>>),
    /// A scoring job: scores, with progress as (done, total).
    Scores(Job<Vec<PairScore>>),
    /// A probe run: its file, with progress and each chunk's scores; its pieces as they come.
    Run(Job<FinishedRun, RunUpdate>, Arriving),
    /// An inoculation: its result, with its phases as progress.
    Inoculation(Job<InoculationResult, InoculationProgress>),
    /// An export: files as (name, bytes).
    Files(oneshot::Sender<Result<NamedFiles, String>>),
    /// A probe set's counts.
    Counts(oneshot::Sender<Result<ProbeCounts, String>>),
    /// A dataset import.
    Import(oneshot::Sender<ImportOutcome>),
    /// A saved run's report.
    Report(oneshot::Sender<Result<Box<FullReport>, String>>),
}

impl Waiting {
    /// Ends the wait with the worker lost (`message` says how).
    fn lost(self, message: &str) {
        let lost = || JobFailure::Lost(message.to_string());
        let _ = match self {
            Waiting::Load(tx) => tx.send(Err(message.to_string())).map_err(drop),
            Waiting::Scores(job) => job.done.send(Err(lost())).map_err(drop),
            Waiting::Run(job, _) => job.done.send(Err(lost())).map_err(drop),
            Waiting::Inoculation(job) => job.done.send(Err(lost())).map_err(drop),
            Waiting::Files(tx) => tx.send(Err(message.to_string())).map_err(drop),
            Waiting::Counts(tx) => tx.send(Err(message.to_string())).map_err(drop),
            Waiting::Import(tx) => tx.send(Err(worker_error("files", message))).map_err(drop),
            Waiting::Report(tx) => tx.send(Err(message.to_string())).map_err(drop),
        };
    }

    /// Ends the wait with the worker's [`Response::JobFailed`].
    fn failed(self, error: JobError) {
        let ended = || JobFailure::Ended(error.clone());
        let _ = match self {
            Waiting::Scores(job) => job.done.send(Err(ended())).map_err(drop),
            Waiting::Run(job, _) => job.done.send(Err(ended())).map_err(drop),
            Waiting::Inoculation(job) => job.done.send(Err(ended())).map_err(drop),
            Waiting::Files(tx) => tx.send(Err(error.to_string())).map_err(drop),
            // Loads, counts, imports and reports answer with their own messages; a failure
            // for one is the worker's mistake, and says so.
            other => {
                other.lost(&format!(
                    "the model worker answered with a job failure: {error}"
                ));
                Ok(())
            }
        };
    }

    /// Whether this is a job that reports every chunk (a scoring job or a probe run), which
    /// the watch may stop on its own when the worker goes silent.
    fn scoring(&self) -> bool {
        matches!(self, Waiting::Scores(_) | Waiting::Run(..))
    }
}

#[derive(Default)]
pub(super) struct Pending {
    /// Whether the worker said [`Response::Ready`]; until then messages wait in `queue`.
    pub(super) ready: bool,
    /// Set once the worker died: nothing more is sent to it.
    pub(super) dead: bool,
    /// The panic message the worker posted before dying, if it could.
    pub(super) panic: Option<String>,
    pub(super) queue: Vec<(js_sys::Array, js_sys::Array)>,
    /// The last request id given out: every request (load, job, export…) gets the next.
    pub(super) last_id: u64,
    /// What each request waits for, by its id: the one table the worker's answers go to.
    pub(super) waiting: HashMap<u64, Waiting>,
    /// What the page has heard from the worker, for the watch.
    pub(super) watch: Watch,
    /// Pings sent (their numbers).
    pub(super) pings: u64,
    /// Whether the page was last told that the worker is silent.
    pub(super) told_silent: bool,
}

/// What an import in the worker gives: the dataset and its report, or the located problem
/// (a worker that stopped reads as a problem of the files given).
pub type ImportOutcome = Result<Box<(Dataset, ImportReport)>, ImportError>;

impl Pending {
    /// A worker that died answers nothing: fail everything that waits on it.
    pub(super) fn fail_all(&mut self, message: &str) {
        for (_, waiting) in self.waiting.drain() {
            waiting.lost(message);
        }
    }

    /// Registers `waiting` under a fresh request id, and returns the id.
    pub(super) fn wait(&mut self, waiting: Waiting) -> u64 {
        self.last_id += 1;
        self.waiting.insert(self.last_id, waiting);
        self.last_id
    }

    /// Whether anything waits on the worker, and whether all of it is scoring (probe runs
    /// and scoring jobs, which report every chunk).
    pub(super) fn busy(&self) -> (bool, bool) {
        let busy = !self.waiting.is_empty();
        (busy, busy && self.waiting.values().all(Waiting::scoring))
    }
}

/// An import that the worker could not do, located at the worker.
pub(super) fn worker_error(file: &str, message: &str) -> ImportError {
    ImportError {
        file: file.to_string(),
        location: "import".into(),
        message: format!("the import did not finish: {message}"),
    }
}

/// Hands the worker's `response` (with its byte `parts` and trailing `blob`) to the request
/// it answers: a job's reports go to its callback and leave it waiting; an answer ends the
/// wait. Answers for requests no longer waiting (a cancelled wait) are dropped.
pub(super) fn dispatch(
    pending: &Rc<RefCell<Pending>>,
    response: Response,
    parts: Vec<Vec<u8>>,
    blob: Option<Blob>,
) {
    let mut p = pending.borrow_mut();
    if let Response::BadRequest { message } = &response {
        return p.fail_all(&format!("the model worker rejected a message: {message}"));
    }
    // Ready, a panic and a pong are handled before dispatch: they answer no one request.
    let Some(id) = response.request_id() else {
        return;
    };
    match (response, p.waiting.get_mut(&id)) {
        (Response::Progress { done, total, .. }, Some(Waiting::Scores(job))) => {
            (job.progress)((done, total))
        }
        (Response::Progress { done, total, .. }, Some(Waiting::Run(job, _))) => {
            (job.progress)(RunUpdate::Progress { done, total })
        }
        (
            Response::RunScores {
                chunk,
                from,
                scores,
                ..
            },
            Some(Waiting::Run(job, _)),
        ) => (job.progress)(RunUpdate::Scores {
            chunk,
            from,
            scores,
        }),
        (Response::RunPiece { .. }, Some(Waiting::Run(_, arriving))) => arriving.take(parts),
        (Response::InoculationProgress { progress, .. }, Some(Waiting::Inoculation(job))) => {
            (job.progress)(progress)
        }
        (answer, Some(_)) => {
            if let Some(waiting) = p.waiting.remove(&id) {
                answered(waiting, answer, parts, blob);
            }
        }
        (_, None) => {}
    }
}

/// Ends `waiting` with `answer`, the worker's last message for it.
fn answered(waiting: Waiting, answer: Response, parts: Vec<Vec<u8>>, blob: Option<Blob>) {
    let _ = match (waiting, answer) {
        (Waiting::Load(tx), Response::ModelLoaded { info, .. }) => tx.send(Ok(info)).map_err(drop),
        (Waiting::Load(tx), Response::LoadFailed { message, .. }) => {
            tx.send(Err(message)).map_err(drop)
        }
        (
            Waiting::Scores(job),
            Response::Scores {
                scores, elapsed_ms, ..
            },
        ) => job.done.send(Ok((scores, elapsed_ms))).map_err(drop),
        (
            Waiting::Run(job, arriving),
            Response::RunFinished {
                piece_bytes,
                elapsed_ms,
                ..
            },
        ) => {
            let outcome = crate::timing::timed("run-finish", || arriving.finish(piece_bytes, blob))
                .map(|run| (run, elapsed_ms))
                .map_err(|message| {
                    JobFailure::Ended(JobError::Failed(format!(
                        "the finished run does not read: {message}"
                    )))
                });
            job.done.send(outcome).map_err(drop)
        }
        (Waiting::Inoculation(job), Response::InoculationFinished { result, .. }) => {
            let elapsed_ms = 1000.0 * result.seconds;
            job.done.send(Ok((*result, elapsed_ms))).map_err(drop)
        }
        (Waiting::Files(tx), Response::CheckpointFiles { names, .. }) => tx
            .send(if names.len() == parts.len() {
                Ok(names.into_iter().zip(parts).collect())
            } else {
                Err(format!(
                    "the worker sent {} files for {} names",
                    parts.len(),
                    names.len()
                ))
            })
            .map_err(drop),
        (Waiting::Counts(tx), Response::ProbeCounts { counts, .. }) => {
            tx.send(counts).map_err(drop)
        }
        (Waiting::Import(tx), Response::Imported { result, .. }) => tx.send(result).map_err(drop),
        (Waiting::Report(tx), Response::Report { report, .. }) => tx.send(report).map_err(drop),
        (waiting, Response::JobFailed { error, .. }) => {
            waiting.failed(error);
            Ok(())
        }
        (waiting, other) => {
            // The variant's name only: its fields can be a whole run's scores.
            let debug = format!("{other:?}");
            let kind = debug.split([' ', '{', '(']).next().unwrap_or("a message");
            waiting.lost(&format!(
                "the model worker answered with a message of another kind ({kind})"
            ));
            Ok(())
        }
    };
}
