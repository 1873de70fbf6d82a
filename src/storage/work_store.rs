//! The researcher's work kept in IndexedDB (store `work` of database `tabprobe`, see
//! [`crate::storage::idb`]): under key `dataset` the working dataset as product JSON with its
//! file name and the time it was saved, and under `dataset-rev` its revision (`<n>:<tab id>`,
//! written with it in one transaction; a write succeeds only over the revision the tab last
//! saw, docs/browser-storage.md#two-tabs); under `drafts@<tab id>` each tab's open work item
//! with the table editor's and the rewriter's unsaved drafts (one tab's drafts never replace
//! another's). Written by [`crate::storage::session`] as the user works.

use serde::{Deserialize, Serialize};

use crate::state::{EditorDraft, RewriterDraft, WorkItem};
use crate::storage::idb::{self, StoreError, WORK};

const DATASET_KEY: &str = "dataset";
const GUARD_KEY: &str = "dataset-rev";
/// Drafts written before tabs had their own (read when this tab has none).
const LEGACY_DRAFTS_KEY: &str = "drafts";
/// Every tab's drafts are under this prefix and its id.
const DRAFTS_PREFIX: &str = "drafts@";

fn drafts_key() -> String {
    format!("{DRAFTS_PREFIX}{}", crate::storage::tabs::tab_id())
}

/// The revision after `previous`, written by `tab`: `<n + 1>:<tab>`.
pub fn next_guard(previous: Option<&str>, tab: &str) -> String {
    let n = previous
        .and_then(|g| g.split(':').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    format!("{}:{tab}", n + 1)
}

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
    /// When they were written (ms since the epoch): a new tab takes the newest drafts.
    #[serde(default)]
    pub saved_ms: f64,
}

/// Writes the working dataset with the revision `guard` if the kept revision is still
/// `expected` (resolves when the transaction completes); `Ok(false)`, writing nothing, when
/// another tab wrote since.
pub async fn save_dataset(
    stored: &StoredDataset,
    expected: Option<&str>,
    guard: &str,
) -> Result<bool, StoreError> {
    let text = crate::timing::timed("dataset-keep-wrap", || serde_json::to_string(stored))
        .map_err(|e| StoreError {
            message: format!("cannot encode the working dataset: {e}"),
            quota: false,
        })?;
    idb::put_if(
        WORK,
        GUARD_KEY,
        expected,
        &[(DATASET_KEY, &text), (GUARD_KEY, guard)],
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
    idb::put_all(&[(WORK, &drafts_key(), &text)], "cannot keep the drafts").await
}

/// The stored working dataset and its revision (read together): `Ok((None, _))` when none is
/// kept; `Err` when the entry cannot be read (its text is returned for download in
/// [`Unreadable`]).
pub async fn load_dataset() -> Result<(Option<StoredDataset>, Option<String>), Unreadable> {
    let texts = idb::get_texts(
        WORK,
        &[DATASET_KEY, GUARD_KEY],
        "cannot read the working dataset",
    )
    .await
    .map_err(|e| Unreadable {
        problem: e.message,
        text: None,
    })?;
    let mut texts = texts.into_iter();
    let (text, guard) = (texts.next().flatten(), texts.next().flatten());
    let Some(text) = text else {
        return Ok((None, guard));
    };
    serde_json::from_str(&text)
        .map(|s| (Some(s), guard))
        .map_err(|e| Unreadable {
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

/// The stored drafts of this tab (a reload is the same tab), else the newest any tab kept
/// (a tab opened after the browser was closed): `Ok(default)` when none are kept; `Err` with
/// the text when they do not read, without text when storage cannot be read at all.
pub async fn load_drafts() -> Result<StoredDrafts, Unreadable> {
    let unreadable = |e: StoreError| Unreadable {
        problem: e.message,
        text: None,
    };
    let what = "cannot read the drafts";
    let mine = drafts_key();
    let mut kept = idb::get_prefix_text(WORK, DRAFTS_PREFIX, what)
        .await
        .map_err(unreadable)?;
    if let Some(legacy) = idb::get_text(WORK, LEGACY_DRAFTS_KEY, what)
        .await
        .map_err(unreadable)?
    {
        kept.push((LEGACY_DRAFTS_KEY.to_string(), legacy));
    }
    let Some((key, text)) = kept.iter().find(|(k, _)| *k == mine).cloned().or_else(|| {
        kept.into_iter().max_by(|a, b| {
            let saved = |text: &str| {
                serde_json::from_str::<StoredDrafts>(text).map_or(f64::MIN, |d| d.saved_ms)
            };
            saved(&a.1).total_cmp(&saved(&b.1))
        })
    }) else {
        return Ok(StoredDrafts::default());
    };
    serde_json::from_str(&text).map_err(|e| Unreadable {
        problem: format!(
            "browser storage (IndexedDB) {WORK}/{key}: the kept drafts do not read and were left out: {e}"
        ),
        text: Some(text),
    })
}

/// Forgets the working dataset (and its revision) and this tab's drafts (one transaction).
pub async fn discard() -> Result<(), StoreError> {
    idb::delete_all(
        &[
            (WORK, DATASET_KEY),
            (WORK, GUARD_KEY),
            (WORK, LEGACY_DRAFTS_KEY),
            (WORK, &drafts_key()),
        ],
        "cannot discard the kept work",
    )
    .await
}
