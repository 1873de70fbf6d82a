//! The head of a run's report: the models and settings it ran with, what it left out or cut
//! short, the run files to download and the jump links to its parts.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::report::ItemSelector;
use tabprobe_core::run::RunResult;

use super::built::Built;
use super::item_list::Drill;
use super::run_file_button;
use crate::runs::store::SavedRun;

/// The report's head; `toc` lists the parts this run has (anchor id, link text), in page order.
#[component]
pub fn ReportHead(
    saved: Arc<SavedRun>,
    built: Built,
    toc: Vec<(&'static str, &'static str)>,
    drill: RwSignal<Option<Drill>>,
) -> impl IntoView {
    let main = saved.results[0].clone();
    let set = &main.settings;
    let lin = set.linearization.describe();
    let cancelled = main.cancelled_at.map(|p| {
        view! { <p class="warning" data-testid="result-cancelled">{format!("Cancelled after {} of {} forward passes: only the examples and items scored before the cancel are shown.", p.done, p.total)}</p> }
    });
    let truncated = main.pairs.iter().filter(|p| p.score.truncated).count();
    view! {
        <header class="report-head">
            <h1>"Results"</h1>
            <p class="run-meta">
                <ReportModels runs=saved.results.clone()/>
                <span>{format!(" · {} · seed {} · {lin} · ", saved.meta.dataset, set.seed)}</span>
                <button class="link" data-testid="head-count" title="list the items" on:click=move |_| drill.set(Some(Drill::of(0, ItemSelector::All)))>{format!("{} examples · {} items", main.examples.len(), main.items.len())}</button>
                <span>{format!(" · {} forward passes", main.pairs.len())}</span>
            </p>
            {cancelled}
            {move || built.get().and_then(|b| b.note.clone()).map(|n| view! { <p class="warning" data-testid="report-note">{n}</p> })}
            {skipped_list(&main)}
            {(truncated > 0).then(|| view! { <p class="warning">{format!("{truncated} pair(s) had their premise truncated to fit the model: a probe that edits a part the model never saw is not evidence of anything.")}</p> })}
            <div class="exports"><ReportExports saved=saved.clone()/></div>
            <nav class="toc" data-testid="toc"><ReportToc parts=toc/></nav>
        </header>
    }
}

/// Each model of the run: its name, weight hash and the arithmetic it ran in.
#[component]
fn ReportModels(runs: Vec<Arc<RunResult>>) -> impl IntoView {
    runs.iter()
        .map(|r| {
            view! {
                <span class="model-name" data-testid="result-model">{r.model.name.clone()}</span>
                <code class="hash" title=r.model.weights_sha256.clone()>{r.model.weights_sha256.chars().take(12).collect::<String>()}</code>
                <span class="backend" data-testid="result-precision" title="the arithmetic the model ran in: f32, f16-mixed on a WebGPU adapter with shader-f16, or int8 on the CPU path (see the model bar)">{r.model.precision.as_str()}</span>
                {r.model.scores_file.then(|| view! {
                    <span class="backend" data-testid="result-imported" title="scores computed elsewhere and imported from a scores file; the hash is the file's SHA-256">"imported scores"</span>
                })}
                {r.model.label_only.then(|| view! {
                    <span class="backend" data-testid="result-label-only" title="imported scores that give some pairs a label without probabilities: the figures that need probabilities (word order's entropies) say n/a">"labels only"</span>
                })}
            }
        })
        .collect::<Vec<_>>()
}

/// The run files to download, one per model.
#[component]
fn ReportExports(saved: Arc<SavedRun>) -> impl IntoView {
    saved
        .results
        .iter()
        .map(|r| run_file_button(&saved.meta.id, r.clone(), "export-json", "Run file (JSON)"))
        .collect::<Vec<_>>()
}

/// Jump links to the report's parts.
#[component]
fn ReportToc(parts: Vec<(&'static str, &'static str)>) -> impl IntoView {
    parts
        .into_iter()
        .map(|(id, name)| {
            view! { <a href=format!("#{id}") data-testid="toc-link" data-section=id on:click=move |ev| scroll_to(ev, id)>{name}</a> }
        })
        .collect::<Vec<_>>()
}

/// The examples the probe set left out (the run table's `skipped` count), each with the probe
/// concerned and the reason: they have no items to list, so they are listed here.
fn skipped_list(run: &RunResult) -> Option<impl IntoView> {
    (!run.skipped.is_empty()).then(|| {
        let rows = run
            .skipped
            .iter()
            .map(|s| {
                let probe = s.probe.map(|p| p.display_name()).unwrap_or_else(|| "every probe".into());
                view! { <li data-testid="skipped-example"><code>{s.example.clone()}</code>{format!(" — {probe}: {}", s.reason)}</li> }
            })
            .collect::<Vec<_>>();
        view! {
            <details class="skipped" data-testid="skipped-list">
                <summary>{format!("{} skipped (example, probe, reason)", run.skipped.len())}</summary>
                <ul>{rows}</ul>
            </details>
        }
    })
}

/// In-page links would change the route (routes live in the fragment): scroll instead.
fn scroll_to(ev: leptos::ev::MouseEvent, id: &str) {
    ev.prevent_default();
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    {
        el.scroll_into_view();
    }
}
