//! One inoculation result: the §7 outcome, the original test sets (as Tables 9 and 11) and the
//! held-out challenge set (as Tables 10 and 12) before and after, every figure drilling down
//! to the items it counts (core's `Cell::counts`, the predicate the figure is computed with),
//! the fine-tuning grid, and per kept size: load it as the second model, download it as a
//! Hugging Face folder's files.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::inoculation::outcome::of_model;
use tabprobe_core::inoculation::tables::{
    challenge_splits, format_percent, heading, split_name, splits, CHALLENGE_COLUMNS,
};
use tabprobe_core::inoculation::{Cell, Column, InoculationResult};
use tabprobe_worker::protocol::Slot;

use crate::runs::inoculation_jobs::session_job;
use crate::state::AppState;
use crate::storage::download::{download, download_bytes};
use crate::storage::inoculation_store::SavedInoculation;
use crate::worker::client::client;
use crate::worker::health::ModelSource;
use tabprobe_core::scoring::DEFAULT_BATCH_SIZE;

/// Items listed under a figure at most (the count says how many there are).
const DRILL_LIMIT: usize = 200;

/// A saved inoculation result.
/// A saved inoculation result.
#[component]
pub fn InoculationResultView(saved: Arc<SavedInoculation>) -> impl IntoView {
    let result = Arc::new(saved.result.clone());
    let drill = RwSignal::new(None::<Cell>);
    let outcomes = outcome_items(&result);
    let originals = original_table(&result, drill);
    let challenge = challenge_table(&result, drill);
    let grid_rows = grid_rows(&result);
    let checkpoints = checkpoint_buttons(saved.clone());
    let json_name = format!("inoculation-{}.json", saved.created_ms as u64);
    let json_result = result.clone();
    let drill_result = result.clone();
    let drill_view = move || {
        let cell = drill.get()?;
        Some(
            view! { <DrillList result=drill_result.clone() cell=cell on_close=Callback::new(move |_| drill.set(None))/> },
        )
    };
    view! {
        <div class="inoculation-result" data-testid="inoculation-result">
            <p class="run-meta">{format!(
                "{} · {} challenge items ({} evaluated only) · seed {} · {:.1} s",
                result.model.name, result.challenge_items, result.evaluate_only, result.settings.seed, result.seconds
            )}
                " "<button class="small" data-testid="inoculation-json" on:click=move |_| {
                    if let Ok(text) = serde_json::to_string_pretty(&*json_result) { download(&json_name, "application/json", &text) }
                }>"Result (JSON)"</button>
            </p>
            <h3>"Outcome (§7)"</h3>
            <ul class="outcomes">{outcomes}</ul>
            <p class="hint">{format!("Δ = after − before on every original example (pooled) and on every held-out challenge item (pooled); a change counts when it exceeds {} percentage point(s). Outcome 1: challenge up, original holds; 2: neither moves; 3: challenge up, original down.", result.settings.tolerance_pp)}</p>
            {originals}
            {challenge}
            {drill_view}
            <details class="grid">
                <summary>"Fine-tuning grid"</summary>
                <table class="scores"><thead><tr><th>"n"</th><th>"lr"</th><th>"dev acc %"</th><th>"best epoch"</th><th>"steps"</th><th>""</th><th>"time"</th><th>"stopped"</th></tr></thead>
                <tbody>{grid_rows}</tbody></table>
            </details>
            {checkpoints}
        </div>
    }
}

/// The §7 outcome of each fine-tuned size, one list item each.
fn outcome_items(r: &InoculationResult) -> Vec<impl IntoView> {
    (1..r.models.len())
        .map(|m| {
            let o = of_model(r, m);
            let number = o.number().map_or("none".to_string(), |n| n.to_string());
            view! { <li data-testid="inoculation-outcome" data-outcome=number data-size=r.models[m].size>{format!("n = {}: {}", r.models[m].size, o.describe())}</li> }
        })
        .collect()
}

/// The accuracy of row `model` on `split` in `column`; a click opens the items it counts in
/// `drill`.
fn result_cell(
    model: usize,
    split: &str,
    column: Column,
    result: &InoculationResult,
    drill: RwSignal<Option<Cell>>,
) -> impl IntoView {
    let cell = Cell {
        model,
        split: Some(split.to_string()),
        column,
    };
    let (right, all) = cell.tally(result);
    let text = format_percent(cell.percent(result));
    let title = format!("{right} of {all} correct: click for the items");
    let testid_column = format!("{:?}", cell.column);
    let split = cell.split.clone().unwrap_or_default();
    view! {
        <td class="clickable" tabindex="0" title=title data-testid="inoculation-cell"
            data-model=model data-split=split data-column=testid_column data-correct=right data-total=all
            on:click=move |_| drill.set(Some(cell.clone()))>{text}</td>
    }
}

/// The original test sets before and after (as Tables 9 and 11).
fn original_table(result: &InoculationResult, drill: RwSignal<Option<Cell>>) -> impl IntoView {
    let splits = splits(result);
    let head = splits
        .iter()
        .map(|s| view! { <th scope="col">{split_name(s).to_string()}</th> })
        .collect::<Vec<_>>();
    let rows = result
        .models
        .iter()
        .enumerate()
        .map(|(m, model)| {
            let cells = splits
                .iter()
                .map(|s| result_cell(m, s, Column::OriginalTest, result, drill))
                .collect::<Vec<_>>();
            view! { <tr><th scope="row">{model.row_name()}</th><td>{lr_text(model.learning_rate)}</td>{cells}</tr> }
        })
        .collect::<Vec<_>>();
    view! {
        <h3>"Original test sets (as Tables 9 and 11), accuracy %"</h3>
        <div class="table-scroll"><table class="scores" data-testid="inoculation-original">
            <thead><tr><th scope="col">"#samples"</th><th scope="col">"lr"</th>{head}</tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
    }
}

/// The held-out challenge set before and after (as Tables 10 and 12), one row group per
/// split.
fn challenge_table(result: &InoculationResult, drill: RwSignal<Option<Cell>>) -> impl IntoView {
    let head = CHALLENGE_COLUMNS
        .iter()
        .map(|&c| view! { <th scope="col">{heading(c)}</th> })
        .collect::<Vec<_>>();
    let groups = challenge_splits(result)
        .into_iter()
        .flat_map(|split| {
            let title = view! { <tr class="group"><th colspan="5" scope="rowgroup">{format!("{} set", split_name(&split))}</th></tr> }.into_any();
            let rows = result
                .models
                .iter()
                .enumerate()
                .map(|(m, model)| {
                    let cells = CHALLENGE_COLUMNS
                        .iter()
                        .map(|&column| result_cell(m, &split, column, result, drill))
                        .collect::<Vec<_>>();
                    view! { <tr><th scope="row">{model.row_name()}</th>{cells}</tr> }.into_any()
                })
                .collect::<Vec<_>>();
            std::iter::once(title).chain(rows)
        })
        .collect::<Vec<_>>();
    view! {
        <h3>"Held-out challenge set (as Tables 10 and 12), accuracy %"</h3>
        <p class="hint">"Original: the unperturbed examples the held-out items derive from. Label preserved / flipped: items whose one expected label is / is not the original's gold label. Several labels: items whose rule allows more than one label (never trained on; right when the prediction is any of them)."</p>
        <div class="table-scroll"><table class="scores" data-testid="inoculation-challenge">
            <thead><tr><th scope="col">"#samples"</th>{head}</tr></thead>
            <tbody>{groups}</tbody>
        </table></div>
    }
}

/// The fine-tuning grid's rows: one per size and learning rate tried.
fn grid_rows(result: &InoculationResult) -> Vec<impl IntoView> {
    result
        .grid
        .iter()
        .map(|g| {
            view! {
                <tr data-testid="inoculation-grid-row" class:chosen=g.chosen>
                    <td>{g.size}</td><td>{format!("{:e}", g.learning_rate)}</td>
                    <td>{format!("{:.2}", 100.0 * g.dev_accuracy)}</td><td>{g.best_epoch}</td>
                    <td>{g.steps}</td><td>{if g.chosen { "kept" } else { "" }}</td>
                    <td>{format!("{:.1} s", g.seconds)}</td><td>{g.stopped.clone()}</td>
                </tr>
            }
        })
        .collect()
}

fn lr_text(lr: Option<f64>) -> String {
    lr.map_or("–".to_string(), |l| format!("{l:e}"))
}

/// Load / download buttons per kept size, while this page's worker holds the weights.
fn checkpoint_buttons(saved: Arc<SavedInoculation>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let message = RwSignal::new(None::<String>);
    let loaded = RwSignal::new(false);
    let Some(job) = session_job(&saved.id) else {
        return view! {
            <p class="muted" data-testid="inoculation-weights-gone">"The fine-tuned weights of this result are gone (they live in the page that trained them until it closes). Run the inoculation again to load or download them."</p>
        }
        .into_any();
    };
    let buttons = saved
        .result
        .models
        .iter()
        .skip(1)
        .map(|m| {
            let size = m.size;
            let name = saved.result.model.name.clone();
            let load = move |_| {
                message.set(Some(format!("loading n = {size} as the second model…")));
                spawn_local(async move {
                    let result = match client() {
                        Ok(c) => {
                            let backend = state.backend.get_untracked();
                            c.load_inoculated(job, size, Slot::Second, DEFAULT_BATCH_SIZE, backend, state.precision.get_untracked()).await
                        }
                        Err(e) => Err(e),
                    };
                    match result {
                        Ok(info) => {
                            let label = info.id.name.clone();
                            state.model_loaded(Slot::Second, info, ModelSource::Files);
                            let _ = message.try_set(Some(format!("{label} is loaded as the second model: the Probe runner runs it beside the main model on any probe.")));
                            let _ = loaded.try_set(true);
                        }
                        Err(e) => {
                            let _ = message.try_set(Some(e));
                        }
                    }
                });
            };
            let save = move |_| {
                let name = name.clone();
                spawn_local(async move {
                    let files = match client() {
                        Ok(c) => c.export_inoculated(job, size).await,
                        Err(e) => Err(e),
                    };
                    match files {
                        Ok(files) => {
                            for (file, bytes) in files {
                                download_bytes(&format!("{name}-inoculated-n{size}-{file}"), &bytes);
                            }
                        }
                        Err(e) => {
                            let _ = message.try_set(Some(e));
                        }
                    }
                });
            };
            view! {
                <li>
                    <button class="small" data-testid="load-inoculated" data-size=size on:click=load>{format!("Load n = {size} as the second model")}</button>
                    " "<button class="small" data-testid="download-inoculated" data-size=size on:click=save>{format!("Download n = {size} (config.json, model.safetensors, tokenizer)")}</button>
                </li>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <h3>"Fine-tuned models"</h3>
        <p class="hint">"Downloads are named <model>-inoculated-n<size>-<file>: put the three files in a folder under their own names (config.json, model.safetensors, tokenizer.json) and transformers loads it."</p>
        <ul class="checkpoints">{buttons}</ul>
        {move || message.get().map(|m| view! {
            <p class="note" data-testid="inoculation-message">{m}
                {move || loaded.get().then(|| view! { " "<a href="#/runner" data-testid="inoculation-to-runner">"Open the Probe runner →"</a> })}
            </p>
        })}
    }
    .into_any()
}

/// The items a figure counts, with every model's prediction.
#[component]
fn DrillList(result: Arc<InoculationResult>, cell: Cell, on_close: Callback<()>) -> impl IntoView {
    let items: Vec<_> = result.items.iter().filter(|it| cell.counts(it)).collect();
    let total = items.len();
    let model_heads = result
        .models
        .iter()
        .map(|m| view! { <th scope="col">{format!("n = {}", m.size).replace("n = 0", "before")}</th> })
        .collect::<Vec<_>>();
    let rows = items
        .iter()
        .take(DRILL_LIMIT)
        .map(|it| {
            let preds = it
                .predicted
                .iter()
                .enumerate()
                .map(|(m, p)| {
                    let right = it.correct(m);
                    view! { <td class:right=right class:wrong=!right>{p.as_str()}</td> }
                })
                .collect::<Vec<_>>();
            let expected: Vec<&str> = it.expected.iter().map(|l| l.as_str()).collect();
            view! {
                <tr data-testid="inoculation-item">
                    <td><code>{it.id.clone()}</code></td>
                    <td>{it.probe.map(|p| p.display_name()).unwrap_or_else(|| "original".into())}</td>
                    <td>{it.gold.as_str()}</td>
                    <td>{expected.join(" or ")}</td>
                    {preds}
                </tr>
            }
        })
        .collect::<Vec<_>>();
    let what = format!(
        "{} — {}, {}: {total} item(s){}",
        heading(cell.column),
        cell.split
            .as_deref()
            .map(split_name)
            .unwrap_or("all splits"),
        result
            .models
            .get(cell.model)
            .map(|m| m.row_name())
            .unwrap_or_default(),
        if total > DRILL_LIMIT {
            format!(" (first {DRILL_LIMIT} listed)")
        } else {
            String::new()
        }
    );
    view! {
        <div class="item-list" data-testid="inoculation-drill" data-count=total>
            <div class="section-head">
                <h4>{what}</h4>
                <button class="small" on:click=move |_| on_close.run(())>"close"</button>
            </div>
            <div class="table-scroll"><table class="scores">
                <thead><tr><th>"item"</th><th>"probe"</th><th>"gold"</th><th>"expected"</th>{model_heads}</tr></thead>
                <tbody>{rows}</tbody>
            </table></div>
        </div>
    }
}
