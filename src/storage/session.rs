//! Keeping the researcher's work across reloads and crashes. On start, the dataset and drafts
//! kept in this browser ([`crate::storage::work_store`]) are restored, validated like any file; the
//! bundled demo loads only when nothing is kept. From then on every change of the dataset
//! (hand-made items, annotations, review decisions), of the open work item and of the
//! editors' drafts is written back after a short pause; a failed write is shown, never
//! silent. "Discard" forgets what is kept and goes back to the demo.

use std::sync::Arc;

use gloo::timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::parse_dataset;

use crate::state::{AppState, InvalidStored, LoadProblem, LoadedDataset};
use crate::storage::files::{load_demo, load_demo_since};
use crate::storage::tab_merge;
use crate::storage::work_store::{self, StoredDrafts};

/// How long a change waits for the next one before it is written (typing writes once).
const DEBOUNCE_MS: u32 = 300;

/// Restores the kept work (or loads the demo), then starts writing changes back and calls
/// `then` (what else the page reads from storage at start: after this, so that a storage
/// upgrade blocked by an old tab is reported here first — a second open request would wait
/// behind the blocked one without a word).
pub fn start(state: AppState, then: impl FnOnce() + 'static) {
    let owner = Owner::current();
    spawn_local(async move {
        restore_or_demo(state).await;
        // From now on another tab's write of the kept dataset is merged in as it happens.
        crate::storage::tabs::start(state, move || {
            spawn_local(tab_merge::on_other_tab_wrote(state))
        });
        then();
        let watch = move || {
            track_edits(state);
            keep_dataset(state);
            keep_drafts(state);
        };
        match owner {
            Some(o) => o.with(watch),
            None => watch(),
        }
    });
}

async fn restore_or_demo(state: AppState) {
    let generation = state.load_generation_data.get_value();
    match work_store::load_drafts().await {
        Ok(d) => {
            // Drafts first: the editors look for their draft when the work item appears.
            state.editor_draft.set(d.editor);
            state.rewriter_draft.set(d.rewriter);
            state.work_item.set(d.work_item);
        }
        Err(u) => {
            // Unreadable drafts are replaced by the next write; unreadable storage is not.
            state.kept.read_failed.set_value(u.text.is_none());
            state.kept.drafts_error.set(Some(u.problem));
        }
    }
    let stored = match work_store::load_dataset().await {
        Ok((Some(s), guard)) => {
            state.kept.guard.set_value(guard);
            state.kept.saved_ms.set_value(Some(s.saved_ms));
            s
        }
        Ok((None, guard)) => {
            state.kept.guard.set_value(guard);
            return load_demo_since(state, generation).await;
        }
        Err(u) => match u.text {
            Some(text) => {
                state.kept.invalid.set(Some(InvalidStored {
                    file: "kept dataset".into(),
                    saved_ms: f64::NAN,
                    text: Arc::new(text),
                    problem: u.problem,
                }));
                return;
            }
            None => {
                // Storage cannot be read now (blocked by another tab, unavailable): work on
                // the demo, but never write over what may still be kept.
                state.kept.read_failed.set_value(true);
                state.kept.error.set(Some(format!(
                    "{}; reload the page to get back what is kept",
                    u.problem
                )));
                return load_demo_since(state, generation).await;
            }
        },
    };
    if state.load_generation_data.get_value() != generation {
        // The user loaded data while the store was read; theirs wins (and is kept next).
        return;
    }
    let name = format!("kept dataset ({})", stored.file);
    match parse_dataset(&name, &stored.dataset) {
        Ok(dataset) => {
            let loaded = LoadedDataset::new(stored.file.clone(), dataset);
            state.kept.persisted.set_value(Some(loaded.dataset.clone()));
            state.set_loaded(loaded, stored.edited);
            state
                .kept
                .restored
                .set(Some((stored.saved_ms, stored.file.clone())));
        }
        Err(e) => {
            state.kept.invalid.set(Some(InvalidStored {
                file: stored.file.clone(),
                saved_ms: stored.saved_ms,
                text: Arc::new(stored.dataset),
                // The problems panel lists them, each with its place.
                problem: String::new(),
            }));
            state.problem.set(Some(LoadProblem::Invalid(e)));
        }
    }
}

/// Marks the dataset edited as soon as it differs from the one loaded.
fn track_edits(state: AppState) {
    Effect::new(move |_| {
        let changed = state.dataset.with(|d| {
            d.as_ref().is_some_and(|d| {
                state
                    .loaded_base
                    .with_value(|b| !b.as_ref().is_some_and(|b| Arc::ptr_eq(b, &d.dataset)))
            })
        });
        if changed && !state.edited.get_untracked() {
            state.edited.set(true);
        }
    });
}

/// Runs `write` after [`DEBOUNCE_MS`] unless `ticket` moved on meanwhile, counting it in
/// `kept.pending` and recording its outcome in `error`.
fn debounced<F>(
    state: AppState,
    ticket: StoredValue<u64>,
    error: RwSignal<Option<String>>,
    write: F,
) where
    F: std::future::Future<Output = Result<(), String>> + 'static,
{
    ticket.update_value(|t| *t += 1);
    let mine = ticket.get_value();
    state.kept.pending.update(|p| *p += 1);
    spawn_local(async move {
        TimeoutFuture::new(DEBOUNCE_MS).await;
        if ticket.get_value() == mine {
            match write.await {
                Ok(()) => error.set(None),
                Err(e) => error.set(Some(e)),
            }
        }
        state.kept.pending.update(|p| *p = p.saturating_sub(1));
    });
}

/// Writes the dataset whenever it changes (not the untouched demo, not over a kept dataset
/// that failed validation and waits for the user's decision).
fn keep_dataset(state: AppState) {
    Effect::new(move |_| {
        let Some(loaded) = state.dataset.get() else {
            return;
        };
        let edited = state.edited.get();
        if state.kept.invalid.with(Option::is_some)
            || state.kept.conflict.with(Option::is_some)
            || state.kept.read_failed.get_value()
        {
            return;
        }
        let already = state
            .kept
            .persisted
            .with_value(|p| p.as_ref().is_some_and(|p| Arc::ptr_eq(p, &loaded.dataset)));
        if already {
            return;
        }
        debounced(
            state,
            state.kept.dataset_ticket,
            state.kept.error,
            tab_merge::write(state, loaded, edited),
        );
    });
}

/// Writes the work item and the drafts whenever one changes.
fn keep_drafts(state: AppState) {
    Effect::new(move |_| {
        let drafts = StoredDrafts {
            work_item: state.work_item.get(),
            editor: state.editor_draft.get(),
            rewriter: state.rewriter_draft.get(),
            saved_ms: js_sys::Date::now(),
        };
        if state.kept.read_failed.get_value() {
            return;
        }
        debounced(
            state,
            state.kept.drafts_ticket,
            state.kept.drafts_error,
            async move { work_store::save_drafts(&drafts).await.map_err(String::from) },
        );
    });
}

/// Forgets the kept dataset and drafts and goes back to the demo.
pub async fn discard(state: AppState) {
    // Writes waiting for their pause give up.
    state.kept.dataset_ticket.update_value(|t| *t += 1);
    state.kept.drafts_ticket.update_value(|t| *t += 1);
    if let Err(e) = work_store::discard().await {
        state.kept.error.set(Some(e.message));
        return;
    }
    state.kept.restored.set(None);
    state.kept.saved_ms.set_value(None);
    state.kept.guard.set_value(None);
    state.kept.invalid.set(None);
    state.kept.error.set(None);
    state.kept.drafts_error.set(None);
    state.kept.read_failed.set_value(false);
    state.work_item.set(None);
    state.editor_draft.set(None);
    state.rewriter_draft.set(None);
    state.problem.set(None);
    state.dataset.set(None);
    state.edited.set(false);
    load_demo(state).await;
}
