//! The worker side: owns the compute devices and the loaded models, answers [`Request`]s.
//! Each load runs on the device the page asks for, by default the faster of WebGPU and the CPU
//! here ([`crate::devices`]); on the CPU, helper workers score beside this one
//! ([`crate::pool`]). Scoring and probe runs go in chunks with a yield between them, so a cancel can
//! land. Every score is checked before it is posted ([`crate::outputs`]): a non-finite one ends
//! the job with an error naming the model and the pair.
//!
//! Test hook: a model whose `config.json` has `"tabprobe_test_panic": "on_score"`
//! ([`crate::outputs::TEST_PANIC_KEY`]) makes this host panic when asked to score with it, so
//! tests can check that the page survives a dead worker (`tests/fixtures/hostile/panic-model/`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use js_sys::Date;
use tabprobe_core::checkpoint::{CheckpointFiles, Reader, SmallFiles};
use tabprobe_core::data::import::{
    import_files, ImportError, ImportOptions, ImportReport, InputFile,
};
use tabprobe_core::inoculation::{
    InoculationPlan, InoculationProgress, InoculationResult, InoculationSettings,
};
use tabprobe_core::probe::ProbeSet;
use tabprobe_core::report::FullReport;
use tabprobe_core::run::pairs_file::{pair_lines, pairs_jsonl};
use tabprobe_core::run::pieces::{piece_ranges, run_pieces, RunAssembler};
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::{Pair, PairScore, Precision};
use tabprobe_core::Dataset;
use tabprobe_model::train::inoculate::{inoculate, Pace, CANCELLED};
use tabprobe_model::weight_file::weights_sha256_of;
use tabprobe_model::{ModelFiles, ModelSources, NliModel};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent};

use crate::blob_source::{blob_of, BlobSource};
use crate::devices::{Chosen, Devices};
use crate::digest;
use crate::imported::ImportedScorer;
use crate::outputs::{check_scores, test_panic_requested};
use crate::pool::{cores, helpers_for, Pool};
use crate::protocol::{
    Backend, BackendChoice, ModelInfo, PrecisionChoice, Request, Response, RunResume, Slot,
};
use crate::scorer::Scorer;
use crate::transport;

/// A loaded checkpoint's files, kept for moves, helpers and fine-tuning (inoculation needs the
/// bytes, not only the network built from them): config and tokenizer in memory, the weights
/// in a Blob the browser holds, outside this worker's wasm memory.
struct SlotFiles {
    name: String,
    small: SmallFiles<Vec<u8>>,
    weights: Blob,
}

impl SlotFiles {
    /// The whole checkpoint in memory, with `weights` (fine-tuning and export).
    fn with_bytes<'a>(&'a self, weights: &'a [u8]) -> ModelFiles<'a> {
        CheckpointFiles {
            config_json: self.small.config_json.as_slice(),
            weights,
            tokenizer: self.small.tokenizer.as_ref().map(Vec::as_slice),
            tokenizer_config: self.small.tokenizer_config.as_deref(),
        }
    }

    /// The same checkpoint with other weights (a fine-tuned checkpoint's, copied into a Blob).
    fn with_weights(&self, name: String, weights: &[u8]) -> Result<SlotFiles, String> {
        Ok(SlotFiles {
            name,
            small: self.small.clone(),
            weights: blob_of(weights)?,
        })
    }
}

/// The checkpoints an inoculation kept: the base files and `(size, weights)` per size.
struct Inoculated {
    base: Rc<SlotFiles>,
    checkpoints: Vec<(usize, Vec<u8>)>,
}

#[derive(Default)]
struct Host {
    devices: Devices,
    /// Someone is choosing or setting up a device (see [`device`]).
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
    /// Slots whose model asked for the test panic ([`crate::outputs::TEST_PANIC_KEY`]).
    panic_on_score: HashSet<Slot>,
    /// Per slot, the id of the latest load requested: only it may take the slot.
    latest_load: HashMap<Slot, u64>,
    cancelled: HashSet<u64>,
}

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

fn post(response: &Response) {
    post_with_parts(response, &[]);
}

/// Posts `response` with byte parts (transferred, not copied through JSON).
fn post_with_parts(response: &Response, parts: &[&[u8]]) {
    let parts = parts.iter().map(|p| js_sys::Uint8Array::from(*p)).collect();
    post_encoded(response, parts, None);
}

/// Posts `response` with byte parts (transferred) and a trailing Blob.
fn post_encoded(response: &Response, parts: Vec<js_sys::Uint8Array>, blob: Option<&Blob>) {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    match transport::encode_with_blob(response, parts, blob) {
        Ok((message, transfer)) => {
            if let Err(e) = scope.post_message_with_transfer(&message, &transfer) {
                web_sys::console::error_2(&"tabprobe worker: cannot post".into(), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&e.into()),
    }
}

fn handle(host: Rc<RefCell<Host>>, request: Request, parts: Vec<Vec<u8>>, blob: Option<Blob>) {
    match request {
        Request::LoadModel {
            slot,
            name,
            tokenizer,
            batch_size,
            load: load_id,
            backend,
            precision,
            helper,
        } => {
            // Config and tokenizer come as byte parts, the weights as the trailing Blob. Each
            // part is held to its kind's ceiling here too, whoever sent it.
            let files = SmallFiles::from_parts(tokenizer, parts)
                .and_then(|small| {
                    small.check_ceilings(Reader::Browser)?;
                    Ok(small)
                })
                .map_err(|e| e.to_string())
                .and_then(|small| {
                    let weights =
                        blob.ok_or("the load message came without its weights (a Blob)")?;
                    Ok(SlotFiles {
                        name,
                        small,
                        weights,
                    })
                });
            let files = match files {
                Ok(files) => files,
                Err(message) => {
                    post(&Response::LoadFailed {
                        slot,
                        load: load_id,
                        message,
                    });
                    return;
                }
            };
            let how = LoadHow {
                batch_size,
                backend,
                precision,
                helper,
            };
            start_load(host, slot, load_id, how, Rc::new(files));
        }
        Request::MoveModel {
            slot,
            backend,
            precision,
            batch_size,
            load: load_id,
        } => {
            let how = LoadHow {
                batch_size,
                backend,
                precision,
                helper: false,
            };
            // Bound first: the borrow must end before the load borrows the host again.
            let files = host.borrow().files.get(&slot).cloned();
            match files {
                Some(files) => start_load(host, slot, load_id, how, files),
                None => post(&Response::LoadFailed {
                    slot,
                    load: load_id,
                    message: format!("no model is loaded as the {slot}"),
                }),
            }
        }
        Request::LoadInoculated {
            job,
            size,
            slot,
            batch_size,
            load: load_id,
            backend,
            precision,
        } => {
            let how = LoadHow {
                batch_size,
                backend,
                precision,
                helper: false,
            };
            let files = host.borrow().inoculated.get(&job).and_then(|i| {
                let (_, weights) = i.checkpoints.iter().find(|(n, _)| *n == size)?;
                let name = format!("{} inoculated n={size}", i.base.name);
                Some(i.base.with_weights(name, weights))
            });
            match files {
                Some(Ok(files)) => start_load(host, slot, load_id, how, Rc::new(files)),
                Some(Err(message)) => post(&Response::LoadFailed {
                    slot,
                    load: load_id,
                    message,
                }),
                None => post(&Response::LoadFailed {
                    slot,
                    load: load_id,
                    message: format!(
                        "this page no longer holds the n = {size} checkpoint of that inoculation \
                         (fine-tuned weights live until the page is closed or the worker \
                         restarts): run the inoculation again"
                    ),
                }),
            }
        }
        Request::ExportInoculated { request, job, size } => {
            let h = host.borrow();
            let found = h.inoculated.get(&job).and_then(|i| {
                let (_, weights) = i.checkpoints.iter().find(|(n, _)| *n == size)?;
                Some(i.base.with_bytes(weights))
            });
            match found {
                Some(files) => {
                    let (names, parts): (Vec<String>, Vec<&[u8]>) = files
                        .named()
                        .into_iter()
                        .map(|(name, bytes)| (name.to_string(), bytes))
                        .unzip();
                    post_with_parts(&Response::CheckpointFiles { request, names }, &parts)
                }
                None => post(&Response::ScoreFailed {
                    job: request,
                    message: format!(
                        "this page no longer holds the n = {size} checkpoint (fine-tuned weights \
                         live until the page is closed or the worker restarts)"
                    ),
                    cancelled: false,
                }),
            }
        }
        Request::Inoculate {
            job,
            slot,
            settings,
        } => {
            wasm_bindgen_futures::spawn_local(async move {
                let run = assemble_run("the run sent for inoculation", &parts);
                drop(parts);
                let outcome = match run {
                    Ok(run) => inoculate_job(&host, job, slot, &run, &settings).await,
                    Err(e) => Err(e),
                };
                let response = match outcome {
                    Ok(result) => Response::InoculationFinished {
                        job,
                        result: Box::new(result),
                    },
                    Err(message) => Response::ScoreFailed {
                        job,
                        cancelled: message == CANCELLED,
                        message,
                    },
                };
                host.borrow_mut().cancelled.remove(&job);
                post(&response);
            });
        }
        Request::RunProbe {
            job,
            slot,
            probe,
            resume,
        } => {
            wasm_bindgen_futures::spawn_local(async move {
                let built = probe.build();
                // The request (and its dataset) is not needed once the set is built.
                drop(probe);
                // Scoring time only: the page's speed estimates are pairs per second.
                let started = Date::now();
                let result = match built {
                    Ok(set) => run_probe(&host, job, slot, set, resume).await,
                    Err(e) => Err(format!("the probe set cannot be built: {e}")),
                };
                let elapsed_ms = Date::now() - started;
                host.borrow_mut().cancelled.remove(&job);
                match result {
                    Ok(result) => post_run(job, &result, elapsed_ms),
                    Err(message) => post(&Response::ScoreFailed {
                        job,
                        message,
                        cancelled: false,
                    }),
                }
            });
        }
        Request::Import {
            request,
            names,
            dataset_name,
        } => {
            let result = import(names, parts, dataset_name);
            post(&Response::Imported { request, result });
        }
        Request::CountProbeSet {
            request,
            probe,
            scores_of,
        } => {
            let imported = scores_of.and_then(|slot| host.borrow().imported.get(&slot).cloned());
            let counts = probe.build().and_then(|set| {
                if let Some(imported) = imported {
                    imported.check_set(&set)?;
                }
                Ok(set.counts())
            });
            post(&Response::ProbeCounts { request, counts });
        }
        Request::Score { job, slot, pairs } => {
            wasm_bindgen_futures::spawn_local(async move {
                let started = Date::now();
                let workers = pool_of(&host, slot).workers();
                let response = match score(&host, job, slot, &pairs).await {
                    Ok(scores) => Response::Scores {
                        job,
                        scores,
                        elapsed_ms: Date::now() - started,
                        workers,
                    },
                    Err((message, cancelled)) => Response::ScoreFailed {
                        job,
                        message,
                        cancelled,
                    },
                };
                host.borrow_mut().cancelled.remove(&job);
                post(&response);
            });
        }
        Request::BuildReport {
            request,
            piece_bytes,
        } => {
            wasm_bindgen_futures::spawn_local(async move {
                let report = build_report(piece_bytes, parts, blob).await;
                post(&Response::Report { request, report });
            });
        }
        Request::ImportScores {
            slot,
            load: load_id,
            name,
            file,
            label_set,
        } => {
            let Some(blob) = blob else {
                post(&Response::LoadFailed {
                    slot,
                    load: load_id,
                    message: format!("{file}: the import came without the file (a Blob)"),
                });
                return;
            };
            host.borrow_mut().latest_load.insert(slot, load_id);
            wasm_bindgen_futures::spawn_local(async move {
                let read = ImportedScorer::read(name, file, &blob, label_set, Date::now()).await;
                let latest = host.borrow().latest_load.get(&slot) == Some(&load_id);
                let result = read.map(|(scorer, info)| {
                    if latest {
                        let mut h = host.borrow_mut();
                        h.imported.insert(slot, Rc::new(scorer));
                        // The slot's network, its helpers and files go: the slot is the file.
                        h.models.remove(&slot);
                        h.pools.remove(&slot);
                        h.files.remove(&slot);
                        h.panic_on_score.remove(&slot);
                    }
                    info
                });
                let response = load_response(slot, load_id, latest, result);
                post(&response);
            });
        }
        Request::ExportPairs {
            request,
            probe,
            file,
        } => {
            let linearization = probe.settings.linearization.name();
            let text = probe
                .build()
                .map_err(|e| format!("the probe set cannot be built: {e}"))
                .and_then(|set| {
                    pairs_jsonl(&pair_lines(&set, linearization))
                        .map_err(|e| format!("cannot write the pairs: {e}"))
                });
            match text {
                Ok(text) => post_with_parts(
                    &Response::CheckpointFiles {
                        request,
                        names: vec![file],
                    },
                    &[text.as_bytes()],
                ),
                Err(message) => post(&Response::ScoreFailed {
                    job: request,
                    message,
                    cancelled: false,
                }),
            }
        }
        Request::Cancel { job } => {
            host.borrow_mut().cancelled.insert(job);
        }
        Request::Ping { n } => post(&Response::Pong { n }),
    }
}

/// The whole report (core's [`FullReport`]) of the run files in pieces: in `blob`, cut at
/// `piece_bytes`, or without a Blob in `parts`. Errors say which piece does not read.
async fn build_report(
    piece_bytes: Vec<usize>,
    parts: Vec<Vec<u8>>,
    blob: Option<Blob>,
) -> Result<Box<FullReport>, String> {
    let mut assembler = RunAssembler::new("the saved run's files");
    match blob {
        Some(blob) => {
            let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer())
                .await
                .map_err(|e| format!("cannot read the saved run's files: {e:?}"))?;
            // The worker can hold the run twice: one copy into its memory, then cut.
            let all = js_sys::Uint8Array::new(&buffer).to_vec();
            for range in piece_ranges("the saved run's files", &piece_bytes, all.len())? {
                assembler.push(&all[range]).map_err(|e| e.to_string())?;
            }
        }
        None => {
            for part in &parts {
                assembler.push(part).map_err(|e| e.to_string())?;
            }
        }
    }
    let runs = assembler.finish().map_err(|e| e.to_string())?;
    let refs: Vec<&RunResult> = runs.iter().collect();
    Ok(Box::new(FullReport::build(&refs)))
}

/// How to load a model: batch size, device, and whether this worker is a helper.
#[derive(Clone, Copy)]
struct LoadHow {
    batch_size: usize,
    backend: BackendChoice,
    precision: PrecisionChoice,
    helper: bool,
}

/// Loads `files` into `slot` (answered by [`Response::ModelLoaded`] or
/// [`Response::LoadFailed`]); only the latest load requested for a slot takes it. On the CPU
/// path (and not in a helper) the slot's helpers start loading once its model is loaded.
fn start_load(
    host: Rc<RefCell<Host>>,
    slot: Slot,
    load_id: u64,
    how: LoadHow,
    files: Rc<SlotFiles>,
) {
    host.borrow_mut().latest_load.insert(slot, load_id);
    wasm_bindgen_futures::spawn_local(async move {
        let panics = test_panic_requested(&files.small.config_json);
        let result = load(&host, &files, how).await;
        let latest = host.borrow().latest_load.get(&slot) == Some(&load_id);
        let result = result.map(|(model, info)| {
            if latest {
                install_model(&host, slot, model, &info, how, files, panics);
            }
            info
        });
        let response = load_response(slot, load_id, latest, result);
        post(&response);
    });
}

/// Puts a loaded network in `slot`: its helpers (on the CPU path), its files (kept for moves
/// and fine-tuning) and the test hook; whatever the slot held before goes.
fn install_model(
    host: &Rc<RefCell<Host>>,
    slot: Slot,
    model: NliModel,
    info: &ModelInfo,
    how: LoadHow,
    files: Rc<SlotFiles>,
    panics: bool,
) {
    let mut h = host.borrow_mut();
    h.models.insert(slot, Rc::new(model));
    h.imported.remove(&slot);
    // The old model's helpers go with it; new ones load the new model.
    h.pools.remove(&slot);
    if info.workers > 1 {
        let pool = Pool::start(
            info.workers - 1,
            &files.name,
            &files.small,
            &files.weights,
            how.batch_size,
        );
        h.pools.insert(slot, Rc::new(pool));
    }
    // Kept for fine-tuning and moves; a helper does neither, so it keeps no copy.
    if !how.helper {
        h.files.insert(slot, files);
    }
    if panics {
        h.panic_on_score.insert(slot);
    } else {
        h.panic_on_score.remove(&slot);
    }
}

/// The answer to a load into `slot`: loaded, failed, or replaced when a newer load into the
/// slot was requested meanwhile (`latest` false: the slot was left alone).
fn load_response(
    slot: Slot,
    load: u64,
    latest: bool,
    result: Result<ModelInfo, String>,
) -> Response {
    match result {
        Ok(_) if !latest => Response::LoadFailed {
            slot,
            load,
            message: "replaced by a newer load".to_string(),
        },
        Ok(info) => Response::ModelLoaded { slot, load, info },
        Err(message) => Response::LoadFailed {
            slot,
            load,
            message,
        },
    }
}

/// The device for `choice` ([`Devices::get`]). One caller at a time sets devices up: wgpu
/// initialises once per worker, and the automatic choice is measured once.
async fn device(host: &Rc<RefCell<Host>>, choice: BackendChoice) -> Result<Chosen, String> {
    let mut devices = loop {
        {
            let mut h = host.borrow_mut();
            if !h.devices_busy {
                h.devices_busy = true;
                break std::mem::take(&mut h.devices);
            }
        }
        gloo_timers::future::TimeoutFuture::new(10).await;
    };
    let chosen = devices.get(choice).await;
    let mut h = host.borrow_mut();
    h.devices = devices;
    h.devices_busy = false;
    chosen
}

async fn load(
    host: &Rc<RefCell<Host>>,
    files: &SlotFiles,
    how: LoadHow,
) -> Result<(NliModel, ModelInfo), String> {
    let started = Date::now();
    let name = files.name.as_str();
    let choice = if how.helper {
        BackendChoice::Cpu
    } else {
        how.backend
    };
    let chosen = device(host, choice).await?;
    // The browser reads the Blob for Web Crypto off this thread while the model loads; without
    // Web Crypto (insecure contexts) the weights are hashed in wasm, in pieces, after the load,
    // so a checkpoint that fails its checks is refused before either hash is paid for.
    let pending = digest::start_web_crypto_sha256_of_blob(&files.weights);
    let weights = BlobSource::new(files.weights.clone())?;
    let sources = ModelSources {
        config_json: &files.small.config_json,
        tokenizer: files.small.tokenizer.as_ref().map(Vec::as_slice),
        tokenizer_config_json: files.small.tokenizer_config.as_deref(),
        weights: &weights,
    };
    let unhashed =
        NliModel::load_unhashed_from(name, sources, &chosen.device).map_err(|e| e.to_string())?;
    let sha256 = match pending {
        Some(pending) => pending.hex().await,
        None => None,
    };
    let sha256 = match sha256 {
        Some(sha256) => sha256,
        None => weights_sha256_of(&weights).map_err(|e| e.to_string())?,
    };
    let mut model = unhashed.with_sha256(sha256);
    let precision_note = choose_precision(&mut model, how.precision, &chosen.backend);
    model.set_batch_size(chosen.batch_size.unwrap_or(how.batch_size));
    model.set_tensor_budget(chosen.tensor_budget);
    model
        .warm_up()
        .await
        .map_err(|e| format!("the model loaded but cannot run: {e}"))?;
    let shape = model.shape();
    let info = ModelInfo {
        id: model.id().clone(),
        labels: model
            .labels()
            .names
            .iter()
            .zip(&model.labels().labels)
            .map(|(name, label)| format!("{name} → {label}"))
            .collect(),
        architecture: shape.family.display_name().to_string(),
        parameters: shape.parameters,
        max_tokens: shape.max_tokens,
        layers: shape.layers,
        hidden_size: shape.hidden_size,
        workers: match chosen.backend {
            Backend::Cpu { .. } if !how.helper => {
                1 + helpers_for(cores(), files.weights.size() as usize)
            }
            _ => 1,
        },
        backend: chosen.backend,
        backend_note: chosen.note,
        precision_note,
        load_ms: Date::now() - started,
        memory_bytes: wasm_memory_bytes(),
        imported: None,
    };
    Ok((model, info))
}

/// Runs `model` in f16-mixed when `choice` allows it, it is on WebGPU and the adapter has
/// `shader-f16` (burn reports f16 arithmetic on the device); says why it runs at its
/// precision.
fn choose_precision(model: &mut NliModel, choice: PrecisionChoice, backend: &Backend) -> String {
    match (choice, backend) {
        (PrecisionChoice::F32, _) => "f32, as chosen in the model bar".to_string(),
        (PrecisionChoice::F16WhereOffered, Backend::Cpu { .. } | Backend::ScoresFile) => {
            "f32: the CPU path computes in f32".to_string()
        }
        (PrecisionChoice::F16WhereOffered, Backend::WebGpu) => {
            match model.set_precision(Precision::F16Mixed) {
                Ok(()) => "f16-mixed: the WebGPU adapter has shader-f16".to_string(),
                Err(e) => format!("f32: {e}"),
            }
        }
    }
}

/// The size of this worker's wasm memory in bytes.
fn wasm_memory_bytes() -> Option<f64> {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().dyn_into().ok()?;
    let buffer: js_sys::ArrayBuffer = memory.buffer().dyn_into().ok()?;
    Some(f64::from(buffer.byte_length()))
}

/// Runs a probe set with core's step API: hand out a chunk of pairs, score it, submit the
/// scores, post them ([`Response::RunScores`]) and the progress, yield (so a cancel can land).
/// A cancel ends the run with what was scored ([`ProbeRun::finish_partial`]). A `resume`
/// takes an interrupted run's scores and chunk and scores only the rest.
async fn run_probe(
    host: &Rc<RefCell<Host>>,
    job: u64,
    slot: Slot,
    set: ProbeSet,
    resume: Option<RunResume>,
) -> Result<RunResult, String> {
    let scorer = scorer_in(host, slot)?;
    // A scores file made for another probe set is refused before anything is scored.
    scorer.check_set(&set)?;
    let chunk = match &resume {
        Some(r) => r.chunk,
        None => scorer.chunk(),
    };
    let mut run = ProbeRun::new(set, chunk.max(1));
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
    let progress = run.progress();
    post(&Response::Progress {
        job,
        done: progress.done,
        total: progress.total,
    });
    while let Some(batch) = run.next_batch() {
        if host.borrow().cancelled.contains(&job) {
            return Ok(run.finish_partial(scorer.id().clone()));
        }
        let offset = run.progress().done;
        let scores = scorer.score(&batch, offset, Some(run.set())).await?;
        check_scores(&scorer.id().name, offset, &batch, &scores, Some(run.set()))?;
        let p = run.submit(scores.clone()).map_err(|e| e.to_string())?;
        post(&Response::RunScores {
            job,
            chunk,
            from: offset,
            scores,
        });
        post(&Response::Progress {
            job,
            done: p.done,
            total: p.total,
        });
        gloo_timers::future::TimeoutFuture::new(0).await;
    }
    run.finish(scorer.id().clone()).map_err(|e| e.to_string())
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
            return post(&Response::ScoreFailed {
                job,
                message: format!("cannot keep the finished run: {e:?}"),
                cancelled: false,
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

/// Core's importers on the files (names and bytes in the same order), with the page's limits.
fn import(
    names: Vec<String>,
    parts: Vec<Vec<u8>>,
    dataset_name: String,
) -> Result<Box<(Dataset, ImportReport)>, ImportError> {
    if names.len() != parts.len() {
        return Err(ImportError {
            file: format!("{} files", names.len()),
            location: "message".into(),
            message: format!("{} names came with {} files", names.len(), parts.len()),
        });
    }
    let files = names
        .into_iter()
        .zip(parts)
        .map(|(name, bytes)| InputFile::new(name, bytes))
        .collect();
    let options = ImportOptions {
        name: Some(dataset_name),
        ..ImportOptions::default()
    };
    import_files(files, &options).map(Box::new)
}

/// Paces an inoculation in the worker: posts progress (at most every 100 ms), yields to the
/// event loop so a [`Request::Cancel`] can land, and stops when one has.
struct WorkerPace {
    host: Rc<RefCell<Host>>,
    job: u64,
    last_post: f64,
}

impl Pace for WorkerPace {
    async fn progress(&mut self, progress: &InoculationProgress) -> bool {
        let now = Date::now();
        if now - self.last_post >= 100.0 {
            self.last_post = now;
            post(&Response::InoculationProgress {
                job: self.job,
                progress: progress.clone(),
            });
        }
        gloo_timers::future::TimeoutFuture::new(0).await;
        !self.host.borrow().cancelled.contains(&self.job)
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
    host: &Rc<RefCell<Host>>,
    job: u64,
    slot: Slot,
    run: &RunResult,
    settings: &InoculationSettings,
) -> Result<InoculationResult, String> {
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
        host: host.clone(),
        job,
        last_post: 0.0,
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
    .await?;
    host.borrow_mut().inoculated.insert(
        job,
        Inoculated {
            base: files,
            checkpoints: output.checkpoints,
        },
    );
    Ok(output.result)
}

/// The helpers of `slot`'s model (none on WebGPU, in a helper, or on one core).
fn pool_of(host: &Rc<RefCell<Host>>, slot: Slot) -> Rc<Pool> {
    host.borrow().pools.get(&slot).cloned().unwrap_or_default()
}

/// The model in `slot`; panics when it carries the test hook (see the module docs). A slot
/// holding a scores file has no network to fine-tune or export.
fn model_in(host: &Rc<RefCell<Host>>, slot: Slot) -> Result<Rc<NliModel>, String> {
    let host = host.borrow();
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
fn scorer_in(host: &Rc<RefCell<Host>>, slot: Slot) -> Result<Scorer, String> {
    if let Some(imported) = host.borrow().imported.get(&slot).cloned() {
        return Ok(Scorer::Imported(imported));
    }
    let model = model_in(host, slot)?;
    Ok(Scorer::Network {
        model,
        pool: pool_of(host, slot),
    })
}

async fn score(
    host: &Rc<RefCell<Host>>,
    job: u64,
    slot: Slot,
    pairs: &[Pair],
) -> Result<Vec<PairScore>, (String, bool)> {
    let scorer = scorer_in(host, slot).map_err(|m| (m, false))?;
    let mut scores = Vec::with_capacity(pairs.len());
    for part in pairs.chunks(scorer.chunk()) {
        if host.borrow().cancelled.contains(&job) {
            return Err((
                format!("cancelled after {} of {} pairs", scores.len(), pairs.len()),
                true,
            ));
        }
        let got = scorer
            .score(part, scores.len(), None)
            .await
            .map_err(|m| (m, false))?;
        check_scores(&scorer.id().name, scores.len(), part, &got, None).map_err(|m| (m, false))?;
        scores.extend(got);
        post(&Response::Progress {
            job,
            done: scores.len(),
            total: pairs.len(),
        });
        // Let queued messages (a cancel) run before the next chunk; the CPU path never awaits.
        gloo_timers::future::TimeoutFuture::new(0).await;
    }
    Ok(scores)
}
