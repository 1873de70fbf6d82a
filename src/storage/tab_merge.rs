//! The kept dataset shared by the site's tabs (docs/browser-storage.md#two-tabs). A tab
//! writes the dataset only over the revision it last read or wrote ([`write`]); when another
//! tab wrote in between, the store's version is merged with this tab's ([`reconcile`], core's
//! three-way `merge_datasets` from the version both last agreed on): items and annotations of
//! both are kept, and what both changed differently waits for the user's choice
//! ([`resolve`]). A tab that hears another tab wrote merges at once, so open tabs show each
//! other's work without a reload.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::data::validate::check_reloads;
use tabprobe_core::edit::{merge_datasets, Side};
use tabprobe_core::{parse_dataset, Dataset};

use crate::state::{AppState, LoadedDataset, TabConflict};
use crate::storage::tabs::{announce_dataset, tab_id};
use crate::storage::work_store::{self, next_guard, StoredDataset};

/// How many times a write is tried when other tabs keep writing in between.
const WRITE_TRIES: usize = 3;

/// What [`reconcile`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reconciled {
    /// The store holds the revision this tab knows.
    Current,
    /// This tab had no changes of its own: it now shows the other tab's dataset.
    Adopted,
    /// Both changed: the merge is on screen and is written next.
    Merged,
    /// Both changed the same entries differently: the user chooses.
    Conflict,
    /// Another tab discarded the kept dataset: this tab's is written afresh.
    Vanished,
}

/// Keeps `loaded` (with `edited`): written over the revision this tab knows, else merged with
/// what another tab wrote (the merge is then on screen and written by the next call).
pub async fn write(state: AppState, loaded: LoadedDataset, edited: bool) -> Result<(), String> {
    let text = crate::timing::timed("dataset-keep-encode", || {
        serde_json::to_string(&*loaded.dataset)
    })
    .map_err(|e| format!("cannot encode the working dataset: {e}"))?;
    for _ in 0..WRITE_TRIES {
        let expected = state.kept.guard.get_value();
        let guard = next_guard(expected.as_deref(), &tab_id());
        let stored = StoredDataset {
            saved_ms: js_sys::Date::now(),
            file: loaded.file.clone(),
            edited,
            dataset: text.clone(),
        };
        let saved = work_store::save_dataset(&stored, expected.as_deref(), &guard)
            .await
            .map_err(|e| match state.kept.saved_ms.get_value() {
                // The store keeps the version written before (a failed write changes nothing).
                Some(_) => format!(
                    "{e}. The version of the dataset kept before this change is still kept: a reload brings that version back"
                ),
                None => format!("{e}. Nothing of it is kept: a reload brings back the demo"),
            })?;
        if saved {
            state.kept.saved_ms.set_value(Some(stored.saved_ms));
            state.kept.guard.set_value(Some(guard));
            state.kept.persisted.set_value(Some(loaded.dataset.clone()));
            announce_dataset();
            return Ok(());
        }
        match reconcile(state).await? {
            Reconciled::Vanished | Reconciled::Current => continue,
            Reconciled::Adopted | Reconciled::Merged | Reconciled::Conflict => return Ok(()),
        }
    }
    Err("cannot keep the working dataset: other tabs of this site keep writing it; it will be tried again with your next change".into())
}

/// Reads the kept dataset and, when another tab wrote it since this tab last did, brings it
/// together with this tab's (see the module docs).
pub async fn reconcile(state: AppState) -> Result<Reconciled, String> {
    let (stored, guard) = work_store::load_dataset().await.map_err(|u| u.problem)?;
    if guard == state.kept.guard.get_value() {
        return Ok(Reconciled::Current);
    }
    let Some(stored) = stored else {
        state.kept.guard.set_value(guard);
        state.kept.persisted.set_value(None);
        return Ok(Reconciled::Vanished);
    };
    let name = format!("kept dataset ({})", stored.file);
    let theirs = Arc::new(parse_dataset(&name, &stored.dataset).map_err(|e| e.to_string())?);
    let Some(current) = state.dataset.get_untracked() else {
        adopt(state, &stored, theirs, guard);
        return Ok(Reconciled::Adopted);
    };
    // The version both tabs last agreed on: what this tab last read or wrote, else (nothing
    // kept yet) the dataset as this tab loaded it.
    let base = state
        .kept
        .persisted
        .get_value()
        .or_else(|| state.loaded_base.get_value());
    let Some(base) = base.filter(|b| !Arc::ptr_eq(b, &current.dataset)) else {
        adopt(state, &stored, theirs, guard);
        return Ok(Reconciled::Adopted);
    };
    let merged = merge_datasets(&base, &current.dataset, &theirs, Side::Theirs);
    let reloads = check_reloads(&current.file, &merged.dataset);
    if merged.conflicts.is_empty() && reloads.is_ok() {
        state.kept.saved_ms.set_value(Some(stored.saved_ms));
        state.kept.guard.set_value(guard);
        state.kept.persisted.set_value(Some(theirs));
        state.edited.set(true);
        state.dataset.set(Some(LoadedDataset::new(
            current.file.clone(),
            merged.dataset,
        )));
        return Ok(Reconciled::Merged);
    }
    let (what, mine_wins, theirs_wins) = match reloads {
        Ok(()) => (
            merged.conflicts.into_iter().map(|c| c.what).collect(),
            merge_datasets(&base, &current.dataset, &theirs, Side::Mine).dataset,
            merged.dataset,
        ),
        // The entries merge but the whole would not load (an item whose table the other
        // tab removed): the choice is between the two datasets as they are.
        Err(e) => (
            vec![format!(
                "the dataset as a whole (merged, it would not load: {e})"
            )],
            (*current.dataset).clone(),
            (*theirs).clone(),
        ),
    };
    state.kept.conflict.set(Some(TabConflict {
        what,
        theirs_wins: Arc::new(theirs_wins),
        mine_wins: Arc::new(mine_wins),
        stored: theirs,
        file: stored.file,
        guard,
    }));
    Ok(Reconciled::Conflict)
}

/// Shows the other tab's dataset `theirs` (this tab had nothing of its own to keep).
fn adopt(state: AppState, stored: &StoredDataset, theirs: Arc<Dataset>, guard: Option<String>) {
    let loaded = LoadedDataset::new(stored.file.clone(), (*theirs).clone());
    state.kept.saved_ms.set_value(Some(stored.saved_ms));
    state.kept.guard.set_value(guard);
    state.kept.persisted.set_value(Some(loaded.dataset.clone()));
    if stored.edited {
        state.edited.set(true);
    }
    state.dataset.set(Some(loaded));
}

/// The user's choice in a conflict: keep this tab's versions of what both changed
/// ([`Side::Mine`]) or the other tab's; the merge is then on screen and kept.
pub fn resolve(state: AppState, side: Side) {
    let Some(c) = state.kept.conflict.get_untracked() else {
        return;
    };
    let chosen = match side {
        Side::Mine => c.mine_wins,
        Side::Theirs => c.theirs_wins,
    };
    state.kept.guard.set_value(c.guard);
    state.kept.persisted.set_value(Some(c.stored));
    state.kept.conflict.set(None);
    state.edited.set(true);
    state
        .dataset
        .set(Some(LoadedDataset::new(c.file, (*chosen).clone())));
}

/// Another tab wrote the kept dataset: merge it in now; if it was discarded there, keep this
/// tab's again.
pub async fn on_other_tab_wrote(state: AppState) {
    match reconcile(state).await {
        Ok(Reconciled::Vanished) => state.dataset.update(|_| ()),
        Ok(_) => {}
        Err(e) => state.kept.error.set(Some(e)),
    }
}
