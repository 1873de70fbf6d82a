//! The panel that lists every problem of a failed load, each with file, place and expectation.
//! It says plainly that the dataset already on screen was kept.

use leptos::prelude::*;

use crate::state::{AppState, LoadProblem};

/// Shows the last load's problems until dismissed or until a load succeeds.
#[component]
pub fn ProblemsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let kept = move || {
        state.dataset.with(|d| match d {
            Some(d) => format!(
                "Nothing was loaded; “{}” ({}) is still open.",
                d.dataset.name, d.file
            ),
            None => "Nothing was loaded.".to_string(),
        })
    };
    move || {
        state.problem.get().map(|problem| {
            // (place, kind, message) per problem.
            let (file, entries): (String, Vec<(String, String, String)>) = match problem {
                LoadProblem::Invalid(e) => {
                    let entries = e
                        .problems
                        .iter()
                        .map(|p| {
                            let place = match p.line_column {
                                Some((l, c)) => format!("line {l}, column {c}"),
                                None => p.path.clone(),
                            };
                            (place, p.kind.describe().to_string(), p.message.clone())
                        })
                        .collect();
                    (e.file, entries)
                }
                LoadProblem::Import(e) => (
                    e.file,
                    vec![(e.location, "cannot import".to_string(), e.message)],
                ),
                LoadProblem::Unreadable { file, message } => {
                    (file, vec![("file".to_string(), "unreadable".to_string(), message)])
                }
            };
            let rows = entries
                .into_iter()
                .map(|(place, kind, message)| {
                    view! {
                        <li data-testid="problem">
                            <code class="place">{place}</code>
                            <span class="kind">{kind}</span>
                            <span class="message">{message}</span>
                        </li>
                    }
                })
                .collect::<Vec<_>>();
            let count = rows.len();
            view! {
                <section class="problems" data-testid="problems" role="alert">
                    <header>
                        <strong>{format!("{file}: {count} problem{}", if count == 1 { "" } else { "s" })}</strong>
                        <span class="kept" data-testid="problems-kept">{kept}</span>
                        <button on:click=move |_| state.problem.set(None)>"Dismiss"</button>
                    </header>
                    <ol>{rows}</ol>
                </section>
            }
        })
    }
}
