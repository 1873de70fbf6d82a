//! A coloured badge for a gold or predicted label, named as the dataset's label set names it.

use leptos::prelude::*;
use tabprobe_core::{Label, LabelSet};

/// `ENTAIL` / `NEUTRAL` / `CONTRADICT` (or `ENTAILED` / `REFUTED` for two-way data).
#[component]
pub fn LabelBadge(
    label: Label,
    #[prop(default = LabelSet::ThreeWay)] set: LabelSet,
) -> impl IntoView {
    let class = match label {
        Label::Entail => "badge entail",
        Label::Neutral => "badge neutral",
        Label::Contradict => "badge contradict",
    };
    view! { <span class=class>{set.display_name(label)}</span> }
}
