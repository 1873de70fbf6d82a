//! "Load from the Hugging Face Hub": a model by the name researchers use (`org/name`), an
//! optional revision, and the Hub's address (a mirror, or a local stand-in), downloaded from
//! the Hub's `resolve` URLs like any URL load ([`crate::models::load::load_hub_into`]).

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::Slot;

use crate::models::load::{load_hub_into, HUB_ENDPOINT};
use crate::state::AppState;

/// The Hub form of the model bar.
#[component]
pub fn HubLoad() -> impl IntoView {
    let state = expect_context::<AppState>();
    let name = NodeRef::<leptos::html::Input>::new();
    let revision = NodeRef::<leptos::html::Input>::new();
    let endpoint = NodeRef::<leptos::html::Input>::new();
    let value = |r: NodeRef<leptos::html::Input>| r.get().map(|i| i.value()).unwrap_or_default();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let spec = value(name).trim().to_string();
        if !spec.is_empty() {
            spawn_local(load_hub_into(
                state,
                Slot::Main,
                spec,
                value(revision),
                value(endpoint),
            ));
        }
    };
    view! {
        <form class="model-url hub-load" on:submit=on_submit data-testid="hub-form">
            <input type="text" placeholder="…or a model on the Hugging Face Hub: org/name" data-testid="hub-name" node_ref=name
                title="As transformers names it, e.g. ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli; config.json, the tokenizer and model.safetensors are downloaded (and kept in the browser cache)"/>
            <input type="text" class="hub-revision" placeholder="main" data-testid="hub-revision" node_ref=revision
                title="A branch, tag or commit (default main)"/>
            <details class="hub-endpoint">
                <summary>"Hub address"</summary>
                <input type="url" value=HUB_ENDPOINT data-testid="hub-endpoint" node_ref=endpoint
                    title="Where the Hub is (like HF_ENDPOINT): a mirror's address, or a local server"/>
            </details>
            <button type="submit" data-testid="hub-load">"Load from the Hub"</button>
        </form>
    }
}
