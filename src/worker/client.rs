//! The page side of the model worker (`crates/worker`): one worker per page, started on first
//! use. Every request (a load, a job, an export…) gets an id, and waits in one table keyed by
//! it for the worker's answer ([`Response::request_id`]). Every call returns a `Result` whose
//! error is a sentence for the user.
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
use std::rc::Rc;

use futures::channel::oneshot;
use js_sys::Uint8Array;
use tabprobe_core::checkpoint::SmallFiles;
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::inoculation::{InoculationProgress, InoculationResult, InoculationSettings};
use tabprobe_core::probe::ProbeCounts;
use tabprobe_core::report::FullReport;
use tabprobe_core::scoring::{Pair, PairScore};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

use tabprobe_worker::protocol::{
    BackendChoice, ModelInfo, PrecisionChoice, ProbeRequest, Request, Response, RunResume, Slot,
};
use tabprobe_worker::transport;

use crate::worker::arriving::{Arriving, FinishedRun, RunUpdate};
use crate::worker::pending::{
    dispatch, worker_error, ImportOutcome, Job, JobFailure, JobResult, Pending, Waiting,
};
use crate::worker::watch::{Verdict, PING_EVERY_MS};

/// Trunk's loader shim for the `worker` binary (see `index.html`).
const WORKER_URL: &str = "./worker_loader.js";

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

    /// Sends the request `make` builds for a fresh request id (with byte `parts` and a
    /// trailing `blob`), registered as `waiting` (built around the sender of its answer), and
    /// waits for the answer. `Err` when it cannot be sent or the worker is lost meanwhile.
    async fn ask<T>(
        &self,
        waiting: impl FnOnce(oneshot::Sender<T>) -> Waiting,
        make: impl FnOnce(u64) -> Request,
        parts: Vec<Vec<u8>>,
        blob: Option<&Blob>,
    ) -> Result<T, String> {
        let (tx, rx) = oneshot::channel();
        let id = self.pending.borrow_mut().wait(waiting(tx));
        if let Err(e) = self.send_with_blob(&make(id), parts, blob) {
            self.pending.borrow_mut().waiting.remove(&id);
            return Err(e);
        }
        rx.await
            .map_err(|_| "the model worker stopped answering".to_string())
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
        self.ask(Waiting::Load, make, parts, blob).await?
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
            Waiting::Scores,
            move |(done, total)| progress(done, total),
            move |job| Request::Score { job, slot, pairs },
            Vec::new(),
        )
    }

    /// Registers a job as `waiting` (built around the job), sends the request `make` builds
    /// for its id with byte `parts`, and returns the id with a future of the job's result.
    fn start_job<T: 'static, P>(
        &self,
        waiting: impl FnOnce(Job<T, P>) -> Waiting,
        progress: impl Fn(P) + 'static,
        make: impl FnOnce(u64) -> Request,
        parts: Vec<Vec<u8>>,
    ) -> Result<(u64, JobResult<T>), String> {
        let (tx, rx) = oneshot::channel();
        let job = self.pending.borrow_mut().wait(waiting(Job {
            done: tx,
            progress: Box::new(progress),
        }));
        if let Err(e) = self.send(&make(job), parts) {
            self.pending.borrow_mut().waiting.remove(&job);
            return Err(e);
        }
        let result = async move {
            rx.await
                .map_err(|_| JobFailure::Lost("the model worker stopped answering".into()))?
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
            |job| Waiting::Run(job, Arriving::new()),
            update,
            move |job| Request::RunProbe {
                job,
                slot,
                probe: Box::new(probe),
                resume,
            },
            Vec::new(),
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
        let label = format!("{} files", names.len());
        let make = |request| Request::Import {
            request,
            names,
            dataset_name,
        };
        let outcome = self
            .ask(Waiting::Import, make, bytes, None)
            .await
            .unwrap_or_else(|e| Err(worker_error(&label, &e)));
        // What the caller does with the dataset (its summary, its views) goes in a task of
        // its own, not after the message's decoding (31 ms for the INFOTABS dev split).
        gloo::timers::future::TimeoutFuture::new(0).await;
        outcome
    }

    /// The whole report of a saved run (core's [`FullReport`]), built in the worker from its
    /// run files in pieces (core's `run::pieces`, main model first): `stored`, the Blob of
    /// `stored_bytes` pieces the page keeps, or else `parts`. The page's thread only decodes
    /// the answer.
    pub async fn build_report(
        &self,
        stored: Option<(&Blob, Vec<usize>)>,
        parts: Vec<Vec<u8>>,
    ) -> Result<FullReport, String> {
        let (blob, piece_bytes) = match stored {
            Some((blob, piece_bytes)) => (Some(blob), piece_bytes),
            None => (None, Vec::new()),
        };
        let make = |request| Request::BuildReport {
            request,
            piece_bytes,
        };
        Ok(*self.ask(Waiting::Report, make, parts, blob).await??)
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
        let make = |request| Request::CountProbeSet {
            request,
            probe: Box::new(probe),
            scores_of,
        };
        self.ask(Waiting::Counts, make, Vec::new(), None).await?
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
        self.start_job(
            Waiting::Inoculation,
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
        let make = |request| Request::ExportInoculated { request, job, size };
        self.ask(Waiting::Files, make, Vec::new(), None).await?
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
        let make = |request| Request::ExportPairs {
            request,
            probe: Box::new(probe),
            file,
        };
        let mut files = self.ask(Waiting::Files, make, Vec::new(), None).await??;
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
