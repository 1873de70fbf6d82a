//! Pieces the table editor and the hypothesis rewriter share: the empty state, the header with
//! undo/redo (buttons and keyboard), and the side column with the before/after predictions,
//! "save as probe item" and the share link.

use leptos::prelude::*;
use tabprobe_core::edit::HandMadeItem;
use tabprobe_core::share::SharedResult;
use tabprobe_core::{Label, LabelSet};

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

/// Title, origin and the undo/redo toolbar; `children` adds buttons to the toolbar.
#[component]
pub fn WorkbenchHeader(
    title: &'static str,
    origin: String,
    #[prop(into)] can_undo: Signal<bool>,
    #[prop(into)] can_redo: Signal<bool>,
    on_undo: Callback<()>,
    on_redo: Callback<()>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    undo_redo_keys(move || on_undo.run(()), move || on_redo.run(()));
    view! {
        <header class="wb-head">
            <div>
                <h1>{title}</h1>
                <p class="muted origin" data-testid="work-origin">{origin}</p>
            </div>
            <div class="wb-tools" role="toolbar" aria-label="history">
                <button class="button" data-testid="undo" on:click=move |_| on_undo.run(())
                    disabled=move || !can_undo.get() title="Undo (Ctrl+Z)">"↶ Undo"</button>
                <button class="button" data-testid="redo" on:click=move |_| on_redo.run(())
                    disabled=move || !can_redo.get() title="Redo (Ctrl+Shift+Z or Ctrl+Y)">"↷ Redo"</button>
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
    asserted: RwSignal<Label>,
    set: LabelSet,
    #[prop(into)] save_item: Signal<Result<HandMadeItem, String>>,
    #[prop(into)] shared: Signal<Option<SharedResult>>,
    /// A line above the save box.
    #[prop(optional)]
    save_hint: Option<&'static str>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    view! {
        <aside class="wb-side">
            <div class="score-pair">
                <ScoreCard title=titles.0 score=before expected=Signal::stored(gold) set=set testid="score-before"/>
                <ScoreCard title=titles.1 score=after expected=Signal::derive(move || Some(asserted.get())) set=set testid="score-after"/>
            </div>
            <div class="panel">
                <h2>"Save as probe item"</h2>
                {save_hint.map(|h| view! { <p class="muted">{h}</p> })}
                <SaveItem item=save_item label=asserted set=set/>
            </div>
            <div class="panel">
                <h2>"Share"</h2>
                <ShareButton result=shared/>
            </div>
            {children.map(|c| c())}
        </aside>
    }
}
