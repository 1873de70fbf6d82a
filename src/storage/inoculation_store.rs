//! Inoculation results kept in the browser's IndexedDB (store `inoculations`, see
//! [`crate::storage::idb`]), keyed `<run id>/<ms since epoch>`, so a result survives navigation and a
//! reload like a run. The fine-tuned weights are not stored (they can be hundreds of MB): they
//! stay in the worker until the page closes, and the result says so. A result read back is
//! checked like a file the user opens.

use serde::{Deserialize, Serialize};
use tabprobe_core::inoculation::InoculationResult;

use crate::storage::idb::{self, StoreError, INOCULATIONS};

/// A stored inoculation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedInoculation {
    /// `<run id>/<ms since epoch>`.
    pub id: String,
    /// The run it was made from.
    pub run_id: String,
    /// When it finished, ms since the Unix epoch.
    pub created_ms: f64,
    /// The result.
    pub result: InoculationResult,
}

/// Saves a result, reported done when the transaction completes.
pub async fn save(saved: &SavedInoculation) -> Result<(), StoreError> {
    let text = serde_json::to_string(saved).map_err(|e| StoreError {
        message: format!("cannot encode the inoculation: {e}"),
        quota: false,
    })?;
    idb::put_all(
        &[(INOCULATIONS, saved.id.as_str(), text.as_str())],
        "cannot save the inoculation",
    )
    .await
}

/// The saved inoculations of run `run_id`, oldest first, and the problems of entries that do
/// not read (named by key).
pub async fn for_run(run_id: &str) -> Result<(Vec<SavedInoculation>, Vec<String>), String> {
    let entries = idb::get_all_text(INOCULATIONS, "cannot list the inoculations")
        .await
        .map_err(String::from)?;
    let prefix = format!("{run_id}/");
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for (key, text) in entries {
        if !key.starts_with(&prefix) {
            continue;
        }
        match text.and_then(|t| parse_saved(&key, &t)) {
            Ok(s) => found.push(s),
            Err(e) => problems.push(e),
        }
    }
    found.sort_by(|a, b| a.created_ms.total_cmp(&b.created_ms));
    Ok((found, problems))
}

/// Reads a stored entry; the result inside is checked by [`InoculationResult::parse`].
pub fn parse_saved(key: &str, text: &str) -> Result<SavedInoculation, String> {
    #[derive(Deserialize)]
    struct Raw {
        id: String,
        run_id: String,
        created_ms: f64,
        result: serde_json::Value,
    }
    let name = format!("saved inoculation {key}");
    let raw: Raw = serde_json::from_str(text).map_err(|e| format!("{name}: {e}"))?;
    let result = InoculationResult::parse(&format!("{name}, $.result"), &raw.result.to_string())
        .map_err(|e| e.to_string())?;
    Ok(SavedInoculation {
        id: raw.id,
        run_id: raw.run_id,
        created_ms: raw.created_ms,
        result,
    })
}

/// Deletes a stored result.
pub async fn delete(id: &str) -> Result<(), String> {
    idb::delete_all(&[(INOCULATIONS, id)], "cannot delete the inoculation")
        .await
        .map_err(String::from)
}
