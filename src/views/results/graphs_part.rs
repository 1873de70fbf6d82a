//! The report's transition graphs and invalid-transition tables: one block per transition
//! set, one column per model, over the group of examples the reader chooses.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::metrics::TransitionSet;
use tabprobe_core::report::ItemSelector;
use tabprobe_core::run::RunResult;
use tabprobe_core::Label;

use super::built::Built;
use super::item_list::Drill;
use crate::components::score_tables::InvalidTable;
use crate::components::transition_graph::TransitionGraphSvg;

/// The graphs part of a report: the choice of examples, then a [`SetBlock`] per transition set.
#[component]
pub fn GraphsPart(
    runs: Vec<Arc<RunResult>>,
    /// The run's transition sets, in report order.
    tsets: Vec<TransitionSet>,
    built: Built,
    drill: RwSignal<Option<Drill>>,
) -> impl IntoView {
    // An index into each model's figures (0 = every example, then the splits and reasoning
    // categories core found).
    let group = RwSignal::new(0usize);
    let group_select = built.get().and_then(|b| {
        let per_group = b.report.figures.first().filter(|f| f.len() > 1)?;
        let options = per_group
            .iter()
            .enumerate()
            .map(|(k, f)| view! { <option value=k.to_string()>{f.group_label()}</option> })
            .collect::<Vec<_>>();
        Some(view! {
            <label class="select">"Examples: "
                <select data-testid="category" on:change=move |ev| {
                    group.set(event_target_value(&ev).parse().unwrap_or(0));
                }>
                    {options}
                </select>
            </label>
        })
    });
    let blocks = tsets
        .iter()
        .map(
            |&t| view! { <SetBlock runs=runs.clone() tset=t built=built group=group drill=drill/> },
        )
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
    let rule = built
        .get()
        .and_then(|b| b.figures(0, 0)?.set(tset)?.rule.clone());
    let columns = move || {
        let g = group.get();
        let report = built.get();
        runs.iter()
            .enumerate()
            .map(|(m, run)| {
                let figures = report
                    .as_ref()
                    .and_then(|b| b.figures(m, g)?.set(tset).cloned());
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
