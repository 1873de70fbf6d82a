//! Loading data: a file picker (several files), a folder picker, and a drop target covering
//! the page. One dataset JSON loads at once; published formats (INFOTABS, TabFact, MNLI, …,
//! or a zip of them) are summarised first and wait for the user's choice.

use leptos::ev::DragEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::components::import_summary::ImportSummary;
use crate::models::load::{load_model_files, looks_like_checkpoint};
use crate::state::AppState;
use crate::storage::files::{load_files, PendingImport};

/// The files of a `FileList`, in order.
fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
        .unwrap_or_default()
}

/// The "Load data…" and "Load folder…" pickers, the loading status, the import summary, and
/// a page-wide drop overlay (datasets, published data and checkpoint files alike).
#[component]
pub fn FileLoader() -> impl IntoView {
    let state = expect_context::<AppState>();
    let dragging = RwSignal::new(false);
    let pending = RwSignal::new(None::<PendingImport>);

    let on_pick = move |ev: leptos::ev::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(input) = input {
            let files = crate::timing::timed("file-pick", || files_of(input.files()));
            spawn_local(load_files(state, files, pending));
            // Let the same file be picked again after it was fixed on disk.
            input.set_value("");
        }
    };

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
        let files = files_of(ev.data_transfer().and_then(|dt| dt.files()));
        // The files of a checkpoint folder load a model; anything else is data.
        if looks_like_checkpoint(&files) {
            spawn_local(load_model_files(state, files));
        } else {
            spawn_local(load_files(state, files, pending));
        }
    });
    on_cleanup(move || {
        over.remove();
        leave.remove();
        drop.remove();
    });

    // The limit as every message prints it (core's 100 MiB reads 104.9 MB).
    let most = tabprobe_core::display::bytes(tabprobe_core::data::import::MAX_FILE_BYTES);
    let title = format!(
        "A tabprobe dataset JSON, or published data: INFOTABS, TabFact, Table-BERT, MNLI/SNLI, \
         TabPert, counterfactual pairs — several files or a .zip (at most {most} per file)"
    );
    let overlay = format!(
        "Drop a dataset JSON, published data files or a .zip (at most {most} each), or the files \
         of a model checkpoint"
    );
    view! {
        <label class="file-picker" title=title>
            "Load data…"
            <input
                type="file"
                multiple
                accept=".json,.jsonl,.tsv,.csv,.zip,application/json,application/zip"
                data-testid="file-input"
                on:change=on_pick
            />
        </label>
        <label class="file-picker" title="Every file in a folder (e.g. INFOTABS' data folder)">
            "Load folder…"
            <input type="file" prop:webkitdirectory=true multiple data-testid="folder-input" on:change=on_pick/>
        </label>
        <span class="loading" data-testid="loading">
            {move || state.loading.get().map(|f| format!("reading {f}…"))}
        </span>
        <ImportSummary pending=pending/>
        <div class="drop-overlay" class:visible=move || dragging.get() data-testid="drop-overlay">
            {overlay}
        </div>
    }
}
