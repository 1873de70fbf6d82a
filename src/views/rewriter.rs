//! The hypothesis rewriter (docs/using-the-site.md#the-hypothesis-rewriter, issue 6 item 2): edit the work item's hypothesis with the
//! model's live prediction before and after; the §4.4 perturbations core generates are offered
//! as one-click suggestions with their expected label and certain/heuristic mark, to try,
//! accept (they join the dataset as hand-made items) or reject.

use leptos::prelude::*;
use std::sync::Arc;

use tabprobe_core::edit::{
    hypothesis_suggestions, review_suggestion, HandMadeItem, HandMadeOperation, History,
};
use tabprobe_core::probe::edit_table::KeyIndex;
use tabprobe_core::probe::review::Decision as ReviewDecision;
use tabprobe_core::probe::{Basis, Certainty, Edit, Expectation, Perturbation, Premise};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::share::{SharedInput, SharedResult};
use tabprobe_core::{Label, LabelSet};

use crate::components::label_badge::LabelBadge;
use crate::components::live_prediction::{use_live_score, LiveScore};
use crate::components::model_panel::ModelPanel;
use crate::components::save_item::{save_hand_made, saved_message, CHOOSE_LABEL};
use crate::components::share_button::ShareButton;
use crate::components::table_view::TableView;
use crate::components::workbench::{
    annotated_rows, label_set, live_pair, share_waits, work_result, NoWorkItem, ProbeItemPanel,
    WorkbenchHeader, WorkbenchSide,
};
use crate::state::{AppState, RewriterDraft, WorkItem};

/// The seed suggestions are drawn with: the probe runner's default, so a suggestion equals
/// the item a default run generates for the same example.
const SUGGESTION_SEED: u64 = 0;

/// The rewriter screen: the work item, or what to do to get one.
#[component]
pub fn RewriterView() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match state.work_item.get() {
        Some(item) => view! { <Rewriter item=item/> }.into_any(),
        None => view! { <NoWorkItem what="hypothesis rewriter"/> }.into_any(),
    }
}

/// What the user did with a suggestion.
#[derive(Clone, Debug, PartialEq)]
enum Decision {
    Open,
    Accepted(String),
    Rejected,
    Failed(String),
}

fn expected_label(p: &Perturbation) -> Option<Label> {
    match &p.expectation {
        Expectation::Label { labels } => labels.first().copied(),
        Expectation::Transition { .. } => None,
    }
}

fn probe_name(kind: ProbeKind) -> String {
    kind.display_name()
}

/// The suggestions for the item: every §4.4 probe, against the dataset's tables when loaded.
fn suggestions_for(state: AppState, item: &WorkItem) -> Result<Vec<Perturbation>, String> {
    let Some(gold) = item.label else {
        return Err("No suggestions: the item has no gold label to perturb from.".into());
    };
    if gold == Label::Neutral {
        return Err("No suggestions: the hypothesis probes of §4.4 skip NEUTRAL items (their label depends on what the table lacks).".into());
    }
    let (index, example_index) = state.dataset.with_untracked(|d| match d {
        Some(d) => (
            KeyIndex::new(&d.dataset.tables),
            item.example_id
                .as_deref()
                .and_then(|id| {
                    d.dataset
                        .examples
                        .iter()
                        .position(|e| e.id.as_deref() == Some(id))
                })
                .unwrap_or(0),
        ),
        None => (KeyIndex::new(std::slice::from_ref(&item.table)), 0),
    });
    let premise = Premise::Table(item.table.clone());
    Ok(hypothesis_suggestions(
        &premise,
        &item.hypothesis,
        gold,
        &index,
        SUGGESTION_SEED,
        example_index,
    ))
}

/// The rewriter for one work item: its hypothesis to rewrite, the suggestions, the table,
/// and beside them the live predictions, save and share.
#[component]
fn Rewriter(item: WorkItem) -> impl IntoView {
    let state = expect_context::<AppState>();
    let set = label_set(state);
    let relevant = annotated_rows(state, &item);
    // The unsaved rewrite of this item, kept across navigation and reloads (state, session).
    let kept = state.rewriter_draft.with_untracked(|d| {
        d.as_ref()
            .filter(|d| d.item == item)
            .map(|d| (d.text.clone(), d.asserted))
    });
    let (start, start_label) = kept.unwrap_or_else(|| (item.hypothesis.clone(), item.label));
    let history = RwSignal::new(History::new(start));
    let text = Memo::new(move |_| history.with(|h| h.current().clone()));
    // The suggestion last tried, while the text still equals it: its probe becomes the saved
    // item's operation.
    let applied = RwSignal::new(None::<(ProbeKind, String)>);
    let asserted = RwSignal::new(start_label);
    keep_draft(state, item.clone(), text, asserted);

    let table = item.table.clone();
    let fixed_table = Signal::stored(table.clone());
    let original_pair = live_pair(state, fixed_table, Signal::stored(item.hypothesis.clone()));
    let edited_pair = live_pair(state, fixed_table, text.into());
    let before = use_live_score(original_pair);
    let after = use_live_score(edited_pair);

    let rewrite = Rewrite {
        history,
        applied,
        asserted,
    };
    let operation = Signal::derive(move || {
        let t = text.get();
        match applied.get() {
            Some((kind, s)) if s == t => HandMadeOperation::Suggestion(kind),
            _ => HandMadeOperation::RewriteHypothesis,
        }
    });
    let save_item = rewrite_to_save(&item, relevant.clone(), text, asserted, operation);
    // A probe item stays itself until its hypothesis is rewritten: its link is the probe result.
    let edited = {
        let h = item.hypothesis.clone();
        Signal::derive(move || text.with(|t| *t != h))
    };
    let share_waiting = share_waits(before, after, &item, edited);
    let shared = rewrite_shared(
        state,
        &item,
        text,
        edited,
        operation,
        asserted,
        (before, after),
    );

    view! {
        <section class="workbench rewriter" data-testid="rewriter">
            <WorkbenchHeader title="Hypothesis rewriter" origin=item.origin.clone() history=history/>
            <ModelPanel/>
            <div class="wb-grid">
                <div class="wb-main">
                    <HypothesisBox hypothesis=item.hypothesis.clone() label=item.label set=set text=text history=history/>
                    <div class="panel">
                        <h2>"Suggested perturbations (§4.4)"</h2>
                        <p class="muted">"Generated from the hypothesis and the table. “certain” follows from the rule; “heuristic” needs your review. Try one to see the model's prediction, then accept it as is, edit it, or reject it."</p>
                        <SuggestionList item=item.clone() set=set rewrite=rewrite/>
                    </div>
                    <div class="table-pane">
                        <TableView table=table.clone() relevant=relevant.clone()/>
                        <p class="hint">"The table stays as it is here; edit it in the table editor."</p>
                    </div>
                </div>
                <WorkbenchSide titles=("Original hypothesis", "Rewritten hypothesis") before=before after=after gold=item.label
                    asserted=asserted set=set save_item=save_item shared=shared share_waiting=share_waiting>
                    <ProbeItemPanel item=item.clone() edited=edited/>
                </WorkbenchSide>
            </div>
        </section>
    }
}

/// Keeps the rewrite of `item` in the state's draft (kept across navigation and reloads) as
/// it changes.
fn keep_draft(
    state: AppState,
    item: WorkItem,
    text: Memo<String>,
    asserted: RwSignal<Option<Label>>,
) {
    Effect::new(move |_| {
        let d = RewriterDraft {
            item: item.clone(),
            text: text.get(),
            asserted: asserted.get(),
        };
        state.rewriter_draft.set(Some(d));
    });
}

/// The share link's result: the probe item's own while its hypothesis is as it was, else the
/// rewrite with the asserted label and the `(before, after)` live scores.
fn rewrite_shared(
    state: AppState,
    item: &WorkItem,
    text: Memo<String>,
    edited: Signal<bool>,
    operation: Signal<HandMadeOperation>,
    asserted: RwSignal<Option<Label>>,
    (before, after): (ReadSignal<LiveScore>, ReadSignal<LiveScore>),
) -> Signal<Option<SharedResult>> {
    let item = item.clone();
    Signal::derive(move || {
        if let (Some(r), false) = (&item.probe_result, edited.get()) {
            return Some(r.clone());
        }
        let after_input = SharedInput {
            table: None,
            premise: None,
            hypothesis: text.get(),
        };
        Some(work_result(
            state,
            &item,
            "hypothesis rewritten",
            operation.get().as_str(),
            after_input,
            asserted.get(),
            &before.get(),
            &after.get(),
        ))
    })
}

/// The original hypothesis with its gold label, the field to rewrite it in and a reset.
#[component]
fn HypothesisBox(
    /// The work item's hypothesis.
    hypothesis: String,
    label: Option<Label>,
    set: LabelSet,
    text: Memo<String>,
    history: RwSignal<History<String>>,
) -> impl IntoView {
    view! {
        <div class="hypothesis-box">
            <span class="muted">"Original hypothesis "</span>
            {label.map(|l| view! { <LabelBadge label=l set=set/> })}
            <p class="hypothesis-text" data-testid="work-hypothesis">{hypothesis.clone()}</p>
            <label class="rewrite-field">
                <span>"Rewritten"</span>
                <textarea data-testid="hypothesis-input" rows="2" prop:value=move || text.get()
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        history.update(|h| { h.apply_grouped(v, "hypothesis"); });
                    }></textarea>
            </label>
            <button class="link-button" data-testid="reset-hypothesis" on:click={
                let h = hypothesis.clone();
                move |_| history.update(|x| { x.apply(h.clone()); })
            }>"reset to the original"</button>
        </div>
    }
}

/// The rewrite in progress, as the suggestions change it.
#[derive(Clone, Copy)]
struct Rewrite {
    history: RwSignal<History<String>>,
    /// The suggestion last tried, with its text.
    applied: RwSignal<Option<(ProbeKind, String)>>,
    asserted: RwSignal<Option<Label>>,
}

/// The hand-made item the rewrite saves, or what is missing before it can.
fn rewrite_to_save(
    item: &WorkItem,
    relevant: Vec<usize>,
    text: Memo<String>,
    asserted: RwSignal<Option<Label>>,
    operation: Signal<HandMadeOperation>,
) -> Signal<Result<HandMadeItem, String>> {
    let item = item.clone();
    Signal::derive(move || {
        let t = text.get();
        if t.trim().is_empty() {
            return Err("Type a hypothesis to save.".into());
        }
        if t == item.hypothesis {
            return Err("Rewrite the hypothesis (or try a suggestion) to make a new item.".into());
        }
        let Some(label) = asserted.get() else {
            return Err(CHOOSE_LABEL.into());
        };
        Ok(HandMadeItem {
            derived_from: item.example_id.clone(),
            table: Some(item.table.clone()),
            premise: None,
            hypothesis: t,
            label,
            relevant_rows: Some(relevant.clone()),
            operation: operation.get(),
        })
    })
}

/// The §4.4 suggestions for the item, or why there are none.
#[component]
fn SuggestionList(item: WorkItem, set: LabelSet, rewrite: Rewrite) -> impl IntoView {
    let state = expect_context::<AppState>();
    let suggestions = suggestions_for(state, &item);
    let decisions = RwSignal::new(vec![
        Decision::Open;
        suggestions.as_ref().map(Vec::len).unwrap_or(0)
    ]);
    match suggestions {
        Err(why) => view! { <p class="empty" data-testid="no-suggestions">{why}</p> }.into_any(),
        Ok(list) if list.is_empty() => view! {
            <p class="empty" data-testid="no-suggestions">"No §4.4 perturbation applies to this hypothesis (no number, date, table value, auxiliary, title mention or quantifier to edit). Rewrite it by hand above."</p>
        }.into_any(),
        Ok(list) => {
            let all = Arc::new(list.clone());
            let items = list
                .into_iter()
                .enumerate()
                .map(|(k, p)| suggestion_view(k, p, all.clone(), &item, set, decisions, rewrite, state))
                .collect::<Vec<_>>();
            view! { <ol class="suggestions" data-testid="suggestions">{items}</ol> }.into_any()
        }
    }
}

/// The suggestion's hypothesis with the edited span marked.
fn suggestion_text(hypothesis: &str, p: &Perturbation) -> AnyView {
    let h = hypothesis;
    match &p.edit {
        Edit::HypothesisSpan {
            start,
            end,
            before,
            after,
        } if *start <= *end && *end <= h.len() => {
            let (pre, post) = (h[..*start].to_string(), h[*end..].to_string());
            let changed = if after.is_empty() {
                view! { <del>{before.clone()}</del> }.into_any()
            } else {
                view! { <ins>{after.clone()}</ins> }.into_any()
            };
            view! { <span class="suggestion-text">{pre}{changed}{post}</span> }.into_any()
        }
        _ => view! { <span class="suggestion-text">{p.perturbed.hypothesis.clone()}</span> }
            .into_any(),
    }
}

/// The suggestion as a share link: generated, not scored, so no model and no predictions.
fn suggestion_share(state: AppState, item: &WorkItem, p: &Perturbation) -> SharedResult {
    let kind = p.probe;
    let after = SharedInput {
        table: None,
        premise: None,
        hypothesis: p.perturbed.hypothesis.clone(),
    };
    let mut r = work_result(
        state,
        item,
        &format!("{} suggestion", probe_name(kind)),
        kind.as_str(),
        after,
        expected_label(p),
        &LiveScore::NoModel,
        &LiveScore::NoModel,
    );
    r.model = None;
    r.expectation = Some(p.expectation.clone());
    r.certainty = Some(p.certainty);
    r.basis = Some(p.basis);
    r
}

/// A suggestion's probe, expected label and whether it is certain or heuristic.
#[component]
fn SuggestionHead(
    kind: ProbeKind,
    expected: Option<Label>,
    certainty: Certainty,
    basis: Basis,
    set: LabelSet,
) -> impl IntoView {
    view! {
        <div class="suggestion-head">
            <span class="probe-name">{probe_name(kind)}</span>
            {expected.map(|l| view! { <span class="muted">"expected "</span><LabelBadge label=l set=set/> })}
            <span class=match certainty { Certainty::Certain => "tag certain", Certainty::Heuristic => "tag heuristic" }
                data-testid="certainty"
                title=basis.line()>
                {match certainty { Certainty::Certain => "certain", Certainty::Heuristic => "heuristic" }}
            </span>
            <span class="why muted" data-testid="suggestion-why">{basis.line()}</span>
        </div>
    }
}

/// One suggestion line: the edited span marked, expected label, certainty and the actions.
#[allow(clippy::too_many_arguments)]
fn suggestion_view(
    k: usize,
    p: Perturbation,
    all: Arc<Vec<Perturbation>>,
    item: &WorkItem,
    set: LabelSet,
    decisions: RwSignal<Vec<Decision>>,
    rewrite: Rewrite,
    state: AppState,
) -> impl IntoView {
    let shown = suggestion_text(&item.hypothesis, &p);
    let share = suggestion_share(state, item, &p);
    let expected = expected_label(&p);
    let certainty = p.certainty;
    let basis = p.basis;
    let kind = p.probe;
    let new_text = p.perturbed.hypothesis.clone();
    let decision = move || decisions.with(|d| d.get(k).cloned().unwrap_or(Decision::Open));
    let set_decision = move |d: Decision| {
        decisions.update(|all| {
            if let Some(x) = all.get_mut(k) {
                *x = d
            }
        })
    };
    let try_it = try_suggestion(rewrite, kind, new_text.clone(), expected);
    let review = review_suggestion_with(state, item, all, k);
    let accept = {
        let save = HandMade {
            text: new_text,
            relevant: annotated_rows(state, item),
            item: item.clone(),
            kind,
        };
        let review = review.clone();
        move |_| {
            let Some(label) = expected else { return };
            set_decision(accept_suggestion(state, &review, &save, label, set))
        }
    };
    let reject = {
        let review = review.clone();
        move |_| match review(ReviewDecision::Reject) {
            Some(Err(e)) => set_decision(Decision::Failed(e)),
            _ => set_decision(Decision::Rejected),
        }
    };
    let restore = move |_| {
        if let Some(Err(e)) = review(ReviewDecision::Reset) {
            return set_decision(Decision::Failed(e));
        }
        set_decision(Decision::Open)
    };
    view! {
        <li class="suggestion" data-testid="suggestion" data-probe=kind.as_str()
            class:accepted=move || matches!(decision(), Decision::Accepted(_))
            class:rejected=move || decision() == Decision::Rejected>
            <SuggestionHead kind=kind expected=expected certainty=certainty basis=basis set=set/>
            <p>{shown}</p>
            <div class="suggestion-actions">
                {move || match decision() {
                    Decision::Open => view! {
                        <button class="button" data-testid="suggestion-try" on:click=try_it.clone()
                            title="Put it in the editor above and see the model's prediction">"Try"</button>
                        <button class="button primary" data-testid="suggestion-accept" on:click=accept.clone()
                            disabled=expected.is_none() title="Save it as a probe item with the expected label">"Accept"</button>
                        <button class="button" data-testid="suggestion-reject" on:click=reject.clone()>"Reject"</button>
                    }.into_any(),
                    Decision::Accepted(m) => view! { <span class="saved" data-testid="suggestion-accepted">{m}</span> }.into_any(),
                    Decision::Rejected => view! {
                        <span class="muted">"rejected"</span>
                        <button class="link-button" on:click=restore.clone()>"restore"</button>
                    }.into_any(),
                    Decision::Failed(e) => view! { <span class="error" role="alert">{e}</span> }.into_any(),
                }}
            </div>
            <ShareButton result=Signal::stored(Some(share))/>
        </li>
    }
}

/// "Try": puts the suggestion's text `t` in the editor, remembers which probe made it, and
/// asserts its expected label.
fn try_suggestion(
    rewrite: Rewrite,
    kind: ProbeKind,
    t: String,
    expected: Option<Label>,
) -> impl Fn(leptos::ev::MouseEvent) + Clone + 'static {
    let Rewrite {
        history,
        applied,
        asserted,
    } = rewrite;
    move |_| {
        history.update(|x| {
            x.apply(t.clone());
        });
        applied.set(Some((kind, t.clone())));
        if let Some(l) = expected {
            asserted.set(Some(l));
        }
    }
}

/// Records a review decision on suggestion `k` of `all` in the loaded dataset: the id of the
/// probe item reviewed, or why it could not; `None` when the suggestion is not reviewable.
fn review_suggestion_with(
    state: AppState,
    item: &WorkItem,
    all: Arc<Vec<Perturbation>>,
    k: usize,
) -> impl Fn(ReviewDecision) -> Option<Result<String, String>> + Clone + 'static {
    // On a dataset example as it stands, a suggestion is the item a probe run generates for
    // it: Accept and Reject record a review of that item in the dataset (issue 11 §4), so runs
    // score it by the reviewer's decision. On anything else (a probe item, an edited table)
    // Accept saves it as a hand-made item, as before.
    let reviewable = dataset_example_as_is(state, item);
    move |decision: ReviewDecision| -> Option<Result<String, String>> {
        let example_id = reviewable.clone()?;
        state.change_dataset(|ds| {
            review_suggestion(ds, &example_id, &all, k, decision).map_err(|e| e.to_string())
        })
    }
}

/// What an accepted suggestion saves as a hand-made item when it is not reviewable.
#[derive(Clone)]
struct HandMade {
    /// The suggestion's hypothesis.
    text: String,
    /// The item's evidence rows.
    relevant: Vec<usize>,
    item: WorkItem,
    kind: ProbeKind,
}

/// Accepts a suggestion with its expected `label`: a review of the probe item when
/// `review` records one, else the hand-made item `save` added to the dataset.
fn accept_suggestion(
    state: AppState,
    review: &impl Fn(ReviewDecision) -> Option<Result<String, String>>,
    save: &HandMade,
    label: Label,
    set: LabelSet,
) -> Decision {
    match review(ReviewDecision::Accept(label)) {
        Some(Ok(id)) => {
            return Decision::Accepted(format!(
                "Accepted: probe item {id} is reviewed as {}; probe runs on this dataset score it against that label.",
                set.display_name(label)
            ))
        }
        Some(Err(e)) => return Decision::Failed(e),
        None => {}
    }
    let it = HandMadeItem {
        derived_from: save.item.example_id.clone(),
        table: Some(save.item.table.clone()),
        premise: None,
        hypothesis: save.text.clone(),
        label,
        relevant_rows: Some(save.relevant.clone()),
        operation: HandMadeOperation::Suggestion(save.kind),
    };
    match save_hand_made(state, it) {
        Ok(added) => Decision::Accepted(saved_message(&added, label, set)),
        Err(e) => Decision::Failed(e),
    }
}

/// The id of the dataset example `item` is, when it is that example as it stands (same
/// hypothesis, same table): then its suggestions are the items a probe run makes of it.
fn dataset_example_as_is(state: AppState, item: &WorkItem) -> Option<String> {
    let id = item.example_id.clone()?;
    state.dataset.with_untracked(|d| {
        let d = d.as_ref()?;
        let ex = d
            .dataset
            .examples
            .iter()
            .find(|e| e.id.as_deref() == Some(id.as_str()))?;
        let table = d
            .dataset
            .tables
            .iter()
            .find(|t| Some(t.id()) == ex.table.as_deref())?;
        (ex.hypothesis == item.hypothesis && *table == item.table).then_some(id)
    })
}
