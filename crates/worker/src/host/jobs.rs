//! The long jobs: scoring pairs, probe runs and inoculation. Scoring and probe runs go through
//! the one chunk loop of [`crate::job`]; an inoculation's loop is the model crate's, paced by
//! [`WorkerPace`] with the same cancel check. Each ends with its answer or one
//! [`Response::JobFailed`].

use js_sys::Date;
use tabprobe_core::inoculation::{
    InoculationPlan, InoculationProgress, InoculationResult, InoculationSettings,
};
use tabprobe_core::probe::ProbeSet;
use tabprobe_core::run::pieces::{run_pieces, RunAssembler};
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::{Pair, PairScore};
use tabprobe_model::train::inoculate::{inoculate, Pace};
use web_sys::Blob;

use super::{job_of, model_in, pool_of, post_failure, scorer_in, Inoculated, SharedHost};
use crate::blob_source::BlobSource;
use crate::digest;
use crate::job::{score_in_chunks, Chunks, Job, PairsJob};
use crate::outbox::{post, post_encoded};
use crate::protocol::{JobError, Request, Response, RunResume, Slot};

/// Starts the long jobs ([`Request::Score`], [`Request::RunProbe`], [`Request::Inoculate`]);
/// other requests are not routed here.
pub(super) fn handle(host: SharedHost, request: Request, parts: Vec<Vec<u8>>) {
    match request {
        Request::Score { job, slot, pairs } => wasm_bindgen_futures::spawn_local(async move {
            let started = Date::now();
            let workers = pool_of(&host, slot).workers();
            match score(&host, job, slot, &pairs).await {
                Ok(scores) => {
                    host.borrow_mut().cancelled.remove(&job);
                    post(&Response::Scores {
                        job,
                        scores,
                        elapsed_ms: Date::now() - started,
                        workers,
                    });
                }
                Err(error) => post_failure(&host, job, error),
            }
        }),
        Request::RunProbe {
            job,
            slot,
            probe,
            resume,
        } => wasm_bindgen_futures::spawn_local(async move {
            let built = probe.build();
            // The request (and its dataset) is not needed once the set is built.
            drop(probe);
            // Scoring time only: the page's speed estimates are pairs per second.
            let started = Date::now();
            let result = match built {
                Ok(set) => run_probe(&host, job, slot, set, resume).await,
                Err(e) => Err(JobError::Failed(format!(
                    "the probe set cannot be built: {e}"
                ))),
            };
            let elapsed_ms = Date::now() - started;
            match result {
                Ok(result) => {
                    host.borrow_mut().cancelled.remove(&job);
                    post_run(job, &result, elapsed_ms);
                }
                Err(error) => post_failure(&host, job, error),
            }
        }),
        Request::Inoculate {
            job,
            slot,
            settings,
        } => wasm_bindgen_futures::spawn_local(async move {
            let run = assemble_run("the run sent for inoculation", &parts);
            drop(parts);
            let outcome = match run {
                Ok(run) => inoculate_job(&host, job, slot, &run, &settings).await,
                Err(e) => Err(JobError::Failed(e)),
            };
            match outcome {
                Ok(result) => {
                    host.borrow_mut().cancelled.remove(&job);
                    post(&Response::InoculationFinished {
                        job,
                        result: Box::new(result),
                    });
                }
                Err(error) => post_failure(&host, job, error),
            }
        }),
        _ => {}
    }
}

/// Scores `pairs` with the scorer in `slot`, in chunks (a cancel ends it with
/// [`JobError::Cancelled`]).
async fn score(
    host: &SharedHost,
    job: u64,
    slot: Slot,
    pairs: &[Pair],
) -> Result<Vec<PairScore>, JobError> {
    let scorer = scorer_in(host, slot)?;
    let mut work = PairsJob::new(pairs, scorer.chunk());
    score_in_chunks(&job_of(host, job), &scorer, &mut work).await?;
    Ok(work.into_scores())
}

/// A probe run's work for the chunk loop: core's step API hands out chunks and takes their
/// scores; each chunk's scores are posted at once ([`Response::RunScores`]) so the page can
/// keep them (a run in progress survives a reload or a crash).
struct RunJob {
    job: u64,
    chunk: usize,
    run: ProbeRun,
}

impl Chunks for RunJob {
    fn next_chunk(&mut self) -> Option<(usize, Vec<Pair>)> {
        let from = self.run.progress().done;
        self.run.next_batch().map(|pairs| (from, pairs))
    }

    fn set(&self) -> Option<&ProbeSet> {
        Some(self.run.set())
    }

    fn take(&mut self, from: usize, scores: Vec<PairScore>) -> Result<(), JobError> {
        self.run
            .submit(scores.clone())
            .map_err(|e| JobError::Failed(e.to_string()))?;
        post(&Response::RunScores {
            job: self.job,
            chunk: self.chunk,
            from,
            scores,
        });
        Ok(())
    }

    fn progress(&self) -> (usize, usize) {
        let p = self.run.progress();
        (p.done, p.total)
    }
}

/// Runs a probe set through the chunk loop. A cancel ends the run with what was scored
/// ([`ProbeRun::finish_partial`]), which is an answer, not a failure. A `resume` takes an
/// interrupted run's scores and chunk and scores only the rest.
async fn run_probe(
    host: &SharedHost,
    job: u64,
    slot: Slot,
    set: ProbeSet,
    resume: Option<RunResume>,
) -> Result<RunResult, JobError> {
    let scorer = scorer_in(host, slot)?;
    // A scores file made for another probe set is refused before anything is scored.
    scorer.check_set(&set)?;
    let chunk = match &resume {
        Some(r) => r.chunk,
        None => scorer.chunk(),
    }
    .max(1);
    let mut run = ProbeRun::new(set, chunk);
    if let Some(resume) = resume {
        let kept = resume.scores.len();
        run.resume_with(resume.scores).map_err(|_| {
            format!(
                "the interrupted run kept {kept} scores but this probe set has {} pairs: it is \
                 not the same run (discard it and start again)",
                run.progress().total
            )
        })?;
    }
    let mut work = RunJob { job, chunk, run };
    match score_in_chunks(&job_of(host, job), &scorer, &mut work).await {
        Ok(()) => work
            .run
            .finish(scorer.id().clone())
            .map_err(|e| JobError::Failed(e.to_string())),
        Err(JobError::Cancelled { .. }) => Ok(work.run.finish_partial(scorer.id().clone())),
        Err(e) => Err(e),
    }
}

/// Posts a finished run: its pieces, a message each, then [`Response::RunFinished`] with the
/// Blob of them all, which the page stores as it is. The Blob is made here: building one of
/// 34 MB took 160 ms, which the page's thread cannot spare.
fn post_run(job: u64, run: &RunResult, elapsed_ms: f64) {
    let pieces: Vec<js_sys::Uint8Array> = run_pieces(run)
        .map(|p| js_sys::Uint8Array::from(p.as_slice()))
        .collect();
    let piece_bytes: Vec<usize> = pieces.iter().map(|p| p.length() as usize).collect();
    let sequence: js_sys::Array = pieces.iter().collect();
    let blob = match Blob::new_with_u8_array_sequence(&sequence) {
        Ok(b) => b,
        Err(e) => {
            return post(&Response::JobFailed {
                job,
                error: JobError::Failed(format!("cannot keep the finished run: {e:?}")),
            })
        }
    };
    for piece in pieces {
        post_encoded(&Response::RunPiece { job }, vec![piece], None);
    }
    post_encoded(
        &Response::RunFinished {
            job,
            piece_bytes,
            elapsed_ms,
        },
        Vec::new(),
        Some(&blob),
    );
}

/// The one run whose pieces (core's `run::pieces`) are `parts`; errors name `what`.
fn assemble_run(what: &str, parts: &[Vec<u8>]) -> Result<RunResult, String> {
    let mut assembler = RunAssembler::new(what);
    for part in parts {
        assembler.push(part).map_err(|e| e.to_string())?;
    }
    assembler.finish_one().map_err(|e| e.to_string())
}

/// Paces an inoculation in the worker: posts progress (at most every 100 ms), yields to the
/// event loop so a [`Request::Cancel`] can land, and stops when one has, keeping the
/// [`JobError::Cancelled`] it stopped with (the model crate's loop only hears "stop").
struct WorkerPace<C: Fn() -> bool> {
    job: Job<C>,
    last_post: f64,
    stopped: Option<JobError>,
}

impl<C: Fn() -> bool> Pace for WorkerPace<C> {
    async fn progress(&mut self, progress: &InoculationProgress) -> bool {
        let now = Date::now();
        if now - self.last_post >= 100.0 {
            self.last_post = now;
            post(&Response::InoculationProgress {
                job: self.job.id,
                progress: progress.clone(),
            });
        }
        // Work is counted in forward-pair equivalents: whole numbers, kept as f64.
        let (done, planned) = progress.work;
        match self.job.yield_now(done as usize, planned as usize).await {
            Ok(()) => true,
            Err(stop) => {
                self.stopped = Some(stop);
                false
            }
        }
    }

    async fn sha256(&mut self, weights: &[u8]) -> Option<String> {
        digest::web_crypto_sha256(weights).await
    }
}

/// Seconds on the page's clock (`Instant` does not run in wasm).
fn seconds() -> f64 {
    Date::now() / 1000.0
}

/// Inoculates the model in `slot` (docs/inoculation.md) and keeps its checkpoints under `job`.
async fn inoculate_job(
    host: &SharedHost,
    job: u64,
    slot: Slot,
    run: &RunResult,
    settings: &InoculationSettings,
) -> Result<InoculationResult, JobError> {
    let files = host
        .borrow()
        .files
        .get(&slot)
        .cloned()
        .ok_or_else(|| format!("no model is loaded as the {slot}"))?;
    let plan = InoculationPlan::new(run, settings).map_err(|e| e.to_string())?;
    // Fine-tuning runs where the model runs (its helpers are not used for training).
    let device = model_in(host, slot)?.device().clone();
    let mut pace = WorkerPace {
        job: job_of(host, job),
        last_post: 0.0,
        stopped: None,
    };
    // Fine-tuning reads and rewrites every weight: the base checkpoint is read into memory for
    // the inoculation's time.
    let base = BlobSource::new(files.weights.clone())?.read_all()?;
    let output = inoculate(
        &files.name,
        files.with_bytes(&base),
        &device,
        run,
        &plan,
        seconds,
        &mut pace,
    )
    .await
    .map_err(|message| pace.stopped.take().unwrap_or(JobError::Failed(message)))?;
    host.borrow_mut().inoculated.insert(
        job,
        Inoculated {
            base: files,
            checkpoints: output.checkpoints,
        },
    );
    Ok(output.result)
}
