//! "Save marks as evidence": the rows ticked in the table editor become the dataset example's
//! human-annotated relevant rows (docs/probes-and-metrics.md#table-probes-with-relevance), so relevance probes can run on it.

use leptos::prelude::*;
use tabprobe_core::edit::{annotate_relevant_rows, TableDraft};

use crate::state::{AppState, LoadedDataset};

/// The annotation box for dataset example `example_id`, given the editor's draft.
#[component]
pub fn EvidenceMarks(
    example_id: String,
    #[prop(into)] draft: Signal<TableDraft>,
    /// The table the editor opened: marks can become the example's annotation only when it
    /// is the example's own table (a probe item's perturbed table has other row numbers).
    table: tabprobe_core::Table,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let id = StoredValue::new(example_id);
    let table = StoredValue::new(table);
    // Tracked, not read once: a draft restored after a reload mounts the editor before the
    // dataset (demo or kept) has arrived.
    let own_table = Memo::new(move |_| {
        state.dataset.with(|d| {
            find_example(d, &id.get_value())
                .and_then(|(_, own)| own)
                .is_some_and(|t| table.with_value(|table| t == table))
        })
    });
    // The example's current annotation (`None`: not annotated; `Some(None)`: not in the dataset).
    let annotated = Memo::new(move |_| {
        state.dataset.with(|d| {
            d.as_ref()
                .map(|_| find_example(d, &id.get_value()).map(|(e, _)| e.relevant_rows.clone()))
        })
    });
    // The annotation named by key on the example's own table, 1-based ("Length (row 5)"),
    // as every other view names rows (issue 18 §4).
    let annotated_names = Memo::new(move |_| {
        state.dataset.with(|d| {
            let (e, own) = find_example(d, &id.get_value())?;
            let rows = e.relevant_rows.as_ref()?;
            Some(
                rows.iter()
                    .map(|&r| match own {
                        Some(t) => tabprobe_core::probe::edit_table::table_row_name(t, r),
                        None => format!("row {}", r + 1),
                    })
                    .collect::<Vec<_>>(),
            )
        })
    });
    let marked = Memo::new(move |_| draft.with(|d| d.relevant_rows()));
    let outcome = RwSignal::new(None::<Result<String, String>>);
    let blocked = move || -> Option<&'static str> {
        match annotated.get() {
            None | Some(None) => {
                Some("The item is not in the loaded dataset, so there is no example to annotate.")
            }
            Some(Some(_)) if !own_table.get() => Some(
                "This is a probe item's table, not the example's own: its marks are not the example's annotation.",
            ),
            Some(Some(current)) => {
                if !draft.with(|d| d.rows_in_place()) {
                    Some("Rows were added, removed or moved, so the marks describe the edited table; they are saved with the probe item instead.")
                } else if current.is_none() && marked.with(|m| m.is_empty()) {
                    Some("Tick the rows that are evidence for the hypothesis, then save them.")
                } else if current.as_deref() == Some(marked.get().as_slice()) {
                    Some("The marks equal the example's annotation.")
                } else {
                    None
                }
            }
        }
    };
    let save = move |_| {
        let rows = marked.get_untracked();
        let Some(result) = state.change_dataset(|dataset| {
            annotate_relevant_rows(dataset, &id.get_value(), &rows).map_err(|e| e.to_string())
        }) else {
            return;
        };
        let result = result.map(|rows| {
            let shown: Vec<String> = rows.iter().map(|r| (r + 1).to_string()).collect();
            format!(
                "Saved: the evidence of {} is now row(s) {} (relevance probes can use it).",
                id.get_value(),
                if shown.is_empty() {
                    "none".to_string()
                } else {
                    shown.join(", ")
                }
            )
        });
        outcome.set(Some(result));
    };
    let current_text = move || match annotated.get() {
        Some(Some(Some(rows))) if rows.is_empty() => "annotated: no relevant rows".to_string(),
        Some(Some(Some(_))) => format!(
            "annotated: {}",
            annotated_names.get().unwrap_or_default().join(", ")
        ),
        Some(Some(None)) => "not annotated yet".to_string(),
        _ => String::new(),
    };
    view! {
        <div class="evidence-marks">
            <p class="muted" data-testid="evidence-current">{current_text}</p>
            {move || blocked().map(|b| view! { <p class="muted">{b}</p> })}
            <button class="button" data-testid="save-evidence" on:click=save disabled=move || blocked().is_some()>
                {move || format!("Save marks as the evidence of {}", id.get_value())}
            </button>
            {move || outcome.get().map(|o| match o {
                Ok(m) => view! { <p class="saved" data-testid="evidence-saved" role="status">{m}</p> }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </div>
    }
}

/// The dataset example `id` and its own table (when the dataset has it): the one lookup the
/// annotation box's memos share.
fn find_example<'a>(
    d: &'a Option<LoadedDataset>,
    id: &str,
) -> Option<(&'a tabprobe_core::Example, Option<&'a tabprobe_core::Table>)> {
    let d = &d.as_ref()?.dataset;
    let e = d.examples.iter().find(|e| e.id.as_deref() == Some(id))?;
    Some((e, e.table.as_deref().and_then(|t| d.table(t))))
}
