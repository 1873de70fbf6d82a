//! The runner's "Download the pairs": the pairs file (docs/scoring-elsewhere.md) of the probe
//! set the form describes, as the worker builds it — every distinct premise/hypothesis pair a
//! run with the same settings scores, with its id — for a model tabprobe cannot run to score
//! elsewhere. Its scores come back through "Import scores…" in the model bar. The second
//! model's set also has every hypothesis alone (Table 8), so it has a file of its own.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::Slot;

use crate::runs::{probe_request, RunsState};
use crate::state::AppState;
use crate::storage::download::download_bytes;
use crate::worker::client::client;

/// What a download is doing: nothing, writing the file, or why it failed.
#[derive(Clone, Debug, PartialEq)]
enum Export {
    Idle,
    Writing,
    Done(String),
    Failed(String),
}

/// The pairs file's name: the dataset's name as a slug (`INFOTABS demo` →
/// `infotabs-demo`), the slot, `pairs.jsonl`.
fn file_name(dataset: &str, slot: Slot) -> String {
    let slug: String = dataset
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect();
    let slug = slug
        .split('-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let stem = if slug.is_empty() {
        "dataset".to_string()
    } else {
        slug
    };
    match slot {
        Slot::Main => format!("{stem}.pairs.jsonl"),
        Slot::Second => format!("{stem}.second-model.pairs.jsonl"),
    }
}

/// Writes and offers the pairs file of `slot`'s probe set.
async fn export(state: AppState, runs: RunsState, slot: Slot, status: RwSignal<Export>) {
    status.set(Export::Writing);
    let form = runs.form.get_untracked();
    let file = state
        .dataset
        .with_untracked(|d| d.as_ref().map(|d| file_name(&d.dataset.name, slot)))
        .unwrap_or_else(|| file_name("dataset", slot));
    let result = match (probe_request(&state, &form, slot), client()) {
        (Ok(request), Ok(c)) => c.export_pairs(request, file).await,
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    match result {
        Ok((name, bytes)) => {
            let lines = bytes.iter().filter(|&&b| b == b'\n').count();
            download_bytes(&name, &bytes);
            status.set(Export::Done(format!(
                "{name}: {lines} pairs, {}",
                tabprobe_core::display::bytes(bytes.len() as u64)
            )));
        }
        Err(e) => status.set(Export::Failed(e)),
    }
}

/// The runner's pairs downloads: the main model's set, and the second model's when it runs.
#[component]
pub fn PairsDownload(state: AppState, runs: RunsState) -> impl IntoView {
    let status = RwSignal::new(Export::Idle);
    let button = move |slot: Slot, label: &'static str, testid: &'static str| {
        view! {
            <button class="small" data-testid=testid
                title="Every distinct premise/hypothesis pair this probe set scores, one JSON line each with its id: score them with any model (scorers/ in the repository) and import the scores in the model bar (docs/scoring-elsewhere.md)"
                disabled=move || status.get() == Export::Writing || state.dataset.with(|d| d.is_none())
                on:click=move |_| spawn_local(export(state, runs, slot, status))>
                {label}
            </button>
        }
    };
    view! {
        <div class="pairs-download" data-testid="pairs-download">
            {button(Slot::Main, "Download the pairs", "download-pairs")}
            {move || runs.form.with(|f| f.use_second).then(|| button(Slot::Second, "Download the second model's pairs", "download-pairs-second"))}
            {move || match status.get() {
                Export::Idle => None,
                Export::Writing => Some(view! { <span class="muted" data-testid="pairs-status">"writing the pairs file…"</span> }.into_any()),
                Export::Done(s) => Some(view! { <span class="muted" data-testid="pairs-status">{s}</span> }.into_any()),
                Export::Failed(e) => Some(view! { <span class="problem" role="alert" data-testid="pairs-error">{e}</span> }.into_any()),
            }}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_named_for_the_dataset_and_slot() {
        assert_eq!(
            file_name("INFOTABS demo", Slot::Main),
            "infotabs-demo.pairs.jsonl"
        );
        assert_eq!(
            file_name(" α/β: ", Slot::Second),
            "α-β.second-model.pairs.jsonl"
        );
        assert_eq!(file_name("", Slot::Main), "dataset.pairs.jsonl");
    }
}
