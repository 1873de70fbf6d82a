//! "Edit table" / "Rewrite" buttons on a dataset hypothesis: they open the item in the table
//! editor or the hypothesis rewriter (by setting `AppState::work_item`).

use leptos::prelude::*;
use tabprobe_core::{Example, Table};

use crate::route::{navigate, Route};
use crate::state::{AppState, WorkItem};

/// The work item for a dataset example and its table.
pub fn work_item_of(example: &Example, table: &Table) -> WorkItem {
    WorkItem {
        example_id: example.id.clone(),
        table: table.clone(),
        hypothesis: example.hypothesis.clone(),
        label: Some(example.label),
        origin: match &example.id {
            Some(id) => format!("dataset example {id}"),
            None => format!("dataset table {}", table.id()),
        },
        relevant_rows: None,
        probe_result: None,
    }
}

/// Two small buttons that open `example` (judged against `table`) for hand editing.
#[component]
pub fn OpenItemButtons(example: Example, table: Table) -> impl IntoView {
    let state = expect_context::<AppState>();
    let item = work_item_of(&example, &table);
    let open = move |route: Route| {
        let item = item.clone();
        move |ev: leptos::ev::MouseEvent| {
            // The hypothesis line itself toggles its evidence rows; these buttons do not.
            ev.stop_propagation();
            state.work_item.set(Some(item.clone()));
            navigate(route.clone());
        }
    };
    view! {
        <span class="open-item">
            <button class="link-button" data-testid="edit-table" on:click=open(Route::Editor)
                title="Edit this table by hand and watch the prediction change">"edit table"</button>
            <button class="link-button" data-testid="rewrite" on:click=open(Route::Rewriter)
                title="Rewrite this hypothesis, with suggested perturbations">"rewrite"</button>
        </span>
    }
}
