//! The page side of the model worker (`crates/worker`): one worker per page, started on first use; requests
//! are matched to replies by slot (loads) and job id (scoring). Every call returns a `Result`
//! whose error is a sentence for the user.
//!
//! A worker that dies (a panic, running out of memory) fires its `error` event: every load
//! and job waiting on it ends with a message, the dead worker is terminated and forgotten (the
//! next [`client`] call starts a fresh one), and the handler set with [`on_crash`] is told, so
//! the page can mark the models unloaded and offer to reload them. A worker that stops
//! without an event (closed, ended from outside, stuck in a loop) is found by the watch
//! ([`crate::worker::watch`]): pinged every second while anything waits on it, it is reported
//! to the handler set with [`on_silence`], and stopped like a crashed one by
//! [`stop_unanswering`] or, when it only scores, by the watch itself.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::channel::oneshot;
use js_sys::Uint8Array;
use tabprobe_core::checkpoint::SmallFiles;
use tabprobe_core::data::import::{ImportError, ImportReport};
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::inoculation::{InoculationProgress, InoculationResult, InoculationSettings};
use tabprobe_core::probe::ProbeCounts;
use tabprobe_core::report::FullReport;
use tabprobe_core::run::pieces::RunAssembler;
use tabprobe_core::run::RunResult;
use tabprobe_core::scoring::{Pair, PairScore};
use tabprobe_core::Dataset;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

use tabprobe_worker::protocol::{
    BackendChoice, ModelInfo, PrecisionChoice, ProbeRequest, Request, Response, RunResume, Slot,
};
use tabprobe_worker::transport;

use crate::runs::store::StoredPieces;
use crate::worker::watch::{Verdict, Watch, PING_EVERY_MS};

/// Trunk's loader shim for the `worker` binary (see `index.html`).
const WORKER_URL: &str = "./worker_loader.js";

/// How a scoring job ended without scores.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreFailure {
    /// What happened.
    pub message: String,
    /// True when the user cancelled it.
    pub cancelled: bool,
    /// True when the worker died or stopped answering (the job did not end by itself): a
    /// probe run's kept scores are then kept for resuming.
    pub lost: bool,
}

/// The files of a checkpoint to load: config and tokenizer as bytes, the weights as a Blob (a
/// picked `File` or a downloaded body) that the page never reads into its own memory.
pub struct CheckpointToLoad {
    /// Human name (folder or file stem).
    pub name: String,
    /// `config.json` and the tokenizer's file(s).
    pub small: SmallFiles<Vec<u8>>,
    /// `model.safetensors`.
    pub weights: Blob,
}

/// Files as (name, bytes), e.g. a fine-tuned checkpoint's Hugging Face folder.
type NamedFiles = Vec<(String, Vec<u8>)>;

/// The future of a job's result and its elapsed milliseconds.
pub type JobResult<T> = futures::future::LocalBoxFuture<'static, Result<(T, f64), ScoreFailure>>;

/// A job waiting for its result `T` (scores, a run file, an inoculation result) and the
/// elapsed milliseconds; `P` is what its progress reports carry (pairs done and total, or an
/// inoculation's phase).
struct Job<T, P = (usize, usize)> {
    done: oneshot::Sender<Result<(T, f64), ScoreFailure>>,
    progress: Box<dyn Fn(P)>,
}

#[derive(Default)]
struct Pending {
    /// Whether the worker said [`Response::Ready`]; until then messages wait in `queue`.
    ready: bool,
    /// Set once the worker died: nothing more is sent to it.
    dead: bool,
    /// The panic message the worker posted before dying, if it could.
    panic: Option<String>,
    queue: Vec<(js_sys::Array, js_sys::Array)>,
    next_job: u64,
    /// Pending loads by load id (ids come from `next_job` too).
    loads: HashMap<u64, oneshot::Sender<Result<ModelInfo, String>>>,
    jobs: HashMap<u64, Job<Vec<PairScore>>>,
    runs: HashMap<u64, Job<FinishedRun, RunUpdate>>,
    /// Pieces of run files arriving, by job (see [`Response::RunPiece`]).
    arriving: HashMap<u64, Arriving>,
    inoculations: HashMap<u64, Job<InoculationResult, InoculationProgress>>,
    /// Checkpoint exports waiting for their files, by request id.
    exports: HashMap<u64, oneshot::Sender<Result<NamedFiles, String>>>,
    /// Probe-set counts waiting for their answer, by request id.
    counts: HashMap<u64, oneshot::Sender<Result<ProbeCounts, String>>>,
    /// Imports waiting for their dataset, by request id.
    imports: HashMap<u64, oneshot::Sender<ImportOutcome>>,
    /// Reports being built, by request id.
    reports: HashMap<u64, oneshot::Sender<Result<Box<FullReport>, String>>>,
    /// What the page has heard from the worker, for the watch.
    watch: Watch,
    /// Pings sent (their numbers).
    pings: u64,
    /// Whether the page was last told that the worker is silent.
    told_silent: bool,
}

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
struct Arriving {
    assembler: RunAssembler,
    /// The byte length of each piece taken.
    piece_bytes: Vec<usize>,
    /// The first piece that did not read; the run then fails when it finishes.
    problem: Option<String>,
}

impl Arriving {
    fn new() -> Self {
        Arriving {
            assembler: RunAssembler::new("the run file from the model worker"),
            piece_bytes: Vec::new(),
            problem: None,
        }
    }

    fn take(&mut self, parts: Vec<Vec<u8>>) {
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
    fn finish(self, piece_bytes: Vec<usize>, blob: Option<Blob>) -> Result<FinishedRun, String> {
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

/// What an import in the worker gives: the dataset and its report, or the located problem
/// (a worker that stopped reads as a problem of the files given).
pub type ImportOutcome = Result<Box<(Dataset, ImportReport)>, ImportError>;

impl Pending {
    /// A worker that died answers nothing: fail everything that waits on it.
    fn fail_all(&mut self, message: &str) {
        for (_, tx) in self.loads.drain() {
            let _ = tx.send(Err(message.to_string()));
        }
        for (_, job) in self.jobs.drain() {
            let _ = job.done.send(Err(ScoreFailure {
                message: message.to_string(),
                cancelled: false,
                lost: true,
            }));
        }
        self.arriving.clear();
        for (_, run) in self.runs.drain() {
            let _ = run.done.send(Err(ScoreFailure {
                message: message.to_string(),
                cancelled: false,
                lost: true,
            }));
        }
        for (_, job) in self.inoculations.drain() {
            let _ = job.done.send(Err(ScoreFailure {
                message: message.to_string(),
                cancelled: false,
                lost: true,
            }));
        }
        for (_, tx) in self.exports.drain() {
            let _ = tx.send(Err(message.to_string()));
        }
        for (_, tx) in self.counts.drain() {
            let _ = tx.send(Err(message.to_string()));
        }
        for (_, tx) in self.imports.drain() {
            let _ = tx.send(Err(worker_error("files", message)));
        }
        for (_, tx) in self.reports.drain() {
            let _ = tx.send(Err(message.to_string()));
        }
    }

    fn next_id(&mut self) -> u64 {
        self.next_job += 1;
        self.next_job
    }

    /// Whether anything waits on the worker, and whether all of it is scoring (probe runs
    /// and scoring jobs, which report every chunk).
    fn busy(&self) -> (bool, bool) {
        let scoring = !self.jobs.is_empty() || !self.runs.is_empty();
        let other = !self.loads.is_empty()
            || !self.inoculations.is_empty()
            || !self.exports.is_empty()
            || !self.counts.is_empty()
            || !self.imports.is_empty()
            || !self.reports.is_empty();
        (scoring || other, scoring && !other)
    }
}

/// Why a worker is given up: its `error` event, or the watch's silence (milliseconds).
enum Death<'a> {
    Error(&'a str),
    Silent(f64),
}

/// A handle on the model worker.
pub struct WorkerClient {
    worker: Worker,
    pending: Rc<RefCell<Pending>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
    /// The watch's ping, every [`PING_EVERY_MS`] (stops when the client is dropped).
    _heartbeat: gloo::timers::callback::Interval,
}

/// What [`on_crash`] installs.
type CrashHandler = Rc<dyn Fn(String)>;

/// What [`on_silence`] installs.
type SilenceHandler = Rc<dyn Fn(Option<f64>)>;

thread_local! {
    static CLIENT: RefCell<Option<Rc<WorkerClient>>> = const { RefCell::new(None) };
    static ON_CRASH: RefCell<Option<CrashHandler>> = const { RefCell::new(None) };
    static ON_SILENCE: RefCell<Option<SilenceHandler>> = const { RefCell::new(None) };
    /// Clients of workers that died, kept so their handlers are never called after a drop.
    static DEAD: RefCell<Vec<Rc<WorkerClient>>> = const { RefCell::new(Vec::new()) };
}

/// Sets what happens when the worker dies: `handler` gets a sentence saying what happened,
/// after every waiting load and job has ended and the dead worker is gone (a [`client`] call
/// inside it starts a fresh worker).
pub fn on_crash(handler: impl Fn(String) + 'static) {
    ON_CRASH.with(|h| *h.borrow_mut() = Some(Rc::new(handler)));
}

/// Sets what the page hears from the watch: `Some(ms)` at every tick while the worker has
/// said nothing for `ms` milliseconds with work waiting on it, `None` once it answers again
/// or is given up.
pub fn on_silence(handler: impl Fn(Option<f64>) + 'static) {
    ON_SILENCE.with(|h| *h.borrow_mut() = Some(Rc::new(handler)));
}

fn tell_silence(silence: Option<f64>) {
    if let Some(handler) = ON_SILENCE.with(|h| h.borrow().clone()) {
        handler(silence);
    }
}

/// Gives up the current worker as one that stopped answering (the user asked, from the
/// watch's notice): like a crash, every load and job waiting on it ends, the runs' kept
/// pairs stay kept, and a fresh worker starts.
pub fn stop_unanswering() {
    let Some(c) = CLIENT.with(|c| c.borrow().clone()) else {
        return;
    };
    let silent_ms = js_sys::Date::now() - c.pending.borrow().watch.last_heard_ms();
    worker_died(&c.pending, &c.worker, Death::Silent(silent_ms));
}

/// A tick of the watch: ping a busy worker, and tell the page (or give the worker up) when
/// it has been silent too long.
fn heartbeat(pending: &Rc<RefCell<Pending>>, worker: &Worker) {
    let now = js_sys::Date::now();
    let (verdict, was_silent) = {
        let mut p = pending.borrow_mut();
        if p.dead || !p.ready {
            return;
        }
        let (busy, scoring_only) = p.busy();
        let verdict = p.watch.tick(now, busy, scoring_only);
        if busy {
            p.pings += 1;
            let ping = Request::Ping { n: p.pings };
            if let Ok((message, transfer)) = transport::encode_with_blob(&ping, Vec::new(), None) {
                // A worker that cannot take it is silent, which is what the watch measures.
                let _ = worker.post_message_with_transfer(&message, &transfer);
            }
        }
        let was_silent = p.told_silent;
        // A stop keeps it set, so giving the worker up takes the notice away.
        p.told_silent = !matches!(verdict, Verdict::Answering);
        (verdict, was_silent)
    };
    match verdict {
        Verdict::Answering if was_silent => tell_silence(None),
        Verdict::Answering => {}
        Verdict::Silent { ms } => tell_silence(Some(ms)),
        Verdict::Stop { ms } => worker_died(pending, worker, Death::Silent(ms)),
    }
}

/// What the page says about a dead worker: the panic it reported, else the error event's
/// message (a wasm trap says only "unreachable"; running out of memory looks the same).
fn crash_message(panic: Option<&str>, event: &str) -> String {
    match panic {
        Some(p) => format!("the model worker crashed: {p}"),
        None => format!(
            "the model worker stopped unexpectedly ({}); it may have run out of memory",
            if event.is_empty() {
                "no details"
            } else {
                event
            }
        ),
    }
}

/// Handles the death of the worker behind `pending`: ends what waits on it, forgets and
/// terminates it (kept, never dropped: this runs inside its own event handler), tells the page.
fn worker_died(pending: &Rc<RefCell<Pending>>, worker: &Worker, cause: Death) {
    let (message, started, was_silent) = {
        let mut p = pending.borrow_mut();
        if p.dead {
            return;
        }
        p.dead = true;
        let message = match cause {
            Death::Silent(ms) => format!(
                "the model worker stopped answering (nothing from it for {:.0} s: it was \
                 closed, ended from outside, or is stuck)",
                ms / 1000.0
            ),
            Death::Error(event) if p.ready => crash_message(p.panic.as_deref(), event),
            Death::Error(event) => format!("the model worker could not start: {event}"),
        };
        let was_silent = std::mem::take(&mut p.told_silent);
        p.fail_all(&format!("{message} — the job was stopped"));
        (message, p.ready, was_silent)
    };
    worker.terminate();
    if was_silent {
        tell_silence(None);
    }
    let old = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        match c.as_ref() {
            Some(client) if Rc::ptr_eq(&client.pending, pending) => c.take(),
            _ => None,
        }
    });
    // Its event handlers may still be called (an error event already queued): they must stay
    // alive, and see `dead`. A crash costs a few closures; it is rare.
    if let Some(old) = old {
        DEAD.with(|d| d.borrow_mut().push(old));
    }
    // A worker that never started held no model; restarting it at once could loop, so the
    // next request simply tries again.
    if !started {
        web_sys::console::error_1(&format!("tabprobe: {message}").into());
        return;
    }
    if let Some(handler) = ON_CRASH.with(|h| h.borrow().clone()) {
        handler(message);
    }
}

/// An import that the worker could not do, located at the worker.
fn worker_error(file: &str, message: &str) -> ImportError {
    ImportError {
        file: file.to_string(),
        location: "import".into(),
        message: format!("the import did not finish: {message}"),
    }
}

/// The page's worker client, started on first call.
pub fn client() -> Result<Rc<WorkerClient>, String> {
    if let Some(c) = CLIENT.with(|c| c.borrow().clone()) {
        return Ok(c);
    }
    let c = Rc::new(WorkerClient::start()?);
    CLIENT.with(|cell| *cell.borrow_mut() = Some(c.clone()));
    Ok(c)
}

impl WorkerClient {
    fn start() -> Result<WorkerClient, String> {
        let worker =
            Worker::new(WORKER_URL).map_err(|e| format!("cannot start the model worker: {e:?}"))?;
        let pending = Rc::new(RefCell::new(Pending::default()));
        let on_message = {
            let pending = pending.clone();
            let worker = worker.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                // Any message says the worker answers.
                let was_silent = {
                    let mut p = pending.borrow_mut();
                    p.watch.heard(js_sys::Date::now());
                    std::mem::take(&mut p.told_silent)
                };
                if was_silent {
                    tell_silence(None);
                }
                let decoded = crate::timing::timed("worker-message-decode", || {
                    transport::decode::<Response>(&event.data())
                });
                match decoded.map(|d| (d.header, d.parts, d.blob)) {
                    Ok((Response::Ready, _, _)) => {
                        let queued = {
                            let mut p = pending.borrow_mut();
                            p.ready = true;
                            std::mem::take(&mut p.queue)
                        };
                        for (message, transfer) in queued {
                            if let Err(e) = worker.post_message_with_transfer(&message, &transfer) {
                                pending
                                    .borrow_mut()
                                    .fail_all(&format!("cannot reach the model worker: {e:?}"));
                            }
                        }
                    }
                    Ok((Response::Panicked { message }, _, _)) => {
                        pending.borrow_mut().panic = Some(message);
                    }
                    Ok((response, parts, blob)) => dispatch(&pending, response, parts, blob),
                    Err(e) => web_sys::console::error_1(
                        &format!("tabprobe: unreadable worker message: {e}").into(),
                    ),
                }
            })
        };
        let on_error = {
            let pending = pending.clone();
            let worker = worker.clone();
            Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
                // Handled here: the page shows it, it is not an uncaught page error.
                event.prevent_default();
                worker_died(&pending, &worker, Death::Error(&event.message()));
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let heartbeat = {
            let pending = pending.clone();
            let worker = worker.clone();
            gloo::timers::callback::Interval::new(PING_EVERY_MS, move || {
                heartbeat(&pending, &worker)
            })
        };
        Ok(WorkerClient {
            worker,
            pending,
            _on_message: on_message,
            _on_error: on_error,
            _heartbeat: heartbeat,
        })
    }

    fn send(&self, request: &Request, parts: Vec<Vec<u8>>) -> Result<(), String> {
        self.send_with_blob(request, parts, None)
    }

    /// [`WorkerClient::send`] with a trailing Blob (passed by reference, not copied).
    fn send_with_blob(
        &self,
        request: &Request,
        parts: Vec<Vec<u8>>,
        blob: Option<&Blob>,
    ) -> Result<(), String> {
        let parts = parts
            .iter()
            .map(|p| Uint8Array::from(p.as_slice()))
            .collect();
        let (message, transfer) = transport::encode_with_blob(request, parts, blob)?;
        if self.pending.borrow().dead {
            return Err("the model worker has stopped; load the model again".to_string());
        }
        if !self.pending.borrow().ready {
            self.pending.borrow_mut().queue.push((message, transfer));
            return Ok(());
        }
        self.worker
            .post_message_with_transfer(&message, &transfer)
            .map_err(|e| format!("cannot reach the model worker: {e:?}"))
    }

    /// Loads a checkpoint into `slot`; resolves when it is ready (loaded and warmed up). When
    /// loads into one slot overlap, the one requested last takes the slot and the others
    /// fail with "replaced by a newer load".
    pub async fn load_model(
        &self,
        slot: Slot,
        files: CheckpointToLoad,
        batch_size: usize,
        backend: BackendChoice,
        precision: PrecisionChoice,
    ) -> Result<ModelInfo, String> {
        let (tokenizer, parts) = files.small.into_parts();
        let name = files.name;
        let weights = files.weights;
        self.load_with(
            |load| Request::LoadModel {
                slot,
                name,
                tokenizer,
                batch_size,
                load,
                backend,
                precision,
                helper: false,
            },
            parts,
            Some(&weights),
        )
        .await
    }

    /// Loads the model in `slot` again on the device `backend` names at the precision
    /// `precision` allows, from the files the worker kept (a model bar choice changed).
    pub async fn move_model(
        &self,
        slot: Slot,
        backend: BackendChoice,
        precision: PrecisionChoice,
        batch_size: usize,
    ) -> Result<ModelInfo, String> {
        self.load_with(
            |load| Request::MoveModel {
                slot,
                backend,
                precision,
                batch_size,
                load,
            },
            Vec::new(),
            None,
        )
        .await
    }

    /// Sends the load request `make` builds for a fresh load id (with byte `parts` and a
    /// trailing `blob`) and waits for its [`Response::ModelLoaded`] or
    /// [`Response::LoadFailed`].
    async fn load_with(
        &self,
        make: impl FnOnce(u64) -> Request,
        parts: Vec<Vec<u8>>,
        blob: Option<&Blob>,
    ) -> Result<ModelInfo, String> {
        let (tx, rx) = oneshot::channel();
        let load = {
            let mut p = self.pending.borrow_mut();
            let load = p.next_id();
            p.loads.insert(load, tx);
            load
        };
        self.send_with_blob(&make(load), parts, blob)?;
        rx.await
            .map_err(|_| "the model worker stopped answering".to_string())?
    }

    /// Starts scoring `pairs` with the model in `slot`. Returns the job id (for
    /// [`WorkerClient::cancel`]) and a future of the scores and the elapsed milliseconds.
    pub fn score(
        &self,
        slot: Slot,
        pairs: Vec<Pair>,
        progress: impl Fn(usize, usize) + 'static,
    ) -> Result<(u64, JobResult<Vec<PairScore>>), String> {
        self.start_job(
            |p| &mut p.jobs,
            move |(done, total)| progress(done, total),
            move |job| Request::Score { job, slot, pairs },
        )
    }

    /// Registers a job in the table `table` picks, sends the request `make` builds for its
    /// id, and returns the id with a future of the job's result.
    fn start_job<T: 'static, P>(
        &self,
        table: fn(&mut Pending) -> &mut HashMap<u64, Job<T, P>>,
        progress: impl Fn(P) + 'static,
        make: impl FnOnce(u64) -> Request,
    ) -> Result<(u64, JobResult<T>), String> {
        self.start_job_with_parts(table, progress, make, Vec::new())
    }

    /// [`WorkerClient::start_job`] with byte `parts` beside the request.
    fn start_job_with_parts<T: 'static, P>(
        &self,
        table: fn(&mut Pending) -> &mut HashMap<u64, Job<T, P>>,
        progress: impl Fn(P) + 'static,
        make: impl FnOnce(u64) -> Request,
        parts: Vec<Vec<u8>>,
    ) -> Result<(u64, JobResult<T>), String> {
        let (tx, rx) = oneshot::channel();
        let job = {
            let mut pending = self.pending.borrow_mut();
            let job = pending.next_id();
            table(&mut pending).insert(
                job,
                Job {
                    done: tx,
                    progress: Box::new(progress),
                },
            );
            job
        };
        self.send(&make(job), parts)?;
        let result = async move {
            rx.await.map_err(|_| ScoreFailure {
                message: "the model worker stopped answering".into(),
                cancelled: false,
                lost: true,
            })?
        };
        Ok((job, Box::pin(result)))
    }

    /// Starts a probe run of `set` with the model in `slot` (going on after the scores of
    /// `resume`, when given). Returns the job id (for [`WorkerClient::cancel`]) and a future
    /// of the run file and the elapsed milliseconds; a cancelled run still resolves to `Ok`,
    /// with `cancelled_at` set. `update` hears the progress and each chunk's scores.
    pub fn run_probe(
        &self,
        slot: Slot,
        probe: ProbeRequest,
        resume: Option<RunResume>,
        update: impl Fn(RunUpdate) + 'static,
    ) -> Result<(u64, JobResult<FinishedRun>), String> {
        self.start_job(
            |p| &mut p.runs,
            update,
            move |job| Request::RunProbe {
                job,
                slot,
                probe: Box::new(probe),
                resume,
            },
        )
    }

    /// Imports the files `names` (with their bytes, in the same order) in the worker, with
    /// core's importers, so a large import never blocks the page.
    pub async fn import(
        &self,
        names: Vec<String>,
        bytes: Vec<Vec<u8>>,
        dataset_name: String,
    ) -> ImportOutcome {
        let (tx, rx) = oneshot::channel();
        let label = format!("{} files", names.len());
        let request = {
            let mut p = self.pending.borrow_mut();
            let request = p.next_id();
            p.imports.insert(request, tx);
            request
        };
        let message = Request::Import {
            request,
            names,
            dataset_name,
        };
        if let Err(e) = self.send(&message, bytes) {
            self.pending.borrow_mut().imports.remove(&request);
            return Err(worker_error(&label, &e));
        }
        let outcome = rx
            .await
            .unwrap_or_else(|_| Err(worker_error(&label, "the model worker stopped answering")));
        // What the caller does with the dataset (its summary, its views) goes in a task of
        // its own, not after the message's decoding (31 ms for the INFOTABS dev split).
        gloo::timers::future::TimeoutFuture::new(0).await;
        outcome
    }

    /// The whole report of a saved run (core's [`FullReport`]), built in the worker from its
    /// run files in pieces (core's `run::pieces`, main model first): `stored`, the Blob the
    /// page keeps, or else `parts`. The page's thread only decodes the answer.
    pub async fn build_report(
        &self,
        stored: Option<&StoredPieces>,
        parts: Vec<Vec<u8>>,
    ) -> Result<FullReport, String> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut p = self.pending.borrow_mut();
            let request = p.next_id();
            p.reports.insert(request, tx);
            request
        };
        let message = Request::BuildReport {
            request,
            piece_bytes: stored.map(|s| s.piece_bytes.clone()).unwrap_or_default(),
        };
        if let Err(e) = self.send_with_blob(&message, parts, stored.map(|s| &s.blob)) {
            self.pending.borrow_mut().reports.remove(&request);
            return Err(e);
        }
        let report = rx
            .await
            .map_err(|_| "the model worker stopped answering".to_string())??;
        Ok(*report)
    }

    /// The counts of the probe set `probe` describes, built in the worker (the page's thread
    /// stays free while a large dataset expands), or why it cannot be built.
    pub async fn count_probe_set(&self, probe: ProbeRequest) -> Result<ProbeCounts, String> {
        self.count_checked(probe, None).await
    }

    /// Like [`WorkerClient::count_probe_set`], and also checks that the scores file imported
    /// into `slot` (if it holds one) was made for the set: core's named error if not.
    pub async fn count_checked(
        &self,
        probe: ProbeRequest,
        scores_of: Option<Slot>,
    ) -> Result<ProbeCounts, String> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut p = self.pending.borrow_mut();
            let request = p.next_id();
            p.counts.insert(request, tx);
            request
        };
        self.send(
            &Request::CountProbeSet {
                request,
                probe: Box::new(probe),
                scores_of,
            },
            Vec::new(),
        )?;
        rx.await
            .map_err(|_| "the model worker stopped answering".to_string())?
    }

    /// Starts inoculating the model in `slot` on the challenge items of the run whose pieces
    /// (core's `run::pieces`) are `run_pieces` (docs/inoculation.md). Returns the job id (for
    /// [`WorkerClient::cancel`], [`WorkerClient::load_inoculated`] and
    /// [`WorkerClient::export_inoculated`]) and a future of the result.
    pub fn inoculate(
        &self,
        slot: Slot,
        run_pieces: Vec<Vec<u8>>,
        settings: InoculationSettings,
        progress: impl Fn(InoculationProgress) + 'static,
    ) -> Result<(u64, JobResult<InoculationResult>), String> {
        self.start_job_with_parts(
            |p| &mut p.inoculations,
            progress,
            move |job| Request::Inoculate {
                job,
                slot,
                settings,
            },
            run_pieces,
        )
    }

    /// Loads the checkpoint inoculation `job` kept for `size` into `slot`.
    pub async fn load_inoculated(
        &self,
        job: u64,
        size: usize,
        slot: Slot,
        batch_size: usize,
        backend: BackendChoice,
        precision: PrecisionChoice,
    ) -> Result<ModelInfo, String> {
        self.load_with(
            |load| Request::LoadInoculated {
                job,
                size,
                slot,
                batch_size,
                load,
                backend,
                precision,
            },
            Vec::new(),
            None,
        )
        .await
    }

    /// The Hugging Face files (name, bytes) of the checkpoint inoculation `job` kept for
    /// `size`.
    pub async fn export_inoculated(
        &self,
        job: u64,
        size: usize,
    ) -> Result<Vec<(String, Vec<u8>)>, String> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut p = self.pending.borrow_mut();
            let request = p.next_id();
            p.exports.insert(request, tx);
            request
        };
        self.send(
            &Request::ExportInoculated { request, job, size },
            Vec::new(),
        )?;
        rx.await
            .map_err(|_| "the model worker stopped answering".to_string())?
    }

    /// Imports the scores file `file` (docs/scoring-elsewhere.md) into `slot` as the model
    /// `name` (empty: the file's name), its scores over `label_set`; resolves like a load.
    /// The file goes to the worker as it is (a `File` is a Blob): the page never reads it.
    pub async fn import_scores(
        &self,
        slot: Slot,
        name: String,
        file: &web_sys::File,
        label_set: LabelSet,
    ) -> Result<ModelInfo, String> {
        let file_name = file.name();
        self.load_with(
            |load| Request::ImportScores {
                slot,
                load,
                name,
                file: file_name,
                label_set,
            },
            Vec::new(),
            Some(file),
        )
        .await
    }

    /// The pairs file (name, bytes) of the probe set `probe` describes, written in the worker.
    pub async fn export_pairs(
        &self,
        probe: ProbeRequest,
        file: String,
    ) -> Result<(String, Vec<u8>), String> {
        let (tx, rx) = oneshot::channel();
        let request = {
            let mut p = self.pending.borrow_mut();
            let request = p.next_id();
            p.exports.insert(request, tx);
            request
        };
        self.send(
            &Request::ExportPairs {
                request,
                probe: Box::new(probe),
                file,
            },
            Vec::new(),
        )?;
        let mut files = rx
            .await
            .map_err(|_| "the model worker stopped answering".to_string())??;
        files
            .pop()
            .filter(|_| files.is_empty())
            .ok_or_else(|| "the worker sent no pairs file".to_string())
    }

    /// Asks the worker to stop `job` after the chunk in flight.
    pub fn cancel(&self, job: u64) -> Result<(), String> {
        self.send(&Request::Cancel { job }, Vec::new())
    }
}

fn dispatch(
    pending: &Rc<RefCell<Pending>>,
    response: Response,
    parts: Vec<Vec<u8>>,
    blob: Option<Blob>,
) {
    let mut p = pending.borrow_mut();
    match response {
        Response::InoculationProgress { job, progress } => {
            if let Some(j) = p.inoculations.get(&job) {
                (j.progress)(progress);
            }
        }
        Response::InoculationFinished { job, result } => {
            if let Some(j) = p.inoculations.remove(&job) {
                let elapsed_ms = 1000.0 * result.seconds;
                let _ = j.done.send(Ok((*result, elapsed_ms)));
            }
        }
        Response::CheckpointFiles { request, names } => {
            if let Some(tx) = p.exports.remove(&request) {
                let _ = tx.send(if names.len() == parts.len() {
                    Ok(names.into_iter().zip(parts).collect())
                } else {
                    Err(format!(
                        "the worker sent {} files for {} names",
                        parts.len(),
                        names.len()
                    ))
                });
            }
        }
        Response::Imported { request, result } => {
            if let Some(tx) = p.imports.remove(&request) {
                let _ = tx.send(result);
            }
        }
        Response::Report { request, report } => {
            if let Some(tx) = p.reports.remove(&request) {
                let _ = tx.send(report);
            }
        }
        Response::ProbeCounts { request, counts } => {
            if let Some(tx) = p.counts.remove(&request) {
                let _ = tx.send(counts);
            }
        }
        Response::ModelLoaded { load, info, .. } => {
            if let Some(tx) = p.loads.remove(&load) {
                let _ = tx.send(Ok(info));
            }
        }
        Response::LoadFailed { load, message, .. } => {
            if let Some(tx) = p.loads.remove(&load) {
                let _ = tx.send(Err(message));
            }
        }
        Response::Progress { job, done, total } => {
            if let Some(j) = p.jobs.get(&job) {
                (j.progress)((done, total));
            } else if let Some(r) = p.runs.get(&job) {
                (r.progress)(RunUpdate::Progress { done, total });
            }
        }
        Response::RunScores {
            job,
            chunk,
            from,
            scores,
        } => {
            if let Some(r) = p.runs.get(&job) {
                (r.progress)(RunUpdate::Scores {
                    chunk,
                    from,
                    scores,
                });
            }
        }
        Response::RunPiece { job } => {
            if p.runs.contains_key(&job) {
                p.arriving
                    .entry(job)
                    .or_insert_with(Arriving::new)
                    .take(parts);
            }
        }
        Response::RunFinished {
            job,
            piece_bytes,
            elapsed_ms,
        } => {
            let arriving = p.arriving.remove(&job);
            if let Some(r) = p.runs.remove(&job) {
                let outcome = crate::timing::timed("run-finish", || {
                    arriving
                        .unwrap_or_else(Arriving::new)
                        .finish(piece_bytes, blob)
                })
                .map(|run| (run, elapsed_ms))
                .map_err(|message| ScoreFailure {
                    message: format!("the finished run does not read: {message}"),
                    cancelled: false,
                    lost: false,
                });
                let _ = r.done.send(outcome);
            }
        }
        Response::Scores {
            job,
            scores,
            elapsed_ms,
            ..
        } => {
            if let Some(j) = p.jobs.remove(&job) {
                let _ = j.done.send(Ok((scores, elapsed_ms)));
            }
        }
        Response::ScoreFailed {
            job,
            message,
            cancelled,
        } => {
            if let Some(j) = p.jobs.remove(&job) {
                let _ = j.done.send(Err(ScoreFailure {
                    message,
                    cancelled,
                    lost: false,
                }));
            } else if let Some(r) = p.runs.remove(&job) {
                p.arriving.remove(&job);
                let _ = r.done.send(Err(ScoreFailure {
                    message,
                    cancelled,
                    lost: false,
                }));
            } else if let Some(i) = p.inoculations.remove(&job) {
                let _ = i.done.send(Err(ScoreFailure {
                    message,
                    cancelled,
                    lost: false,
                }));
            } else if let Some(tx) = p.exports.remove(&job) {
                let _ = tx.send(Err(message));
            }
        }
        Response::BadRequest { message } => {
            p.fail_all(&format!("the model worker rejected a message: {message}"))
        }
        // Handled in the message handler before dispatch; a pong only says the worker
        // answers, which every message does.
        Response::Ready | Response::Panicked { .. } | Response::Pong { .. } => {}
    }
}
