//! The model bar's backend choice — the faster of WebGPU and the CPU (measured by the worker),
//! WebGPU, or the CPU — kept in this browser's `localStorage` so it holds across reloads.
//! Changing it moves the loaded models (the worker loads them again from the files it kept).

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::{BackendChoice, Slot};

use crate::model_load::move_model;
use crate::state::AppState;

/// The `localStorage` key of the choice.
const KEY: &str = "tabprobe-backend";

/// The choice kept in this browser; automatic when none is kept or storage is unavailable.
pub fn kept() -> BackendChoice {
    storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .and_then(|k| BackendChoice::from_key(&k))
        .unwrap_or_default()
}

/// Sets the choice (the model bar's select), keeps it, and moves every loaded model to it.
pub fn choose(state: AppState, choice: BackendChoice) {
    if state.backend.get_untracked() == choice {
        return;
    }
    state.backend.set(choice);
    if let Some(s) = storage() {
        // Not kept (storage full or blocked): the choice still holds until the page closes.
        let _ = s.set_item(KEY, choice.key());
    }
    for slot in Slot::ALL {
        if state.slot(slot).model.with_untracked(Option::is_some) {
            spawn_local(move_model(state, slot));
        }
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}
