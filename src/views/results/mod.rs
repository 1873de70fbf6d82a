//! Probe results (docs/using-the-site.md#results): saved runs (IndexedDB), and for one run — every model
//! side by side on the same items — the transition graphs (one figure per split), the
//! invalid-transition tables, the score tables (Tables 4, 7, 8), evidence selection with the
//! per-example view, word-order metrics with the Ω_x curve and the BLEU-2 chart, and the
//! per-category breakdowns. Numbers drill down to their items; the run exports as JSON and
//! every table as CSV.
//!
//! The components only this page shows live here beside it: the evidence view, the item list
//! that figures drill down to, the Tables 4/7 score plot, the word-order figures, and the
//! inoculation panel and result.

mod evidence_view;
mod inoculation_panel;
mod inoculation_result;
mod item_list;
mod score_plot;
mod word_order_view;

use std::sync::{Arc, OnceLock};

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::metrics::TransitionSet;
use tabprobe_core::probe::ProbeKind;
use tabprobe_core::report::{
    has_score_tables, table1_section, transition_sets, Figures, FullReport, ItemSelector, Section,
    SectionId,
};
use tabprobe_core::run::RunResult;
use tabprobe_core::Label;

use crate::components::kept_note::local_time;
use crate::components::score_tables::{InvalidTable, SectionTable};
use crate::components::transition_graph::TransitionGraphSvg;
use crate::runs::store::{self, SavedRun};
use crate::runs::RunsState;
use crate::storage::download::download;
use crate::timing;
use evidence_view::EvidenceView;
use inoculation_panel::InoculationPanel;
use item_list::{Drill, ItemList};
use score_plot::ScorePlot;
use word_order_view::{BleuChart, OmegaCurve};

fn hash_run_id() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix("#/results/")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The results screen: `#/results` lists saved runs, `#/results/<id>` shows one.
#[component]
pub fn ResultsView() -> impl IntoView {
    let runs = expect_context::<RunsState>();
    let id = RwSignal::new(hash_run_id());
    let handle = window_event_listener(leptos::ev::hashchange, move |_| id.set(hash_run_id()));
    on_cleanup(move || handle.remove());
    // Why the run asked for cannot be shown; `true` when it is a stored entry that can be
    // deleted (it does not read or check).
    let problem = RwSignal::new(None::<(String, bool)>);
    Effect::new(move |_| {
        let Some(want) = id.get() else { return };
        if runs
            .current
            .with_untracked(|c| c.as_ref().is_some_and(|c| c.meta.id == want))
        {
            return;
        }
        problem.set(None);
        spawn_local(async move {
            match store::get(&want).await {
                Ok(Some(run)) => runs.show(run),
                Ok(None) => problem.set(Some((format!(
                    "There is no saved run {want} in this browser (runs live in the browser that made them)."
                ), false))),
                Err(e) => problem.set(Some((e.problem, true))),
            }
        });
    });
    spawn_local(runs.refresh());
    let list = move || {
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
                let href = format!("#/results/{}", m.id);
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
    };
    let report = move || {
        let want = id.get()?;
        if let Some((p, deletable)) = problem.get() {
            let delete = deletable.then(|| {
                let id = want.clone();
                view! {
                    <button class="small" data-testid="delete-broken-run" on:click=move |_| {
                        let id = id.clone();
                        spawn_local(async move {
                            match store::delete(&id).await {
                                Ok(()) => {
                                    problem.set(None);
                                    crate::route::navigate(crate::route::Route::Results);
                                }
                                Err(e) => runs.storage_error.set(Some(e)),
                            }
                            runs.refresh().await;
                        });
                    }>"delete this run"</button>
                }
            });
            return Some(
                view! {
                    <section class="problem" role="alert" data-testid="results-error">
                        <p>{p}</p>
                        {delete}
                    </section>
                }
                .into_any(),
            );
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
                {list}
            </details>
            {move || runs.storage_error.get().map(|e| view! { <p class="problem" role="alert" data-testid="storage-error">{e}</p> })}
            <UnsavedRun runs=runs/>
            {report}
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
                let r = r.clone();
                let name = format!("{}-{}.json", run.meta.id, file_stem(&r));
                view! {
                    <button class="small" data-testid="download-unsaved" on:click=move |_| {
                        if let Ok(text) = serde_json::to_string_pretty(&*r) { download(&name, "application/json", &text) }
                    }>{format!("Download the unsaved run file — {}", r.model.label())}</button>
                }
            })
            .collect::<Vec<_>>();
        Some(view! { <p class="unsaved-run">{buttons}</p> })
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

/// One transition set (an operation's items, Table 6's single or all-relevant-rows
/// deletions, the label-preserving rule's hypothesis or counterfactual items): its rule, and
/// per model its graphs (one per split + pooled) and its invalid-transition table over the
/// chosen group of examples — core's figures, each mark opening the items core put on it.
#[component]
fn SetBlock(
    runs: Vec<Arc<RunResult>>,
    tset: TransitionSet,
    built: Built,
    /// Index into each model's figures by group (0 = every example).
    group: RwSignal<usize>,
    drill: RwSignal<Option<Drill>>,
) -> impl IntoView {
    let rule = built.figures(0, 0).and_then(|f| f.set(tset)?.rule.clone());
    let columns = move || {
        let g = group.get();
        runs.iter()
            .enumerate()
            .map(|(m, run)| {
                let figures = built.figures(m, g).and_then(|f| f.set(tset)).cloned();
                let on_items = Callback::new(move |items: ItemSelector| drill.set(Some(Drill::of(m, items))));
                let labels = run.model.label_set;
                let graphs = figures.as_ref().map(|f| {
                    f.drawn()
                        .map(|graph| {
                            let marks = graph.edges.clone();
                            let on_edge = Callback::new(move |(from, to): (Label, Label)| {
                                if let Some(e) = marks.iter().find(|e| e.value.from == from && e.value.to == to) {
                                    on_items.run(e.items.clone());
                                }
                            });
                            let edges = graph.edges.iter().map(|e| e.value.clone()).collect::<Vec<_>>();
                            view! { <TransitionGraphSvg edges=edges caption=graph.caption().to_string() set=labels on_edge=on_edge/> }
                        })
                        .collect::<Vec<_>>()
                });
                let table = figures.and_then(|f| f.table).map(|t| view! { <InvalidTable figure=t on_items=on_items/> });
                view! {
                    <div class="model-column" data-testid="model-column" data-model=run.model.name.clone()>
                        <h4 class="model-title">{run.model.label()}</h4>
                        <div class="figures">{graphs}</div>
                        {table}
                    </div>
                }
            })
            .collect::<Vec<_>>()
    };
    view! {
        <section class="operation" data-testid="operation" data-operation=tset.as_str()>
            <h3>{tset.title()}</h3>
            <p class="rule" data-testid="rule">{rule}</p>
            <div class="models-side">{columns}</div>
        </section>
    }
}

/// Where a section's numbers come from: run `model` of the result (and, for Table 8 computed
/// with the second model's hypothesis-only scores, run `hypothesis_model`).
#[derive(Clone, Copy)]
struct Source {
    model: usize,
    hypothesis_model: usize,
}

impl Source {
    fn of(model: usize) -> Self {
        Source {
            model,
            hypothesis_model: model,
        }
    }
}

/// A section as a table whose figures drill down to their items (the selectors core put
/// on its rows and cells).
fn section_table(
    section: Section,
    prefix: String,
    drill: RwSignal<Option<Drill>>,
    src: Source,
) -> AnyView {
    let on_items = Callback::new(move |items: ItemSelector| {
        drill.set(Some(Drill {
            model: src.model,
            hypothesis_model: src.hypothesis_model,
            items,
        }))
    });
    view! { <SectionTable section=section file_prefix=prefix on_items=on_items/> }.into_any()
}

/// One saved run in full.
#[component]
fn RunReport(saved: Arc<SavedRun>) -> impl IntoView {
    let runs: Vec<Arc<RunResult>> = saved.results.clone();
    let main = runs[0].clone();
    let drill = RwSignal::new(None::<Drill>);
    let set = &main.settings;
    let lin = set.linearization.describe();
    let present = |k: ProbeKind| main.items.iter().any(|it| it.probe == k);
    // The report's tables, built by the model worker; the stages that show them come once
    // they are here.
    let built = Built::default();
    // Where the report was built ("worker", or "page" when the worker could not) and why.
    let built_where = RwSignal::new(None::<(&'static str, Option<String>)>);
    // The report is shown in stages, a task each (see `STAGES`); stage 0 is shown now.
    let stage = RwSignal::new(0u8);
    {
        let built = built.clone();
        let saved = saved.clone();
        spawn_local(async move {
            let (report, place, note) = build_report(&saved).await;
            let _ = built.cell.set(report);
            if built_where.try_set(Some((place, note))).is_some() {
                return; // the report was closed
            }
            for k in 1..=STAGES {
                gloo::timers::future::TimeoutFuture::new(0).await;
                if stage.try_set(k).is_some() {
                    return; // the report was closed
                }
            }
        });
    }
    let at = move |k: u8| Memo::new(move |_| stage.get() >= k);
    let exports = runs
        .iter()
        .map(|r| {
            let r = r.clone();
            let name = format!("{}-{}.json", saved.meta.id, file_stem(&r));
            view! {
                <button class="small" data-testid="export-json" on:click=move |_| {
                    if let Ok(text) = serde_json::to_string_pretty(&*r) { download(&name, "application/json", &text) }
                }>{format!("Run file (JSON) — {}", r.model.label())}</button>
            }
        })
        .collect::<Vec<_>>();
    let models = runs
        .iter()
        .map(|r| {
            view! {
                <span class="model-name" data-testid="result-model">{r.model.name.clone()}</span>
                <code class="hash" title=r.model.weights_sha256.clone()>{r.model.weights_sha256.chars().take(12).collect::<String>()}</code>
                <span class="backend" data-testid="result-precision" title="the arithmetic the model ran in: f32, or f16-mixed on a WebGPU adapter with shader-f16 (see the model bar)">{r.model.precision.as_str()}</span>
            }
        })
        .collect::<Vec<_>>();
    let cancelled = main.cancelled_at.map(|p| {
        view! { <p class="warning" data-testid="result-cancelled">{format!("Cancelled after {} of {} forward passes: only the examples and items scored before the cancel are shown.", p.done, p.total)}</p> }
    });
    let truncated = main.pairs.iter().filter(|p| p.score.truncated).count();
    let tsets = transition_sets(&main);
    // Which group of examples the graphs and tables show: an index into each model's figures
    // (0 = every example, then the splits and reasoning categories core found).
    let group = RwSignal::new(0usize);
    let graphs = (!tsets.is_empty()).then(|| {
        let runs = runs.clone();
        let built = built.clone();
        deferred(at(1), "report-graphs-part", move || {
            let group_select = built.get().and_then(|r| r.figures.first()).filter(|f| f.len() > 1).map(|per_group| {
                let options = per_group
                    .iter()
                    .enumerate()
                    .map(|(k, f)| view! { <option value=k.to_string()>{f.group_label()}</option> })
                    .collect::<Vec<_>>();
                view! {
                    <label class="select">"Examples: "
                        <select data-testid="category" on:change=move |ev| {
                            group.set(event_target_value(&ev).parse().unwrap_or(0));
                        }>
                            {options}
                        </select>
                    </label>
                }
            });
            let blocks = tsets
                .iter()
                .map(|&t| view! { <SetBlock runs=runs.clone() tset=t built=built.clone() group=group drill=drill/> })
                .collect::<Vec<_>>();
            view! {
                <section id="graphs" class="result-part">
                    <div class="part-head">
                        <h2>"Transition graphs and invalid transitions"</h2>
                        {group_select}
                    </div>
                    <p class="hint">"Each edge: % of the items predicted the source label before that were predicted the target label after; black = valid under the rule, red = invalid. Click an edge or a table cell for its items."</p>
                    {blocks}
                </section>
            }
            .into_any()
        })
    });
    // Tables 4 and 7 count certain and reviewer-accepted items; unreviewed heuristic items
    // are left out (and counted) unless the reader asks for them.
    let include_heuristic = RwSignal::new(false);
    let has_scores = has_score_tables(&main);
    let score_runs = runs.clone();
    let score_report = built.clone();
    let scores_now = move || {
        let inc = include_heuristic.get();
        let report = score_report.get()?;
        let tables = score_runs
            .iter()
            .enumerate()
            .flat_map(|(m, r)| {
                let prefix = file_stem(r);
                let many = score_runs.len() > 1;
                let src = Source::of(m);
                let secs = if inc {
                    report.scores_with_heuristic.get(m)
                } else {
                    report.sections.get(m)
                };
                secs.cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|s| s.id.is_score_table())
                    .map(|mut s| {
                        if many {
                            s.title = format!("{} — {}", s.title, r.model.label());
                        }
                        // The bars first: the table below holds the same numbers.
                        let plot = view! { <ScorePlot section=s.clone()/> };
                        view! { {plot}{section_table(s, prefix.clone(), drill, src)} }.into_any()
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>();
        Some(tables)
    };
    let scores = has_scores.then(|| deferred(at(2), "report-scores", move || view! {
        <section id="scores" class="result-part">
            <h2>"Scores (Tables 4 and 7)"</h2>
            <p class="hint">"Accuracy (%) on the originals, on label-preserving and on label-flipping items: mean ± sd over 100 seeded samples of 80%, drawn as bars with ±sd error bars per probe and model, then as the tables. NEUTRAL examples are left out (paper §4, §6); certain and reviewer-accepted items are counted, and the columns heuristic_left_out / rejected_left_out / neutral_left_out say how many items each table left out. Click a row for the items it counts."</p>
            <label class="results-options">
                <input type="checkbox" data-testid="include-heuristic"
                    prop:checked=move || include_heuristic.get()
                    on:change=move |ev| include_heuristic.set(event_target_checked(&ev))/>
                " include heuristic items nobody has reviewed (their expected label may be wrong)"
            </label>
            {scores_now}
        </section>
    }.into_any()));
    let table1 = {
        let refs: Vec<&RunResult> = runs.iter().map(|r| r.as_ref()).collect();
        let s = table1_section(&refs);
        view! {
            <section id="accuracy" class="result-part" data-testid="table1">
                <h2>"Accuracy (Table 1)"</h2>
                {section_table(s, file_stem(&main), drill, Source::of(0))}
            </section>
        }
    };
    let table8 = ProbeKind::OTHER
        .iter()
        .any(|&k| k != ProbeKind::WordOrder && present(k))
        .then(|| {
            // Both Table 8s, switched by "include heuristic items"; with a second model its
            // hypothesis-only scores give O-Hypo.
            let stem = file_stem(&runs[0]);
            let t8_report = built.clone();
            let body = move || {
                let inc = include_heuristic.get();
                let report = t8_report.get()?;
                Some(match &report.table8 {
                    Ok(t8) => {
                        let src = Source {
                            hypothesis_model: t8.hypothesis_model,
                            ..Source::of(0)
                        };
                        let secs = if inc { &t8.with_heuristic } else { &t8.default };
                        secs.iter()
                            .map(|s| section_table(s.clone(), stem.clone(), drill, src))
                            .collect::<Vec<_>>()
                    }
                    Err(e) => vec![view! { <p class="problem">{e.clone()}</p> }.into_any()],
                })
            };
            deferred(at(3), "report-table8", move || {
                view! {
                    <section id="table8" class="result-part" data-testid="table8">
                        <h2>"Paired counterfactual analysis (Table 8)"</h2>
                        {body}
                    </section>
                }
                .into_any()
            })
        });
    let evidence = present(ProbeKind::RowDeletion).then(|| {
        let runs = runs.clone();
        let runs2 = runs.clone();
        let secs = built.clone();
        deferred(at(4), "report-evidence", move || {
            // The tables in the next task: with the per-example view in one, the dev split's
            // evidence part held the page for 70 ms.
            let tables = deferred(at(5), "report-evidence-tables", move || {
                pick(
                    &runs2,
                    secs.sections(),
                    &[
                        SectionId::Evidence,
                        SectionId::EvidenceExamples,
                        SectionId::Agreement,
                    ],
                    drill,
                )
                .into_any()
            });
            view! {
                <section id="evidence" class="result-part">
                    <h2>"Evidence selection (§5.3)"</h2>
                    <EvidenceView runs=runs.clone()/>
                    {tables}
                </section>
            }
            .into_any()
        })
    });
    let word_order = present(ProbeKind::WordOrder).then(|| {
        let runs = runs.clone();
        let secs = built.clone();
        deferred(at(6), "report-word-order", move || {
            word_order_part(&runs, &secs, drill)
        })
    });
    let all_tables = {
        let runs = runs.clone();
        let secs = built.clone();
        deferred(at(7), "report-all-tables", move || {
            all_tables_part(&runs, secs.sections().to_vec(), drill)
        })
    };
    let inoculation = {
        let main = main.clone();
        let id = saved.meta.id.clone();
        deferred(at(7), "report-inoculation", move || {
            view! { <InoculationPanel run=main run_id=id/> }.into_any()
        })
    };
    // Jump links to the sections this run has, in page order.
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
    .filter(|(_, _, has)| *has)
    .map(|(id, name, _)| {
        view! { <a href=format!("#{id}") data-testid="toc-link" data-section=id on:click=move |ev| scroll_to(ev, id)>{name}</a> }
    })
    .collect::<Vec<_>>();
    let drill_runs = runs.clone();
    let drill_view = move || {
        drill.get().map(|d| {
            view! { <ItemList runs=drill_runs.clone() drill=d on_close=Callback::new(move |_| drill.set(None))/> }
        })
    };
    view! {
        <article class="run-report" data-testid="run-report" data-run=saved.meta.id.clone()
            data-report=move || built_where.get().map(|(place, _)| place)>
            <header class="report-head">
                <h1>"Results"</h1>
                <p class="run-meta">
                    {models}
                    <span>{format!(" · {} · seed {} · {lin} · ", saved.meta.dataset, set.seed)}</span>
                    <button class="link" data-testid="head-count" title="list the items" on:click=move |_| drill.set(Some(Drill::of(0, ItemSelector::All)))>{format!("{} examples · {} items", main.examples.len(), main.items.len())}</button>
                    <span>{format!(" · {} forward passes", main.pairs.len())}</span>
                </p>
                {cancelled}
                {move || built_where.get().and_then(|(_, note)| note).map(|n| view! { <p class="warning" data-testid="report-note">{n}</p> })}
                {skipped_list(&main)}
                {(truncated > 0).then(|| view! { <p class="warning">{format!("{truncated} pair(s) had their premise truncated to fit the model: a probe that edits a part the model never saw is not evidence of anything.")}</p> })}
                <div class="exports">{exports}</div>
                <nav class="toc" data-testid="toc">{toc}</nav>
            </header>
            {table1}
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

/// The run's report (core's [`FullReport`]), set once it is built, before the stages that
/// show it.
#[derive(Clone, Default)]
struct Built {
    cell: Arc<OnceLock<FullReport>>,
}

impl Built {
    /// The report, once built.
    fn get(&self) -> Option<&FullReport> {
        self.cell.get()
    }

    /// Model `model`'s figures over its `group`-th group of examples (0 = every example), once
    /// the report is built.
    fn figures(&self, model: usize, group: usize) -> Option<&Figures> {
        self.get()?.figures.get(model)?.get(group)
    }

    /// Per model (in run order), its sections under the default options (none before the
    /// report is built).
    fn sections(&self) -> &[Vec<Section>] {
        self.get().map_or(&[], |r| r.sections.as_slice())
    }
}

/// The report of `saved`, built by the model worker from the run files in pieces (the Blob
/// the page stores, or for a run saved as one JSON text its pieces written here in slices),
/// and where it was built. When the worker cannot (it failed to start, or died), the page
/// builds it on its own thread rather than show nothing, and says why.
async fn build_report(saved: &SavedRun) -> (FullReport, &'static str, Option<String>) {
    let asked = async {
        let c = crate::worker::client::client()?;
        match &saved.pieces {
            Some(p) => c.build_report(Some(p), Vec::new()).await,
            None => {
                let parts = timing::run_pieces_sliced(saved.results.iter().map(|r| &**r)).await;
                c.build_report(None, parts).await
            }
        }
    }
    .await;
    match asked {
        Ok(report) => (report, "worker", None),
        Err(e) => {
            let runs: Vec<&RunResult> = saved.results.iter().map(|r| &**r).collect();
            let report = timing::timed("report-on-page", || FullReport::build(&runs));
            let note = format!(
                "The model worker could not build this report ({e}); this page built it instead, which may have held it for a moment."
            );
            (report, "page", Some(note))
        }
    }
}

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

/// The sections among `ids` of every model's report, as tables (titled with the model when
/// there are several).
fn pick(
    runs: &[Arc<RunResult>],
    per_model_sections: &[Vec<Section>],
    ids: &[SectionId],
    drill: RwSignal<Option<Drill>>,
) -> Vec<AnyView> {
    runs.iter()
        .zip(per_model_sections)
        .enumerate()
        .flat_map(|(m, (r, secs))| {
            let prefix = file_stem(r);
            secs.iter()
                .filter(|s| ids.contains(&s.id))
                .map(|s| {
                    let mut s = s.clone();
                    if runs.len() > 1 {
                        s.title = format!("{} — {}", s.title, r.model.label());
                    }
                    section_table(s, prefix.clone(), drill, Source::of(m))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Word order (UNLI §4): per model the Ω_x curve and the BLEU-2 chart (core's figures over
/// every example), then the tables.
fn word_order_part(
    runs: &[Arc<RunResult>],
    built: &Built,
    drill: RwSignal<Option<Drill>>,
) -> AnyView {
    let charts = runs
        .iter()
        .enumerate()
        .map(|(model, r)| {
            let on_items =
                Callback::new(move |items: ItemSelector| drill.set(Some(Drill::of(model, items))));
            let figures = built.figures(model, 0).and_then(|f| f.word_order.clone());
            let charts = figures.map(|w| {
                view! {
                    <OmegaCurve points=w.omega model=r.model.label() on_items=on_items/>
                    <BleuChart bins=w.bleu model=r.model.label() on_items=on_items/>
                }
            });
            view! {
                <div class="model-column">
                    <h4 class="model-title">{r.model.label()}</h4>
                    <div class="figures">{charts}</div>
                </div>
            }
        })
        .collect::<Vec<_>>();
    let tables = pick(
        runs,
        built.sections(),
        &[
            SectionId::WordOrder,
            SectionId::WordOrderOmega,
            SectionId::WordOrderBleu,
        ],
        drill,
    );
    view! {
        <section id="word-order" class="result-part">
            <h2>"Word order (UNLI §4)"</h2>
            <div class="models-side">{charts}</div>
            {tables}
        </section>
    }
    .into_any()
}

/// Every section of every model's report, each model's in a closed `<details>`.
fn all_tables_part(
    runs: &[Arc<RunResult>],
    per_model_sections: Vec<Vec<Section>>,
    drill: RwSignal<Option<Drill>>,
) -> AnyView {
    runs.iter()
        .zip(per_model_sections)
        .enumerate()
        .map(|(m, (r, secs))| {
            let prefix = file_stem(r);
            let tables = secs
                .into_iter()
                .map(|s| section_table(s, prefix.clone(), drill, Source::of(m)))
                .collect::<Vec<_>>();
            view! {
                <details class="all-tables">
                    <summary>{format!("Every table of the report, with the breakdowns by split and category — {}", r.model.label())}</summary>
                    {tables}
                </details>
            }
        })
        .collect::<Vec<_>>()
        .into_any()
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
