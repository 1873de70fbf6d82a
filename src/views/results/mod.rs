//! Probe results (docs/using-the-site.md#results): saved runs (IndexedDB), and for one run — every model
//! side by side on the same items — the transition graphs (one figure per split), the
//! invalid-transition tables, the score tables (Tables 4, 7, 8), evidence selection with the
//! per-example view, word-order metrics with the Ω_x curve and the BLEU-2 chart, and the
//! per-category breakdowns. Numbers drill down to their items; the run exports as JSON and
//! every table as CSV.
//!
//! The components only this page shows live here beside it: the report as it is built
//! ([`built`]), its head, its parts (graphs, scores and Table 8, word order, the sections as
//! tables), the evidence view, the item list that figures drill down to, the Tables 4/7 score
//! plot, and the inoculation panel and result.

mod built;
mod evidence_view;
mod graphs_part;
mod inoculation_panel;
mod inoculation_result;
mod item_list;
mod report_head;
mod score_plot;
mod scores_part;
mod section_tables;
mod word_order_view;

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::report::{has_score_tables, table1_section, transition_sets, SectionId};
use tabprobe_core::run::RunResult;

use crate::components::kept_note::local_time;
use crate::route::Route;
use crate::runs::store::{self, SavedRun};
use crate::runs::RunsState;
use crate::storage::download::download;
use crate::timing;
use built::Built;
use evidence_view::EvidenceView;
use graphs_part::GraphsPart;
use inoculation_panel::InoculationPanel;
use item_list::{Drill, ItemList};
use report_head::ReportHead;
use scores_part::{ScoresPart, Table8Part};
use section_tables::{all_tables_part, pick, section_table, Source};
use word_order_view::WordOrderPart;

/// Why the run asked for cannot be shown, and whether it is a stored entry that can be
/// deleted (it does not read or check).
type Problem = (String, bool);

/// The results screen: `#/results` lists saved runs, `#/results/<id>` shows one (`run`, from
/// the route; each navigation builds the screen again).
#[component]
pub fn ResultsView(run: Option<String>) -> impl IntoView {
    let runs = expect_context::<RunsState>();
    let id = Signal::stored(run);
    // The run asked for, read from this browser unless it is already on screen; its value is
    // the problem with it, tagged with the id it was asked for, since a resource keeps its last
    // value while the next one loads.
    let opened = LocalResource::new(move || {
        let want = id.get();
        let on_screen = want.as_ref().is_some_and(|want| {
            runs.current
                .with_untracked(|c| c.as_ref().is_some_and(|c| &c.meta.id == want))
        });
        async move {
            let want = want.filter(|_| !on_screen)?;
            let problem = match store::get(&want).await {
                Ok(Some(run)) => {
                    runs.show(run);
                    return None;
                }
                Ok(None) => (format!(
                    "There is no saved run {want} in this browser (runs live in the browser that made them)."
                ), false),
                Err(e) => (e.problem, true),
            };
            Some((want, problem))
        }
    });
    let problem = Signal::derive(move || {
        let want = id.get()?;
        opened
            .get()
            .flatten()
            .filter(|(asked, _)| *asked == want)
            .map(|(_, p)| p)
    });
    spawn_local(runs.refresh());
    let report = move || {
        let want = id.get()?;
        if let Some(p) = problem.get() {
            return Some(view! { <RunProblem id=want problem=p runs=runs/> }.into_any());
        }
        match runs.current.get() {
            Some(run) if run.meta.id == want => Some(timing::timed("report-view", || {
                view! { <RunReport saved=run/> }.into_any()
            })),
            _ => Some(view! { <p class="muted">"Loading the saved run…"</p> }.into_any()),
        }
    };
    view! {
        <section class="results" data-testid="results">
            <details class="saved" open=move || id.get().is_none()>
                <summary>"Saved runs"</summary>
                <SavedRuns runs=runs id=id/>
            </details>
            {move || runs.storage_error.get().map(|e| view! { <p class="problem" role="alert" data-testid="storage-error">{e}</p> })}
            <UnsavedRun runs=runs/>
            {report}
        </section>
    }
}

/// The runs saved in this browser, newest first, each a link to its report (the one on
/// screen, `id`, marked) with a delete button.
#[component]
fn SavedRuns(runs: RunsState, id: Signal<Option<String>>) -> impl IntoView {
    move || {
        let saved = runs.saved.get();
        if saved.is_empty() {
            return view! {
                <p class="empty" data-testid="no-results">"No results yet. Choose probes in the "<a href="#/runner">"Probe runner"</a>" and run them; finished runs are kept in this browser."</p>
            }
            .into_any();
        }
        let items = saved
            .into_iter()
            .map(|m| {
                let href = Route::Results(Some(m.id.clone())).href();
                let when = local_time(m.created_ms);
                let mid = m.id.clone();
                let selected = {
                    let mid = m.id.clone();
                    move || id.get().as_deref() == Some(mid.as_str())
                };
                view! {
                    <li class:selected=selected>
                        <a href=href data-testid="saved-run">
                            <span class="title">{tabprobe_core::display::readable(&m.probes.join(", "))}</span>
                            <span class="meta">{format!("{when} · {} · {} items · {}", m.models.join(" + "), m.items, m.dataset)}{m.cancelled.then_some(" · cancelled")}</span>
                        </a>
                        <button class="small link" title="delete this saved run" data-testid="delete-run" on:click=move |_| {
                            let mid = mid.clone();
                            spawn_local(async move {
                                if let Err(e) = store::delete(&mid).await { runs.storage_error.set(Some(e)); }
                                runs.refresh().await;
                            });
                        }>"delete"</button>
                    </li>
                }
            })
            .collect::<Vec<_>>();
        view! { <ul class="saved-runs">{items}</ul> }.into_any()
    }
}

/// Why saved run `id` cannot be shown, with a button to delete it when it is a stored entry
/// that does not read or check.
#[component]
fn RunProblem(id: String, problem: Problem, runs: RunsState) -> impl IntoView {
    let (p, deletable) = problem;
    let delete = deletable.then(|| {
        view! {
            <button class="small" data-testid="delete-broken-run" on:click=move |_| {
                let id = id.clone();
                spawn_local(async move {
                    match store::delete(&id).await {
                        // The route's change clears the problem: it was asked for this id.
                        Ok(()) => crate::route::navigate(Route::Results(None)),
                        Err(e) => runs.storage_error.set(Some(e)),
                    }
                    runs.refresh().await;
                });
            }>"delete this run"</button>
        }
    });
    view! {
        <section class="problem" role="alert" data-testid="results-error">
            <p>{p}</p>
            {delete}
        </section>
    }
}

/// Downloads of the run on screen when the browser refused to save it: the run files, one
/// per model, as the report's exports write them.
#[component]
fn UnsavedRun(runs: RunsState) -> impl IntoView {
    move || {
        let unsaved = runs.unsaved.get()?;
        let run = runs.current.get().filter(|r| r.meta.id == unsaved)?;
        let buttons = run
            .results
            .iter()
            .map(|r| {
                run_file_button(
                    &run.meta.id,
                    r.clone(),
                    "download-unsaved",
                    "Download the unsaved run file",
                )
            })
            .collect::<Vec<_>>();
        Some(view! { <p class="unsaved-run">{buttons}</p> })
    }
}

/// A button that downloads run file `r` of saved run `run_id`, named for the run and model.
fn run_file_button(
    run_id: &str,
    r: Arc<RunResult>,
    testid: &'static str,
    what: &'static str,
) -> impl IntoView {
    let name = format!("{run_id}-{}.json", file_stem(&r));
    view! {
        <button class="small" data-testid=testid on:click=move |_| {
            if let Ok(text) = serde_json::to_string_pretty(&*r) { download(&name, "application/json", &text) }
        }>{format!("{what} — {}", r.model.label())}</button>
    }
}

fn file_stem(run: &RunResult) -> String {
    run.model
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One saved run in full: its head now, then its parts in stages as the report they show is
/// built (see [`STAGES`]), and the items behind any figure the reader opens.
#[component]
fn RunReport(saved: Arc<SavedRun>) -> impl IntoView {
    let runs: Vec<Arc<RunResult>> = saved.results.clone();
    let main = runs[0].clone();
    let drill = RwSignal::new(None::<Drill>);
    let present = |k: ProbeKind| main.items.iter().any(|it| it.probe == k);
    let built = Built::new(saved.clone());
    // The report is shown in stages, a task each (see `STAGES`); stage 0 is shown now.
    let stage = RwSignal::new(0u8);
    let ready = built.ready();
    spawn_local(async move {
        ready.await;
        for k in 1..=STAGES {
            gloo::timers::future::TimeoutFuture::new(0).await;
            if stage.try_set(k).is_some() {
                return; // the report was closed
            }
        }
    });
    let at = move |k: u8| Memo::new(move |_| stage.get() >= k);
    let tsets = transition_sets(&main);
    let graphs = (!tsets.is_empty()).then(|| {
        let runs = runs.clone();
        deferred(at(1), "report-graphs-part", move || {
            view! { <GraphsPart runs=runs tsets=tsets built=built drill=drill/> }.into_any()
        })
    });
    // Tables 4, 7 and 8 count certain and reviewer-accepted items; unreviewed heuristic items
    // are left out (and counted) unless the reader asks for them.
    let include_heuristic = RwSignal::new(false);
    let scores = has_score_tables(&main).then(|| {
        let runs = runs.clone();
        deferred(at(2), "report-scores", move || {
            view! { <ScoresPart runs=runs built=built include_heuristic=include_heuristic drill=drill/> }.into_any()
        })
    });
    let table8 = ProbeKind::OTHER
        .iter()
        .any(|&k| k != ProbeKind::WordOrder && present(k))
        .then(|| {
            let runs = runs.clone();
            deferred(at(3), "report-table8", move || {
                view! { <Table8Part runs=runs built=built include_heuristic=include_heuristic drill=drill/> }.into_any()
            })
        });
    let evidence = present(ProbeKind::RowDeletion).then(|| {
        let runs = runs.clone();
        deferred(at(4), "report-evidence", move || {
            view! { <EvidencePart runs=runs built=built tables_shown=at(5) drill=drill/> }
                .into_any()
        })
    });
    let word_order = present(ProbeKind::WordOrder).then(|| {
        let runs = runs.clone();
        deferred(at(6), "report-word-order", move || {
            view! { <WordOrderPart runs=runs built=built drill=drill/> }.into_any()
        })
    });
    let all_tables = {
        let runs = runs.clone();
        deferred(at(7), "report-all-tables", move || {
            let sections = built
                .get()
                .map(|b| b.sections().to_vec())
                .unwrap_or_default();
            all_tables_part(&runs, sections, drill)
        })
    };
    let inoculation = {
        let main = main.clone();
        let id = saved.meta.id.clone();
        deferred(at(7), "report-inoculation", move || {
            view! { <InoculationPanel run=main run_id=id/> }.into_any()
        })
    };
    let toc = [
        ("accuracy", "Accuracy", true),
        ("graphs", "Graphs", graphs.is_some()),
        ("scores", "Scores", scores.is_some()),
        ("table8", "Table 8", table8.is_some()),
        ("evidence", "Evidence", evidence.is_some()),
        ("word-order", "Word order", word_order.is_some()),
        ("inoculation", "Inoculation", true),
    ]
    .into_iter()
    .filter_map(|(id, name, has)| has.then_some((id, name)))
    .collect::<Vec<_>>();
    let drill_runs = runs.clone();
    let drill_view = move || {
        drill.get().map(|d| {
            view! { <ItemList runs=drill_runs.clone() drill=d on_close=Callback::new(move |_| drill.set(None))/> }
        })
    };
    view! {
        <article class="run-report" data-testid="run-report" data-run=saved.meta.id.clone()
            data-report=move || built.get().map(|b| b.place)>
            <ReportHead saved=saved.clone() built=built toc=toc drill=drill/>
            <Table1Part runs=runs.clone() drill=drill/>
            {graphs}
            {scores}
            {table8}
            {evidence}
            {word_order}
            {inoculation}
            <section class="result-part">
                <h2>"All tables and CSV"</h2>
                {all_tables}
            </section>
            {drill_view}
        </article>
    }
}

/// The stages of a report after the first (head and Table 1, which do not wait for the
/// worker's report): 1 the transition graphs, 2 the score tables, 3 Table 8, 4 the evidence
/// view, 5 the evidence tables, 6 word order, 7 inoculation and every table. Each is built in
/// a task of its own: built in one, the INFOTABS dev split's row-deletion report held the
/// page for about 120 ms.
const STAGES: u8 = 7;

/// A part of the report built once `shown` turns true (it turns true once, when its stage
/// comes). Built untracked: the part's own reactive closures track what they read.
fn deferred(
    shown: Memo<bool>,
    part: &'static str,
    make: impl FnOnce() -> AnyView + Send + 'static,
) -> impl IntoView {
    let make = std::sync::Mutex::new(Some(make));
    move || {
        if !shown.get() {
            return None;
        }
        let make = make.lock().ok()?.take()?;
        Some(timing::timed(part, || untrack(make)))
    }
}

/// Table 1, accuracy per model: computed on the page from the run files, so it is shown with
/// the head, before the worker's report.
#[component]
fn Table1Part(runs: Vec<Arc<RunResult>>, drill: RwSignal<Option<Drill>>) -> impl IntoView {
    let refs: Vec<&RunResult> = runs.iter().map(|r| r.as_ref()).collect();
    let s = table1_section(&refs);
    view! {
        <section id="accuracy" class="result-part" data-testid="table1">
            <h2>"Accuracy (Table 1)"</h2>
            {section_table(s, file_stem(&runs[0]), drill, Source::of(0))}
        </section>
    }
}

/// Evidence selection (§5.3): the per-example view, then its tables once `tables_shown`
/// turns true — in the same task as the view, the dev split's evidence part held the page for
/// 70 ms.
#[component]
fn EvidencePart(
    runs: Vec<Arc<RunResult>>,
    built: Built,
    tables_shown: Memo<bool>,
    drill: RwSignal<Option<Drill>>,
) -> impl IntoView {
    let tables = {
        let runs = runs.clone();
        deferred(tables_shown, "report-evidence-tables", move || {
            let ids = [
                SectionId::Evidence,
                SectionId::EvidenceExamples,
                SectionId::Agreement,
            ];
            let sections = built.get();
            pick(
                &runs,
                sections.as_ref().map_or(&[], |b| b.sections()),
                &ids,
                drill,
            )
            .into_any()
        })
    };
    view! {
        <section id="evidence" class="result-part">
            <h2>"Evidence selection (§5.3)"</h2>
            <EvidenceView runs=runs/>
            {tables}
        </section>
    }
}
