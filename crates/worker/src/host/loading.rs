//! Loads into a slot: a checkpoint's files (picked, downloaded, or kept by an inoculation), the
//! same files moved to another device or precision, and imported scores files. Only the
//! latest load requested for a slot takes it; the others are answered "replaced by a newer
//! load".

use std::rc::Rc;

use js_sys::Date;
use tabprobe_core::checkpoint::{CheckpointFiles, Reader, SmallFiles};
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::scoring::Precision;
use tabprobe_model::loading::weight_file::weights_sha256_of;
use tabprobe_model::{ModelFiles, ModelSources, NliModel};
use wasm_bindgen::JsCast;
use web_sys::Blob;

use super::SharedHost;
use crate::blob_source::{blob_of, BlobSource};
use crate::devices::Chosen;
use crate::digest;
use crate::imported::ImportedScorer;
use crate::outbox::post;
#[cfg(feature = "test-hooks")]
use crate::outputs::test_panic_requested;
use crate::pool::{copy_bytes, cores, helpers_for, Pool};
use crate::protocol::{
    Backend, BackendChoice, ModelInfo, PrecisionChoice, Request, Response, Slot,
};

/// Answers the load requests ([`Request::LoadModel`], [`Request::MoveModel`],
/// [`Request::LoadInoculated`], [`Request::ImportScores`]); other requests are not routed here.
pub(super) fn handle(host: SharedHost, request: Request, parts: Vec<Vec<u8>>, blob: Option<Blob>) {
    let network = |batch_size, backend, precision| LoadHow {
        batch_size,
        backend,
        precision,
        helper: false,
    };
    // Each load names its slot, its id, how to load, and the files (or why there are none).
    let (slot, load_id, how, files) = match request {
        Request::LoadModel {
            slot,
            name,
            tokenizer,
            batch_size,
            load,
            backend,
            precision,
            helper,
        } => {
            let how = LoadHow {
                helper,
                ..network(batch_size, backend, precision)
            };
            let files = received_files(name, tokenizer, parts, blob).map(Rc::new);
            (slot, load, how, files)
        }
        Request::MoveModel {
            slot,
            backend,
            precision,
            batch_size,
            load,
        } => {
            // Bound first: the borrow must end before the load borrows the host again.
            let kept = host.borrow().files.get(&slot).cloned();
            let files = kept.ok_or_else(|| format!("no model is loaded as the {slot}"));
            (slot, load, network(batch_size, backend, precision), files)
        }
        Request::LoadInoculated {
            job,
            size,
            slot,
            batch_size,
            load,
            backend,
            precision,
        } => {
            let files = inoculated_files(&host, job, size).map(Rc::new);
            (slot, load, network(batch_size, backend, precision), files)
        }
        Request::ImportScores {
            slot,
            load,
            name,
            file,
            label_set,
        } => return import_scores(host, slot, load, (name, file, label_set), blob),
        _ => return,
    };
    match files {
        Ok(files) => start_load(host, slot, load_id, how, files),
        Err(message) => post(&Response::LoadFailed {
            slot,
            load: load_id,
            message,
        }),
    }
}

/// Imports the scores file `file` (the trailing Blob) into `slot` as the model `name`, its
/// scores over `label_set`; answered like a load.
fn import_scores(
    host: SharedHost,
    slot: Slot,
    load_id: u64,
    (name, file, label_set): (String, String, LabelSet),
    blob: Option<Blob>,
) {
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
                install_scores(&host, slot, scorer);
            }
            info
        });
        post(&load_response(slot, load_id, latest, result));
    });
}

/// A load message's files: config and tokenizer as byte parts (each held to its kind's
/// ceiling here too, whoever sent it), the weights as the trailing Blob.
fn received_files(
    name: String,
    tokenizer: tabprobe_core::checkpoint::TokenizerKind,
    parts: Vec<Vec<u8>>,
    blob: Option<Blob>,
) -> Result<SlotFiles, String> {
    let small = SmallFiles::from_parts(tokenizer, parts)
        .and_then(|small| {
            small.check_ceilings(Reader::Browser)?;
            Ok(small)
        })
        .map_err(|e| e.to_string())?;
    let weights = blob.ok_or("the load message came without its weights (a Blob)")?;
    Ok(SlotFiles {
        name,
        small,
        weights,
    })
}

/// The files of the checkpoint inoculation `job` kept for sample size `size`.
fn inoculated_files(host: &SharedHost, job: u64, size: usize) -> Result<SlotFiles, String> {
    let h = host.borrow();
    let found = h.inoculated.get(&job).and_then(|i| {
        let (_, weights) = i.checkpoints.iter().find(|(n, _)| *n == size)?;
        Some((i, weights))
    });
    match found {
        Some((i, weights)) => {
            let name = format!("{} inoculated n={size}", i.base.name);
            i.base.with_weights(name, weights)
        }
        None => Err(format!(
            "this page no longer holds the n = {size} checkpoint of that inoculation \
             (fine-tuned weights live until the page is closed or the worker \
             restarts): run the inoculation again"
        )),
    }
}

/// Puts an imported scores file in `slot`: its network, helpers and files go (the slot is the
/// file).
fn install_scores(host: &SharedHost, slot: Slot, scorer: ImportedScorer) {
    let mut h = host.borrow_mut();
    h.imported.insert(slot, Rc::new(scorer));
    h.models.remove(&slot);
    h.pools.remove(&slot);
    h.files.remove(&slot);
    #[cfg(feature = "test-hooks")]
    h.panic_on_score.remove(&slot);
}

/// A loaded checkpoint's files, kept for moves, helpers and fine-tuning (inoculation needs the
/// bytes, not only the network built from them): config and tokenizer in memory, the weights
/// in a Blob the browser holds, outside this worker's wasm memory.
pub(super) struct SlotFiles {
    pub(super) name: String,
    pub(super) small: SmallFiles<Vec<u8>>,
    pub(super) weights: Blob,
}

impl SlotFiles {
    /// The whole checkpoint in memory, with `weights` (fine-tuning and export).
    pub(super) fn with_bytes<'a>(&'a self, weights: &'a [u8]) -> ModelFiles<'a> {
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
fn start_load(host: SharedHost, slot: Slot, load_id: u64, how: LoadHow, files: Rc<SlotFiles>) {
    host.borrow_mut().latest_load.insert(slot, load_id);
    wasm_bindgen_futures::spawn_local(async move {
        let result = load(&host, &files, how).await;
        let latest = host.borrow().latest_load.get(&slot) == Some(&load_id);
        let result = result.map(|(model, info)| {
            if latest {
                install_model(&host, slot, model, &info, how, files);
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
    host: &SharedHost,
    slot: Slot,
    model: NliModel,
    info: &ModelInfo,
    how: LoadHow,
    files: Rc<SlotFiles>,
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
            how.precision,
        );
        h.pools.insert(slot, Rc::new(pool));
    }
    #[cfg(feature = "test-hooks")]
    if test_panic_requested(&files.small.config_json) {
        h.panic_on_score.insert(slot);
    } else {
        h.panic_on_score.remove(&slot);
    }
    // Kept for fine-tuning and moves; a helper does neither, so it keeps no copy.
    if !how.helper {
        h.files.insert(slot, files);
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
async fn device(host: &SharedHost, choice: BackendChoice) -> Result<Chosen, String> {
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
    host: &SharedHost,
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
                1 + helpers_for(
                    cores(),
                    copy_bytes(files.weights.size() as usize, how.precision),
                )
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

/// Runs `model` at the precision `choice` asks for where its device can: f16-mixed on WebGPU
/// when the adapter has `shader-f16` (burn reports f16 arithmetic on the device), int8 on the
/// CPU path; says why it runs at its precision.
fn choose_precision(model: &mut NliModel, choice: PrecisionChoice, backend: &Backend) -> String {
    let (precision, reason) = match (choice, backend) {
        (PrecisionChoice::F32, _) => return "f32, as chosen in the model bar".to_string(),
        (PrecisionChoice::F16WhereOffered, Backend::Cpu { .. } | Backend::ScoresFile) => {
            return "f32: f16-mixed runs on WebGPU only".to_string()
        }
        (PrecisionChoice::Int8OnCpu, Backend::WebGpu | Backend::ScoresFile) => {
            return "f32: int8 runs on the CPU path only".to_string()
        }
        (PrecisionChoice::F16WhereOffered, Backend::WebGpu) => (
            Precision::F16Mixed,
            "f16-mixed: the WebGPU adapter has shader-f16",
        ),
        (PrecisionChoice::Int8OnCpu, Backend::Cpu { .. }) => (
            Precision::Int8,
            "int8: chosen in the model bar, on the CPU path",
        ),
    };
    match model.set_precision(precision) {
        Ok(()) => reason.to_string(),
        Err(e) => format!("f32: {e}"),
    }
}

/// The size of this worker's wasm memory in bytes.
fn wasm_memory_bytes() -> Option<f64> {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().dyn_into().ok()?;
    let buffer: js_sys::ArrayBuffer = memory.buffer().dyn_into().ok()?;
    Some(f64::from(buffer.byte_length()))
}
