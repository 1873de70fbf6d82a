//! The model bar's device choices, kept in this browser's `localStorage` so they hold across
//! reloads: the backend (the faster of WebGPU and the CPU, measured by the worker; WebGPU; or
//! the CPU) and the precision (f16-mixed where the WebGPU adapter has `shader-f16`, f32, or int8
//! on the CPU path).
//! Changing either moves the loaded models (the worker loads them again from the files it
//! kept): f16 rounding of the weights cannot be undone in place.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::{BackendChoice, PrecisionChoice, Slot};

use crate::models::load::move_model;
use crate::state::AppState;

/// The `localStorage` key of the backend choice.
const BACKEND_KEY: &str = "tabprobe-backend";
/// The `localStorage` key of the precision choice.
const PRECISION_KEY: &str = "tabprobe-precision";

/// The backend choice kept in this browser; automatic when none is kept or storage is
/// unavailable.
pub fn kept_backend() -> BackendChoice {
    kept(BACKEND_KEY)
        .and_then(|k| BackendChoice::from_key(&k))
        .unwrap_or_default()
}

/// The precision choice kept in this browser; f16-mixed where offered when none is kept.
pub fn kept_precision() -> PrecisionChoice {
    kept(PRECISION_KEY)
        .and_then(|k| PrecisionChoice::from_key(&k))
        .unwrap_or_default()
}

/// Sets the backend choice (the model bar's select), keeps it, and moves every loaded model.
pub fn choose_backend(state: AppState, choice: BackendChoice) {
    if state.backend.get_untracked() == choice {
        return;
    }
    state.backend.set(choice);
    keep(BACKEND_KEY, choice.key());
    move_all(state);
}

/// Sets the precision choice, keeps it, and loads every loaded model again at it.
pub fn choose_precision(state: AppState, choice: PrecisionChoice) {
    if state.precision.get_untracked() == choice {
        return;
    }
    state.precision.set(choice);
    keep(PRECISION_KEY, choice.key());
    move_all(state);
}

fn move_all(state: AppState) {
    for slot in Slot::ALL {
        // Imported scores run on no device: they stay as they are.
        let network = state
            .slot(slot)
            .model
            .with_untracked(|m| m.as_ref().is_some_and(|m| m.imported.is_none()));
        if network {
            spawn_local(move_model(state, slot));
        }
    }
}

fn kept(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

fn keep(key: &str, value: &str) {
    if let Some(s) = storage() {
        // Not kept (storage full or blocked): the choice still holds until the page closes.
        let _ = s.set_item(key, value);
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}
