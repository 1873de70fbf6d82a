//! What a probe item is, shown where it is opened or shared (issue 18 §1, §2): the example's
//! gold label, the operation, the rule or expected label, certainty, and each model's
//! predictions before and after — all from core's share page model ([`SharePage`]), so the
//! editor, the rewriter and the share page say the same thing.

use leptos::prelude::*;
use tabprobe_core::share::view::{ClaimedModel, ClaimedPredictions, SharePage};
use tabprobe_core::LabelSet;

use crate::components::label_badge::LabelBadge;
use crate::components::predictions::Prediction;
use crate::components::transition_graph::TransitionGraphSvg;

/// One row per model: its name, the prediction on the original and on the perturbed item.
#[component]
pub fn ModelPredictions(
    /// `(model, predictions)`, the link's or run's main model first.
    rows: Vec<(Option<ClaimedModel>, ClaimedPredictions)>,
    set: LabelSet,
    /// The original's gold label (judges the before column).
    gold: Option<tabprobe_core::Label>,
    /// The perturbed item's expected label, when single (judges the after column).
    expected_after: Option<tabprobe_core::Label>,
) -> impl IntoView {
    let rows = rows
        .into_iter()
        .map(|(m, p)| {
            let name = m
                .map(|m| format!("{} ({})", m.name, m.hash_short))
                .unwrap_or_else(|| "model".into());
            // One block per model, original above perturbed: it fits a narrow side column.
            view! {
                <tbody data-testid="model-predictions">
                    <tr><th scope="rowgroup" colspan="2" class="model-name">{name}</th></tr>
                    <tr><th scope="row">"original"</th><td data-testid="pred-before"><Prediction score=p.before gold=gold set=set/></td></tr>
                    <tr><th scope="row">"perturbed"</th><td data-testid="pred-after"><Prediction score=p.after gold=expected_after set=set/></td></tr>
                </tbody>
            }
        })
        .collect::<Vec<_>>();
    view! { <table class="share-predictions model-predictions">{rows}</table> }
}

/// The transition as a one-edge graph (the results' transition graph drawing), black when a
/// correct model may make it, red when not, with the reason beside it.
#[component]
pub fn OneEdgeGraph(page: SharePage) -> impl IntoView {
    let Some(t) = page.transition.clone() else {
        return ().into_any();
    };
    let colour = match t.valid {
        Some(true) if !t.not_applicable => "valid",
        Some(false) if !t.not_applicable => "invalid",
        _ => "unjudged",
    };
    view! {
        <div class="one-edge" data-testid="one-edge" data-valid=colour>
            <TransitionGraphSvg edges=vec![t.edge()] caption="this item".to_string() set=page.label_set
                on_edge=Callback::new(|_| ()) one_item=true/>
            <p class="verdict" data-testid="one-edge-verdict">{t.verdict.clone()}</p>
        </div>
    }
    .into_any()
}

/// The probe item's facts and predictions, for the editor and the rewriter.
#[component]
pub fn ProbeFacts(page: SharePage) -> impl IntoView {
    let set = page.label_set;
    let mut rows = Vec::new();
    if let Some(p) = page.predictions.clone() {
        rows.push((page.model.clone(), p));
    }
    rows.extend(page.other_models.iter().cloned().map(|(m, p)| (Some(m), p)));
    let has_rows = !rows.is_empty();
    view! {
        <div class="probe-facts" data-testid="probe-facts">
            <dl>
                <dt>"operation"</dt><dd data-testid="probe-operation">{page.operation.clone()}</dd>
                {page.gold.map(|g| view! { <dt>"example's gold label"</dt><dd data-testid="probe-gold"><LabelBadge label=g set=set/></dd> })}
                {page.expectation.clone().map(|e| view! { <dt>"a correct model"</dt><dd data-testid="probe-expectation">{e}</dd> })}
                {page.rule.clone().map(|r| {
                    let rows = r.rows.iter().map(|(b, v)| format!("{b} → {{{v}}}")).collect::<Vec<_>>().join(" · ");
                    view! { <dt>{r.caption.clone()}</dt><dd data-testid="probe-rule">{rows}</dd> }
                })}
                {page.certainty.map(|c| view! { <dt>"certainty"</dt><dd data-testid="probe-certainty">{c}</dd> })}
                {page.why.map(|w| view! { <dt>"why"</dt><dd data-testid="probe-why">{w}</dd> })}
            </dl>
            <OneEdgeGraph page=page.clone()/>
            {has_rows.then(|| view! { <ModelPredictions rows=rows set=set gold=page.gold expected_after=page.expected_after/> })}
        </div>
    }
}
