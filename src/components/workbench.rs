//! Pieces the table editor and the hypothesis rewriter share: the empty state, the header with
//! undo/redo (buttons and keyboard), and the side column with the before/after predictions,
//! "save as probe item" and the share link.

use leptos::prelude::*;
use tabprobe_core::edit::{HandMadeItem, History};
use tabprobe_core::probe::Expectation;
use tabprobe_core::scoring::Pair;
use tabprobe_core::share::{SharedInput, SharedPredictions, SharedResult};
use tabprobe_core::{Label, LabelSet, Table};
use tabprobe_worker::protocol::Slot;

use crate::components::live_prediction::{LiveScore, ScoreCard};
use crate::components::save_item::SaveItem;
use crate::components::share_button::ShareButton;
use crate::route::Route;
use crate::state::{AppState, WorkItem};

/// The empty state of the editor and the rewriter.
#[component]
pub fn NoWorkItem(what: &'static str) -> impl IntoView {
    view! {
        <section class="empty-state" data-testid="no-work-item">
            <h1>{format!("Nothing open in the {what}")}</h1>
            <p>"Open an item first: in the "<a href=Route::Dataset.href()>"Dataset"</a>" view choose a table, then press "
               <strong>"edit table"</strong>" or "<strong>"rewrite"</strong>" on one of its hypotheses."</p>
            <p class="muted">"Probe results open here too, from their drill-downs and from shared links."</p>
        </section>
    }
}

/// The dataset's label set, or three-way when nothing is loaded.
pub fn label_set(state: AppState) -> LabelSet {
    state
        .dataset
        .with_untracked(|d| d.as_ref().map(|d| d.dataset.label_set))
        .unwrap_or_default()
}

/// Relevant rows annotated on the work item's dataset example, if any.
pub fn annotated_rows(state: AppState, item: &WorkItem) -> Vec<usize> {
    if let Some(rows) = &item.relevant_rows {
        return rows.clone();
    }
    let Some(id) = item.example_id.as_deref() else {
        return Vec::new();
    };
    state.dataset.with_untracked(|d| {
        d.as_ref()
            .and_then(|d| {
                d.dataset
                    .examples
                    .iter()
                    .find(|e| e.id.as_deref() == Some(id))
            })
            .and_then(|e| e.relevant_rows.clone())
            .unwrap_or_default()
    })
}

/// Ctrl/⌘+Z undoes, Ctrl/⌘+Shift+Z and Ctrl+Y redo, while the view is open.
pub fn undo_redo_keys(undo: impl Fn() + 'static, redo: impl Fn() + 'static) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if !(ev.ctrl_key() || ev.meta_key()) {
            return;
        }
        match ev.key().to_lowercase().as_str() {
            "z" if ev.shift_key() => {
                ev.prevent_default();
                redo();
            }
            "z" => {
                ev.prevent_default();
                undo();
            }
            "y" => {
                ev.prevent_default();
                redo();
            }
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());
}

/// The pair the model scores for `table` and `hypothesis` under the chosen linearization.
pub fn live_pair(
    state: AppState,
    table: Signal<Table>,
    hypothesis: Signal<String>,
) -> Signal<Result<Pair, String>> {
    Signal::derive(move || {
        let s = state.linearization_of(Slot::Main);
        table.with(|t| hypothesis.with(|h| s.table_pair(t, h).map_err(|e| e.to_string())))
    })
}

/// The share-link result of a work item and its edit: what was edited (`after`, with `how`
/// appended to the origin), under `operation`, with the asserted label as the expectation and
/// both predictions when both are in.
#[allow(clippy::too_many_arguments)]
pub fn work_result(
    state: AppState,
    item: &WorkItem,
    how: &str,
    operation: &str,
    after: SharedInput,
    asserted: Option<Label>,
    before_score: &LiveScore,
    after_score: &LiveScore,
) -> SharedResult {
    let predictions =
        before_score
            .score()
            .zip(after_score.score())
            .map(|(b, a)| SharedPredictions {
                before: b.into(),
                after: a.into(),
            });
    SharedResult {
        origin: format!("{}, {how}", item.origin),
        example_id: item.example_id.clone(),
        operation: operation.to_string(),
        before: SharedInput {
            table: Some(item.table.clone()),
            premise: None,
            hypothesis: item.hypothesis.clone(),
        },
        after,
        gold: item.label,
        rule: None,
        expectation: asserted.map(|l| Expectation::Label { labels: vec![l] }),
        certainty: None,
        basis: None,
        model: state.slot(Slot::Main).model.get().map(|m| m.id),
        predictions,
        other_models: Vec::new(),
        linearization: state.linearization_of(Slot::Main),
    }
}

/// Whether the share link of `item` waits for the live predictions: while either is being
/// computed, unless the link is the item's probe result (an unedited probe item carries the
/// run's predictions and needs no live ones).
pub fn share_waits(
    before: ReadSignal<LiveScore>,
    after: ReadSignal<LiveScore>,
    item: &WorkItem,
    edited: Signal<bool>,
) -> Signal<bool> {
    let probe = item.probe_result.is_some();
    Signal::derive(move || {
        let pending =
            before.with(|b| *b == LiveScore::Pending) || after.with(|a| *a == LiveScore::Pending);
        pending && (edited.get() || !probe)
    })
}

/// The probe item the work item was opened from, as the run scored it (operation, rule,
/// expectation, certainty, each model's predictions), and a note once the user has edited it:
/// from then on the item is a hand edit of the probe item.
#[component]
pub fn ProbeItemPanel(item: WorkItem, #[prop(into)] edited: Signal<bool>) -> impl IntoView {
    let Some(result) = item.probe_result.clone() else {
        return ().into_any();
    };
    let page = tabprobe_core::share::view::SharePage::new(&result);
    let name = result.origin.clone();
    view! {
        <div class="panel probe-item">
            <h2>"Probe item"</h2>
            <p class="muted">{format!("{name}, as the run scored it (original → perturbed).")}</p>
            <crate::components::probe_facts::ProbeFacts page=page/>
            {move || edited.get().then(|| view! {
                <p class="note" data-testid="hand-edit-note" role="status">
                    {format!("You edited it: it is now a hand edit of {name}. Its link and a saved item carry the label you assert, not the probe's expectation.")}
                </p>
            })}
        </div>
    }
    .into_any()
}

/// Title, origin and the undo/redo toolbar over `history` (buttons, and the keyboard while
/// the view is open); `children` adds buttons to the toolbar.
#[component]
pub fn WorkbenchHeader<T>(
    title: &'static str,
    origin: String,
    history: RwSignal<History<T>>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let undo = move || {
        history.update(|h| {
            h.undo();
        })
    };
    let redo = move || {
        history.update(|h| {
            h.redo();
        })
    };
    undo_redo_keys(undo, redo);
    // Focus lands on the heading of the item just opened (issue 18 §5).
    let heading = NodeRef::<leptos::html::H1>::new();
    Effect::new(move |_| {
        if let Some(h) = heading.get() {
            let _ = h.focus();
        }
    });
    view! {
        <header class="wb-head">
            <div>
                <h1 tabindex="-1" node_ref=heading>{title}</h1>
                <p class="muted origin" data-testid="work-origin">{origin}</p>
            </div>
            <div class="wb-tools" role="toolbar" aria-label="history">
                <button class="button" data-testid="undo" on:click=move |_| undo()
                    disabled=move || history.with(|h| h.undo_depth() == 0) title="Undo (Ctrl+Z)">"↶ Undo"</button>
                <button class="button" data-testid="redo" on:click=move |_| redo()
                    disabled=move || history.with(|h| h.redo_depth() == 0) title="Redo (Ctrl+Shift+Z or Ctrl+Y)">"↷ Redo"</button>
                {children.map(|c| c())}
            </div>
        </header>
    }
}

/// The side column: predictions on the original and the edited item, saving, sharing.
#[component]
pub fn WorkbenchSide(
    /// Card titles: what the original and the edited item are.
    titles: (&'static str, &'static str),
    before: ReadSignal<LiveScore>,
    after: ReadSignal<LiveScore>,
    gold: Option<Label>,
    asserted: RwSignal<Option<Label>>,
    set: LabelSet,
    #[prop(into)] save_item: Signal<Result<HandMadeItem, String>>,
    #[prop(into)] shared: Signal<Option<SharedResult>>,
    /// Whether `shared`'s predictions are still being computed (Copy link then waits).
    #[prop(into)]
    share_waiting: Signal<bool>,
    /// A line above the save box.
    #[prop(optional)]
    save_hint: Option<&'static str>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    view! {
        <aside class="wb-side">
            <div class="score-pair">
                <ScoreCard title=titles.0 score=before expected=Signal::stored(gold) set=set testid="score-before"/>
                <ScoreCard title=titles.1 score=after expected=Signal::derive(move || asserted.get()) set=set testid="score-after"/>
            </div>
            <div class="panel">
                <h2>"Save as probe item"</h2>
                {save_hint.map(|h| view! { <p class="muted">{h}</p> })}
                <SaveItem item=save_item label=asserted set=set/>
            </div>
            <div class="panel">
                <h2>"Share"</h2>
                <ShareButton result=shared waiting=share_waiting/>
            </div>
            {children.map(|c| c())}
        </aside>
    }
}
