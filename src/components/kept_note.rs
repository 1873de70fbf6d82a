//! What the page says about the work it keeps in this browser: "restored from this browser
//! (date)" with a way to discard it, a kept dataset that no longer validates (download or
//! discard), a write that failed (never silent), and a small status line for the header.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::AppState;
use crate::storage::files::download;
use crate::storage::session::discard;

/// `ms` since the epoch as the user's local date and time, `27/11/2026, 05:40:12` ("date
/// unknown" when it is not a time). Written from the date's local fields rather than with
/// `toLocaleString`: the first call of that loads the browser's locale data, which held the
/// page 34 ms when the results list first showed.
pub fn local_time(ms: f64) -> String {
    if !ms.is_finite() {
        return "date unknown".to_string();
    }
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    format!(
        "{:02}/{:02}/{}, {:02}:{:02}:{:02}",
        d.get_date(),
        d.get_month() + 1,
        d.get_full_year(),
        d.get_hours(),
        d.get_minutes(),
        d.get_seconds()
    )
}

/// The "Discard" button: forgets the kept work and loads the demo.
#[component]
fn DiscardButton(state: AppState, label: &'static str) -> impl IntoView {
    view! {
        <button class="small" data-testid="discard-kept" on:click=move |_| spawn_local(discard(state))
            title="Forget the dataset and drafts kept in this browser and load the demo">{label}</button>
    }
}

/// The notes under the header.
#[component]
pub fn KeptNote() -> impl IntoView {
    let state = expect_context::<AppState>();
    let kept = state.kept;
    let restored = move || {
        kept.restored.get().map(|(ms, file)| {
            view! {
                <p class="kept-note" data-testid="restored-note" role="status">
                    {format!("Restored from this browser ({}): {file}, with its hand-made items, annotations, reviews and drafts. ", local_time(ms))}
                    <DiscardButton state=state label="Discard (back to the demo)"/>
                </p>
            }
        })
    };
    let invalid = move || {
        kept.invalid.get().map(|inv| {
            let text = inv.text.clone();
            let name = format!("kept-{}.json", inv.file.replace(['/', ' ', '(', ')'], "-"));
            view! {
                <section class="problem kept-invalid" role="alert" data-testid="kept-invalid">
                    <p>{format!(
                        "The dataset kept in this browser ({}, saved {}) cannot be loaded; it is left as it is until you download or discard it (changes are not kept meanwhile).",
                        inv.file, local_time(inv.saved_ms)
                    )}</p>
                    {(!inv.problem.is_empty()).then(|| view! { <pre class="kept-problem">{inv.problem.clone()}</pre> })}
                    <button class="small" data-testid="kept-download" disabled=text.is_empty()
                        on:click=move |_| download(&name, "application/json", &text)>"Download it"</button>
                    " "
                    <DiscardButton state=state label="Discard it (back to the demo)"/>
                </section>
            }
        })
    };
    let errors = move || {
        [kept.error.get(), kept.drafts_error.get()]
            .into_iter()
            .flatten()
            .map(|e| {
                view! {
                    <p class="problem" role="alert" data-testid="kept-error">
                        {format!("Your work is not kept in this browser: {e}. Use “Export JSON” on the dataset page to keep a copy.")}
                    </p>
                }
            })
            .collect::<Vec<_>>()
    };
    view! { {restored} {invalid} {errors} }
}

/// A short status for the header: whether the work is kept.
#[component]
pub fn KeptStatus() -> impl IntoView {
    let state = expect_context::<AppState>();
    let kept = state.kept;
    let status = move || {
        if kept.error.with(Option::is_some) || kept.drafts_error.with(Option::is_some) {
            ("failed", "not kept")
        } else if kept.pending.get() > 0 {
            ("saving", "keeping…")
        } else {
            ("saved", "")
        }
    };
    view! {
        <span class="kept-status muted" data-testid="kept-status" data-state=move || status().0
            title="The working dataset and drafts are kept in this browser (IndexedDB)">{move || status().1}</span>
    }
}
