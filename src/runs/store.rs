//! Finished probe runs kept in the browser's IndexedDB (database `tabprobe`, see
//! [`crate::storage::idb`]), so results survive navigation and a page reload. Two object stores keyed
//! by run id: `meta` (the small [`RunMeta`] the results list shows) and `runs`, always
//! written together. A `runs` entry is an array of three: the [`RunMeta`] as JSON text, the
//! byte lengths of the pieces as JSON text, and a `Blob` of the run files (main model first)
//! in core's pieces (`run::pieces`), one after the other — the Blob the worker made of the
//! pieces it sent, stored as it is: the browser stores a Blob without copying it on the
//! page's thread (storing the pieces as 34 MB of byte arrays held it for 105 ms; building
//! the Blob there, 160 ms). It is read back off the thread and parsed a piece at a time in
//! slices ([`crate::timing::Slices`]), so neither saving nor reopening a large run blocks
//! the page. Entries saved before that are one JSON text of the whole [`SavedRun`]; they
//! still read. A run read back is checked like a run file the user opens. Nothing leaves the
//! machine.

use std::sync::Arc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use serde::{Deserialize, Serialize};
use tabprobe_core::run::pieces::{piece_ranges, RunAssembler};
use tabprobe_core::run::{parse_run, RunResult};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use crate::storage::idb::{self, StoreError, META, RUNS};
use crate::timing::Slices;

/// What the results list shows about a saved run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// Unique id (`run-<ms since epoch>`), also in the results URL (`#/results/<id>`).
    pub id: String,
    /// When it finished, ms since the Unix epoch.
    pub created_ms: f64,
    /// The dataset file it ran on.
    pub dataset: String,
    /// The probes, by name.
    pub probes: Vec<String>,
    /// The models, by name (main first).
    pub models: Vec<String>,
    /// Perturbed items of the main model's run.
    pub items: usize,
    /// Whether the run was cancelled (then it holds what was scored).
    pub cancelled: bool,
}

/// A finished run: the main model's run file and, when a second model ran on the same probe
/// set, the second model's.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedRun {
    /// The list entry.
    pub meta: RunMeta,
    /// Run files, main model first (shared, not copied, by the views that show them).
    pub results: Vec<Arc<RunResult>>,
    /// The same run files in pieces, as stored (the model worker builds the report from
    /// them); `None` for a run saved as one JSON text.
    pub pieces: Option<StoredPieces>,
}

/// The saved run `id` could not be read back; the results view offers to delete it.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokenRun {
    /// The run's id (its key in the store).
    pub id: String,
    /// What is wrong, naming the entry and the place.
    pub problem: String,
}

/// Run files in pieces (core's `run::pieces`), as the worker sent them: one model's, or
/// every model's of a run one after the other ([`StoredPieces::join`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPieces {
    /// The byte length of each piece, in order.
    pub piece_bytes: Vec<usize>,
    /// The pieces, one after the other.
    pub blob: Blob,
}

impl StoredPieces {
    /// The pieces of `runs`, one after the other (main model first). A Blob of Blobs copies
    /// nothing.
    pub fn join(runs: &[StoredPieces]) -> Result<StoredPieces, String> {
        let blobs: Array = runs.iter().map(|r| JsValue::from(&r.blob)).collect();
        let blob = Blob::new_with_blob_sequence(&blobs)
            .map_err(|e| format!("cannot join the run files: {e:?}"))?;
        Ok(StoredPieces {
            piece_bytes: runs
                .iter()
                .flat_map(|r| r.piece_bytes.iter().copied())
                .collect(),
            blob,
        })
    }
}

/// Saves a run (replacing one with the same id): its list entry `meta` and its run files
/// in pieces (main model first) in one transaction, reported done only when it completes.
/// A full store fails with `quota` set.
pub async fn save(meta: &RunMeta, pieces: &StoredPieces) -> Result<(), StoreError> {
    let meta_text = serde_json::to_string(meta).map_err(|e| StoreError {
        message: format!("cannot encode the run's list entry: {e}"),
        quota: false,
    })?;
    let lengths = serde_json::to_string(&pieces.piece_bytes).unwrap_or_default();
    let record = Array::of3(
        &JsValue::from_str(&meta_text),
        &JsValue::from_str(&lengths),
        &pieces.blob,
    );
    let id = meta.id.as_str();
    idb::put_values(
        &[
            (RUNS, id, record.into()),
            (META, id, JsValue::from_str(&meta_text)),
        ],
        "cannot save the run",
    )
    .await
}

/// Every saved run's list entry, newest first. An entry that does not read is listed under
/// its id with what is wrong in place of its dataset, so it can be opened (the error panel)
/// and deleted.
pub async fn list() -> Result<Vec<RunMeta>, String> {
    let all = idb::get_all_text(META, "cannot list runs").await?;
    let mut out: Vec<RunMeta> = all
        .into_iter()
        .map(|(id, text)| {
            text.and_then(|t| serde_json::from_str::<RunMeta>(&t).map_err(|e| e.to_string()))
                .unwrap_or_else(|problem| RunMeta {
                    dataset: format!("unreadable entry: {problem}"),
                    id,
                    created_ms: f64::NAN,
                    probes: vec!["(unreadable saved run)".into()],
                    models: Vec::new(),
                    items: 0,
                    cancelled: false,
                })
        })
        .collect();
    // Unreadable entries (no date) last.
    out.sort_by(|a, b| {
        let key = |m: &RunMeta| {
            if m.created_ms.is_nan() {
                f64::NEG_INFINITY
            } else {
                m.created_ms
            }
        };
        key(b).total_cmp(&key(a))
    });
    Ok(out)
}

/// The saved run `id`, `Ok(None)` when there is none. Each run file in it is read with
/// [`parse_run`] (format, version, JSON shape, every index), like a file the user opens;
/// a run without run files is refused.
pub async fn get(id: &str) -> Result<Option<SavedRun>, BrokenRun> {
    let broken = |problem: String| BrokenRun {
        id: id.to_string(),
        problem,
    };
    let Some(value) = idb::get_value(RUNS, id, "cannot read the run")
        .await
        .map_err(|e| broken(e.message))?
    else {
        return Ok(None);
    };
    if let Some(text) = value.as_string() {
        return parse_saved(id, &text).map(Some).map_err(broken);
    }
    match value.dyn_ref::<Array>() {
        Some(entries) => read_pieces(id, entries).await.map(Some).map_err(broken),
        None => Err(broken(format!(
            "saved run {id} is neither text nor a list of pieces (it was not written by this page)"
        ))),
    }
}

/// Reads a stored run's entries (see the module docs), a piece at a time with pauses.
async fn read_pieces(id: &str, entries: &Array) -> Result<SavedRun, String> {
    let name = format!("saved run {id}");
    if entries.length() != 3 {
        return Err(format!(
            "{name}: holds {} entries; expected 3 (list entry, piece lengths, pieces)",
            entries.length()
        ));
    }
    let text = |k: u32, what: &str| {
        entries
            .get(k)
            .as_string()
            .ok_or_else(|| format!("{name}: entry {k} is not {what} (JSON text)"))
    };
    let meta: RunMeta = tabprobe_core::data::json::parse_json_at(
        &format!("{name}, entry 0"),
        &text(0, "its list entry")?,
    )
    .map_err(|e| e.to_string())?;
    let lengths: Vec<usize> = tabprobe_core::data::json::parse_json_at(
        &format!("{name}, entry 1"),
        &text(1, "the pieces' lengths")?,
    )
    .map_err(|e| e.to_string())?;
    let blob: Blob = entries
        .get(2)
        .dyn_into()
        .map_err(|_| format!("{name}: entry 2 is not the pieces (a Blob)"))?;
    // Read off the page's thread; only the parsing below runs on it.
    let buffer: ArrayBuffer = JsFuture::from(blob.array_buffer())
        .await
        .and_then(|b| b.dyn_into())
        .map_err(|e| format!("{name}: the browser cannot read its pieces: {e:?}"))?;
    let all = Uint8Array::new(&buffer);
    let ranges = piece_ranges(&format!("{name}, entry 1"), &lengths, all.length() as usize)?;
    let mut assembler = RunAssembler::new(name.clone());
    let mut slices = Slices::new();
    for range in ranges {
        // Fits: the ranges lie within the buffer, whose length is a u32.
        assembler
            .push(&all.subarray(range.start as u32, range.end as u32).to_vec())
            .map_err(|e| e.to_string())?;
        slices.pause().await;
    }
    Ok(SavedRun {
        meta,
        results: assembler
            .finish()
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(Arc::new)
            .collect(),
        pieces: Some(StoredPieces {
            piece_bytes: lengths,
            blob,
        }),
    })
}

/// Reads a stored run saved as one JSON text (before runs were stored in pieces; see
/// [`get`]); errors name the run and the place.
pub fn parse_saved(id: &str, text: &str) -> Result<SavedRun, String> {
    #[derive(Deserialize)]
    struct Raw {
        meta: RunMeta,
        results: Vec<serde_json::Value>,
    }
    let name = format!("saved run {id}");
    let raw: Raw = serde_json::from_str(text).map_err(|e| {
        format!(
            "{name}: line {}, column {}: not a saved run: {e}",
            e.line(),
            e.column()
        )
    })?;
    if raw.results.is_empty() {
        return Err(format!("{name}: $.results is empty: it holds no run file"));
    }
    let results = raw
        .results
        .iter()
        .enumerate()
        .map(|(k, v)| {
            parse_run(&format!("{name}, $.results[{k}]"), &v.to_string())
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(SavedRun {
        meta: raw.meta,
        results,
        pieces: None,
    })
}

/// Deletes the saved run `id` (run and list entry in one transaction).
pub async fn delete(id: &str) -> Result<(), String> {
    idb::delete_all(&[(RUNS, id), (META, id)], "cannot delete the run")
        .await
        .map_err(String::from)
}
