//! All model I/O of the page: checkpoint files the user picks or drops, and checkpoints at a
//! base URL (the bundled demo model, or any Hugging Face-layout folder served over HTTP),
//! downloaded with byte progress and kept in the browser's Cache API so a second load needs
//! no network. Config and tokenizer are read as bytes; the weights stay a `Blob` (the picked
//! `File`, or the downloaded body) that goes to the worker as it is, so the page never holds
//! them in its own memory. A failed load leaves the loaded model in place.
//!
//! A download is data from outside, bounded and checked before it is cached: only `http:` and
//! `https:` URLs; no memory reserved from `Content-Length`; every file held to its kind's
//! ceiling (core's `checkpoint::ceiling`: 1 MiB for a `config.json`, 2 GiB for the weights,
//! …) — refused before reading when `Content-Length` announces more, stopped when the bytes
//! read (after the browser's decompression) pass it; a cached entry past it is dropped, and
//! picked files are held to the same ceilings by their size. An answer other than 200, an
//! HTML page where JSON was expected, a body shorter than its `Content-Length`, a body that
//! stalls for [`STALL_MS`] or a load the user cancels is an error naming the file and URL,
//! and nothing of it is cached.

use js_sys::{Reflect, Uint8Array};
use leptos::prelude::*;
use tabprobe_core::checkpoint::{
    ceiling, check_size, checkpoint_name, marks_checkpoint, CheckpointFiles, Found, HubName,
    PytorchBin, Reader, SmallFiles, TokenizerFiles, BROWSER_MAX_WEIGHTS_BYTES, CONFIG_JSON,
    MERGES_TXT, PYTORCH_BIN, SAFETENSORS, SAFETENSORS_LENGTH_BYTES, TOKENIZER_CONFIG_JSON,
    TOKENIZER_JSON, VOCAB_JSON,
};
use tabprobe_core::run::models_manifest::BundledModel;
use tabprobe_worker::protocol::{Backend, BackendChoice, Slot};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::models::fit;
use crate::state::{AppState, ModelStatus};
use crate::worker::client::{client, CheckpointToLoad};
use crate::worker::health::ModelSource;
use tabprobe_core::display::bytes;

/// A download that receives no byte for this long is stopped (milliseconds).
pub const STALL_MS: u32 = 20_000;

/// How often a download in progress looks for a cancel or a stall (milliseconds).
const DOWNLOAD_TICK_MS: u32 = 250;

// Pairs per forward pass in the browser: core's, as in the CLI.
use tabprobe_core::scoring::DEFAULT_BATCH_SIZE;

/// The Cache API bucket for downloaded checkpoint files (bump the suffix to drop old entries).
pub const MODEL_CACHE: &str = "tabprobe-models-v1";

/// One load into a slot: its number in the slot's generation counter. A newer load makes it
/// stale, and a stale load touches neither the worker slot nor the page's state.
#[derive(Clone, Copy)]
pub(crate) struct Ticket {
    state: AppState,
    slot: Slot,
    generation: u64,
}

impl Ticket {
    /// Starts a load into `slot`, superseding any load still under way there.
    pub(crate) fn new(state: AppState, slot: Slot) -> Ticket {
        let counter = state.slot(slot).load_generation;
        counter.update_value(|g| *g += 1);
        let generation = counter.get_value();
        // Until `load_url` says otherwise, the load is not from a URL.
        state.worker.load_started(slot, None);
        Ticket {
            state,
            slot,
            generation,
        }
    }

    pub(crate) fn current(&self) -> bool {
        self.state.slot(self.slot).load_generation.get_value() == self.generation
    }

    /// Sets the slot's status line, unless a newer load owns it.
    pub(crate) fn status(&self, status: ModelStatus) {
        if self.current() {
            self.state.slot(self.slot).status.set(status);
        }
    }
}

/// Whether any load into `slot` has started (by the user or automatically).
pub fn slot_ever_loaded(state: AppState, slot: Slot) -> bool {
    state.slot(slot).load_generation.get_value() > 0
}

/// Sends checkpoint bytes to the worker's slot and records the outcome (and, for a reload
/// after a worker crash, where the model came from).
async fn hand_to_worker(ticket: Ticket, bytes: CheckpointToLoad, source: ModelSource) {
    if !ticket.current() {
        return;
    }
    let name = bytes.name.clone();
    // Downloaded and bundled checkpoints are checked here; picked files were already checked
    // before reading (the second check costs one header read).
    if loads_on_cpu(ticket.state) {
        if let Err(message) = fits(&bytes.weights, SAFETENSORS).await {
            ticket.status(ModelStatus::Failed(format!("{name}: {message}")));
            return;
        }
    }
    ticket.status(ModelStatus::Loading(format!(
        "loading {name} in the model worker…"
    )));
    let result = match client() {
        Ok(c) => {
            let backend = ticket.state.backend.get_untracked();
            let precision = ticket.state.precision.get_untracked();
            c.load_model(ticket.slot, bytes, DEFAULT_BATCH_SIZE, backend, precision)
                .await
        }
        Err(e) => Err(e),
    };
    if !ticket.current() {
        return;
    }
    match result {
        Ok(info) => {
            ticket.state.model_loaded(ticket.slot, info, source);
            ticket.status(ModelStatus::Idle);
        }
        Err(message) => ticket.status(ModelStatus::Failed(format!("{name}: {message}"))),
    }
}

/// Loads the model in `slot` again on the device and precision the model bar's choices name, from the
/// files the worker kept (any source: picked files, a URL, a bundled model). A failed move
/// leaves the model where it was, and the model bar says why.
pub async fn move_model(state: AppState, slot: Slot) {
    let Some(name) = state
        .slot(slot)
        .model
        .with_untracked(|m| m.as_ref().map(|m| m.id.name.clone()))
    else {
        return;
    };
    let ticket = Ticket::new(state, slot);
    let backend = state.backend.get_untracked();
    ticket.status(ModelStatus::Loading(format!(
        "moving {name}: {}…",
        backend.label()
    )));
    let result = match client() {
        Ok(c) => {
            let precision = state.precision.get_untracked();
            c.move_model(slot, backend, precision, DEFAULT_BATCH_SIZE)
                .await
        }
        Err(e) => Err(e),
    };
    if !ticket.current() {
        return;
    }
    match result {
        Ok(info) => {
            state.slot(slot).model.set(Some(info));
            ticket.status(ModelStatus::Idle);
        }
        Err(message) => ticket.status(ModelStatus::Failed(format!("{name}: {message}"))),
    }
}

/// Whether dropped or picked files look like a checkpoint rather than a dataset.
pub fn looks_like_checkpoint(files: &[web_sys::File]) -> bool {
    files.iter().any(|f| marks_checkpoint(&f.name()))
}

/// Reads the picked or dropped checkpoint files and loads them as the main model.
pub async fn load_model_files(state: AppState, files: Vec<web_sys::File>) {
    load_model_files_into(state, Slot::Main, files).await
}

/// Reads the picked or dropped checkpoint files and loads them into `slot`.
pub async fn load_model_files_into(state: AppState, slot: Slot, files: Vec<web_sys::File>) {
    let ticket = Ticket::new(state, slot);
    // Files from a folder carry their relative path; plain picks only a name.
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            Reflect::get(f, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| f.name())
        })
        .collect();
    let layout = match CheckpointFiles::find(&names, PytorchBin::Refuse) {
        Ok(l) => l,
        Err(missing) => {
            ticket.status(ModelStatus::Failed(format!(
                "the picked files ({}) are not a complete checkpoint: {missing}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
            return;
        }
    };
    // Every file against its kind's ceiling before anything is read.
    let too_large = layout.named().into_iter().find_map(|(name, i)| {
        let size = Found::Size(files[i].size() as u64);
        within_ceiling(name, &names[i], size).err()
    });
    if let Some(message) = too_large {
        ticket.status(ModelStatus::Failed(message));
        return;
    }
    // Whether it fits the worker, from the safetensors header alone: an f16 file below the
    // size limit can still need more memory than a worker has once widened to f32.
    let weights: web_sys::Blob = files[layout.weights].clone().into();
    if loads_on_cpu(state) {
        if let Err(message) = fits(&weights, &names[layout.weights]).await {
            ticket.status(ModelStatus::Failed(message));
            return;
        }
    }
    let name = checkpoint_name(&names);
    ticket.status(ModelStatus::Loading(format!("reading {name}…")));
    let bytes = async {
        // Config and tokenizer are read here; the weights go to the worker as the File.
        let (small, _) = layout.split_weights();
        let (kind, indices) = small.into_parts();
        let mut parts = Vec::with_capacity(indices.len());
        for i in indices {
            parts.push(blob_bytes(&files[i], &names[i]).await?);
        }
        Ok::<_, String>(CheckpointToLoad {
            name: name.clone(),
            small: SmallFiles::from_parts(kind, parts).map_err(|e| e.to_string())?,
            weights,
        })
    }
    .await;
    match bytes {
        Ok(bytes) => hand_to_worker(ticket, bytes, ModelSource::Files).await,
        Err(message) => ticket.status(ModelStatus::Failed(message)),
    }
}

/// Whether the next load will put the model on the CPU, as far as the page knows: the CPU is
/// the model bar's choice, or "the faster" chose it for a model loaded now (the worker
/// measures once). Only there are the widened weights held beside the file ([`model_fit`]);
/// on WebGPU each tensor goes to the GPU as it is widened.
fn loads_on_cpu(state: AppState) -> bool {
    match state.backend.get_untracked() {
        BackendChoice::Cpu => true,
        BackendChoice::WebGpu => false,
        BackendChoice::Auto => Slot::ALL.iter().any(|&s| {
            state.slot(s).model.with_untracked(|m| {
                m.as_ref()
                    .is_some_and(|m| matches!(m.backend, Backend::Cpu { .. }))
            })
        }),
    }
}

/// `found` for the checkpoint file `name` (called `file` in the error) against its kind's
/// ceiling in the browser; the error names the file, the ceiling and what was found.
fn within_ceiling(name: &str, file: &str, found: Found) -> Result<(), String> {
    check_size(name, file, found, Reader::Browser).map_err(|e| e.to_string())
}

/// The most bytes the checkpoint file `name` may hold in the browser.
fn ceiling_of(name: &str) -> f64 {
    ceiling(name, Reader::Browser).unwrap_or(BROWSER_MAX_WEIGHTS_BYTES) as f64
}

/// All of `blob` as bytes (a config or tokenizer file); errors name the file.
async fn blob_bytes(blob: &web_sys::Blob, name: &str) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| js_error(&format!("{name}: cannot read"), e))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// [`model_fit`]'s checks on a weights file (picked or downloaded), reading only its
/// safetensors header.
async fn fits(weights: &web_sys::Blob, name: &str) -> Result<(), String> {
    let blob = gloo::file::Blob::from(weights.clone());
    let size = blob.size();
    let read = |start: u64, end: u64| {
        let part = blob.slice(start, end);
        async move {
            gloo::file::futures::read_as_bytes(&part)
                .await
                .map_err(|e| format!("{name}: cannot read: {e}"))
        }
    };
    let first = read(0, SAFETENSORS_LENGTH_BYTES.min(size)).await?;
    let n = fit::header_len(name, &first, size)?;
    let header = read(SAFETENSORS_LENGTH_BYTES, SAFETENSORS_LENGTH_BYTES + n).await?;
    fit::check_fits(name, size, fit::widened_bytes(name, &header, size)?)
}

/// Stops the load under way in `slot` (a download stops at its next chunk; bytes already on
/// their way to the worker are loaded but not used): the slot keeps the model it had.
pub fn cancel_load(state: AppState, slot: Slot) {
    // A newer generation makes the running load stale: it gives up and touches nothing.
    Ticket::new(state, slot);
    state
        .slot(slot)
        .status
        .set(ModelStatus::Failed("loading cancelled".to_string()));
}

/// Downloads (or takes from the cache) the checkpoint at `base` and loads it as the main model.
pub async fn load_model_url(state: AppState, base: String) {
    load_model_url_into(state, Slot::Main, base).await
}

/// Downloads (or takes from the cache) the checkpoint at `base` and loads it into `slot`.
pub async fn load_model_url_into(state: AppState, slot: Slot, base: String) {
    let ticket = Ticket::new(state, slot);
    load_url(ticket, base, None, None).await
}

/// Loads the bundled `model` into `slot` like any URL, booked as the bundled model (a reload
/// after a worker crash then goes through the manifest entry). With `auto` (the start-up
/// load) it does nothing once the user has started a load there; a user load that starts
/// later supersedes it.
pub async fn load_bundled_url(state: AppState, slot: Slot, model: BundledModel, auto: bool) {
    if auto && slot_ever_loaded(state, slot) {
        return;
    }
    let ticket = Ticket::new(state, slot);
    let base = model.path.clone();
    load_url(ticket, base, None, Some(ModelSource::Bundled(model))).await
}

/// The Hugging Face Hub's address, unless the user names another (a mirror; the tests' local
/// stand-in), as `HF_ENDPOINT` does for `huggingface_hub`.
pub const HUB_ENDPOINT: &str = "https://huggingface.co";

/// Downloads the model `spec` (`org/name`, optionally `@revision`; `revision`, when not empty,
/// overrides it) from the Hugging Face Hub at `endpoint` — the `resolve` URL of each file,
/// redirects followed, the Cache API and the limits of any URL load — into `slot`.
pub async fn load_hub_into(
    state: AppState,
    slot: Slot,
    spec: String,
    revision: String,
    endpoint: String,
) {
    let ticket = Ticket::new(state, slot);
    let spec = spec.trim();
    let spec = match revision.trim() {
        "" => spec.to_string(),
        rev => format!("{}@{rev}", spec.split('@').next().unwrap_or(spec)),
    };
    let Some(name) = HubName::parse(&spec) else {
        ticket.status(ModelStatus::Failed(format!(
            "{spec:?} is not a Hugging Face model name: expected org/name (or a name alone, as \
             roberta-large-mnli), optionally with @revision (a branch, tag or commit)"
        )));
        return;
    };
    let endpoint = match endpoint.trim() {
        "" => HUB_ENDPOINT.to_string(),
        e => e.to_string(),
    };
    load_url(
        ticket,
        name.resolve_url(&endpoint, ""),
        Some(name.repo.clone()),
        None,
    )
    .await
}

/// The model a base URL names: for a Hub `resolve` URL (`…/org/name/resolve/main/`) the two
/// path parts before `resolve` (a crash reload knows only the URL; a Hub load passes its name),
/// else the last folder of the path.
fn name_of_base(base: &str) -> String {
    let path = base.trim_end_matches('/');
    let path = path.split_once("://").map_or(path, |(_, rest)| rest);
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    match parts.iter().rposition(|&p| p == "resolve") {
        Some(k) if k >= 2 => format!("{}/{}", parts[k - 2], parts[k - 1]),
        Some(1) => parts[0].to_string(),
        _ => parts.last().copied().unwrap_or("model").to_string(),
    }
}

/// Loads the checkpoint at `base` (named `name`, else after its URL) into the ticket's slot,
/// booked in the worker's health record as `source` (by default the URL) once it is loaded.
async fn load_url(ticket: Ticket, base: String, name: Option<String>, source: Option<ModelSource>) {
    let base = if base.ends_with('/') {
        base
    } else {
        format!("{base}/")
    };
    if let Err(message) = check_scheme(&base) {
        ticket.status(ModelStatus::Failed(message));
        return;
    }
    if ticket.current() {
        ticket
            .state
            .worker
            .load_started(ticket.slot, Some(base.clone()));
    }
    let hub = base.contains("/resolve/");
    let name = name.unwrap_or_else(|| name_of_base(&base));
    // Files the browser's cache refused (storage full): the model loads, and says so.
    let uncached: std::rc::Rc<std::cell::RefCell<Vec<String>>> = Default::default();
    let result = async {
        // One download of `file` under `base`; `Ok(None)` for a 404.
        let get = |file: &'static str| {
            let url = format!("{base}{file}");
            let progress = move |got: f64, total: Option<f64>, cached: bool| {
                let what = match (cached, total) {
                    (true, _) => format!("{file}: from the browser cache"),
                    (false, Some(t)) => {
                        format!(
                            "downloading {file}: {} of {}",
                            bytes(got as u64),
                            bytes(t as u64)
                        )
                    }
                    (false, None) => format!("downloading {file}: {}", bytes(got as u64)),
                };
                ticket.status(ModelStatus::Loading(what));
            };
            let download = Download {
                file,
                expect_json: file.ends_with(".json"),
                cancelled: move || !ticket.current(),
                uncached: uncached.clone(),
            };
            async move { fetch_cached(&url, download, progress).await }
        };
        let required = |file: &'static str, blob: Option<web_sys::Blob>| {
            blob.ok_or_else(|| match (hub, file) {
                (true, CONFIG_JSON) => format!(
                    "{name}: the Hub has no such model or revision ({base}{file} answered 404); \
                     check the name (org/name) and the revision"
                ),
                (true, SAFETENSORS) => format!(
                    "{name} has no {SAFETENSORS} ({base}{file} answered 404). If it has only \
                     {PYTORCH_BIN}, convert it once: download it with transformers, run \
                     `tabprobe convert-weights FOLDER` on the folder, then pick the folder here"
                ),
                _ => format!("{base}{file} was not found (404); a checkpoint folder needs it"),
            })
        };
        let config_json = required(CONFIG_JSON, get(CONFIG_JSON).await?)?;
        let config_json = blob_bytes(&config_json, CONFIG_JSON).await?;
        let weights = required(SAFETENSORS, get(SAFETENSORS).await?)?;
        let tokenizer = match get(TOKENIZER_JSON).await? {
            Some(t) => TokenizerFiles::Json(blob_bytes(&t, TOKENIZER_JSON).await?),
            None => {
                let vocab = required(VOCAB_JSON, get(VOCAB_JSON).await?)?;
                let merges = required(MERGES_TXT, get(MERGES_TXT).await?)?;
                TokenizerFiles::VocabMerges {
                    vocab_json: blob_bytes(&vocab, VOCAB_JSON).await?,
                    merges_txt: blob_bytes(&merges, MERGES_TXT).await?,
                }
            }
        };
        // The Hub's checkpoints carry tokenizer_config.json (its model_max_length truncates
        // as transformers does); one without it answers 404 and loads as before. A plain URL
        // folder is not asked: most have none, and the browser logs every 404 as an error
        // (each start-up load of a bundled model would). Picked files and the CLI read it.
        let tokenizer_config = match hub {
            true => match get(TOKENIZER_CONFIG_JSON).await? {
                Some(t) => Some(blob_bytes(&t, TOKENIZER_CONFIG_JSON).await?),
                None => None,
            },
            false => None,
        };
        Ok::<_, String>(CheckpointToLoad {
            name: name.clone(),
            small: SmallFiles {
                config_json,
                tokenizer,
                tokenizer_config,
            },
            weights,
        })
    }
    .await;
    match result {
        Ok(bytes) => {
            let source = source.unwrap_or_else(|| ModelSource::Url(base.clone()));
            hand_to_worker(ticket, bytes, source).await;
            let uncached = uncached.borrow();
            let loaded = ticket.state.slot(ticket.slot).status.get_untracked() == ModelStatus::Idle;
            if ticket.current() && loaded && !uncached.is_empty() {
                ticket.status(ModelStatus::Note(format!(
                    "{name} is loaded, but the browser's cache did not keep {}; the next load downloads {} again",
                    uncached.join("; "),
                    if uncached.len() == 1 { "it" } else { "them" }
                )));
            }
        }
        Err(message) => ticket.status(ModelStatus::Failed(message)),
    }
    // Loaded or failed, the URL load is over.
    if ticket.current() {
        ticket.state.worker.load_started(ticket.slot, None);
    }
}

/// Only `http:` and `https:` URLs are downloaded (relative URLs resolve against the page).
fn check_scheme(url: &str) -> Result<(), String> {
    let page = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let parsed = web_sys::Url::new_with_base(url, &page)
        .map_err(|_| format!("{url} is not a URL a checkpoint can be loaded from"))?;
    match parsed.protocol().as_str() {
        "http:" | "https:" => Ok(()),
        other => Err(format!(
            "{url}: only http: and https: URLs can be loaded, not {other}"
        )),
    }
}

fn js_error(context: &str, e: JsValue) -> String {
    let detail = e.as_string().or_else(|| {
        Reflect::get(&e, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
    });
    format!("{context}: {}", detail.unwrap_or_else(|| format!("{e:?}")))
}

/// What a download expects of the file it fetches.
struct Download<C: Fn() -> bool> {
    /// The file's name in the checkpoint folder, for messages.
    file: &'static str,
    /// JSON is expected: an HTML page (a server's fallback or error page) is refused.
    expect_json: bool,
    /// Whether the user cancelled the load (checked while bytes arrive).
    cancelled: C,
    /// Where a file the browser's cache refused is told (`file (why)`).
    uncached: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
}

/// Whether `bytes` look like an HTML page (what many servers answer for a missing file): JSON
/// never starts with `<`.
fn looks_like_html(bytes: &[u8]) -> bool {
    let text = bytes
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(bytes);
    text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
}

/// The error for a body that is an HTML page where JSON was expected.
fn html_error(file: &str, url: &str) -> String {
    format!("{file} ({url}) is an HTML page, not JSON: is the URL the base of a checkpoint folder?")
}

/// The file at `url`, as a Blob the browser holds: from the model cache if present, else
/// downloaded with progress `(received, total, from_cache)` and cached once complete and
/// checked. `Ok(None)` for a 404.
async fn fetch_cached<C: Fn() -> bool>(
    url: &str,
    download: Download<C>,
    progress: impl Fn(f64, Option<f64>, bool),
) -> Result<Option<web_sys::Blob>, String> {
    let file = download.file;
    let window = web_sys::window().ok_or("no window")?;
    // The Cache API needs a secure context; without it, download every time. `caches` is
    // undefined there, and web-sys's getter does not say so: calling `open` on it would throw.
    let caches = match window.is_secure_context() {
        true => window.caches(),
        false => Err(JsValue::UNDEFINED),
    };
    let cache: Option<web_sys::Cache> = match caches {
        Ok(caches) => JsFuture::from(caches.open(MODEL_CACHE))
            .await
            .ok()
            .and_then(|c| c.dyn_into().ok()),
        Err(_) => None,
    };
    if let Some(cache) = &cache {
        let hit = JsFuture::from(cache.match_with_str(url))
            .await
            .ok()
            .and_then(|r| r.dyn_into::<web_sys::Response>().ok());
        if let Some(response) = hit {
            let blob: web_sys::Blob =
                JsFuture::from(response.blob().map_err(|e| js_error(url, e))?)
                    .await
                    .map_err(|e| js_error(url, e))?
                    .dyn_into()
                    .map_err(|_| format!("{file} ({url}): the cached entry is not a file"))?;
            // An entry an older build cached without checking it (an HTML page, a file past
            // its kind's ceiling): drop it and download.
            let fits = blob.size() <= ceiling_of(file);
            if fits && !(download.expect_json && looks_like_html(&blob_bytes(&blob, file).await?)) {
                progress(blob.size(), Some(blob.size()), true);
                return Ok(Some(blob));
            }
            let _ = JsFuture::from(cache.delete_with_str(url)).await;
        }
    }
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| js_error(&format!("{file}: cannot download {url}"), e))?
        .dyn_into()
        .map_err(|_| format!("{file} ({url}): the answer is not an HTTP response"))?;
    if response.status() == 404 {
        return Ok(None);
    }
    if matches!(response.status(), 401 | 403) {
        return Err(format!(
            "{file} ({url}): the server answered {} {}: the model is gated or private. tabprobe \
             sends no login or token; accept its terms on the Hub, download it with \
             transformers, and pick the folder",
            response.status(),
            response.status_text()
        ));
    }
    if response.status() != 200 {
        return Err(format!(
            "{file} ({url}): the server answered {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let header = |name: &str| response.headers().get(name).ok().flatten();
    if download.expect_json
        && header("content-type").is_some_and(|t| t.to_ascii_lowercase().contains("text/html"))
    {
        return Err(html_error(file, url));
    }
    // The header is a claim, used for progress and to spot a truncated body — never to
    // reserve memory. A compressed body's length is not the length of what we read.
    let claimed = header("content-length").and_then(|v| v.trim().parse::<f64>().ok());
    let compressed =
        header("content-encoding").is_some_and(|e| !e.eq_ignore_ascii_case("identity"));
    if let Some(total) = claimed.filter(|_| !compressed) {
        within_ceiling(
            file,
            &format!("{file} ({url})"),
            Found::Announced(total as u64),
        )?;
    }
    let blob = read_body(&response, url, &download, |got| {
        progress(got, claimed.filter(|_| !compressed), false)
    })
    .await?;
    if let Some(total) = claimed.filter(|_| !compressed) {
        if blob.size() < total {
            return Err(format!(
                "{file} ({url}): the download ended after {} of the {total} bytes the server announced (truncated); try again",
                blob.size()
            ));
        }
    }
    if download.expect_json && looks_like_html(&blob_bytes(&blob, file).await?) {
        return Err(html_error(file, url));
    }
    if let Some(cache) = &cache {
        // Store a fresh response of the Blob: the original body is consumed.
        if let Ok(stored) = web_sys::Response::new_with_opt_blob(Some(&blob)) {
            if let Err(e) = JsFuture::from(cache.put_with_str(url, &stored)).await {
                let full = Reflect::get(&e, &"name".into())
                    .ok()
                    .and_then(|n| n.as_string())
                    .is_some_and(|n| n == "QuotaExceededError");
                download.uncached.borrow_mut().push(match full {
                    true => format!("{file} (the browser's storage for this site is full)"),
                    false => js_error(file, e),
                });
            }
        }
    }
    Ok(Some(blob))
}

/// Streams `response`'s body into a Blob (its chunks stay with the browser, outside the
/// page's memory), stopping when the bytes read — after the browser's decompression, so a
/// gzip bomb counts as what it inflates to — pass the file's ceiling, after [`STALL_MS`]
/// without a byte, or when the load is cancelled; `progress` gets the bytes received so far.
async fn read_body<C: Fn() -> bool>(
    response: &web_sys::Response,
    url: &str,
    download: &Download<C>,
    progress: impl Fn(f64),
) -> Result<web_sys::Blob, String> {
    use futures::future::{select, Either};
    let file = download.file;
    let body = response
        .body()
        .ok_or_else(|| format!("{file} ({url}): the response has no body"))?;
    let reader: web_sys::ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|_| format!("{file} ({url}): cannot read the response body"))?;
    let stop = |message: String| {
        let _ = reader.cancel();
        Err(message)
    };
    let chunks = js_sys::Array::new();
    let mut received = 0.0;
    loop {
        let mut read = JsFuture::from(reader.read());
        let mut quiet_ms = 0;
        let chunk = loop {
            let tick = gloo::timers::future::TimeoutFuture::new(DOWNLOAD_TICK_MS);
            match select(&mut read, tick).await {
                Either::Left((chunk, _)) => break chunk,
                Either::Right(_) => {
                    quiet_ms += DOWNLOAD_TICK_MS;
                    if (download.cancelled)() {
                        return stop(format!("{file} ({url}): download cancelled"));
                    }
                    if quiet_ms >= STALL_MS {
                        return stop(format!(
                            "{file} ({url}): the download stalled (no data for {} s after {received} bytes)",
                            STALL_MS / 1000,
                        ));
                    }
                }
            }
        };
        let chunk = chunk.map_err(|e| js_error(&format!("{file}: download of {url} failed"), e))?;
        let done = Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            return web_sys::Blob::new_with_u8_array_sequence(&chunks)
                .map_err(|e| js_error(&format!("{file} ({url}): cannot keep the download"), e));
        }
        if (download.cancelled)() {
            return stop(format!("{file} ({url}): download cancelled"));
        }
        if let Ok(value) = Reflect::get(&chunk, &"value".into()) {
            let part: Uint8Array = value
                .dyn_into()
                .map_err(|_| format!("{file} ({url}): the body is not bytes"))?;
            received += f64::from(part.length());
            let read = Found::Downloaded(received as u64);
            if let Err(message) = within_ceiling(file, &format!("{file} ({url})"), read) {
                return stop(message);
            }
            chunks.push(&part);
        }
        progress(received);
    }
}

#[cfg(test)]
mod tests {
    use super::name_of_base;

    #[test]
    fn a_base_url_names_its_model() {
        assert_eq!(
            name_of_base("https://huggingface.co/ynie/roberta-large-nli/resolve/main/"),
            "ynie/roberta-large-nli"
        );
        assert_eq!(
            name_of_base("https://huggingface.co/roberta-large-mnli/resolve/main/"),
            "roberta-large-mnli"
        );
        assert_eq!(
            name_of_base("http://127.0.0.1:8081/hub/org/tiny/resolve/v1/"),
            "org/tiny"
        );
        assert_eq!(
            name_of_base("http://127.0.0.1:8080/test-models/tiny-f32/"),
            "tiny-f32"
        );
        assert_eq!(name_of_base("models/full/"), "full");
    }
}
