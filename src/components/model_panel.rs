//! The model bar: load a Hugging Face checkpoint (files or a folder) into the worker, see
//! what is loaded (name, weight hash, labels, backend) and choose the linearization; below
//! it, the second model (`Slot::Second`) to compare with — e.g. the bundled hypothesis-only model.
//! When the model worker has crashed, a notice above both says so and offers to reload the
//! models it unloaded.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::linearize::{Linearization, LinearizeSettings};
use tabprobe_core::scoring::PairOrder;
use wasm_bindgen::JsCast;

use tabprobe_core::run::models_manifest::ModelRole;
use tabprobe_worker::protocol::{BackendChoice, PrecisionChoice, Slot};

use crate::components::hub_load::HubLoad;
use crate::components::scores_import::ScoresImport;
use crate::models::bundled::load_bundled_into;
use crate::models::crash::reload_lost;
use crate::models::load::{cancel_load, load_model_files, load_model_files_into, load_model_url};
use crate::state::{AppState, ModelStatus};
use crate::worker::client::stop_unanswering;
use crate::worker::health::{LostModel, ModelSource};

fn picked_files(ev: &leptos::ev::Event) -> Vec<web_sys::File> {
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return Vec::new();
    };
    let files = input
        .files()
        .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
        .unwrap_or_default();
    input.set_value("");
    files
}

/// Whether the model bar offers the bundled model at `path` for `slot`: not while it is the
/// load under way there, nor once it is the model loaded there (tracked).
fn offer_bundled(state: AppState, slot: Slot, path: &str) -> bool {
    let (loaded, loading) = state.worker.loaded_or_loading(slot, path);
    let present = state.slot(slot).model.with(|m| m.is_some());
    !(loading || loaded && present)
}

/// The model bar above the dataset browser.
#[component]
pub fn ModelPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <WorkerSilentNotice/>
        <WorkerCrashNotice/>
        <section class="model-panel" data-testid="model-panel">
            <strong>"Model"</strong>
            {move || state.slot(Slot::Main).model.with(|m| m.is_none()).then(|| view! { <span class="muted">"none loaded"</span> })}
            <MainModelInfo/>
            <MainModelStatus/>
            {move || state.pace.live.get().map(|(done, total)| view! {
                <span class="model-status scoring" data-testid="model-scoring">{format!("scoring {done} / {total} hypotheses")}</span>
            })}
            <span class="spacer"></span>
            <ModelPickers/>
            <HubLoad/>
            <ScoresImport into=Slot::Main/>
            <ModelSettings/>
            {bundled_button(state, Slot::Main, ModelRole::Default, "load-bundled-default", |name| format!("Load bundled {name}"))}
        </section>
        <SecondModelPanel/>
    }
}

/// The main model's name, weight hash, backend, precision, workers, size and labels.
#[component]
fn MainModelInfo() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.slot(Slot::Main).model.get().map(|m| {
            let short = m.id.weights_sha256.chars().take(12).collect::<String>();
            view! {
                <span class="model-name" data-testid="model-name">{m.id.name.clone()}</span>
                <code class="hash" title=m.id.weights_sha256.clone() data-testid="model-hash">{short}</code>
                <span class="backend" data-testid="model-backend" title=m.backend_note.clone()>{m.backend.describe()}</span>
                {m.imported.is_none().then(|| view! { <span class="backend" data-testid="model-precision" title=m.precision_note.clone()>{m.id.precision.as_str()}</span> })}
                {(m.workers > 1).then(|| view! {
                    <span class="backend" data-testid="model-workers" title="copies of the model, one per core (at most 4), each scoring whole batches">{format!("{} workers", m.workers)}</span>
                })}
                <span class="model-meta" data-testid="model-meta" title=m.memory_note()>{m.summary()}</span>
                <span class="model-labels" data-testid="model-labels">{m.labels.join(" · ")}</span>
            }
        })
    }
}

/// The main model's load in progress (with Cancel), its failure or a note.
#[component]
fn MainModelStatus() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        match state.slot(Slot::Main).status.get() {
        ModelStatus::Idle => None,
        ModelStatus::Loading(s) => Some(view! {
            <span class="model-status loading" data-testid="model-status">{s}</span>
            <button class="small" data-testid="model-cancel-load" on:click=move |_| cancel_load(state, Slot::Main)>"Cancel"</button>
        }.into_any()),
        ModelStatus::Failed(s) => Some(
            view! {
                <span class="model-status failed" data-testid="model-error" role="alert">
                    {s}
                    {move || state.slot(Slot::Main).model.get().map(|m| format!(" — {} is still loaded.", m.id.name))}
                </span>
            }
            .into_any(),
        ),
        ModelStatus::Note(s) => Some(view! { <span class="model-status note" data-testid="model-note">{s}</span> }.into_any()),
    }
    }
}

/// Loading the main model from picked files, a picked folder or a URL.
#[component]
fn ModelPickers() -> impl IntoView {
    let state = expect_context::<AppState>();
    let on_pick = move |ev: leptos::ev::Event| {
        let files = picked_files(&ev);
        if !files.is_empty() {
            spawn_local(load_model_files(state, files));
        }
    };
    let url_input = NodeRef::<leptos::html::Input>::new();
    let on_url = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if let Some(input) = url_input.get() {
            let url = input.value().trim().to_string();
            if !url.is_empty() {
                spawn_local(load_model_url(state, url));
            }
        }
    };
    // `webkitdirectory` has no typed attribute in Leptos: set it once the input exists.
    let folder_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    view! {
        <label class="file-picker small">
            "Load model files…"
            <input type="file" multiple data-testid="model-input" on:change=on_pick/>
        </label>
        <label class="file-picker small">
            "Load model folder…"
            <input type="file" node_ref=folder_input data-testid="model-folder-input" on:change=on_pick/>
        </label>
        <form class="model-url" on:submit=on_url>
            <input type="url" placeholder="…or the base URL of a checkpoint folder" data-testid="model-url" node_ref=url_input/>
            <button type="submit" data-testid="model-url-load">"Load URL"</button>
        </form>
    }
}

/// The backend, precision, linearization and pair-order choices.
#[component]
fn ModelSettings() -> impl IntoView {
    let state = expect_context::<AppState>();
    let strategy_options = Linearization::ALL
        .into_iter()
        .map(|l| view! { <option value=l.as_str() selected=move || state.linearization.get().strategy == l>{l.display_name()}</option> })
        .collect::<Vec<_>>();
    let on_strategy = move |ev: leptos::ev::Event| {
        if let Some(strategy) = Linearization::from_name(&event_target_value(&ev)) {
            state.linearization.update(|s| s.strategy = strategy);
        }
    };
    let on_order = move |ev: leptos::ev::Event| {
        let order = if event_target_value(&ev) == "hypothesis_first" {
            PairOrder::HypothesisFirst
        } else {
            PairOrder::PremiseFirst
        };
        state
            .linearization
            .update(|s: &mut LinearizeSettings| s.order = order);
    };
    let backend_options = BackendChoice::ALL
        .into_iter()
        .map(|c| view! { <option value=c.key() selected=move || state.backend.get() == c>{c.label()}</option> })
        .collect::<Vec<_>>();
    let on_backend = move |ev: leptos::ev::Event| {
        if let Some(choice) = BackendChoice::from_key(&event_target_value(&ev)) {
            crate::models::device_choice::choose_backend(state, choice);
        }
    };
    let precision_options = PrecisionChoice::ALL
        .into_iter()
        .map(|c| view! { <option value=c.key() selected=move || state.precision.get() == c>{c.label()}</option> })
        .collect::<Vec<_>>();
    let on_precision = move |ev: leptos::ev::Event| {
        if let Some(choice) = PrecisionChoice::from_key(&event_target_value(&ev)) {
            crate::models::device_choice::choose_precision(state, choice);
        }
    };
    view! {
        <label class="select" title="Where the model runs. The faster: the worker times one matrix product on WebGPU and on the CPU and takes the faster (a software WebGPU adapter is often far slower than the CPU). Changing it moves the loaded models.">
            <select data-testid="backend-choice" on:change=on_backend>{backend_options}</select>
        </label>
        <label class="select" title="f16-mixed: the transformer body's weights and the inputs of its matrix products in f16, accumulated in f32; embeddings, softmax, layer norms, the head and the logits in f32. Used only on a WebGPU adapter with shader-f16 (the model bar then says f16-mixed); labels match f32 and probabilities stay within 1e-3 on the tested checkpoints. int8: the same dense layers with 7-bit weights (per output channel) and 8-bit activations (per token), summed exactly in integers; on the CPU path only (f32 on WebGPU); within a stated multiple of PyTorch's own int8 deviation (docs/model-families.md#int8). Results, run files and shares say which precision made them. Changing it loads the models again.">
            <select data-testid="precision-choice" on:change=on_precision>{precision_options}</select>
        </label>
        <label class="select">
            "Premise text "
            <select data-testid="linearization" on:change=on_strategy>{strategy_options}</select>
        </label>
        <label class="select">
            <select data-testid="pair-order" on:change=on_order>
                <option value="premise_first" selected=move || state.linearization.get().order == PairOrder::PremiseFirst>"premise first"</option>
                <option value="hypothesis_first" selected=move || state.linearization.get().order == PairOrder::HypothesisFirst>"hypothesis first"</option>
            </select>
        </label>
    }
}

/// The button that loads the site's bundled model of `role` into `slot`, while it is offered
/// there (see [`offer_bundled`]); `text` words it from the model's name.
fn bundled_button(
    state: AppState,
    slot: Slot,
    role: ModelRole,
    testid: &'static str,
    text: fn(&str) -> String,
) -> impl IntoView {
    move || {
        state
            .bundled
            .get()
            .and_then(|m| m.with_role(role).cloned())
            .filter(|b| offer_bundled(state, slot, &b.path))
            .map(|b| {
                let title = b.card_text();
                let b2 = b.clone();
                view! {
                    <button class="small" title=title data-testid=testid
                        on:click=move |_| spawn_local(load_bundled_into(state, slot, b2.clone()))>
                        {text(&b.name)}
                    </button>
                }
            })
    }
}

/// The second model (`Slot::Second`): shown side by side with the main model in probe
/// results; Table 8 uses it as the hypothesis-only model.
#[component]
fn SecondModelPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let on_pick = move |ev: leptos::ev::Event| {
        let files = picked_files(&ev);
        if !files.is_empty() {
            spawn_local(load_model_files_into(state, Slot::Second, files));
        }
    };
    let info = move || {
        state.slot(Slot::Second).model.get().map(|m| {
            let short = m.id.weights_sha256.chars().take(12).collect::<String>();
            view! {
                <span class="model-name" data-testid="model2-name">{m.id.name.clone()}</span>
                <code class="hash" title=m.id.weights_sha256.clone() data-testid="model2-hash">{short}</code>
                <span class="backend" data-testid="model2-backend" title=m.backend_note.clone()>{m.backend.describe()}</span>
                {m.imported.is_none().then(|| view! { <span class="backend" data-testid="model2-precision" title=m.precision_note.clone()>{m.id.precision.as_str()}</span> })}
                <span class="model-meta" data-testid="model2-meta" title=m.memory_note()>{m.summary()}</span>
                <span class="model-labels">{m.labels.join(" · ")}</span>
                {state.hypothesis_only_weights.with(|w| w.contains(&m.id.weights_sha256)).then(|| view! {
                    <span class="muted" data-testid="model2-hypothesis-only">"reads the hypothesis only: probe runs give it an empty premise, as in its training"</span>
                })}
            }
        })
    };
    let status = move || {
        match state.slot(Slot::Second).status.get() {
        ModelStatus::Idle => None,
        ModelStatus::Loading(s) => Some(view! {
            <span class="model-status loading" data-testid="model2-status">{s}</span>
            <button class="small" data-testid="model2-cancel-load" on:click=move |_| cancel_load(state, Slot::Second)>"Cancel"</button>
        }.into_any()),
        ModelStatus::Failed(s) => Some(view! { <span class="model-status failed" data-testid="model2-error" role="alert">{s}</span> }.into_any()),
        ModelStatus::Note(s) => Some(view! { <span class="model-status note" data-testid="model2-note">{s}</span> }.into_any()),
    }
    };
    let bundled = bundled_button(
        state,
        Slot::Second,
        ModelRole::Second,
        "load-bundled-second",
        |name| format!("Load the bundled hypothesis-only model ({name}) as second model"),
    );
    view! {
        <section class="model-panel second" data-testid="model2-panel">
            <strong>"Second model"</strong>
            {move || state.slot(Slot::Second).model.with(|m| m.is_none()).then(|| view! {
                <span class="muted">"none — optional: compared side by side in probe results; Table 8 uses it as the hypothesis-only model"</span>
            })}
            {info}
            {status}
            <span class="spacer"></span>
            {bundled}
            <label class="file-picker small">
                "Load second model files…"
                <input type="file" multiple data-testid="model2-input" on:change=on_pick/>
            </label>
            <ScoresImport into=Slot::Second/>
        </section>
    }
}

/// How a lost model can come back, for the crash notice.
fn reload_hint(model: &LostModel) -> &'static str {
    match model.source {
        Some(ModelSource::Bundled(_)) => "reloadable from the site's bundled models",
        Some(ModelSource::Url(_)) => "reloadable from the browser cache",
        Some(ModelSource::Scores) => "imported scores: reloadable from the file picked",
        Some(ModelSource::Files) | None => {
            "loaded from picked files: pick them again (a page cannot reread them by itself)"
        }
    }
}

/// The notice shown while the busy model worker says nothing (the watch,
/// [`crate::worker::watch`]): how long, and a way to give it up for a fresh one.
#[component]
fn WorkerSilentNotice() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.worker.silent_ms.get().map(|ms| {
            view! {
                <div class="problem worker-silent" role="alert" data-testid="worker-silent">
                    <p data-testid="worker-silent-message">{format!(
                        "The model worker has not answered for {:.0} s. It may have been closed or have stopped, or be stuck; a very long step keeps it quiet too.",
                        ms / 1000.0
                    )}</p>
                    <p>"Every pair a run scored so far is kept in this browser; a new worker can resume it."</p>
                    <button data-testid="worker-silent-stop" on:click=move |_| stop_unanswering()>"Stop it and start a new worker"</button>
                </div>
            }
        })
    }
}

/// The notice shown after the model worker crashed, until dismissed.
#[component]
fn WorkerCrashNotice() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.worker.crash.get().map(|crash| {
            let reloadable = crash.lost.iter().any(LostModel::reloadable);
            let lost = crash
                .lost
                .iter()
                .map(|m| {
                    let which = if m.slot == Slot::Main { "model" } else { "second model" };
                    view! {
                        <li data-testid="worker-lost-model">
                            {format!("{which} {}: {}", m.name, reload_hint(m))}
                        </li>
                    }
                })
                .collect::<Vec<_>>();
            view! {
                <div class="problem worker-crash" role="alert" data-testid="worker-crash">
                    <p data-testid="worker-crash-message">{crash.message.clone()}</p>
                    <p>"The models were unloaded and a fresh model worker was started. Your dataset, its edits and the saved runs are kept."</p>
                    {(!lost.is_empty()).then(|| view! { <ul>{lost}</ul> })}
                    {reloadable.then(|| view! {
                        <button data-testid="worker-reload" on:click=move |_| reload_lost(state)>"Reload the models"</button>
                    })}
                    <button class="small" data-testid="worker-crash-dismiss" on:click=move |_| state.worker.crash.set(None)>"Dismiss"</button>
                </div>
            }
        })
    }
}
