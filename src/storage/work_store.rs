//! The researcher's work kept in IndexedDB (store `work` of database `tabprobe`, see
//! [`crate::storage::idb`]): under key `dataset` the working dataset as product JSON with its file name
//! and the time it was saved; under key `drafts` the open work item with the table editor's and
//! the rewriter's unsaved drafts. Written by [`crate::storage::session`] as the user works.

use serde::{Deserialize, Serialize};

use crate::state::{EditorDraft, RewriterDraft, WorkItem};
use crate::storage::idb::{self, StoreError, WORK};

const DATASET_KEY: &str = "dataset";
const DRAFTS_KEY: &str = "drafts";

/// The working dataset as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredDataset {
    /// When it was written, ms since the Unix epoch.
    pub saved_ms: f64,
    /// The file it was loaded from (or `demo/dataset.json`, or `merged with …`).
    pub file: String,
    /// Whether it holds work done in the page (hand-made items, annotations, reviews).
    #[serde(default)]
    pub edited: bool,
    /// The dataset as product JSON text, validated again on restore like any file.
    pub dataset: String,
}

/// The open work item and the editors' drafts as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StoredDrafts {
    /// The item the editor and rewriter work on.
    #[serde(default)]
    pub work_item: Option<WorkItem>,
    /// The table editor's draft.
    #[serde(default)]
    pub editor: Option<EditorDraft>,
    /// The rewriter's draft.
    #[serde(default)]
    pub rewriter: Option<RewriterDraft>,
}

/// Writes the working dataset (resolves when the transaction completes).
pub async fn save_dataset(stored: &StoredDataset) -> Result<(), StoreError> {
    let text = crate::timing::timed("dataset-keep-wrap", || serde_json::to_string(stored))
        .map_err(|e| StoreError {
            message: format!("cannot encode the working dataset: {e}"),
            quota: false,
        })?;
    idb::put_all(
        &[(WORK, DATASET_KEY, &text)],
        "cannot keep the working dataset",
    )
    .await
}

/// Writes the drafts (resolves when the transaction completes).
pub async fn save_drafts(drafts: &StoredDrafts) -> Result<(), StoreError> {
    let text = serde_json::to_string(drafts).map_err(|e| StoreError {
        message: format!("cannot encode the drafts: {e}"),
        quota: false,
    })?;
    idb::put_all(&[(WORK, DRAFTS_KEY, &text)], "cannot keep the drafts").await
}

/// The stored working dataset: `Ok(None)` when none is kept; `Err` when the entry cannot be
/// read (its text is returned for download in [`Unreadable`]).
pub async fn load_dataset() -> Result<Option<StoredDataset>, Unreadable> {
    let text = idb::get_text(WORK, DATASET_KEY, "cannot read the working dataset")
        .await
        .map_err(|e| Unreadable {
            problem: e.message,
            text: None,
        })?;
    let Some(text) = text else { return Ok(None) };
    serde_json::from_str(&text).map(Some).map_err(|e| Unreadable {
        problem: format!(
            "browser storage (IndexedDB) {WORK}/{DATASET_KEY}: line {}, column {}: not a kept dataset: {e}",
            e.line(),
            e.column()
        ),
        text: Some(text),
    })
}

/// A stored entry that could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    /// What is wrong, naming the entry.
    pub problem: String,
    /// The entry's text, when there was text.
    pub text: Option<String>,
}

/// The stored drafts: `Ok(default)` when none are kept; `Err` with the text when they do
/// not read, without text when storage cannot be read at all.
pub async fn load_drafts() -> Result<StoredDrafts, Unreadable> {
    let text = idb::get_text(WORK, DRAFTS_KEY, "cannot read the drafts")
        .await
        .map_err(|e| Unreadable {
            problem: e.message,
            text: None,
        })?;
    let Some(text) = text else {
        return Ok(StoredDrafts::default());
    };
    serde_json::from_str(&text).map_err(|e| Unreadable {
        problem: format!(
            "browser storage (IndexedDB) {WORK}/{DRAFTS_KEY}: the kept drafts do not read and were left out: {e}"
        ),
        text: Some(text),
    })
}

/// Forgets the working dataset and the drafts (one transaction).
pub async fn discard() -> Result<(), StoreError> {
    idb::delete_all(
        &[(WORK, DATASET_KEY), (WORK, DRAFTS_KEY)],
        "cannot discard the kept work",
    )
    .await
}
