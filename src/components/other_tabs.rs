//! The site's other open tabs, as this tab sees them (docs/browser-storage.md#two-tabs): a
//! line saying how many are open and what each is doing, and — when another tab changed the
//! same entries of the kept dataset differently — the choice of whose version to keep.

use leptos::prelude::*;
use tabprobe_core::edit::Side;

use crate::state::AppState;
use crate::storage::tab_merge::resolve;

/// "Another tab of tabprobe is open: running a probe set …" (nothing when this tab is alone).
#[component]
pub fn OtherTabs() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let others = state.kept.others.get();
        (!others.is_empty()).then(|| {
            let doing: Vec<String> = others
                .iter()
                .map(|t| {
                    if t.doing.is_empty() {
                        "open".to_string()
                    } else {
                        t.doing.clone()
                    }
                })
                .collect();
            let head = match others.len() {
                1 => "Another tab of tabprobe is open in this browser".to_string(),
                n => format!("{n} other tabs of tabprobe are open in this browser"),
            };
            view! {
                <p class="hint other-tabs" data-testid="other-tabs" title="Work kept in this browser is shared: each tab's saved items, annotations and reviews are merged into the others'; when two tabs change the same entry differently, you are asked which to keep.">
                    {format!("{head}: {}. Saved work is merged between tabs.", doing.join("; "))}
                </p>
            }
        })
    }
}

/// The choice after two tabs changed the same entries differently: nothing is kept until the
/// user picks one side.
#[component]
pub fn TabConflictNotice() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.kept.conflict.get().map(|c| {
            let what = c.what.join(", ");
            view! {
                <div class="problem tabs-conflict" role="alert" data-testid="tabs-conflict">
                    <p data-testid="tabs-conflict-what">{format!("Another tab of tabprobe changed the same things as this tab, differently: {what}. Everything else of both tabs is merged. Which version of these should be kept?")}</p>
                    <p class="hint">"Nothing of this tab's dataset is kept in the browser until you choose."</p>
                    <button data-testid="tabs-keep-mine" on:click=move |_| resolve(state, Side::Mine)>"Keep this tab's"</button>
                    <button data-testid="tabs-keep-theirs" on:click=move |_| resolve(state, Side::Theirs)>"Keep the other tab's"</button>
                </div>
            }
        })
    }
}
