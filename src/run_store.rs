//! Finished probe runs kept in the browser's IndexedDB (database `tabprobe`), so results
//! survive navigation and a page reload. Two object stores keyed by run id: `meta` (the small
//! [`RunMeta`] the results list shows) and `runs` (the whole [`SavedRun`] as JSON text).
//! Nothing leaves the machine.

use js_sys::{Array, Function, Promise};
use serde::{Deserialize, Serialize};
use tabprobe_core::run::RunResult;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransactionMode};

const DB_NAME: &str = "tabprobe";
const DB_VERSION: u32 = 1;
const META: &str = "meta";
const RUNS: &str = "runs";

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedRun {
    /// The list entry.
    pub meta: RunMeta,
    /// Run files, main model first.
    pub results: Vec<RunResult>,
}

fn js_err(what: &str, e: JsValue) -> String {
    let detail = e
        .as_string()
        .or_else(|| {
            js_sys::Reflect::get(&e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| format!("{e:?}"));
    format!("browser storage (IndexedDB): {what}: {detail}")
}

/// Resolves with the request's result once it succeeds.
async fn done(request: &IdbRequest, what: &str) -> Result<JsValue, String> {
    let req = request.clone();
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok_req = req.clone();
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call1(&JsValue::NULL, &ok_req.result().unwrap_or(JsValue::NULL));
        });
        let err_req = req.clone();
        let err = Closure::once_into_js(move |_: web_sys::Event| {
            let e = err_req
                .error()
                .ok()
                .flatten()
                .map(|d| JsValue::from_str(&d.message()))
                .unwrap_or_else(|| JsValue::from_str("request failed"));
            let _ = reject.call1(&JsValue::NULL, &e);
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| js_err(what, e))
}

async fn open() -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()
        .map_err(|e| js_err("unavailable", e))?
        .ok_or("browser storage (IndexedDB) is unavailable in this browser")?;
    let request: IdbOpenDbRequest = factory
        .open_with_u32(DB_NAME, DB_VERSION)
        .map_err(|e| js_err("cannot open", e))?;
    let upgrade_req = request.clone();
    let upgrade = Closure::once_into_js(move |_: web_sys::Event| {
        if let Ok(db) = upgrade_req
            .result()
            .and_then(|r| r.dyn_into::<IdbDatabase>())
        {
            let names = db.object_store_names();
            for store in [META, RUNS] {
                if !names.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    let db = done(&request, "cannot open").await?;
    db.dyn_into::<IdbDatabase>()
        .map_err(|_| "browser storage (IndexedDB): not a database".to_string())
}

fn store(
    db: &IdbDatabase,
    name: &str,
    mode: IdbTransactionMode,
) -> Result<web_sys::IdbObjectStore, String> {
    db.transaction_with_str_and_mode(name, mode)
        .and_then(|t| t.object_store(name))
        .map_err(|e| js_err(name, e))
}

/// Saves a run (replacing one with the same id).
pub async fn save(run: &SavedRun) -> Result<(), String> {
    let db = open().await?;
    let key = JsValue::from_str(&run.meta.id);
    let full = serde_json::to_string(run).map_err(|e| format!("cannot encode the run: {e}"))?;
    let meta =
        serde_json::to_string(&run.meta).map_err(|e| format!("cannot encode the run: {e}"))?;
    let req = store(&db, RUNS, IdbTransactionMode::Readwrite)?
        .put_with_key(&JsValue::from_str(&full), &key)
        .map_err(|e| js_err("cannot save the run", e))?;
    done(&req, "cannot save the run").await?;
    let req = store(&db, META, IdbTransactionMode::Readwrite)?
        .put_with_key(&JsValue::from_str(&meta), &key)
        .map_err(|e| js_err("cannot save the run", e))?;
    done(&req, "cannot save the run").await?;
    Ok(())
}

/// Every saved run's list entry, newest first. Entries that do not parse are skipped.
pub async fn list() -> Result<Vec<RunMeta>, String> {
    let db = open().await?;
    let req = store(&db, META, IdbTransactionMode::Readonly)?
        .get_all()
        .map_err(|e| js_err("cannot list runs", e))?;
    let all: Array = done(&req, "cannot list runs").await?.unchecked_into();
    let mut out: Vec<RunMeta> = all
        .iter()
        .filter_map(|v| v.as_string())
        .filter_map(|s| serde_json::from_str(&s).ok())
        .collect();
    out.sort_by(|a, b| b.created_ms.total_cmp(&a.created_ms));
    Ok(out)
}

/// The saved run `id`, `Ok(None)` when there is none. Its run files are checked like a
/// file the user opens.
pub async fn get(id: &str) -> Result<Option<SavedRun>, String> {
    let db = open().await?;
    let req = store(&db, RUNS, IdbTransactionMode::Readonly)?
        .get(&JsValue::from_str(id))
        .map_err(|e| js_err("cannot read the run", e))?;
    let Some(text) = done(&req, "cannot read the run").await?.as_string() else {
        return Ok(None);
    };
    let run: SavedRun = serde_json::from_str(&text)
        .map_err(|e| format!("saved run {id}: unreadable ({e}); delete it and run again"))?;
    for r in &run.results {
        r.check().map_err(|e| format!("saved run {id}: {e}"))?;
    }
    Ok(Some(run))
}

/// Deletes the saved run `id`.
pub async fn delete(id: &str) -> Result<(), String> {
    let db = open().await?;
    let key = JsValue::from_str(id);
    for name in [RUNS, META] {
        let req = store(&db, name, IdbTransactionMode::Readwrite)?
            .delete(&key)
            .map_err(|e| js_err("cannot delete the run", e))?;
        done(&req, "cannot delete the run").await?;
    }
    Ok(())
}
