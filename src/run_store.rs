//! Finished probe runs kept in the browser's IndexedDB (database `tabprobe`, see
//! [`crate::idb`]), so results survive navigation and a page reload. Two object stores keyed
//! by run id: `meta` (the small [`RunMeta`] the results list shows) and `runs` (the whole
//! [`SavedRun`] as JSON text), always written together. A run read back is checked like a
//! run file the user opens. Nothing leaves the machine.

use serde::{Deserialize, Serialize};
use tabprobe_core::run::{parse_run, RunResult};

use crate::idb::{self, StoreError, META, RUNS};

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

/// The saved run `id` could not be read back; the results view offers to delete it.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokenRun {
    /// The run's id (its key in the store).
    pub id: String,
    /// What is wrong, naming the entry and the place.
    pub problem: String,
}

/// Saves a run (replacing one with the same id): run and list entry in one transaction,
/// reported done only when it completes. A full store fails with `quota` set.
pub async fn save(run: &SavedRun) -> Result<(), StoreError> {
    let encode = |e: serde_json::Error| StoreError {
        message: format!("cannot encode the run: {e}"),
        quota: false,
    };
    let full = crate::timing::timed("save-run-serialize", || serde_json::to_string(run))
        .map_err(encode)?;
    let meta = serde_json::to_string(&run.meta).map_err(encode)?;
    let id = run.meta.id.as_str();
    idb::put_all(
        &[(RUNS, id, &full), (META, id, &meta)],
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
    let Some(text) = idb::get_text(RUNS, id, "cannot read the run")
        .await
        .map_err(|e| broken(e.message))?
    else {
        return Ok(None);
    };
    parse_saved(id, &text).map(Some).map_err(broken)
}

/// Reads a stored run's text (see [`get`]); errors name the run and the place.
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
        .map(|(k, v)| parse_run(&format!("{name}, $.results[{k}]"), &v.to_string()))
        .collect::<Result<Vec<RunResult>, String>>()?;
    Ok(SavedRun {
        meta: raw.meta,
        results,
    })
}

/// Deletes the saved run `id` (run and list entry in one transaction).
pub async fn delete(id: &str) -> Result<(), String> {
    idb::delete_all(&[(RUNS, id), (META, id)], "cannot delete the run")
        .await
        .map_err(String::from)
}
