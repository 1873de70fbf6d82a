//! The model bar's "Import scores…": a scores file a model tabprobe cannot run made for an
//! exported pairs file, named by the user, loaded into the slot as a model
//! ([`crate::models::scores`]).

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::Slot;
use wasm_bindgen::JsCast;

use crate::models::scores::import_scores_into;
use crate::state::AppState;

/// The name field and file picker of the slot `into` (not `slot`: Leptos reads that attribute
/// as its own); test ids end in `-main` or `-second`.
#[component]
pub fn ScoresImport(into: Slot) -> impl IntoView {
    let slot = into;
    let state = expect_context::<AppState>();
    let which = match slot {
        Slot::Main => "main",
        Slot::Second => "second",
    };
    let name = NodeRef::<leptos::html::Input>::new();
    let on_pick = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let file = input.files().and_then(|list| list.get(0));
        input.set_value("");
        if let Some(file) = file {
            let given = name.get().map(|n| n.value()).unwrap_or_default();
            spawn_local(import_scores_into(state, slot, file, given));
        }
    };
    view! {
        <span class="scores-import">
            <input type="text" class="scores-name" placeholder="name (default: file name)" size="14"
                title="What results, reports and share links call the imported model"
                data-testid=format!("scores-name-{which}") node_ref=name/>
            <label class="file-picker small" title="A scores file (JSON lines: {id, probs} or {id, label}) for the pairs the runner's 'Download the pairs' wrote, scored by any model elsewhere (docs/scoring-elsewhere.md)">
                "Import scores…"
                <input type="file" accept=".jsonl,.json,.txt" data-testid=format!("scores-input-{which}") on:change=on_pick/>
            </label>
        </span>
    }
}
