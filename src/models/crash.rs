//! What the page does when the model worker dies (a panic, running out of memory): the
//! worker client ends every load and job waiting on it (`client::on_crash`); here the
//! models are marked unloaded, a fresh worker is started, and the crash is recorded with the
//! models that were lost and where each came from, so the model bar can say what happened and
//! offer to reload them — from the Cache API for a URL, from the manifest for a bundled model;
//! picked files must be picked again. Nothing else is touched: the dataset, its edits and the
//! saved runs stay as they are. A worker that stopped answering (the watch,
//! [`crate::worker::watch`]) is shown in the model bar while it is silent, and given up the
//! same way. The records themselves ([`WorkerCrash`], where each model came
//! from) live in [`crate::worker::health`], below the loading code that writes them.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::Slot;

use crate::models::bundled::load_bundled_into;
use crate::models::load::load_model_url_into;
use crate::models::scores::reimport_scores;
use crate::state::AppState;
use crate::worker::client::{client, on_crash, on_silence};
use crate::worker::health::{LostModel, ModelSource, WorkerCrash};

/// Installs the crash handler and the watch's: call once at start.
pub fn watch_worker(state: AppState) {
    on_crash(move |message| crashed(state, message));
    on_silence(move |ms| state.worker.silent_ms.set(ms));
}

/// The worker died: unload the models, remember them, start a fresh worker.
fn crashed(state: AppState, message: String) {
    web_sys::console::warn_1(&format!("tabprobe: {message}").into());
    let health = state.worker;
    let mut lost = Vec::new();
    for slot in Slot::ALL {
        if let Some(info) = state.slot(slot).model.get_untracked() {
            lost.push(LostModel {
                slot,
                name: info.id.name.clone(),
                source: health.source(slot),
            });
            state.slot(slot).model.set(None);
        }
        // A load under way has failed with the crash message and says so on its own line.
    }
    health.crash.set(Some(WorkerCrash { message, lost }));
    // Start the fresh worker now, so its wasm is ready when the user reloads.
    if let Err(e) = client() {
        web_sys::console::error_1(&format!("tabprobe: {e}").into());
    }
}

/// Loads the crash's reloadable models again, each from where it came from.
pub fn reload_lost(state: AppState) {
    let Some(crash) = state.worker.crash.get_untracked() else {
        return;
    };
    for model in crash.lost {
        match model.source {
            Some(ModelSource::Url(base)) => {
                spawn_local(load_model_url_into(state, model.slot, base))
            }
            Some(ModelSource::Bundled(b)) => spawn_local(load_bundled_into(state, model.slot, b)),
            Some(ModelSource::Scores) => spawn_local(reimport_scores(state, model.slot)),
            Some(ModelSource::Files) | None => {}
        }
    }
}
