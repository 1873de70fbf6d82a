//! One editable row of the table editor: relevance mark, key, values as an editable list (a
//! multi-valued cell grows and shrinks), and move / insert / delete by buttons, keyboard
//! (Alt+↑ / Alt+↓ on the row handle) and drag and drop. Edits go through the shared history.

use leptos::prelude::*;
use tabprobe_core::edit::{History, RowChange, TableDiff, TableDraft};
use tabprobe_core::Table;

/// The draft's history, shared by every row and the editor's undo/redo.
pub type DraftHistory = RwSignal<History<TableDraft>>;

/// Applies `f` to a copy of the current draft and records it; `group` merges keystrokes of
/// one field into one undo step.
pub fn edit_draft(history: DraftHistory, group: Option<String>, f: impl FnOnce(&mut TableDraft)) {
    history.update(|h| {
        let mut d = h.current().clone();
        f(&mut d);
        match group {
            Some(g) => h.apply_grouped(d, &g),
            None => h.apply(d),
        };
    });
}

/// Moves keyboard focus to the handle of row `i` (after a keyboard move).
fn focus_handle(i: usize) {
    use wasm_bindgen::JsCast;
    let found = document()
        .query_selector(&format!("[data-testid=row-handle][data-row=\"{i}\"]"))
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(el) = found {
        let _ = el.focus();
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
struct RowData {
    key: String,
    values: Vec<String>,
    relevant: bool,
}

fn row_data(d: &TableDraft, i: usize) -> RowData {
    let (key, values) = match &d.table {
        Table::KeyValue(t) => t
            .rows
            .get(i)
            .map(|r| (r.key.clone(), r.values.clone()))
            .unwrap_or_default(),
        Table::Relational(t) => (String::new(), t.rows.get(i).cloned().unwrap_or_default()),
    };
    RowData {
        key,
        values,
        relevant: d.relevant.get(i).copied().unwrap_or(false),
    }
}

/// Row `i` of the draft. `header` is the relational header (empty for key–value tables).
#[component]
pub fn RowEditor(
    i: usize,
    history: DraftHistory,
    diff: Memo<TableDiff>,
    header: Vec<String>,
    dragging: RwSignal<Option<usize>>,
) -> impl IntoView {
    let key_value = header.is_empty();
    let data = Memo::new(move |_| history.with(|h| row_data(h.current(), i)));
    let count = Memo::new(move |_| history.with(|h| h.current().table.row_count()));
    let n_values = Memo::new(move |_| data.with(|d| d.values.len()));
    let mark = move || {
        diff.with(|d| {
            let moved = d.moved.get(i).copied().unwrap_or(false);
            match d.rows.get(i) {
                Some(RowChange::Added) => "added",
                Some(RowChange::Changed { .. }) => "changed",
                _ if moved => "moved",
                _ => "same",
            }
        })
    };
    let move_to = move |to: usize| {
        edit_draft(history, None, |d| d.move_row(i, to));
        // Rows are keyed by position, so row `to`'s handle already exists: focus it now, not
        // in a later frame, or a quick second Alt+↑ would land on the old position.
        focus_handle(to);
    };
    let values = move || {
        (0..n_values.get())
            .map(|j| value_item(i, j, &header, key_value, history, data, n_values))
            .collect::<Vec<_>>()
    };
    view! {
        <li class=move || format!("row-editor {}", mark()) data-testid="row-editor" data-row=i data-mark=mark
            class:relevant=move || data.with(|d| d.relevant)
            class:drop-target=move || dragging.get().is_some_and(|d| d != i)
            on:dragover=move |ev| ev.prevent_default()
            on:drop=move |ev| {
                ev.prevent_default();
                if let Some(from) = dragging.get_untracked() {
                    edit_draft(history, None, |d| d.move_row(from, i));
                }
                dragging.set(None);
            }
        >
            {row_handle(i, count, dragging, move_to)}
            <label class="relevant-mark" title="Mark as relevant evidence for the hypothesis">
                <input type="checkbox" data-testid="relevant-toggle" prop:checked=move || data.with(|d| d.relevant)
                    on:change=move |_| edit_draft(history, None, |d| d.toggle_relevant(i))/>
                <span class="sr">"relevant"</span>
            </label>
            {key_value.then(|| view! {
                <input class="key" data-testid="key-input" aria-label="key" placeholder="key"
                    prop:value=move || data.with(|d| d.key.clone())
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        edit_draft(history, Some(format!("key {i}")), |d| d.set_key(i, &v));
                    }/>
            })}
            <ul class="value-list" class:cells=!key_value>
                {values}
                {key_value.then(|| view! {
                    <li><button class="link-button" data-testid="add-value" on:click=move |_| edit_draft(history, None, |d| d.add_value(i))>"+ value"</button></li>
                })}
            </ul>
            {row_actions(i, count, history, move_to)}
        </li>
    }
}

/// The handle of row `i`: dragged to reorder, or moved with Alt+↑ / Alt+↓ (`move_to`).
fn row_handle(
    i: usize,
    count: Memo<usize>,
    dragging: RwSignal<Option<usize>>,
    move_to: impl Fn(usize) + Copy + 'static,
) -> impl IntoView {
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if !ev.alt_key() {
            return;
        }
        match ev.key().as_str() {
            "ArrowUp" if i > 0 => {
                ev.prevent_default();
                move_to(i - 1);
            }
            "ArrowDown" if i + 1 < count.get_untracked() => {
                ev.prevent_default();
                move_to(i + 1);
            }
            _ => {}
        }
    };
    view! {
        <button class="handle" draggable="true" data-testid="row-handle" data-row=i
            title="Drag to reorder, or Alt+↑ / Alt+↓" aria-label=format!("row {}: move with Alt+arrow keys", i + 1)
            on:keydown=on_key
            on:dragstart=move |ev| {
                if let Some(dt) = ev.data_transfer() {
                    let _ = dt.set_data("text/plain", &i.to_string());
                    dt.set_effect_allowed("move");
                }
                dragging.set(Some(i));
            }
            on:dragend=move |_| dragging.set(None)
        >"⋮⋮"</button>
    }
}

/// Value `j` of row `i`: its field, and a remove button on a multi-valued key–value row.
fn value_item(
    i: usize,
    j: usize,
    header: &[String],
    key_value: bool,
    history: DraftHistory,
    data: Memo<RowData>,
    n_values: Memo<usize>,
) -> impl IntoView {
    let value = move || data.with(|d| d.values.get(j).cloned().unwrap_or_default());
    let label = header
        .get(j)
        .cloned()
        .unwrap_or_else(|| format!("value {}", j + 1));
    let removable = key_value && n_values.get() > 1;
    view! {
        <li class="value-item">
            <input class="value" data-testid="value-input" aria-label=label.clone() placeholder=label
                prop:value=value
                on:input=move |ev| {
                    let v = event_target_value(&ev);
                    edit_draft(history, Some(format!("value {i} {j}")), |d| d.set_value(i, j, &v));
                }/>
            {removable.then(|| view! {
                <button class="icon small" title="Remove this value" aria-label="remove value" data-testid="remove-value"
                    on:click=move |_| edit_draft(history, None, |d| d.remove_value(i, j))>"×"</button>
            })}
        </li>
    }
}

/// Row `i`'s buttons: move up and down (`move_to`), insert below, delete.
fn row_actions(
    i: usize,
    count: Memo<usize>,
    history: DraftHistory,
    move_to: impl Fn(usize) + Copy + 'static,
) -> impl IntoView {
    view! {
        <span class="row-actions">
            <button class="icon" title="Move up" aria-label="move row up" data-testid="row-up" disabled=move || i == 0
                on:click=move |_| move_to(i.saturating_sub(1))>"↑"</button>
            <button class="icon" title="Move down" aria-label="move row down" data-testid="row-down" disabled=move || { count.get() <= i + 1 }
                on:click=move |_| move_to(i + 1)>"↓"</button>
            <button class="icon" title="Insert an empty row below" aria-label="insert row below" data-testid="row-insert"
                on:click=move |_| edit_draft(history, None, |d| d.insert_row(i + 1))>"+"</button>
            <button class="icon danger" title="Delete this row" aria-label="delete row" data-testid="row-delete"
                on:click=move |_| edit_draft(history, None, |d| d.delete_row(i))>"✕"</button>
        </span>
    }
}
