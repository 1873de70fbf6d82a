//! A shared probe result (`#/share/<payload>`, SPEC §5, issue 6 item 7): decoded from the
//! link and shown with no dataset loaded — tables, hypotheses, operation, rule, expectation,
//! model name and weight hash, predictions, linearization — with a re-run on the loaded model
//! (warning when its weights differ). Everything from the link is rendered as text nodes.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::edit::diff_tables;
use tabprobe_core::probe::{Certainty, Expectation};
use tabprobe_core::scoring::{Pair, PairScore};
use tabprobe_core::share::{decode, from_file, SharedInput, SharedResult};
use tabprobe_core::{Label, LabelSet, Table};

use crate::components::label_badge::LabelBadge;
use crate::components::model_panel::ModelPanel;
use crate::components::predictions::Prediction;
use crate::components::table_diff::TableDiffView;
use crate::components::table_view::TableView;
use crate::route::{navigate, Route};
use crate::state::{AppState, WorkItem};

/// The share screen for `payload` (empty: offer to open a link or a result file).
#[component]
pub fn ShareView(payload: String) -> impl IntoView {
    let opened = RwSignal::new(None::<Result<SharedResult, String>>);
    if !payload.is_empty() {
        opened.set(Some(decode(&payload).map_err(|e| e.to_string())));
    }
    move || {
        match opened.get() {
        Some(Ok(r)) => view! { <SharedResultView result=r/> }.into_any(),
        Some(Err(e)) => view! {
            <section class="share-error" data-testid="share-error" role="alert">
                <h1>"This share link cannot be opened"</h1>
                <p class="error-message" data-testid="share-error-message">{e}</p>
            </section>
            <OpenShared opened=opened/>
        }
        .into_any(),
        None => view! {
            <section class="empty-state">
                <h1>"Open a shared result"</h1>
                <p>"A share link opens here by itself. You can also paste one, or open a result file (results too large for a link are shared as files)."</p>
            </section>
            <OpenShared opened=opened/>
        }
        .into_any(),
    }
    }
}

/// Paste a link or pick a result file.
#[component]
fn OpenShared(opened: RwSignal<Option<Result<SharedResult, String>>>) -> impl IntoView {
    let pasted = RwSignal::new(String::new());
    let on_file = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|i| i.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            spawn_local(async move {
                let name = file.name();
                let result =
                    match gloo::file::futures::read_as_text(&gloo::file::Blob::from(file)).await {
                        Ok(text) => from_file(&name, &text).map_err(|e| e.to_string()),
                        Err(e) => Err(format!("{name}: {e}")),
                    };
                opened.set(Some(result));
            });
        }
    };
    view! {
        <div class="panel open-shared">
            <label>
                <span>"Paste a link "</span>
                <input data-testid="paste-link" placeholder="https://…#/share/v1.…" prop:value=move || pasted.get()
                    on:input=move |ev| pasted.set(event_target_value(&ev))/>
            </label>
            <button class="button" data-testid="open-pasted"
                on:click=move |_| opened.set(Some(decode(&pasted.get_untracked()).map_err(|e| e.to_string())))>"Open"</button>
            <label class="file-picker small">
                "Open a result file…"
                <input type="file" accept=".json,application/json" data-testid="result-file" on:change=on_file/>
            </label>
        </div>
    }
}

fn expectation_text(e: &Expectation, set: LabelSet) -> String {
    match e {
        Expectation::Label { labels } => {
            let names: Vec<&str> = labels.iter().map(|l| set.display_name(*l)).collect();
            format!("the edited item's label is {}", names.join(" or "))
        }
        Expectation::Transition { operation } => {
            format!("the transition is valid under the rule for {operation:?}")
        }
    }
}

fn input_pair(
    input: &SharedInput,
    table: Option<&Table>,
    r: &SharedResult,
) -> Result<Pair, String> {
    match (table, &input.premise) {
        (Some(t), _) => r
            .linearization
            .table_pair(t, &input.hypothesis)
            .map_err(|e| e.to_string()),
        (None, Some(p)) => Ok(r.linearization.pair(p, &input.hypothesis)),
        (None, None) => Ok(r.linearization.pair("", &input.hypothesis)),
    }
}

/// A premise: a table, or the plain text.
#[component]
fn PremiseView(input: SharedInput, table: Option<Table>) -> impl IntoView {
    match (table, input.premise) {
        (Some(t), _) => view! { <TableView table=t/> }.into_any(),
        (None, Some(p)) => view! { <p class="premise-text">{p}</p> }.into_any(),
        (None, None) => view! { <p class="muted">"(no premise)"</p> }.into_any(),
    }
}

#[component]
fn SharedResultView(result: SharedResult) -> impl IntoView {
    let state = use_context::<AppState>().unwrap_or_default();
    let r = result;
    let set = r.model.as_ref().map(|m| m.label_set).unwrap_or_default();
    let after_table = r.after_table().cloned();
    let table_changed = r.after.table.is_some() && r.after.table != r.before.table;
    let hypothesis_changed = r.after.hypothesis != r.before.hypothesis;
    let expected_after = match &r.expectation {
        Some(Expectation::Label { labels }) => labels.first().copied(),
        _ => None,
    };
    let model_line = match &r.model {
        Some(m) => {
            let short: String = m.weights_sha256.chars().take(12).collect();
            view! {
                <p class="share-model">
                    "Produced by " <strong data-testid="share-model-name">{m.name.clone()}</strong>
                    " · weights SHA-256 " <code data-testid="share-model-hash" title=m.weights_sha256.clone()>{short}</code>
                </p>
            }
            .into_any()
        }
        None => view! { <p class="muted" data-testid="share-model-name">"No model was loaded when this result was shared."</p> }.into_any(),
    };
    let prediction_cell =
        move |score: Option<PairScore>, gold: Option<Label>, testid: &'static str| {
            let body = match score {
                Some(s) => view! { <Prediction score=s gold=gold set=set/> }.into_any(),
                None => view! { <span class="muted">"not recorded"</span> }.into_any(),
            };
            view! { <td data-testid=testid>{body}</td> }
        };
    let (pb, pa) = match &r.predictions {
        Some(p) => (
            Some(p.before.to_pair_score()),
            Some(p.after.to_pair_score()),
        ),
        None => (None, None),
    };

    // Re-run with the loaded model, on the link's linearization.
    let rerun = RwSignal::new(None::<Result<Vec<PairScore>, String>>);
    // Results of another model would be mislabelled: a new model clears them.
    Effect::new(move |_| {
        state.model.track();
        rerun.set(None);
    });
    let pairs = input_pair(&r.before, r.before.table.as_ref(), &r)
        .and_then(|b| input_pair(&r.after, after_table.as_ref(), &r).map(|a| vec![b, a]));
    let on_rerun = move |_| {
        let pairs = match pairs.clone() {
            Ok(p) => p,
            Err(e) => {
                rerun.set(Some(Err(e)));
                return;
            }
        };
        rerun.set(None);
        match crate::worker_client::client().and_then(|c| c.score(0, pairs, |_, _| {})) {
            Err(e) => rerun.set(Some(Err(e))),
            Ok((_, fut)) => spawn_local(async move {
                let out = fut.await.map(|(s, _)| s).map_err(|f| f.message);
                rerun.try_set(Some(out));
            }),
        }
    };
    let r_gold = r.gold;
    let linearization_text = format!(
        "{}, {}",
        r.linearization.strategy.as_str().replace('_', " "),
        if r.linearization.order.is_premise_first() {
            "premise first"
        } else {
            "hypothesis first"
        }
    );
    let link_hash = r.model.as_ref().map(|m| m.weights_sha256.clone());
    let link_model = r.model.as_ref().map(|m| m.name.clone());
    let hash_warning = move || {
        let loaded = state.model.get()?;
        let same = link_hash.as_deref() == Some(loaded.id.weights_sha256.as_str());
        (!same).then(|| {
            let made_by = match &link_model {
                Some(n) => format!("{n} ({})", link_hash.as_deref().unwrap_or("").chars().take(12).collect::<String>()),
                None => "an unrecorded model".to_string(),
            };
            view! {
                <p class="warning" data-testid="hash-warning" role="status">
                    {format!(
                        "The loaded model {} ({}) is not the one that produced this result ({made_by}): its weights differ, so its predictions may too.",
                        loaded.id.name,
                        loaded.id.weights_sha256.chars().take(12).collect::<String>()
                    )}
                </p>
            }
        })
    };
    let rerun_view = move || {
        rerun.get().map(|res| match res {
            Ok(s) if s.len() == 2 => {
                let mut it = s.into_iter();
                let (b, a) = (it.next(), it.next());
                view! {
                    <table class="share-predictions" data-testid="rerun-predictions">
                        <caption>{state.model.with_untracked(|m| m.as_ref().map(|m| format!("Re-run with {}", m.id.name)))}</caption>
                        <tr><th scope="row">"original"</th>{prediction_cell(b, r_gold, "rerun-before")}</tr>
                        <tr><th scope="row">"edited"</th>{prediction_cell(a, expected_after, "rerun-after")}</tr>
                    </table>
                }
                .into_any()
            }
            Ok(_) => view! { <p class="error">"the worker returned the wrong number of scores"</p> }.into_any(),
            Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
        })
    };
    let open_in_editor = {
        let (r, t) = (r.clone(), after_table.clone());
        t.map(|table| {
            let item = WorkItem {
                example_id: r.example_id.clone(),
                table,
                hypothesis: r.after.hypothesis.clone(),
                label: expected_after.or(r.gold),
                origin: format!("shared link: {}", r.origin),
                // The link carries no annotation of the edited table: mark nothing rather
                // than the original's rows, which may have moved.
                relevant_rows: Some(Vec::new()),
            };
            view! {
                <button class="button" data-testid="open-in-editor" on:click=move |_| {
                    state.work_item.set(Some(item.clone()));
                    navigate(Route::Editor);
                }>"Open the edited item in the table editor"</button>
            }
        })
    };
    let rule_view = r.rule.clone().map(|rule| {
        let rows = Label::ALL
            .iter()
            .map(|&l| {
                let valid: Vec<&str> = rule.valid_after(l).iter().map(|v| set.display_name(*v)).collect();
                view! { <tr><th scope="row">{set.display_name(l)}</th><td>{valid.join(", ")}</td></tr> }
            })
            .collect::<Vec<_>>();
        view! {
            <table class="rule-table" data-testid="share-rule">
                <caption>{format!("Validity rule ({})", rule.source)}</caption>
                <thead><tr><th>"before"</th><th>"valid after"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    let tables = match (&r.before.table, &after_table) {
        (Some(o), Some(e)) if table_changed => {
            let diff = diff_tables(o, e);
            view! {
                <div class="panel">
                    <h2>"Tables"</h2>
                    <TableDiffView original=Signal::stored(o.clone()) edited=Signal::stored(e.clone()) diff=Signal::stored(diff)/>
                    <div class="side-by-side">
                        <div><h3>"Original"</h3><PremiseView input=r.before.clone() table=Some(o.clone())/></div>
                        <div><h3>"Edited"</h3><PremiseView input=r.after.clone() table=Some(e.clone())/></div>
                    </div>
                </div>
            }
            .into_any()
        }
        _ => view! {
            <div class="panel">
                <h2>"Premise (unchanged)"</h2>
                <PremiseView input=r.before.clone() table=r.before.table.clone()/>
            </div>
        }
        .into_any(),
    };
    view! {
        <section class="workbench shared" data-testid="shared-result">
            <header class="wb-head">
                <div>
                    <h1>"Shared probe result"</h1>
                    <p class="muted origin" data-testid="share-origin">{r.origin.clone()}</p>
                </div>
                {open_in_editor}
            </header>
            <div class="panel share-facts">
                {model_line}
                <dl>
                    <dt>"operation"</dt><dd data-testid="share-operation">{r.operation.replace('_', " ")}</dd>
                    {r.example_id.clone().map(|id| view! { <dt>"example"</dt><dd data-testid="share-example">{id}</dd> })}
                    <dt>"linearization"</dt><dd data-testid="share-linearization">{linearization_text.clone()}</dd>
                    {r.gold.map(|g| view! { <dt>"original's gold label"</dt><dd><LabelBadge label=g set=set/></dd> })}
                    {r.expectation.as_ref().map(|e| view! { <dt>"expectation"</dt><dd data-testid="share-expectation">{expectation_text(e, set)}</dd> })}
                    {r.certainty.map(|c| view! { <dt>"certainty"</dt><dd data-testid="share-certainty">{match c { Certainty::Certain => "certain", Certainty::Heuristic => "heuristic (needs review)" }}</dd> })}
                </dl>
                {rule_view}
            </div>
            <div class="panel">
                <h2>"Hypothesis"</h2>
                <table class="share-hypotheses">
                    <tr><th scope="row">"original"</th><td data-testid="share-hyp-before">{r.before.hypothesis.clone()}</td></tr>
                    <tr><th scope="row">{if hypothesis_changed { "edited" } else { "edited (unchanged)" }}</th><td data-testid="share-hyp-after">{r.after.hypothesis.clone()}</td></tr>
                </table>
                <h2>"Predictions"</h2>
                <table class="share-predictions">
                    <tr><th scope="row">"original"</th>{prediction_cell(pb, r.gold, "share-pred-before")}</tr>
                    <tr><th scope="row">"edited"</th>{prediction_cell(pa, expected_after, "share-pred-after")}</tr>
                </table>
            </div>
            {tables}
            <div class="panel">
                <h2>"Re-run with your model"</h2>
                <p class="muted">{format!("The re-run reads the tables as this result did ({}), whatever the premise-text setting below says.", linearization_text)}</p>
                <ModelPanel/>
                {hash_warning}
                <button class="button" data-testid="rerun" on:click=on_rerun disabled=move || state.model.with(|m| m.is_none())>
                    "Re-run with the loaded model"
                </button>
                {move || state.model.with(|m| m.is_none()).then(|| view! { <span class="muted">" Load a model above to re-run these two items."</span> })}
                {rerun_view}
            </div>
        </section>
    }
}
