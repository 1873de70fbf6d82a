//! The runner's notice of a run that a reload or a crash interrupted, kept in this browser
//! ([`crate::runs::keep`]): what ran and how far, which model to load again, Resume (scores
//! only the rest; the run file is the one an uninterrupted run writes) and Discard.

use leptos::prelude::*;

use crate::runs::drive::{discard_interrupted, resume_run};
use crate::runs::keeper::matching_models;
use crate::runs::RunsState;
use crate::state::AppState;

/// The notice, shown while a kept run waits (nothing otherwise).
#[component]
pub fn InterruptedRun() -> impl IntoView {
    let state = expect_context::<AppState>();
    let runs = expect_context::<RunsState>();
    move || {
        let kept = runs.interrupted.get()?;
        Some(match kept {
            Ok(kept) => {
                let summary = kept.summary();
                let started = js_sys::Date::new(&kept.started_ms.into())
                    .to_locale_string("default", &js_sys::Object::new())
                    .as_string()
                    .unwrap_or_default();
                let needs = {
                    let kept = kept.clone();
                    move || matching_models(&kept, |slot| state.slot(slot).model.get()).err()
                };
                let blocked = {
                    let needs = needs.clone();
                    move || runs.running() || needs().is_some()
                };
                view! {
                    <div class="run-interrupted" role="status" data-testid="run-interrupted">
                        <p>
                            <strong>"A run was interrupted"</strong>
                            {format!(" (started {started}) {summary}.")}
                            " Its scores are kept in this browser; resuming scores only the rest."
                        </p>
                        {move || needs().map(|n| view! { <p class="hint" data-testid="resume-needs">{n}</p> })}
                        <div class="run-buttons">
                            <button class="primary" data-testid="resume-run" disabled=blocked on:click=move |_| resume_run(state, runs)>"Resume"</button>
                            <button data-testid="discard-run" disabled=move || runs.running() on:click=move |_| discard_interrupted(runs)>"Discard it"</button>
                        </div>
                        <p class="hint">"Starting another run discards it."</p>
                    </div>
                }
                .into_any()
            }
            Err(problem) => view! {
                <div class="problem" role="alert" data-testid="run-interrupted-unreadable">
                    <p>{format!("A run kept from an earlier visit cannot be read: {problem}")}</p>
                    <button data-testid="discard-run" on:click=move |_| discard_interrupted(runs)>"Discard it"</button>
                </div>
            }
            .into_any(),
        })
    }
}
