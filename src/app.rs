//! The app shell: header with navigation and the file loader, the problems panel, and the
//! current route's view. On start, restores the work kept in this browser (else loads the
//! bundled demo dataset) and fetches the bundled models' manifest (auto-loading the default
//! model).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::file_drop::FileLoader;
use crate::components::kept_note::{KeptNote, KeptStatus};
use crate::components::other_tabs::{OtherTabs, TabConflictNotice};
use crate::components::problems::ProblemsPanel;
use crate::models::bundled::load_bundled_models;
use crate::route::{use_route, Route};
use crate::runs::{RunStatus, RunsState};
use crate::state::AppState;
use crate::views::about::AboutView;
use crate::views::dataset::DatasetView;
use crate::views::editor::EditorView;
use crate::views::results::ResultsView;
use crate::views::rewriter::RewriterView;
use crate::views::runner::RunnerView;
use crate::views::share::ShareView;

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    // Before any model load: the bundled model loads on the kept backend and precision.
    state
        .backend
        .set(crate::models::device_choice::kept_backend());
    state
        .precision
        .set(crate::models::device_choice::kept_precision());
    provide_context(state);
    let runs = RunsState::new();
    provide_context(runs);
    // The kept work is restored; after it, a run that a reload or crash interrupted is
    // offered for resuming in the runner.
    crate::storage::session::start(state, move || crate::runs::drive::load_interrupted(runs));
    // From now on a crashed worker unloads the models and offers to reload them.
    crate::models::crash::watch_worker(state);
    spawn_local(load_bundled_models(state));
    let route = use_route();
    // What the other tabs are told this tab is doing.
    Effect::new(move |_| {
        let doing = match runs.status.get() {
            RunStatus::Running {
                model, done, total, ..
            } => format!("running a probe set ({model}: {done} of {total} pairs)"),
            _ if matches!(route.get(), Route::Editor | Route::Rewriter) => state
                .work_item
                .with(|w| {
                    w.as_ref().map(|w| {
                        format!("editing {}", w.example_id.as_deref().unwrap_or(&w.origin))
                    })
                })
                .unwrap_or_default(),
            _ => String::new(),
        };
        crate::storage::tabs::set_doing(doing);
    });
    let dataset_name = move || {
        state.dataset.with(|d| {
            // A file imported on its own gives the dataset its name: say it once.
            d.as_ref().map(|d| {
                if d.dataset.name == d.file {
                    d.file.clone()
                } else {
                    format!("{} — {}", d.dataset.name, d.file)
                }
            })
        })
    };
    view! {
        <header class="app-header">
            <a class="brand" href=Route::Dataset.href()>"tabprobe"</a>
            <nav>
                <a href=Route::Dataset.href() class:active=move || route.get() == Route::Dataset>"Dataset"</a>
                <a href=Route::Runner.href() class:active=move || route.get() == Route::Runner data-testid="nav-runner">"Probe runner"</a>
                <a href=Route::Results(None).href() class:active=move || route.with(|r| matches!(r, Route::Results(_))) data-testid="nav-results">"Results"</a>
                <a href=Route::Editor.href() class:active=move || route.get() == Route::Editor data-testid="nav-editor">"Table editor"</a>
                <a href=Route::Rewriter.href() class:active=move || route.get() == Route::Rewriter data-testid="nav-rewriter">"Rewriter"</a>
                <a href=Route::Share(String::new()).href() class:active=move || route.with(Route::is_share) data-testid="nav-share">"Share"</a>
                <a href=Route::About.href() class:active=move || route.get() == Route::About>"About"</a>
            </nav>
            <span class="dataset-name" data-testid="dataset-name">{dataset_name}</span>
            <KeptStatus/>
            <FileLoader/>
        </header>
        <KeptNote/>
        <OtherTabs/>
        <TabConflictNotice/>
        <ProblemsPanel/>
        <main>
            {move || crate::timing::timed("route-view", || match route.get() {
                Route::Dataset => view! { <DatasetView/> }.into_any(),
                Route::About => view! { <AboutView/> }.into_any(),
                Route::Editor => view! { <EditorView/> }.into_any(),
                Route::Rewriter => view! { <RewriterView/> }.into_any(),
                Route::Share(payload) => view! { <ShareView payload=payload/> }.into_any(),
                Route::Runner => view! { <RunnerView/> }.into_any(),
                Route::Results(run) => view! { <ResultsView run=run/> }.into_any(),
            })}
        </main>
    }
}
