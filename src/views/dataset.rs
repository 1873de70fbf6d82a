//! The dataset browser (docs/using-the-site.md#the-dataset-browser): counts per split and label, a searchable table
//! list, and the chosen table with its hypotheses and gold labels.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::data::summary::{split_name, DatasetSummary, LabelCounts, TableSummary};
use tabprobe_core::{Dataset, Label, LabelSet};

use tabprobe_core::data::export::to_infotabs_tsv;

use crate::components::model_panel::ModelPanel;
use crate::components::predictions::{HypothesisList, PremiseSource};
use crate::components::table_view::TableView;
use crate::state::{AppState, LoadedDataset};
use crate::storage::files::download;

/// The dataset screen.
#[component]
pub fn DatasetView() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match state.dataset.get() {
        Some(loaded) => view! { <Browser loaded=loaded/> }.into_any(),
        None => {
            let status = move || {
                match state.loading.get() {
                Some(f) => format!("Loading {f}…"),
                None => {
                    "No dataset loaded. Use “Load data…” or “Load folder…”, or drop a dataset JSON, published data files or a .zip on the page."
                        .to_string()
                }
            }
            };
            view! { <p class="empty" data-testid="no-dataset">{status}</p> }.into_any()
        }
    }
}

/// What the detail pane shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Selection {
    /// The table at this index of `Dataset::tables`.
    Table(usize),
    /// The examples with a plain-text premise.
    TextPremises,
}

/// Browser for one loaded dataset; rebuilt whenever a new dataset replaces it.
#[component]
fn Browser(loaded: LoadedDataset) -> impl IntoView {
    let query = RwSignal::new(String::new());
    let first = match loaded.summary.tables.first() {
        Some(t) => Some(Selection::Table(t.index)),
        None => (loaded.summary.text_premise_examples > 0).then_some(Selection::TextPremises),
    };
    let selected = RwSignal::new(first);
    let label_set = loaded.dataset.label_set;
    view! {
        <div class="dataset-view">
        {guidance(&loaded)}
        <SummarySection loaded=loaded.clone()/>
        <ModelPanel/>
        <div class="browser">
            <aside class="tables">
                <input
                    type="search"
                    placeholder="Search titles…"
                    data-testid="search"
                    prop:value=move || query.get()
                    on:input=move |ev| query.set(event_target_value(&ev))
                />
                <TableList summary=loaded.summary.clone() query=query selected=selected set=label_set/>
            </aside>
            <section class="detail" data-testid="table-detail">
                <SelectionDetail dataset=loaded.dataset.clone() selected=selected set=label_set/>
            </section>
        </div>
        </div>
    }
}

/// First visit (the bundled demo on screen): what this is and what to try, where the eye lands.
fn guidance(loaded: &LoadedDataset) -> Option<impl IntoView> {
    (loaded.file == crate::storage::files::DEMO_URL).then(|| {
        view! {
            <p class="guidance" data-testid="guidance">
                "This is the INFOTABS demo: Wikipedia infobox tables with hypotheses a model must judge from them. Pick a hypothesis to see its evidence rows and the model's prediction, then open the "
                <a href=crate::route::Route::Runner.href()>"Probe runner"</a>
                " to test whether the model really uses those rows."
            </p>
        }
    })
}

/// The dataset's name, counts, exports and label counts per split.
#[component]
fn SummarySection(loaded: LoadedDataset) -> impl IntoView {
    let summary = loaded.summary.clone();
    let label_set = loaded.dataset.label_set;
    let totals = summary.totals();
    let split_rows = summary
        .by_split
        .iter()
        .map(|(split, c)| {
            view! {
                <tr>
                    <th scope="row">{split_name(split.as_deref()).to_string()}</th>
                    {label_set.labels().iter().map(|l| view! { <td>{c.get(*l)}</td> }).collect::<Vec<_>>()}
                    <td>{c.total()}</td>
                </tr>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <section class="dataset-summary" data-testid="dataset-summary">
            <h1>{loaded.dataset.name.clone()}</h1>
            <p class="counts">
                {format!("{} tables · {} examples", loaded.dataset.tables.len(), totals.total())}
                {(summary.text_premise_examples > 0).then(|| format!(" · {} with a text premise", summary.text_premise_examples))}
            </p>
            <ExportButtons loaded=loaded.clone()/>
            <table class="split-counts">
                <thead>
                    <tr>
                        <th>"split"</th>
                        {label_set.labels().iter().map(|l| view! { <th>{label_set.display_name(*l)}</th> }).collect::<Vec<_>>()}
                        <th>"total"</th>
                    </tr>
                </thead>
                <tbody>{split_rows}</tbody>
            </table>
        </section>
    }
}

/// The tables whose titles match `query`, and the plain-text premises entry; a click selects.
#[component]
fn TableList(
    summary: Arc<DatasetSummary>,
    query: RwSignal<String>,
    selected: RwSignal<Option<Selection>>,
    set: LabelSet,
) -> impl IntoView {
    move || {
        let q = query.get();
        let hits: Vec<TableSummary> = summary.search(&q).into_iter().cloned().collect();
        let count = hits.len();
        let items = hits
            .into_iter()
            .map(|t| table_entry(t, selected, set))
            .collect::<Vec<_>>();
        let text_count = summary.text_premise_examples;
        let text_entry = (text_count > 0).then(|| {
            view! {
                <li>
                    <button
                        class="table-item"
                        class:selected=move || selected.get() == Some(Selection::TextPremises)
                        data-testid="text-premises-item"
                        on:click=move |_| selected.set(Some(Selection::TextPremises))
                    >
                        <span class="title">"Plain-text premises"</span>
                        <span class="meta"><span class="n">{format!("{text_count} examples")}</span></span>
                    </button>
                </li>
            }
        });
        view! {
            <p class="hits" data-testid="table-count">{format!("{count} of {} tables", summary.tables.len())}</p>
            <ul class="table-list">{items}{text_entry}</ul>
        }
    }
}

/// One table of the list: title, id, hypothesis and label counts, splits.
fn table_entry(
    t: TableSummary,
    selected: RwSignal<Option<Selection>>,
    label_set: LabelSet,
) -> impl IntoView {
    let index = t.index;
    view! {
        <li>
            <button
                class="table-item"
                class:selected=move || selected.get() == Some(Selection::Table(index))
                data-testid="table-item"
                on:click=move |_| selected.set(Some(Selection::Table(index)))
            >
                <span class="title">{t.title.clone()}</span>
                <span class="meta">
                    <span class="id">{t.id.clone()}</span>
                    <span class="n">{format!("{} hyp.", t.labels.total())}</span>
                    <Counts counts=t.labels set=label_set/>
                    <span class="splits">{t.splits.iter().map(|s| split_name(s.as_deref())).collect::<Vec<_>>().join(", ")}</span>
                </span>
            </button>
        </li>
    }
}

/// The detail pane: the selected table with its hypotheses, or the plain-text premises.
#[component]
fn SelectionDetail(
    dataset: Arc<Dataset>,
    selected: RwSignal<Option<Selection>>,
    set: LabelSet,
) -> impl IntoView {
    move || match selected.get()? {
        Selection::Table(i) => dataset.tables.get(i).cloned().map(|table| {
            let examples: Vec<_> = dataset
                .examples
                .iter()
                .filter(|e| e.table.as_deref() == Some(table.id()))
                .cloned()
                .collect();
            view! { <TableDetail table=table examples=examples set=set/> }.into_any()
        }),
        Selection::TextPremises => {
            let examples: Vec<_> = dataset
                .examples
                .iter()
                .filter(|e| e.table.is_none())
                .cloned()
                .collect();
            let chosen = RwSignal::new(None);
            Some(
                view! {
                    <div class="table-pane"><p class="hint">"Each example below carries its own premise."</p></div>
                    <HypothesisList examples=examples source=PremiseSource::Text set=set chosen=chosen/>
                }
                .into_any(),
            )
        }
    }
}

/// Downloads of the loaded dataset: the product's JSON, and INFOTABS-style TSV of its
/// table-premise examples for other tools.
#[component]
fn ExportButtons(loaded: LoadedDataset) -> impl IntoView {
    let stem = {
        let n = loaded.dataset.name.trim();
        let n: String = n
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        if n.is_empty() {
            "dataset".to_string()
        } else {
            n
        }
    };
    let json = {
        let (d, stem) = (loaded.dataset.clone(), stem.clone());
        move |_| {
            if let Ok(text) = d.to_json_pretty() {
                download(&format!("{stem}.json"), "application/json", &(text + "\n"));
            }
        }
    };
    let with_table = loaded
        .dataset
        .examples
        .iter()
        .filter(|e| e.table.is_some())
        .count();
    let tsv = {
        let d = loaded.dataset.clone();
        move |_| {
            let out = to_infotabs_tsv(&d.examples);
            download(
                &format!("{stem}.tsv"),
                "text/tab-separated-values",
                &out.text,
            );
        }
    };
    view! {
        <div class="export-buttons">
            <button data-testid="export-json" on:click=json title="The whole dataset as tabprobe dataset JSON">"Export JSON"</button>
            <button
                data-testid="export-tsv"
                on:click=tsv
                disabled=with_table == 0
                title="Examples with a table premise as INFOTABS-style TSV (annotater_id, table_id, hypothesis, label)"
            >
                {format!("Export INFOTABS TSV ({with_table} examples)")}
            </button>
        </div>
    }
}

/// `E 3 · N 3 · C 3` for a table's examples.
#[component]
fn Counts(counts: LabelCounts, set: LabelSet) -> impl IntoView {
    let parts = set
        .labels()
        .iter()
        .map(|l| {
            let class = match l {
                Label::Entail => "count entail",
                Label::Neutral => "count neutral",
                Label::Contradict => "count contradict",
            };
            view! { <span class=class title=set.display_name(*l)>{counts.get(*l)}</span> }
        })
        .collect::<Vec<_>>();
    view! { <span class="label-counts">{parts}</span> }
}

/// One table and its hypotheses; choosing a hypothesis marks its relevant rows.
#[component]
fn TableDetail(
    table: tabprobe_core::Table,
    examples: Vec<tabprobe_core::Example>,
    set: LabelSet,
) -> impl IntoView {
    let chosen = RwSignal::new(None::<usize>);
    let relevant = {
        let examples = examples.clone();
        move || {
            chosen
                .get()
                .and_then(|i| examples.get(i))
                .and_then(|e| e.relevant_rows.clone())
                .unwrap_or_default()
        }
    };
    let shown = table.clone();
    view! {
        <div class="table-pane">
            {move || view! { <TableView table=shown.clone() relevant=relevant()/> }}
            <p class="hint">"Choose a hypothesis to mark its annotated evidence rows."</p>
        </div>
        <HypothesisList examples=examples source=PremiseSource::Table(table) set=set chosen=chosen/>
    }
}
