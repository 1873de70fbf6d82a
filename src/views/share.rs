//! A shared probe result (`#/share/<payload>`, docs/share-links.md, issue 6 item 7): decoded from the
//! link and shown with no dataset loaded — tables, hypotheses, operation, rule, expectation,
//! model name and weight hash, predictions, linearization — with a re-run on the loaded model
//! (warning when its weights differ). Everything from the link is rendered as text nodes,
//! from the pure page model of core `share::view`; its predictions and weight hash are
//! marked "claimed by the link" until a re-run with the same weights confirms them.
//!
//! A link or result file is decoded a step at a time (core's `share::Decoding`), the page's
//! thread given back between slices of steps: its size is checked before any decoding, and
//! the JSON's before it is parsed, so neither a hostile link nor one at the share limits makes
//! a long task (issue 47 item 5; `scripts/bench-longtasks.sh` opens the largest).

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::scoring::{PairScore, Precision};
use tabprobe_core::share::view::{
    rerun_pairs, Premise, PremiseSection, SharePage, TableChange, CLAIMED,
};
use tabprobe_core::share::{
    check_file_size, Decoding, ShareError, SharedResult, MAX_LINK_TEXT_CHARS,
};
use tabprobe_core::{Label, LabelSet};
use tabprobe_worker::protocol::Slot;

use crate::components::label_badge::LabelBadge;
use crate::components::model_panel::ModelPanel;
use crate::components::predictions::Prediction;
use crate::components::probe_facts::{ModelPredictions, OneEdgeGraph};
use crate::components::table_diff::TableDiffLines;
use crate::components::table_view::TableView;
use crate::route::{long_share, navigate, read_share_link, Route};
use crate::state::{AppState, WorkItem};
use crate::timing::{timed, Slices};

/// Cells of each table (and of the comparison) drawn before the reader asks for the rest:
/// every table of INFOTABS (at most 109 cells) is drawn whole; one at the share limits (20,000)
/// shows its first rows and a button. (With 1,000, the browser's layout of the first view of
/// a result at the limits took 50–80 ms.)
const CELLS_SHOWN: usize = 400;

/// A decoded result and its page model (core `share::view`), or why there is none.
type Outcome = Result<(SharedResult, SharePage), String>;

/// What the share screen shows: nothing opened yet (or being opened), or the outcome.
type Opened = RwSignal<Option<Outcome>>;

/// What to open.
enum Source {
    /// Link text (what follows `#/share/`, or a pasted URL).
    Link(String),
    /// The link left in `location.hash` (longer than `route::LONG_LINK`), of this length.
    Fragment(usize),
    /// A result file the reader picked.
    File(web_sys::File),
}

/// Opens `source` into `opened` in tasks of their own, none of 50 ms or more: the text read
/// (a long fragment or a file a slice at a time), its size checked before any decoding, then
/// decoded a step at a time (core's `Decoding`), yielding to the event loop whenever a slice
/// of steps has held the thread for [`Slices::SHORT_MS`]; then the page model, then the
/// view, each in a task of its own. `busy` is true meanwhile; a screen closed meanwhile is
/// left alone.
fn open_sliced(source: Source, opened: Opened, busy: RwSignal<bool>) {
    opened.set(None);
    busy.set(true);
    spawn_local(async move {
        // Not in the task that asked (a click, a route change): that one has work of its own.
        gloo::timers::future::TimeoutFuture::new(0).await;
        let outcome = async {
            let decoding = match source {
                Source::Link(text) => Decoding::link(&text),
                Source::Fragment(chars) if chars > MAX_LINK_TEXT_CHARS => {
                    Err(ShareError::TooLong {
                        chars,
                        limit: MAX_LINK_TEXT_CHARS,
                    })
                }
                Source::Fragment(_) => Decoding::link(&read_share_link().await),
                Source::File(file) => {
                    let name = file.name();
                    // Refused before reading: no result within the share limits needs more.
                    check_file_size(&name, file.size() as u64).map_err(|e| e.to_string())?;
                    let blob = gloo::file::Blob::from(file);
                    let text = gloo::file::futures::read_as_text(&blob)
                        .await
                        .map_err(|e| format!("{name}: {e}"))?;
                    Decoding::file(&name, &text)
                }
            };
            let mut decoding = decoding.map_err(|e| e.to_string())?;
            let mut slices = Slices::of(Slices::SHORT_MS);
            let result = loop {
                let step = format!("share-{}", decoding.stage());
                if let Some(result) = timed(&step, || decoding.step()) {
                    break result.map_err(|e| e.to_string())?;
                }
                slices.pause().await;
            };
            gloo::timers::future::TimeoutFuture::new(0).await;
            let page = timed("share-page-model", || SharePage::new(&result));
            Ok((result, page))
        }
        .await;
        // What it opened is drawn in a task of its own.
        gloo::timers::future::TimeoutFuture::new(0).await;
        if timed("share-shown", || opened.try_set(Some(outcome))).is_none() {
            busy.try_set(false);
        }
    });
}

/// The share screen for `payload` (empty: offer to open a link or a result file).
#[component]
pub fn ShareView(payload: String) -> impl IntoView {
    let opened: Opened = RwSignal::new(None);
    let busy = RwSignal::new(false);
    match long_share(&payload) {
        Some(chars) => open_sliced(Source::Fragment(chars), opened, busy),
        None if !payload.is_empty() => open_sliced(Source::Link(payload), opened, busy),
        None => {}
    }
    move || {
        match opened.get() {
        None if busy.get() => view! {
            <section class="empty-state" data-testid="share-opening" aria-busy="true">
                <h1>"Opening the shared result…"</h1>
            </section>
        }
        .into_any(),
        Some(Ok((result, page))) => timed("share-view", || view! { <SharedResultView result=result page=page/> }.into_any()),
        Some(Err(e)) => view! {
            <section class="share-error" data-testid="share-error" role="alert">
                <h1>"This share link cannot be opened"</h1>
                <p class="error-message" data-testid="share-error-message">{e}</p>
            </section>
            <OpenShared opened=opened busy=busy/>
        }
        .into_any(),
        None => view! {
            <section class="empty-state">
                <h1>"Open a shared result"</h1>
                <p>"A share link opens here by itself. You can also paste one, or open a result file (results too large for a link are shared as files)."</p>
            </section>
            <OpenShared opened=opened busy=busy/>
        }
        .into_any(),
    }
    }
}

/// Paste a link or pick a result file.
#[component]
fn OpenShared(opened: Opened, busy: RwSignal<bool>) -> impl IntoView {
    let pasted = RwSignal::new(String::new());
    let on_file = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|i| i.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            open_sliced(Source::File(file), opened, busy);
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
                on:click=move |_| open_sliced(Source::Link(pasted.get_untracked()), opened, busy)>"Open"</button>
            <label class="file-picker small">
                "Open a result file…"
                <input type="file" accept=".json,application/json" data-testid="result-file" on:change=on_file/>
            </label>
        </div>
    }
}

/// A premise: a table, or the plain text.
#[component]
fn PremiseView(premise: Premise) -> impl IntoView {
    match premise {
        Premise::Table(t) => view! { <TableView table=t max_cells=CELLS_SHOWN/> }.into_any(),
        Premise::Text(p) => view! { <p class="premise-text">{p}</p> }.into_any(),
        Premise::Nothing => view! { <p class="muted">"(no premise)"</p> }.into_any(),
    }
}

/// The re-run of a shared result's two items on the loaded model: their scores and the
/// weight hash they ran with, or why they could not run.
/// A re-run: its two scores, and the weight hash and precision of the model that made them.
type Rerun = Action<(), Result<(Vec<PairScore>, String, Precision), String>>;

/// A shared result, from the pure page model (core `share::view`, fuzzed natively), with its
/// re-run on the loaded model.
#[component]
fn SharedResultView(result: SharedResult, mut page: SharePage) -> impl IntoView {
    let state = expect_context::<AppState>();
    // The tables go to the tables' panel alone; the other panels get copies of the rest (a
    // copy of tables at the share limits took tens of milliseconds).
    let premise = std::mem::replace(
        &mut page.premise,
        PremiseSection::Unchanged(Premise::Nothing),
    );
    let editor = timed("share-editor-button", || {
        open_in_editor(state, &result, page.expected_after)
    });
    // Re-run with the loaded model, on the link's linearization; the weight hash it ran with
    // is kept so the claim note can say whether the re-run checks the link's figures. The
    // pairs are made on the click: linearizing tables at the share limits takes a while.
    let result = std::rc::Rc::new(result);
    let rerun: Rerun = Action::new_local(move |_: &()| {
        let pairs = rerun_pairs(&result).map_err(|e| e.to_string());
        let started = pairs.and_then(|pairs| {
            let (sha, precision) = state
                .slot(Slot::Main)
                .model
                .with_untracked(|m| {
                    m.as_ref()
                        .map(|m| (m.id.weights_sha256.clone(), m.id.precision))
                })
                .unwrap_or_default();
            let (_, fut) = crate::worker::client::client()
                .and_then(|c| c.score(Slot::Main, pairs, |_, _| {}))?;
            Ok((fut, sha, precision))
        });
        async move {
            let (fut, sha, precision) = started?;
            fut.await
                .map(|(s, _)| (s, sha, precision))
                .map_err(|f| f.message())
        }
    });
    // Results of another model would be mislabelled: a new model clears them.
    Effect::new(move |_| {
        state.slot(Slot::Main).model.track();
        rerun.value().set(None);
    });
    view! {
        <section class="workbench shared" data-testid="shared-result">
            <header class="wb-head">
                <div>
                    <h1>"Shared probe result"</h1>
                    <p class="muted origin" data-testid="share-origin">{page.origin.clone()}</p>
                </div>
                {editor}
            </header>
            <ShareFacts page=page.clone()/>
            <SharePredictions page=page.clone() rerun=rerun/>
            <ShareTables premise=premise/>
            <ShareRerun page=page rerun=rerun/>
        </section>
    }
}

/// A button that opens the edited item in the table editor, when the link edits a table.
fn open_in_editor(
    state: AppState,
    r: &SharedResult,
    expected_after: Option<Label>,
) -> Option<impl IntoView> {
    r.after_table().cloned().map(|table| {
        let item = WorkItem {
            example_id: r.example_id.clone(),
            table,
            hypothesis: r.after.hypothesis.clone(),
            label: expected_after.or(r.gold),
            origin: format!("shared link: {}", r.origin),
            // The link carries no annotation of the edited table: mark nothing rather
            // than the original's rows, which may have moved.
            relevant_rows: Some(Vec::new()),
            probe_result: None,
        };
        view! {
            <button class="button" data-testid="open-in-editor" on:click=move |_| {
                state.work_item.set(Some(item.clone()));
                navigate(Route::Editor);
            }>"Open the edited item in the table editor"</button>
        }
    })
}

/// Who produced the result and what it probed: model, operation, example, linearization,
/// labels, and the transition with the rule that judges it.
#[component]
fn ShareFacts(page: SharePage) -> impl IntoView {
    let set = page.label_set;
    let model_line = match &page.model {
        Some(m) => view! {
            <p class="share-model">
                "Produced by " <strong data-testid="share-model-name">{m.name.clone()}</strong>
                {if m.scores_file { " · imported scores, file SHA-256 " } else { " · weights SHA-256 " }}
                <code data-testid="share-model-hash" title=m.weights_sha256.clone()>{m.hash_short.clone()}</code>
                {(!m.scores_file).then(|| view! { " · " <span data-testid="share-model-precision">{m.precision.as_str()}</span> })}
                " " <span class="claimed muted" data-testid="share-hash-claimed">{format!("({CLAIMED})")}</span>
            </p>
        }
        .into_any(),
        None => view! { <p class="muted" data-testid="share-model-name">"No model was loaded when this result was shared."</p> }.into_any(),
    };
    let rule_view = page.rule.clone().map(|rule| {
        let rows = rule
            .rows
            .into_iter()
            .map(|(before, valid)| view! { <tr><th scope="row">{before}</th><td>{valid}</td></tr> })
            .collect::<Vec<_>>();
        view! {
            <table class="rule-table" data-testid="share-rule">
                <caption>{rule.caption}</caption>
                <thead><tr><th>"before"</th><th>"valid after"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    view! {
        <div class="panel share-facts">
            {model_line}
            <dl>
                <dt>"operation"</dt><dd data-testid="share-operation">{page.operation.clone()}</dd>
                {page.example_id.clone().map(|id| view! { <dt>"example"</dt><dd data-testid="share-example">{id}</dd> })}
                <dt>"linearization"</dt><dd data-testid="share-linearization">{page.linearization.clone()}</dd>
                {page.gold.map(|g| view! { <dt>"original's gold label"</dt><dd><LabelBadge label=g set=set/></dd> })}
                {page.expectation.clone().map(|e| view! { <dt>"expectation"</dt><dd data-testid="share-expectation">{e}</dd> })}
                {page.certainty.map(|c| view! { <dt>"certainty"</dt><dd data-testid="share-certainty">{c}</dd> })}
                {page.why.map(|w| view! { <dt>"why"</dt><dd data-testid="share-why">{w}</dd> })}
            </dl>
            <div class="share-transition">
                <OneEdgeGraph page=page.clone()/>
                {rule_view}
            </div>
        </div>
    }
}

/// A prediction in a table cell, or that none was recorded.
fn prediction_cell(
    score: Option<PairScore>,
    gold: Option<Label>,
    set: LabelSet,
    testid: &'static str,
) -> impl IntoView {
    let body = match score {
        Some(s) => view! { <Prediction score=s gold=gold set=set/> }.into_any(),
        None => view! { <span class="muted">"not recorded"</span> }.into_any(),
    };
    view! { <td data-testid=testid>{body}</td> }
}

/// The hypotheses before and after, and the predictions the link claims (confirmed or not by
/// the re-run), its main model's and any other's.
#[component]
fn SharePredictions(page: SharePage, rerun: Rerun) -> impl IntoView {
    let set = page.label_set;
    let expected_after = page.expected_after;
    let (pb, pa) = match &page.predictions {
        Some(p) => (Some(p.before.clone()), Some(p.after.clone())),
        None => (None, None),
    };
    let claim_note = {
        let page = page.clone();
        move || {
            rerun.value().with(|r| {
                let done = match r {
                    Some(Ok((scores, sha, precision))) => {
                        Some((scores.as_slice(), sha.as_str(), *precision))
                    }
                    _ => None,
                };
                page.claim_status(done).note()
            })
        }
    };
    view! {
        <div class="panel">
            <h2>"Hypothesis"</h2>
            <table class="share-hypotheses">
                <tr><th scope="row">"original"</th><td data-testid="share-hyp-before">{page.hypothesis_before.clone()}</td></tr>
                <tr><th scope="row">{if page.hypothesis_changed { "edited" } else { "edited (unchanged)" }}</th><td data-testid="share-hyp-after">{page.hypothesis_after.clone()}</td></tr>
            </table>
            <h2>"Predictions"</h2>
            {page.predictions.is_some().then(|| view! { <p class="claimed muted" data-testid="share-pred-claimed">{claim_note}</p> })}
            <table class="share-predictions">
                <tr><th scope="row">"original"</th>{prediction_cell(pb, page.gold, set, "share-pred-before")}</tr>
                <tr><th scope="row">"edited"</th>{prediction_cell(pa, expected_after, set, "share-pred-after")}</tr>
            </table>
            {(!page.other_models.is_empty()).then(|| {
                let rows = page.other_models.iter().cloned().map(|(m, p)| (Some(m), p)).collect::<Vec<_>>();
                view! {
                    <h3>"Other models (claimed by the link)"</h3>
                    <ModelPredictions rows=rows set=set gold=page.gold expected_after=expected_after/>
                }
            })}
        </div>
    }
}

/// The premise: the original and edited tables with what changed, or the unchanged premise.
#[component]
fn ShareTables(premise: PremiseSection) -> impl IntoView {
    match premise {
        PremiseSection::Changed(change) => {
            let TableChange {
                original,
                edited,
                summary,
                title_change,
                lines,
            } = *change;
            view! {
                <div class="panel">
                    <h2>"Tables"</h2>
                    <TableDiffLines summary=summary title_change=title_change lines=lines max_cells=CELLS_SHOWN/>
                    <div class="side-by-side">
                        <div><h3>"Original"</h3><PremiseView premise=Premise::Table(original)/></div>
                        <div><h3>"Edited"</h3><PremiseView premise=Premise::Table(edited)/></div>
                    </div>
                </div>
            }
            .into_any()
        }
        PremiseSection::Unchanged(premise) => view! {
            <div class="panel">
                <h2>"Premise (unchanged)"</h2>
                <PremiseView premise=premise/>
            </div>
        }
        .into_any(),
    }
}

/// The re-run on the loaded model: warnings when its weights or arithmetic differ from the
/// link's, the button, and the re-run's predictions.
#[component]
fn ShareRerun(page: SharePage, rerun: Rerun) -> impl IntoView {
    let state = expect_context::<AppState>();
    let set = page.label_set;
    let (gold, expected_after) = (page.gold, page.expected_after);
    let linearization_text = page.linearization.clone();
    let link_model = page.model.clone();
    let hash_warning = move || {
        let loaded = state.slot(Slot::Main).model.get()?;
        let same = link_model.as_ref().map(|m| m.weights_sha256.as_str())
            == Some(loaded.id.weights_sha256.as_str());
        (!same).then(|| {
            let made_by = match &link_model {
                Some(m) => format!("{} ({})", m.name, m.hash_short),
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
    let precision_warning = move || {
        let loaded = state.slot(Slot::Main).model.get()?;
        let note = page.precision_note(loaded.id.precision)?;
        Some(view! { <p class="warning" data-testid="precision-warning" role="status">{note}</p> })
    };
    let rerun_view = move || {
        rerun.value().get().map(|res| match res {
            Ok((s, _, _)) if s.len() == 2 => {
                let mut it = s.into_iter();
                let (b, a) = (it.next(), it.next());
                view! {
                    <table class="share-predictions" data-testid="rerun-predictions">
                        <caption>{state.slot(Slot::Main).model.with_untracked(|m| m.as_ref().map(|m| format!("Re-run with {}", m.id.name)))}</caption>
                        <tr><th scope="row">"original"</th>{prediction_cell(b, gold, set, "rerun-before")}</tr>
                        <tr><th scope="row">"edited"</th>{prediction_cell(a, expected_after, set, "rerun-after")}</tr>
                    </table>
                }
                .into_any()
            }
            Ok(_) => view! { <p class="error">"the worker returned the wrong number of scores"</p> }.into_any(),
            Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
        })
    };
    let on_rerun = move |_| {
        rerun.value().set(None);
        rerun.dispatch_local(());
    };
    view! {
        <div class="panel">
            <h2>"Re-run with your model"</h2>
            <p class="muted">{format!("The re-run reads the tables as this result did ({}), whatever the premise-text setting below says.", linearization_text)}</p>
            <ModelPanel/>
            {hash_warning}
            {precision_warning}
            <button class="button" data-testid="rerun" on:click=on_rerun disabled=move || state.slot(Slot::Main).model.with(|m| m.is_none())>
                "Re-run with the loaded model"
            </button>
            {move || state.slot(Slot::Main).model.with(|m| m.is_none()).then(|| view! { <span class="muted">" Load a model above to re-run these two items."</span> })}
            {rerun_view}
        </div>
    }
}
