//! The worker side: owns the compute devices and the loaded models, answers [`Request`]s.
//! Each load runs on the device the page asks for, by default the faster of WebGPU and the CPU
//! here ([`crate::devices`]); on the CPU, helper workers score beside this one
//! ([`crate::pool`]). Long jobs go in chunks with a yield between them, so a cancel can land
//! ([`crate::job`]). Every score is checked before it is posted ([`crate::outputs`]): a
//! non-finite one ends the job with an error naming the model and the pair.
//!
//! [`handle`] only routes a request to its room: [`loading`] (loads, moves, imported scores),
//! [`jobs`] (scoring, probe runs, inoculation), [`files`] (imports, counts, exports, reports).
//!
//! Test hook (cargo feature `test-hooks`, which only the tests' build turns on): a model whose
//! `config.json` has `"tabprobe_test_panic": "on_score"` (`crate::outputs::TEST_PANIC_KEY`)
//! makes this host panic when asked to score with it, so tests can check that the page
//! survives a dead worker (`tests/fixtures/hostile/panic-model/`). The site users get is built
//! without it.

mod files;
mod jobs;
mod loading;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use tabprobe_model::NliModel;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent};

use crate::devices::Devices;
use crate::imported::ImportedScorer;
use crate::job::Job;
use crate::outbox::post;
use crate::pool::Pool;
use crate::protocol::{JobError, Request, Response, Slot};
use crate::scorer::Scorer;
use crate::transport;

use loading::SlotFiles;

/// The checkpoints an inoculation kept: the base files and `(size, weights)` per size.
struct Inoculated {
    base: Rc<SlotFiles>,
    checkpoints: Vec<(usize, Vec<u8>)>,
}

#[derive(Default)]
struct Host {
    devices: Devices,
    /// Someone is choosing or setting up a device (see [`loading`]).
    devices_busy: bool,
    models: HashMap<Slot, Rc<NliModel>>,
    /// Slots that hold an imported scores file instead of a network.
    imported: HashMap<Slot, Rc<ImportedScorer>>,
    /// Per slot on the CPU path, the helper workers that score beside this one.
    pools: HashMap<Slot, Rc<Pool>>,
    /// Per slot, the files of its model.
    files: HashMap<Slot, Rc<SlotFiles>>,
    /// Per inoculation job, its kept checkpoints (until the page closes).
    inoculated: HashMap<u64, Inoculated>,
    /// Slots whose model asked for the test panic (`crate::outputs::TEST_PANIC_KEY`).
    #[cfg(feature = "test-hooks")]
    panic_on_score: HashSet<Slot>,
    /// Per slot, the id of the latest load requested: only it may take the slot.
    latest_load: HashMap<Slot, u64>,
    cancelled: HashSet<u64>,
}

/// The worker's state, shared by the tasks of its requests.
type SharedHost = Rc<RefCell<Host>>;

/// Installs the message handler on the worker's global scope. Called once by the worker binary (`src/main.rs`).
pub fn start() {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        web_sys::console::error_1(&"tabprobe worker: not running in a dedicated worker".into());
        return;
    };
    let host = Rc::new(RefCell::new(Host::default()));
    let handler =
        Closure::<dyn FnMut(MessageEvent)>::new(
            move |event: MessageEvent| match transport::decode::<Request>(&event.data()) {
                Ok(decoded) => handle(host.clone(), decoded.header, decoded.parts, decoded.blob),
                Err(message) => post(&Response::BadRequest { message }),
            },
        );
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
    post(&Response::Ready);
}

/// Tells the page the worker panicked (called by the panic hook in `main.rs`).
pub fn report_panic(message: &str) {
    post(&Response::Panicked {
        message: message.to_string(),
    });
}

/// Routes `request` (with its byte `parts` and trailing `blob`) to the room that answers it.
fn handle(host: SharedHost, request: Request, parts: Vec<Vec<u8>>, blob: Option<Blob>) {
    match request {
        Request::LoadModel { .. }
        | Request::MoveModel { .. }
        | Request::LoadInoculated { .. }
        | Request::ImportScores { .. } => loading::handle(host, request, parts, blob),
        Request::Score { .. } | Request::RunProbe { .. } | Request::Inoculate { .. } => {
            jobs::handle(host, request, parts)
        }
        Request::Import { .. }
        | Request::CountProbeSet { .. }
        | Request::ExportInoculated { .. }
        | Request::ExportPairs { .. }
        | Request::BuildReport { .. } => files::handle(host, request, parts, blob),
        Request::Cancel { job } => {
            host.borrow_mut().cancelled.insert(job);
        }
        Request::Ping { n } => post(&Response::Pong { n }),
    }
}

/// Job `id` of `host`, cancelled once a [`Request::Cancel`] for it arrived.
fn job_of(host: &SharedHost, id: u64) -> Job<impl Fn() -> bool> {
    let host = host.clone();
    Job {
        id,
        cancelled: move || host.borrow().cancelled.contains(&id),
    }
}

/// Posts how job `job` ended without its answer, and forgets its cancel.
fn post_failure(host: &SharedHost, job: u64, error: JobError) {
    host.borrow_mut().cancelled.remove(&job);
    post(&Response::JobFailed { job, error });
}

/// The helpers of `slot`'s model (none on WebGPU, in a helper, or on one core).
fn pool_of(host: &SharedHost, slot: Slot) -> Rc<Pool> {
    host.borrow().pools.get(&slot).cloned().unwrap_or_default()
}

/// The model in `slot` (with the test hook: panics when it asked to, see the module docs). A
/// slot holding a scores file has no network to fine-tune or export.
fn model_in(host: &SharedHost, slot: Slot) -> Result<Rc<NliModel>, String> {
    let host = host.borrow();
    #[cfg(feature = "test-hooks")]
    if host.panic_on_score.contains(&slot) {
        panic!("tabprobe_test_panic: this model's config.json asks the worker to panic on scoring (a test fixture)");
    }
    if let Some(imported) = host.imported.get(&slot) {
        return Err(format!(
            "the {slot} is imported scores ({}): a scores file has no network to run, only the \
             scores of the pairs in it",
            imported.id().name
        ));
    }
    host.models
        .get(&slot)
        .cloned()
        .ok_or_else(|| format!("no model is loaded as the {slot}"))
}

/// What scores the pairs of `slot`: its imported scores file, or its network and helpers.
fn scorer_in(host: &SharedHost, slot: Slot) -> Result<Scorer, String> {
    if let Some(imported) = host.borrow().imported.get(&slot).cloned() {
        return Ok(Scorer::Imported(imported));
    }
    let model = model_in(host, slot)?;
    Ok(Scorer::Network {
        model,
        pool: pool_of(host, slot),
    })
}
