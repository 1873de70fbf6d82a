//! "Save as probe item": appends a hand-made item (core `edit::hand_made`) to the loaded
//! dataset with the label the user asserts, and says where it went.

use leptos::prelude::*;
use tabprobe_core::edit::hand_made::AddedItem;
use tabprobe_core::edit::{add_hand_made, HandMadeItem};
use tabprobe_core::{Label, LabelSet};

use crate::state::AppState;

/// Appends `item` to the dataset on screen (replacing it with the extended copy).
pub fn save_hand_made(state: AppState, item: HandMadeItem) -> Result<AddedItem, String> {
    state
        .change_dataset(|dataset| add_hand_made(dataset, item).map_err(|e| e.to_string()))
        .unwrap_or_else(|| {
            Err("no dataset is loaded: load one (or the demo) to collect hand-made items".into())
        })
}

/// Why a hand-made item cannot be saved yet when no label is asserted.
pub const CHOOSE_LABEL: &str = "Choose the label you assert for the new item before saving.";

/// A sentence saying what was saved.
pub fn saved_message(added: &AddedItem, label: Label, set: LabelSet) -> String {
    let table = match (&added.table_id, added.new_table) {
        (Some(t), true) => format!(" with the edited table {t}"),
        (Some(t), false) => format!(" on table {t}"),
        (None, _) => String::new(),
    };
    format!(
        "Saved as {}{table}, label {}. It is in the dataset now; the probe runner's “hand-made items” include it.",
        added.example_id,
        set.display_name(label)
    )
}

/// Radio buttons for the label the user asserts (none ticked while it is `None`).
#[component]
pub fn LabelPicker(value: RwSignal<Option<Label>>, set: LabelSet) -> impl IntoView {
    let options = set
        .labels()
        .iter()
        .map(|&l| {
            let class = match l {
                Label::Entail => "label-option entail",
                Label::Neutral => "label-option neutral",
                Label::Contradict => "label-option contradict",
            };
            view! {
                <label class=class>
                    <input type="radio" name="asserted-label" data-testid=format!("assert-{}", l.as_str().to_lowercase())
                        prop:checked=move || value.get() == Some(l) on:change=move |_| value.set(Some(l))/>
                    {set.display_name(l)}
                </label>
            }
        })
        .collect::<Vec<_>>();
    view! { <fieldset class="label-picker"><legend>"Label you assert"</legend>{options}</fieldset> }
}

/// The save box: label picker, problems that block saving, the button and its outcome.
#[component]
pub fn SaveItem(
    /// The item to save with the asserted label filled in, or why it cannot be saved yet.
    #[prop(into)]
    item: Signal<Result<HandMadeItem, String>>,
    label: RwSignal<Option<Label>>,
    set: LabelSet,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let outcome = RwSignal::new(None::<Result<String, String>>);
    let on_save = move |_| {
        let result = item.get_untracked().and_then(|it| {
            let asserted = it.label;
            save_hand_made(state, it).map(|added| saved_message(&added, asserted, set))
        });
        outcome.set(Some(result));
    };
    let blocked = move || item.with(|i| i.as_ref().err().cloned());
    view! {
        <div class="save-item">
            <LabelPicker value=label set=set/>
            {move || blocked().map(|b| view! { <p class="muted" data-testid="save-blocked">{b}</p> })}
            <button class="button primary" data-testid="save-item" on:click=on_save
                disabled=move || blocked().is_some() || state.dataset.with(|d| d.is_none())>
                "Save as probe item"
            </button>
            {move || outcome.get().map(|o| match o {
                Ok(m) => view! { <p class="saved" data-testid="saved" role="status">{m}</p> }.into_any(),
                Err(e) => view! { <p class="error" data-testid="save-error" role="alert">{e}</p> }.into_any(),
            })}
        </div>
    }
}
