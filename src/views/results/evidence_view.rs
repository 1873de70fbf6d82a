//! The per-example evidence view (docs/probes-and-metrics.md#evidence-selection, docs/using-the-site.md#results): for one example of a row-deletion run, each
//! row of its table marked human-relevant (annotated), model-relevant (deleting it changed
//! the model's prediction), both or neither, with every model's prediction after the deletion.
//! Runs are lined up by example id ([`RunResult::examples_in`]): a second model's run that was
//! cancelled holds fewer examples, and the ones it lacks are shown as "not run".

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::metrics::evidence::{row_deletions, EvidenceMark, RowDeletion};
use tabprobe_core::probe::edit_table::row_name;
use tabprobe_core::probe::Premise;
use tabprobe_core::run::RunResult;
use tabprobe_core::{Label, LabelSet, Table};

use crate::components::in_chunks::in_chunks;
use crate::components::label_badge::LabelBadge;
use crate::components::share_button::ShareButton;
use tabprobe_core::share::from_run_item;

/// Options of the example select built in one task (see [`in_chunks`]).
const OPTIONS_PER_TASK: usize = 300;

/// One model's cell for one row of the example on screen.
#[derive(Clone, Copy)]
enum After {
    /// The prediction after deleting the row, and whether it differs from the original one.
    Deleted(Label, bool),
    /// The run holds the example but no deletion of this row.
    NotDeleted,
    /// The run does not hold the example (e.g. it was cancelled before it).
    NotRun,
}

fn row_cells(table: &Table) -> Vec<(String, String)> {
    match table {
        Table::KeyValue(t) => t
            .rows
            .iter()
            .map(|r| (r.key.clone(), r.values.join(" ; ")))
            .collect(),
        Table::Relational(t) => t
            .rows
            .iter()
            .map(|cells| {
                (
                    cells.first().cloned().unwrap_or_default(),
                    cells
                        .iter()
                        .skip(1)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" | "),
                )
            })
            .collect(),
    }
}

/// What the view looks up, found once for the runs it shows.
struct EvidenceIndex {
    /// Per run: its single-row deletions by example position and row.
    per_model: Vec<BTreeMap<usize, BTreeMap<usize, RowDeletion>>>,
    /// Per run, per example position of the main run: the same example's position in that
    /// run.
    aligned: Vec<Vec<Option<usize>>>,
    /// The main run's examples that have row deletions, annotated ones first (they are the
    /// ones the marks compare).
    order: Vec<usize>,
}

impl EvidenceIndex {
    fn new(runs: &[Arc<RunResult>]) -> Self {
        let per_model: Vec<_> = runs.iter().map(|r| row_deletions(r)).collect();
        let Some((main, d)) = runs.first().zip(per_model.first()) else {
            return EvidenceIndex {
                per_model,
                aligned: Vec::new(),
                order: Vec::new(),
            };
        };
        // A run whose items point past its examples is not shown: nothing here may index
        // out of range.
        let mut order: Vec<usize> = d
            .keys()
            .copied()
            .filter(|&p| p < main.examples.len())
            .collect();
        order.sort_by_key(|&p| {
            main.examples
                .get(p)
                .is_none_or(|e| e.relevant_rows.as_ref().is_none_or(|r| r.is_empty()))
        });
        let aligned = runs.iter().map(|r| main.examples_in(r)).collect();
        EvidenceIndex {
            per_model,
            aligned,
            order,
        }
    }
}

/// The view; a note when the run has no single-row deletions.
///
/// Shown two tasks after it is created: the index of the runs' deletions is built in the
/// first (the dev split's 15,723 items), the view in the second. Built with the report's
/// stage in one task, they held the page for 55 ms.
#[component]
pub fn EvidenceView(
    /// Runs, main model first (the marks follow the main model).
    runs: Vec<Arc<RunResult>>,
) -> impl IntoView {
    let index = RwSignal::new(None::<Arc<EvidenceIndex>>);
    {
        let runs = runs.clone();
        spawn_local(async move {
            gloo::timers::future::TimeoutFuture::new(0).await;
            let built = crate::timing::timed("evidence-index", || EvidenceIndex::new(&runs));
            gloo::timers::future::TimeoutFuture::new(0).await;
            // The view may have been closed meanwhile.
            let _ = index.try_set(Some(Arc::new(built)));
        });
    }
    move || {
        let ix = index.get()?;
        Some(indexed_view(runs.clone(), ix))
    }
}

/// The view of `runs` once their index is built.
fn indexed_view(runs: Vec<Arc<RunResult>>, ix: Arc<EvidenceIndex>) -> AnyView {
    let (Some(main), Some(&first)) = (runs.first().cloned(), ix.order.first()) else {
        return view! { <p class="muted">"Run the row-deletion probe to see which rows the model uses."</p> }.into_any();
    };
    let chosen = RwSignal::new(first);
    let options = example_options(main.clone(), ix.clone());
    let body = move || example_body(&runs, &main, &ix, chosen.get());
    view! {
        <div class="evidence-view" data-testid="evidence-view">
            <p class="legend">
                <span class="key both">"human + model"</span>
                <span class="key human">"human only (annotated, deletion changed nothing)"</span>
                <span class="key model">"model only (deletion changed the prediction)"</span>
                " Each model column: the prediction after deleting that row."
            </p>
            <label class="select">"Example "
                <select data-testid="evidence-example" on:change=move |ev| {
                    if let Ok(p) = event_target_value(&ev).parse() { chosen.set(p) }
                }>{options}</select>
            </label>
            {body}
        </div>
    }
    .into_any()
}

/// The example select's options, annotated examples first.
fn example_options(main: Arc<RunResult>, ix: Arc<EvidenceIndex>) -> impl IntoView {
    // The dev split has 1,800 examples: their options are added a few hundred per task.
    in_chunks(ix.order.len(), OPTIONS_PER_TASK, move |range| {
        ix.order[range]
            .iter()
            .filter_map(|&p| Some((p, main.examples.get(p)?)))
            .map(|(p, ex)| {
                let mark = if ex.relevant_rows.as_ref().is_some_and(|r| !r.is_empty()) {
                    " (annotated)"
                } else {
                    ""
                };
                view! { <option value=p.to_string()>{format!("{}{mark} — {}", ex.id, ex.input.hypothesis)}</option> }
            })
            .collect::<Vec<_>>()
    })
}

/// Example `p` of the main run: its hypothesis, and its table with each row's marks and
/// every model's prediction after deleting it; `None` without a table premise.
fn example_body(
    runs: &[Arc<RunResult>],
    main: &Arc<RunResult>,
    ix: &EvidenceIndex,
    p: usize,
) -> Option<impl IntoView> {
    let ex = main.examples.get(p)?.clone();
    let Premise::Table(table) = &ex.input.premise else {
        return None;
    };
    let set = main.label_set;
    let human = ex.relevant_rows.clone().unwrap_or_default();
    // The example's position in each run, `None` where that run never scored it.
    let at: Vec<Option<usize>> = ix
        .aligned
        .iter()
        .map(|a| a.get(p).copied().flatten())
        .collect();
    let heads = model_heads(runs, &at, set);
    let rows = row_cells(table)
        .into_iter()
        .enumerate()
        .map(|(i, (key, values))| {
            let row = EvidenceRow {
                i,
                key,
                values,
                is_human: human.contains(&i),
            };
            evidence_row(runs, main, ix, &at, p, row)
        })
        .collect::<Vec<_>>();
    Some(view! {
        <p class="evidence-hyp"><span class="muted">"Hypothesis: "</span>{ex.input.hypothesis.clone()}" "<span class="muted">"gold "</span><LabelBadge label=ex.gold set=set/></p>
        <div class="table-scroll">
            <table class="evidence" data-testid="evidence-table">
                <caption>{table.title().to_string()}</caption>
                <thead><tr><th scope="col">"row"</th><th scope="col">"value"</th><th scope="col">"relevant to"</th>{heads}<th scope="col"><span class="visually-hidden">"share"</span></th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    })
}

/// One column head per run: the model and its original prediction on the example at `at`.
fn model_heads(runs: &[Arc<RunResult>], at: &[Option<usize>], set: LabelSet) -> Vec<AnyView> {
    runs.iter()
        .zip(at)
        .map(|(r, q)| {
            let label = r.model.label();
            match q.and_then(|q| r.examples.get(q)) {
                Some(e) => {
                    let before = r.original_prediction(e);
                    view! { <th scope="col">{label}" (original: "<LabelBadge label=before set=set/>")"</th> }.into_any()
                }
                None => view! { <th scope="col">{label}" (not run on this example)"</th> }.into_any(),
            }
        })
        .collect()
}

/// One row of the example's table, as the evidence table lists it.
struct EvidenceRow {
    /// Its position in the table.
    i: usize,
    key: String,
    values: String,
    /// Whether the example's annotation marks it relevant.
    is_human: bool,
}

/// Each run's cell for row `i` of the example at `at` (the example's position per run).
fn afters_of(
    runs: &[Arc<RunResult>],
    ix: &EvidenceIndex,
    at: &[Option<usize>],
    i: usize,
) -> Vec<After> {
    runs.iter()
        .zip(&ix.per_model)
        .zip(at)
        .map(|((r, d), q)| {
            let Some(q) = q.filter(|&q| q < r.examples.len()) else {
                return After::NotRun;
            };
            // Core's rule: the row is model-relevant when its deletion changed
            // the prediction, as the evidence-selection figures count it.
            match d.get(&q).and_then(|rows| rows.get(&i)) {
                Some(del) => After::Deleted(del.after, del.changed),
                // A cancelled run may hold the example without all its rows.
                None if r.cancelled_at.is_some() => After::NotRun,
                None => After::NotDeleted,
            }
        })
        .collect()
}

/// A table row of the example at main-run position `p`: its mark (human, model, both,
/// neither), every model's prediction after deleting it, and its share button.
fn evidence_row(
    runs: &[Arc<RunResult>],
    main: &RunResult,
    ix: &EvidenceIndex,
    at: &[Option<usize>],
    p: usize,
    row: EvidenceRow,
) -> impl IntoView {
    let EvidenceRow {
        i,
        key,
        values,
        is_human,
    } = row;
    let set = main.label_set;
    let afters = afters_of(runs, ix, at, i);
    let is_model = matches!(afters.first(), Some(After::Deleted(_, true)));
    let mark = EvidenceMark::of(is_human, is_model);
    // The main run's deletion of this row, shared with every other model's scores.
    let shared = ix
        .per_model
        .first()
        .and_then(|d| d.get(&p)?.get(&i))
        .and_then(|del| main.items.get(del.item))
        .and_then(|it| {
            let others: Vec<&RunResult> = runs.iter().skip(1).map(|r| r.as_ref()).collect();
            from_run_item(main, it, &others)
        });
    let share =
        shared.map(|s| view! { <ShareButton result=Signal::stored(Some(s)) label="Share"/> });
    let cells = afters
        .into_iter()
        .map(|a| after_cell(a, set))
        .collect::<Vec<_>>();
    view! {
        <tr class=format!("evidence-row {}", mark.as_str()) data-testid="evidence-row" data-mark=mark.as_str()>
            <th scope="row">{row_name(&key, i)}</th>
            <td>{values}</td>
            <td class="mark">{mark.words()}</td>
            {cells}
            <td class="actions">{share}</td>
        </tr>
    }
}

/// One model's cell of a row: its prediction after the deletion, or why there is none.
fn after_cell(a: After, set: LabelSet) -> AnyView {
    match a {
        After::Deleted(after, changed) => view! {
            <td class:changed=changed>
                <LabelBadge label=after set=set/>
                {changed.then_some(" changed")}
            </td>
        }
        .into_any(),
        After::NotDeleted => view! { <td class="muted">"not deleted"</td> }.into_any(),
        After::NotRun => {
            view! { <td class="muted" data-testid="evidence-not-run">"not run"</td> }.into_any()
        }
    }
}
