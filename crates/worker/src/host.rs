//! The worker side: owns the compute device and the loaded models, answers [`Request`]s.
//! WebGPU is tried first; without an adapter the worker falls back to burn's CPU backend and
//! says why. Scoring and probe runs go in chunks with a yield between them, so a cancel can
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
use tabprobe_core::probe::ProbeSet;
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::{Pair, PairScore};
use tabprobe_model::{Device, ModelFiles, NliModel, TokenizerFiles};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::outputs::{check_scores, test_panic_requested};
use crate::protocol::{Backend, ModelInfo, Request, Response, TokenizerParts};
use crate::transport;

/// Batches per chunk between two progress messages (and cancel checks): one, so progress
/// moves and a cancel lands after every forward pass. (Four batches of 8 made the page sit at
/// 0 for the time of 32 pairs, then jump by 32.)
const BATCHES_PER_CHUNK: usize = 1;

#[derive(Default)]
struct Host {
    device: Option<(Device, Backend)>,
    models: HashMap<u32, Rc<NliModel>>,
    /// Slots whose model asked for the test panic ([`crate::outputs::TEST_PANIC_KEY`]).
    panic_on_score: HashSet<u32>,
    /// Per slot, the id of the latest load requested: only it may take the slot.
    latest_load: HashMap<u32, u64>,
    cancelled: HashSet<u64>,
}

/// Installs the message handler on the worker's global scope. Called once by `bin/worker.rs`.
pub fn start() {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        web_sys::console::error_1(&"tabprobe worker: not running in a dedicated worker".into());
        return;
    };
    let host = Rc::new(RefCell::new(Host::default()));
    let handler =
        Closure::<dyn FnMut(MessageEvent)>::new(
            move |event: MessageEvent| match transport::decode::<Request>(&event.data()) {
                Ok((request, parts)) => handle(host.clone(), request, parts),
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
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    match transport::encode(response, Vec::new()) {
        Ok((message, transfer)) => {
            if let Err(e) = scope.post_message_with_transfer(&message, &transfer) {
                web_sys::console::error_2(&"tabprobe worker: cannot post".into(), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&e.into()),
    }
}

fn handle(host: Rc<RefCell<Host>>, request: Request, parts: Vec<Vec<u8>>) {
    match request {
        Request::LoadModel {
            slot,
            name,
            tokenizer,
            batch_size,
            load: load_id,
        } => {
            host.borrow_mut().latest_load.insert(slot, load_id);
            wasm_bindgen_futures::spawn_local(async move {
                let panics = parts.first().is_some_and(|c| test_panic_requested(c));
                let result = load(&host, &name, tokenizer, batch_size, parts).await;
                let latest = host.borrow().latest_load.get(&slot) == Some(&load_id);
                let response = match result {
                    Ok(_) if !latest => Response::LoadFailed {
                        slot,
                        load: load_id,
                        message: "replaced by a newer load".to_string(),
                    },
                    Ok((model, info)) => {
                        let mut h = host.borrow_mut();
                        h.models.insert(slot, Rc::new(model));
                        if panics {
                            h.panic_on_score.insert(slot);
                        } else {
                            h.panic_on_score.remove(&slot);
                        }
                        Response::ModelLoaded {
                            slot,
                            load: load_id,
                            info,
                        }
                    }
                    Err(message) => Response::LoadFailed {
                        slot,
                        load: load_id,
                        message,
                    },
                };
                post(&response);
            });
        }
        Request::RunProbe { job, slot, set } => {
            wasm_bindgen_futures::spawn_local(async move {
                let started = Date::now();
                let response = match run_probe(&host, job, slot, *set).await {
                    Ok(result) => Response::RunFinished {
                        job,
                        result: Box::new(result),
                        elapsed_ms: Date::now() - started,
                    },
                    Err(message) => Response::ScoreFailed {
                        job,
                        message,
                        cancelled: false,
                    },
                };
                host.borrow_mut().cancelled.remove(&job);
                post(&response);
            });
        }
        Request::Score { job, slot, pairs } => {
            wasm_bindgen_futures::spawn_local(async move {
                let started = Date::now();
                let response = match score(&host, job, slot, &pairs).await {
                    Ok(scores) => Response::Scores {
                        job,
                        scores,
                        elapsed_ms: Date::now() - started,
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
        Request::Cancel { job } => {
            host.borrow_mut().cancelled.insert(job);
        }
    }
}

/// The device, initialised on first use: WebGPU if the browser offers an adapter, else CPU.
async fn device(host: &Rc<RefCell<Host>>) -> (Device, Backend) {
    if let Some(d) = host.borrow().device.clone() {
        return d;
    }
    let chosen = match Device::wgpu_options().init_async().await {
        Ok(device) => (device, Backend::WebGpu),
        // wgpu's message lists every graphics API it tried; say the part a user can act on.
        Err(e) => {
            let full = e.to_string();
            let reason = if full.contains("webgpu found no adapters") {
                "the browser offers no WebGPU adapter".to_string()
            } else {
                full
            };
            (Device::flex(), Backend::Cpu { reason })
        }
    };
    host.borrow_mut().device = Some(chosen.clone());
    chosen
}

async fn load(
    host: &Rc<RefCell<Host>>,
    name: &str,
    tokenizer: TokenizerParts,
    batch_size: usize,
    parts: Vec<Vec<u8>>,
) -> Result<(NliModel, ModelInfo), String> {
    let started = Date::now();
    let expected = match tokenizer {
        TokenizerParts::Json => 3,
        TokenizerParts::VocabMerges => 4,
    };
    if parts.len() != expected {
        return Err(format!(
            "expected {expected} files for this checkpoint, received {}",
            parts.len()
        ));
    }
    let tokenizer = match tokenizer {
        TokenizerParts::Json => TokenizerFiles::Json(&parts[2]),
        TokenizerParts::VocabMerges => TokenizerFiles::VocabMerges {
            vocab_json: &parts[2],
            merges_txt: &parts[3],
        },
    };
    let (device, backend) = device(host).await;
    let files = ModelFiles {
        config_json: &parts[0],
        weights: &parts[1],
        tokenizer,
    };
    let mut model = NliModel::load(name, files, &device).map_err(|e| e.to_string())?;
    model.set_batch_size(batch_size);
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
        backend,
        load_ms: Date::now() - started,
    };
    Ok((model, info))
}

/// Runs a probe set with core's step API: hand out a chunk of pairs, score it, submit the
/// scores, report progress, yield (so a cancel can land). A cancel ends the run with what was
/// scored ([`ProbeRun::finish_partial`]).
async fn run_probe(
    host: &Rc<RefCell<Host>>,
    job: u64,
    slot: u32,
    set: ProbeSet,
) -> Result<RunResult, String> {
    let model = model_in(host, slot)?;
    let mut run = ProbeRun::new(set, (model.batch_size() * BATCHES_PER_CHUNK).max(1));
    let progress = run.progress();
    post(&Response::Progress {
        job,
        done: progress.done,
        total: progress.total,
    });
    while let Some(batch) = run.next_batch() {
        if host.borrow().cancelled.contains(&job) {
            return Ok(run.finish_partial(model.id().clone()));
        }
        let offset = run.progress().done;
        let scores = model.score_async(&batch).await.map_err(|e| e.to_string())?;
        check_scores(&model.id().name, offset, &batch, &scores, Some(run.set()))?;
        let p = run.submit(scores).map_err(|e| e.to_string())?;
        post(&Response::Progress {
            job,
            done: p.done,
            total: p.total,
        });
        gloo_timers::future::TimeoutFuture::new(0).await;
    }
    run.finish(model.id().clone()).map_err(|e| e.to_string())
}

/// The model in `slot`; panics when it carries the test hook (see the module docs).
fn model_in(host: &Rc<RefCell<Host>>, slot: u32) -> Result<Rc<NliModel>, String> {
    let host = host.borrow();
    if host.panic_on_score.contains(&slot) {
        panic!("tabprobe_test_panic: this model's config.json asks the worker to panic on scoring (a test fixture)");
    }
    host.models
        .get(&slot)
        .cloned()
        .ok_or_else(|| format!("no model is loaded in slot {slot}"))
}

async fn score(
    host: &Rc<RefCell<Host>>,
    job: u64,
    slot: u32,
    pairs: &[Pair],
) -> Result<Vec<PairScore>, (String, bool)> {
    let model = model_in(host, slot).map_err(|m| (m, false))?;
    let chunk = model.batch_size() * BATCHES_PER_CHUNK;
    let mut scores = Vec::with_capacity(pairs.len());
    for part in pairs.chunks(chunk.max(1)) {
        if host.borrow().cancelled.contains(&job) {
            return Err((
                format!("cancelled after {} of {} pairs", scores.len(), pairs.len()),
                true,
            ));
        }
        let got = model
            .score_async(part)
            .await
            .map_err(|e| (e.to_string(), false))?;
        check_scores(&model.id().name, scores.len(), part, &got, None).map_err(|m| (m, false))?;
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
