//! Loading a dataset JSON: a file picker in the header and a drop target covering the page.

use leptos::ev::DragEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::load::load_file;
use crate::state::AppState;

/// The "Load dataset…" picker, the loading status, and a page-wide drop overlay.
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
        if let Some(file) = ev
            .data_transfer()
            .and_then(|dt| dt.files())
            .and_then(|f| f.get(0))
        {
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
            "Drop a dataset JSON to load it"
        </div>
    }
}
