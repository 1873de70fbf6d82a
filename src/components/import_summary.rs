//! The summary of an import, shown before anything replaces the loaded dataset: the format
//! detected for each file, tables and examples per split × label, table ids no file held,
//! skipped rows with reasons and places, and notes. The user replaces, merges or cancels.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::data::import::ImportReport;

use crate::state::AppState;
use crate::storage::files::{accept_import, PendingImport};

/// A dialog over the page while an import waits for the user's choice.
#[component]
pub fn ImportSummary(pending: RwSignal<Option<PendingImport>>) -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        pending.get().map(|p| {
            let has_dataset = state.dataset.with_untracked(Option::is_some);
            let holds_work = has_dataset && state.edited.get_untracked();
            let replace = {
                let p = p.clone();
                move |_| {
                    pending.set(None);
                    spawn_local(accept_import(state, p.clone(), false));
                }
            };
            let merge = {
                let p = p.clone();
                move |_| {
                    pending.set(None);
                    spawn_local(accept_import(state, p.clone(), true));
                }
            };
            let report = p.report.clone();
            view! {
                <div class="import-backdrop">
                    <section class="import-summary" role="dialog" aria-label="Import summary" data-testid="import-summary">
                        <h2>{format!("Import {}", p.label)}</h2>
                        {holds_work.then(|| view! {
                            <p class="problem" role="alert" data-testid="import-holds-work">
                                "The loaded dataset holds work done in this page (hand-made items, evidence annotations or review decisions). Replacing it discards that work; merge instead, or cancel and use “Export JSON” first."
                            </p>
                        })}
                        <Report report=report/>
                        <footer>
                            <button class="primary" data-testid="import-accept" on:click=replace>
                                {if has_dataset { "Replace the loaded dataset" } else { "Load" }}
                            </button>
                            {has_dataset.then(|| view! {
                                <button data-testid="import-merge" on:click=merge>"Merge into the loaded dataset"</button>
                            })}
                            <button data-testid="import-cancel" on:click=move |_| pending.set(None)>"Cancel"</button>
                        </footer>
                    </section>
                </div>
            }
        })
    }
}

/// The report's sections.
#[component]
fn Report(report: std::sync::Arc<ImportReport>) -> impl IntoView {
    let files = report
        .file_lines()
        .into_iter()
        .map(|l| view! { <li>{l}</li> })
        .collect::<Vec<_>>();
    let splits = report
        .per_split
        .iter()
        .map(|(split, c)| {
            view! {
                <tr>
                    <th scope="row">{split.clone()}</th>
                    <td>{c[0]}</td>
                    <td>{c[1]}</td>
                    <td>{c[2]}</td>
                    <td>{c.iter().sum::<usize>()}</td>
                </tr>
            }
        })
        .collect::<Vec<_>>();
    let unmatched = (!report.unmatched_table_ids.is_empty()).then(|| {
        let items = report
            .unmatched_table_ids
            .iter()
            .take(50)
            .map(|(id, n)| view! { <li><code>{id.clone()}</code>{format!(" ({n} examples)")}</li> })
            .collect::<Vec<_>>();
        let more = report.unmatched_table_ids.len().saturating_sub(50);
        view! {
            <h3>"Examples dropped: their table is not among the files"</h3>
            <ul data-testid="import-unmatched">{items}</ul>
            {(more > 0).then(|| view! { <p>{format!("… and {more} more table ids")}</p> })}
        }
    });
    let skipped = (!report.skipped.is_empty()).then(|| {
        let items = report
            .skipped
            .iter()
            .map(|g| {
                view! {
                    <li>
                        <strong>{format!("{} × {}", g.count, g.reason)}</strong>
                        <span class="places">
                            {g.locations.join(", ")}
                            {(g.count > g.locations.len()).then_some(", …")}
                        </span>
                    </li>
                }
            })
            .collect::<Vec<_>>();
        view! {
            <h3>"Skipped"</h3>
            <ul data-testid="import-skipped">{items}</ul>
        }
    });
    let notes = (!report.notes.is_empty()).then(|| {
        let items = report
            .notes
            .iter()
            .map(|n| view! { <li>{n.clone()}</li> })
            .collect::<Vec<_>>();
        view! {
            <h3>"Notes"</h3>
            <ul class="notes" data-testid="import-notes">{items}</ul>
        }
    });
    view! {
        <h3>"Files"</h3>
        <ul class="files" data-testid="import-files">{files}</ul>
        <p data-testid="import-counts">{format!("{} tables · {} examples", report.tables, report.examples)}</p>
        <table class="split-counts" data-testid="import-splits">
            <thead><tr><th>"split"</th><th>"ENTAIL"</th><th>"NEUTRAL"</th><th>"CONTRADICT"</th><th>"total"</th></tr></thead>
            <tbody>{splits}</tbody>
        </table>
        {unmatched}
        {skipped}
        {notes}
    }
}
