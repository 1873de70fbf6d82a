//! The table editor (docs/using-the-site.md#the-table-editor, issue 6 item 1): edit the work item's table — title, keys,
//! values, rows (add, delete, reorder by keyboard and drag), relevance marks — with undo/redo,
//! the change against the original, the model's live prediction on the edited table beside
//! the original's, "save as probe item" with an asserted label, and a share link.

use leptos::prelude::*;
use tabprobe_core::edit::{
    diff_with_origin, HandMadeItem, HandMadeOperation, History, TableDiff, TableDraft,
};
use tabprobe_core::share::{SharedInput, SharedResult};
use tabprobe_core::{Label, LabelSet, Table};

use crate::components::evidence_marks::EvidenceMarks;
use crate::components::label_badge::LabelBadge;
use crate::components::live_prediction::{use_live_score, LiveScore};
use crate::components::model_panel::ModelPanel;
use crate::components::row_editor::{edit_draft, RowEditor};
use crate::components::save_item::CHOOSE_LABEL;
use crate::components::table_diff::TableDiffView;
use crate::components::workbench::{
    annotated_rows, label_set, live_pair, share_waits, work_result, NoWorkItem, ProbeItemPanel,
    WorkbenchHeader, WorkbenchSide,
};
use crate::route::Route;
use crate::state::{AppState, EditorDraft, WorkItem};

/// The editor screen: the work item, or what to do to get one.
#[component]
pub fn EditorView() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match state.work_item.get() {
        Some(item) => view! { <Editor item=item/> }.into_any(),
        None => view! { <NoWorkItem what="table editor"/> }.into_any(),
    }
}

/// The editor for one work item: its table to edit, and beside it the live predictions,
/// save, share, evidence rows and changes.
#[component]
fn Editor(item: WorkItem) -> impl IntoView {
    let state = expect_context::<AppState>();
    let set = label_set(state);
    let original = item.table.clone();
    // The unsaved draft of this item, kept across navigation and reloads (state, session).
    let kept = state.editor_draft.with_untracked(|d| {
        d.as_ref()
            .filter(|d| d.item == item)
            .and_then(|d| Some((d.table_draft()?, d.asserted)))
    });
    let (start, start_label) = match kept {
        Some((draft, label)) => (draft, label),
        None => (
            TableDraft::new(original.clone(), &annotated_rows(state, &item)),
            item.label,
        ),
    };
    let history = RwSignal::new(History::new(start));
    let draft = Memo::new(move |_| history.with(|h| h.current().clone()));
    let edited_table = Memo::new(move |_| draft.with(|d| d.table.clone()));
    let original_signal = Signal::stored(original.clone());
    let diff = {
        let original = original.clone();
        Memo::new(move |_| draft.with(|d| diff_with_origin(&original, &d.table, &d.origin)))
    };
    let header = match &original {
        Table::Relational(t) => t.header.clone(),
        Table::KeyValue(_) => Vec::new(),
    };

    let hypothesis = item.hypothesis.clone();
    let fixed_hypothesis = Signal::stored(hypothesis.clone());
    let original_pair = live_pair(state, Signal::stored(original.clone()), fixed_hypothesis);
    let edited_pair = live_pair(state, edited_table.into(), fixed_hypothesis);
    let before = use_live_score(original_pair);
    let after = use_live_score(edited_pair);
    let asserted = RwSignal::new(start_label);
    keep_draft(state, item.clone(), draft, asserted);

    let save_item = edit_to_save(&item, original.clone(), draft, asserted);
    // A probe item stays itself until its table is edited: its link is the probe result.
    let edited = {
        let original = original.clone();
        Signal::derive(move || edited_table.with(|t| *t != original))
    };
    let shared = edit_shared(
        state,
        &item,
        edited_table,
        edited,
        asserted,
        (before, after),
    );

    let share_waiting = share_waits(before, after, &item, edited);
    let go_rewriter = open_in_rewriter(state, &item, edited_table);

    view! {
        <section class="workbench editor" data-testid="editor">
            <WorkbenchHeader title="Table editor" origin=item.origin.clone() history=history>
                <button class="button" on:click=go_rewriter title="Rewrite the hypothesis against this table">"Rewrite hypothesis →"</button>
            </WorkbenchHeader>
            <ModelPanel/>
            <div class="wb-grid">
                <div class="wb-main">
                    {hypothesis_box(item.label, set, hypothesis.clone())}
                    <TableEditor history=history edited_table=edited_table diff=diff header=header/>
                </div>
                <WorkbenchSide titles=("Original table", "Edited table") before=before after=after gold=item.label
                    asserted=asserted set=set save_item=save_item shared=shared share_waiting=share_waiting
                    save_hint="Assert the label the edited table gives the hypothesis (a label-flipping counterfactual if it differs from the original's).">
                    <ProbeItemPanel item=item.clone() edited=edited/>
                    {evidence_panel(&item, draft)}
                    <div class="panel">
                        <h2>"Changes"</h2>
                        <TableDiffView original=original_signal edited=edited_table diff=diff/>
                    </div>
                </WorkbenchSide>
            </div>
        </section>
    }
}

/// "Rewrite hypothesis →": the work item with the edited table, opened in the rewriter.
fn open_in_rewriter(
    state: AppState,
    item: &WorkItem,
    edited_table: Memo<Table>,
) -> impl Fn(leptos::ev::MouseEvent) + 'static {
    let item = item.clone();
    move |_| {
        let mut it = item.clone();
        it.table = edited_table.get_untracked();
        state.work_item.set(Some(it));
        crate::route::navigate(Route::Rewriter);
    }
}

/// The hypothesis the table is edited against, with its gold label.
fn hypothesis_box(label: Option<Label>, set: LabelSet, hypothesis: String) -> impl IntoView {
    view! {
        <div class="hypothesis-box">
            <span class="muted">"Hypothesis "</span>
            {label.map(|l| view! { <LabelBadge label=l set=set/> })}
            <p class="hypothesis-text" data-testid="work-hypothesis">{hypothesis}</p>
        </div>
    }
}

/// The evidence rows of the item's dataset example against the draft; none without an
/// example.
fn evidence_panel(item: &WorkItem, draft: Memo<TableDraft>) -> Option<impl IntoView> {
    let table = item.table.clone();
    item.example_id.clone().map(|id| {
        view! {
            <div class="panel">
                <h2>"Evidence rows"</h2>
                <EvidenceMarks example_id=id draft=draft table=table/>
            </div>
        }
    })
}

/// Keeps the draft of `item` in the state (kept across navigation and reloads) as it
/// changes.
fn keep_draft(
    state: AppState,
    item: WorkItem,
    draft: Memo<TableDraft>,
    asserted: RwSignal<Option<Label>>,
) {
    Effect::new(move |_| {
        let d = EditorDraft::new(item.clone(), &draft.get(), asserted.get());
        state.editor_draft.set(Some(d));
    });
}

/// The share link's result: the probe item's own while its table is as it was, else the
/// edited table with the asserted label and the `(before, after)` live scores.
fn edit_shared(
    state: AppState,
    item: &WorkItem,
    edited_table: Memo<Table>,
    edited: Signal<bool>,
    asserted: RwSignal<Option<Label>>,
    (before, after): (ReadSignal<LiveScore>, ReadSignal<LiveScore>),
) -> Signal<Option<SharedResult>> {
    let (item, h) = (item.clone(), item.hypothesis.clone());
    Signal::derive(move || {
        if let (Some(r), false) = (&item.probe_result, edited.get()) {
            return Some(r.clone());
        }
        let after_input = SharedInput {
            table: Some(edited_table.get()),
            premise: None,
            hypothesis: h.clone(),
        };
        Some(work_result(
            state,
            &item,
            if item.probe_result.is_some() {
                "hand edit of the probe item's table"
            } else {
                "table edited by hand"
            },
            HandMadeOperation::EditTable.as_str(),
            after_input,
            asserted.get(),
            &before.get(),
            &after.get(),
        ))
    })
}

/// The hand-made item the edited table saves, or what to fix before it can.
fn edit_to_save(
    item: &WorkItem,
    original: Table,
    draft: Memo<TableDraft>,
    asserted: RwSignal<Option<Label>>,
) -> Signal<Result<HandMadeItem, String>> {
    let item = item.clone();
    Signal::derive(move || {
        draft.with(|d| {
            let problems = d.problems();
            if !problems.is_empty() {
                return Err(format!("Fix before saving: {}.", problems.join("; ")));
            }
            if d.table == original {
                return Err("Edit the table to make a new item.".to_string());
            }
            let Some(label) = asserted.get() else {
                return Err(CHOOSE_LABEL.into());
            };
            Ok(HandMadeItem {
                derived_from: item.example_id.clone(),
                table: Some(d.table.clone()),
                premise: None,
                hypothesis: item.hypothesis.clone(),
                label,
                relevant_rows: Some(d.relevant_rows()),
                operation: HandMadeOperation::EditTable,
            })
        })
    })
}

/// The edited table's fields: its title or caption, its columns (a relational table's), and
/// its rows, to edit, mark, add and reorder.
#[component]
fn TableEditor(
    history: RwSignal<History<TableDraft>>,
    edited_table: Memo<Table>,
    diff: Memo<TableDiff>,
    /// The original's column names (none for a key-value table).
    header: Vec<String>,
) -> impl IntoView {
    let rows = Memo::new(move |_| edited_table.with(|t| t.row_count()));
    let dragging = RwSignal::new(None::<usize>);
    view! {
        <div class="table-editor">
            <label class="title-field">
                <span>{if header.is_empty() { "Title" } else { "Caption" }}</span>
                <input data-testid="title-input" prop:value=move || edited_table.with(|t| t.title().to_string())
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        edit_draft(history, Some("title".into()), |d| d.set_title(&v));
                    }/>
            </label>
            {(!header.is_empty()).then(|| {
                let columns = (0..header.len()).map(|j| view! {
                    <input class="column" data-testid="column-input" aria-label=format!("column {}", j + 1)
                        prop:value=move || edited_table.with(|t| match t { Table::Relational(r) => r.header.get(j).cloned().unwrap_or_default(), Table::KeyValue(_) => String::new() })
                        on:input=move |ev| {
                            let v = event_target_value(&ev);
                            edit_draft(history, Some(format!("column {j}")), |d| d.set_column(j, &v));
                        }/>
                }).collect::<Vec<_>>();
                view! { <div class="columns-editor"><span class="muted">"Columns"</span>{columns}</div> }
            })}
            <p class="hint">"☐ marks a row as relevant evidence. Drag ⋮⋮ or press Alt+↑ / Alt+↓ on it to reorder; Ctrl+Z / Ctrl+Shift+Z undo and redo."</p>
            <ol class="rows-editor" data-testid="rows-editor">
                <For each=move || 0..rows.get() key=|i| *i let:i>
                    <RowEditor i=i history=history diff=diff header=header.clone() dragging=dragging/>
                </For>
            </ol>
            <button class="button" data-testid="add-row" on:click=move |_| edit_draft(history, None, |d| d.insert_row(usize::MAX))>"+ Add row"</button>
        </div>
    }
}
