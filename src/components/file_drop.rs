//! Loading a dataset JSON: a file picker in the header and a drop target covering the page.

use leptos::ev::DragEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::load::load_file;
use crate::model_load::{load_model_files, looks_like_checkpoint};
use crate::state::AppState;

/// The "Load dataset…" picker, the loading status, and a page-wide drop overlay (datasets and
/// checkpoint files alike).
#[component]
pub fn FileLoader() -> impl IntoView {
    let state = use_context::<AppState>().unwrap_or_default();
    let dragging = RwSignal::new(false);

    let on_pick = move |ev: leptos::ev::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(input) = input {
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                spawn_local(load_file(state, file));
            }
            // Let the same file be picked again after it was fixed on disk.
            input.set_value("");
        }
    };

    // Drops anywhere on the page load the first file dropped.
    let over = window_event_listener(leptos::ev::dragover, move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(true);
    });
    let leave = window_event_listener(leptos::ev::dragleave, move |ev: DragEvent| {
        // Leaving the window reports no related target.
        if ev.related_target().is_none() {
            dragging.set(false);
        }
    });
    let drop = window_event_listener(leptos::ev::drop, move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let files: Vec<web_sys::File> = ev
            .data_transfer()
            .and_then(|dt| dt.files())
            .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
            .unwrap_or_default();
        // The files of a checkpoint folder load a model; anything else is a dataset.
        if looks_like_checkpoint(&files) {
            spawn_local(load_model_files(state, files));
        } else if let Some(file) = files.into_iter().next() {
            spawn_local(load_file(state, file));
        }
    });
    on_cleanup(move || {
        over.remove();
        leave.remove();
        drop.remove();
    });

    view! {
        <label class="file-picker">
            "Load dataset…"
            <input type="file" accept=".json,application/json" data-testid="file-input" on:change=on_pick/>
        </label>
        <span class="loading" data-testid="loading">
            {move || state.loading.get().map(|f| format!("reading {f}…"))}
        </span>
        <div class="drop-overlay" class:visible=move || dragging.get() data-testid="drop-overlay">
            "Drop a dataset JSON, or the files of a model checkpoint, to load them"
        </div>
    }
}
