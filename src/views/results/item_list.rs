//! Drill-down: the items behind a number of the results view (an edge of a transition graph,
//! a cell of an invalid-transition table, a row of a report section, an Ω_x point, a BLEU-2
//! bin, every item of the run) — core's [`ItemSelector`] of that figure — listed with what
//! changed, what a correct model does, and every model's `before → after` on the same item.
//! Each item opens in the table editor or the hypothesis rewriter.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::probe::relevance::relevant_rows_after;
use tabprobe_core::probe::review::{set_item_review, Decision, ReviewState};
use tabprobe_core::probe::{Expectation, Premise, ProbeItem};
use tabprobe_core::report::ItemSelector;
use tabprobe_core::run::verdict::Verdict;
use tabprobe_core::run::RunResult;
use tabprobe_core::share::{from_run_item, SharedResult};
use tabprobe_core::LabelSet;

use crate::components::label_badge::LabelBadge;
use crate::components::share_button::ShareButton;
use crate::route::{navigate, Route};
use crate::state::{AppState, WorkItem};

/// Which items to list: the [`ItemSelector`] of the figure that was opened (core builds it
/// beside the figure, from the predicates the metric counts with) and whose predictions
/// select them.
#[derive(Clone, Debug, PartialEq)]
pub struct Drill {
    /// Which run selects (0 = main model).
    pub model: usize,
    /// Which run's hypothesis-only predictions Table 8 read (`model` itself for its own
    /// empty-premise scores).
    pub hypothesis_model: usize,
    /// The items behind the figure.
    pub items: ItemSelector,
}

impl Drill {
    /// The items of run `model`'s figure.
    pub fn of(model: usize, items: ItemSelector) -> Self {
        Drill {
            model,
            hypothesis_model: model,
            items,
        }
    }

    /// The run whose predictions select the items: with a second model's hypothesis-only
    /// scores (Table 8), the main run carrying them, as the table was computed; `None` when
    /// a run is not in `runs`.
    pub fn selecting_run(&self, runs: &[Arc<RunResult>]) -> Option<Arc<RunResult>> {
        let run = runs.get(self.model)?;
        if self.hypothesis_model == self.model {
            return Some(run.clone());
        }
        let combined = run
            .with_hypothesis_model(runs.get(self.hypothesis_model)?)
            .ok()?;
        Some(Arc::new(combined))
    }
}

/// What `item` changed, in words, rows named by key and 1-based number (core's
/// `describe_edit`, given the example's table).
pub fn describe_item(run: &RunResult, item: &ProbeItem) -> String {
    let table = run.example_of(item).and_then(|e| match &e.input.premise {
        Premise::Table(t) => Some(t),
        _ => None,
    });
    tabprobe_core::probe::describe::describe_edit(&item.edit, table)
}

fn expectation_text(run: &RunResult, item: &ProbeItem, set: LabelSet) -> String {
    if let ReviewState::Accepted { label } = item.review {
        return format!("{} (a reviewer's label)", set.display_name(label));
    }
    match &item.expectation {
        Expectation::Transition { operation } => {
            let before = run.transition(item).before;
            let valid = run
                .rules
                .get(*operation)
                .map(|r| {
                    r.valid_after(before)
                        .iter()
                        .map(|l| set.display_name(*l))
                        .collect::<Vec<_>>()
                        .join("/")
                })
                .unwrap_or_default();
            format!("{} → {{{valid}}}", set.display_name(before))
        }
        Expectation::Label { labels } => labels
            .iter()
            .map(|l| set.display_name(*l))
            .collect::<Vec<_>>()
            .join("/"),
    }
}

/// The table + hypothesis of an item, as the editor opens it, carrying the probe result the
/// run gave it (`probe_result`, core `share::from_run_item`); `None` for a text premise.
pub fn work_item(
    run: &RunResult,
    item: &ProbeItem,
    probe_result: Option<SharedResult>,
) -> Option<WorkItem> {
    let ex = run.example_of(item)?;
    let table = match (&item.perturbed.premise, &ex.input.premise) {
        (Premise::Table(t), _) | (_, Premise::Table(t)) => t.clone(),
        _ => return None,
    };
    let label = match &item.expectation {
        Expectation::Label { labels } if labels.len() == 1 => Some(labels[0]),
        _ => None,
    };
    // The example's evidence rows where they are in the table opened: moved by the item's own
    // edit when it is the perturbed table, as annotated when it is the original.
    let relevant_rows = ex.relevant_rows.as_ref().map(|rel| {
        if matches!(item.perturbed.premise, Premise::Table(_)) {
            relevant_rows_after(&item.edit, rel).unwrap_or_default()
        } else {
            rel.clone()
        }
    });
    Some(WorkItem {
        example_id: Some(ex.id.clone()),
        table,
        hypothesis: item.perturbed.hypothesis.clone(),
        label,
        origin: format!("probe item {} ({})", item.id, describe_item(run, item)),
        relevant_rows: Some(relevant_rows.unwrap_or_default()),
        probe_result,
    })
}

/// Opens `item` in the table editor or the hypothesis rewriter.
pub fn open_item(state: AppState, item: WorkItem, route: Route) {
    state.work_item.set(Some(item));
    navigate(route);
}

/// Most rows listed at once (the count says how many there are).
const MAX_ROWS: usize = 300;

/// The drill-down panel.
#[component]
pub fn ItemList(
    /// The runs (main model first), on the same probe set.
    runs: Vec<Arc<RunResult>>,
    /// Which items.
    drill: Drill,
    /// Closes the panel.
    on_close: Callback<()>,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let Some(selecting) = drill.selecting_run(&runs) else {
        return view! { <p class="empty">"That model's run is not in this result."</p> }.into_any();
    };
    let set = runs[0].label_set;
    let selected = drill.items.select(&selecting);
    let what = drill.items.describe(&selecting, &selected);
    let chosen: Vec<ProbeItem> = selected
        .iter()
        .filter_map(|&i| selecting.items.get(i).cloned())
        .collect();
    let total = chosen.len();
    // The other models' runs, whose predictions a shared item also carries.
    let others: Vec<Arc<RunResult>> = runs
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != drill.model)
        .map(|(_, r)| r.clone())
        .collect();
    let model_heads = runs
        .iter()
        .map(|r| view! { <th scope="col">{r.model.label()}</th> })
        .collect::<Vec<_>>();
    let listing = Listing {
        selecting: &selecting,
        runs: &runs,
        others: &others,
        set,
        state,
    };
    let rows = chosen
        .into_iter()
        .take(MAX_ROWS)
        .map(|item| item_row(&listing, item))
        .collect::<Vec<_>>();
    close_on_escape(on_close);
    // Focus lands on the heading of what opened, so keyboard and screen-reader users start
    // there (and the browser scrolls it into view).
    let heading = NodeRef::<leptos::html::H2>::new();
    Effect::new(move |_| {
        if let Some(h) = heading.get() {
            let _ = h.focus();
        }
    });
    view! {
        <section class="drill" data-testid="drill" aria-label="items behind the number">
            <header>
                <h2 class="drill-title" tabindex="-1" node_ref=heading data-testid="drill-title">{format!("{total} {what}")}</h2>
                {(total > MAX_ROWS).then(|| view! { <span class="muted">{format!(" — the first {MAX_ROWS} are listed; export the run for all")}</span> })}
                <button class="small close" data-testid="drill-close" on:click=move |_| on_close.run(())>"Close"</button>
            </header>
            <div class="drill-body">
                <table class="items">
                    <thead><tr>
                        <th scope="col">"item"</th><th scope="col">"hypothesis"</th><th scope="col">"what changed"</th>
                        <th scope="col">"gold"</th><th scope="col">"a correct model"</th>
                        {model_heads}
                        <th scope="col"></th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
    .into_any()
}

/// Escape closes the panel (issue 18 §5) wherever focus is, except in a text field or a
/// list box, where Escape belongs to the field; the listener goes with the panel.
fn close_on_escape(on_close: Callback<()>) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        use wasm_bindgen::JsCast;
        let in_field = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if ev.key() == "Escape" && !ev.default_prevented() && !in_field {
            on_close.run(());
        }
    });
    on_cleanup(move || handle.remove());
}

/// What every row of the panel is listed against.
struct Listing<'a> {
    /// The run whose predictions selected the items.
    selecting: &'a RunResult,
    /// Every run, main model first: one column each.
    runs: &'a [Arc<RunResult>],
    /// The runs other than the selecting one, whose predictions a shared item also carries.
    others: &'a [Arc<RunResult>],
    set: LabelSet,
    state: AppState,
}

/// One item of the panel: id and review, hypothesis, what changed, gold, what a correct
/// model does, every model's transition, and its actions.
fn item_row(l: &Listing, item: ProbeItem) -> impl IntoView {
    let (selecting, set, state) = (l.selecting, l.set, l.state);
    let ex = selecting.example_of(&item).cloned();
    let per_model = l
        .runs
        .iter()
        .map(|r| model_cell(r, &item, set))
        .collect::<Vec<_>>();
    let other_refs: Vec<&RunResult> = l.others.iter().map(|r| r.as_ref()).collect();
    let shared = from_run_item(selecting, &item, &other_refs);
    let wi = work_item(selecting, &item, shared.clone());
    let share = view! {
        <ShareButton result=Signal::stored(shared) label="Share"/>
    };
    let actions = item_actions(state, wi);
    view! {
        <tr data-testid="drill-item" data-example=ex.as_ref().map(|e| e.id.clone())>
            <td><code>{item.id.clone()}</code>{(item.certainty == tabprobe_core::probe::Certainty::Heuristic).then(|| view! { <span class="heuristic" title="expectation needs a person's review">" heuristic"</span> })}
                <ReviewControls item=item.clone() state=state set=set/></td>
            <td class="hyp" data-label="hypothesis">{item.perturbed.hypothesis.clone()}</td>
            <td data-label="what changed">{describe_item(selecting, &item)}</td>
            <td data-label="gold">{ex.as_ref().map(|e| view! { <LabelBadge label=e.gold set=set/> })}</td>
            <td data-label="a correct model">{expectation_text(selecting, &item, set)}
                {item.basis.map(|b| view! { <div class="why muted" data-testid="item-why">{b.line()}</div> })}</td>
            {per_model}
            <td class="actions">{actions}{share}</td>
        </tr>
    }
}

/// Run `r`'s `before → after` on `item` and its verdict, or "not run".
fn model_cell(r: &RunResult, item: &ProbeItem, set: LabelSet) -> AnyView {
    let same = r.items.iter().find(|i| i.id == item.id);
    // In a narrow window the cells stack and each shows its column's name.
    let label = r.model.label();
    match same {
        Some(i) => {
            let t = r.transition(i);
            // Core's verdict, the same rule the tables count by.
            let verdict = r.verdict(i);
            view! {
                <td class="transition" class:invalid=verdict == Verdict::Wrong class:not-applicable=verdict == Verdict::NotApplicable data-testid="item-transition" data-label=label>
                    <LabelBadge label=t.before set=set/>" → "<LabelBadge label=t.after set=set/>
                    <span class="mark">{format!(" {}", verdict.mark())}</span>
                </td>
            }
            .into_any()
        }
        None => view! { <td class="muted" data-label=label>"not run"</td> }.into_any(),
    }
}

/// Buttons that open the item in the editor or the rewriter; a note for a text premise.
fn item_actions(state: AppState, wi: Option<WorkItem>) -> AnyView {
    match wi {
        Some(wi) => {
            let wi2 = wi.clone();
            view! {
                <button class="small" data-testid="open-editor" on:click=move |_| open_item(state, wi.clone(), Route::Editor)>"Edit table"</button>
                <button class="small" data-testid="open-rewriter" on:click=move |_| open_item(state, wi2.clone(), Route::Rewriter)>"Rewrite hypothesis"</button>
            }
            .into_any()
        }
        None => view! { <span class="muted" title="plain-text premise: the editor edits tables">"text premise"</span> }.into_any(),
    }
}

/// The review state of a generated item with an expected label (issue 11 §4), and buttons that
/// record a decision in the loaded dataset's `reviews`: accept with the expected label, reject,
/// or reset. Runs record the state of every item, so a decision counts from the next run on;
/// the saved run keeps the states it was scored with.
#[component]
fn ReviewControls(item: ProbeItem, state: AppState, set: LabelSet) -> impl IntoView {
    let expected = match &item.expectation {
        Expectation::Label { labels } => labels.first().copied(),
        Expectation::Transition { .. } => None,
    };
    let Some(expected) = expected else {
        return ().into_any();
    };
    let id = item.id.clone();
    // The decision the loaded dataset holds now (it may differ from the run's state).
    let id2 = id.clone();
    let pending = move || {
        state.dataset.with(|d| {
            d.as_ref().and_then(|d| {
                tabprobe_core::probe::review::review_of(&d.dataset, &id2)
                    .and_then(tabprobe_core::probe::review::state_of)
            })
        })
    };
    let problem = RwSignal::new(None::<String>);
    let run_state = item.review;
    let item = StoredValue::new(item);
    let decide = move |decision: Decision| {
        let changed = state.change_dataset(|ds| {
            item.with_value(|it| set_item_review(ds, it, decision))
                .map_err(|e| e.to_string())
        });
        problem.set(match changed {
            Some(Ok(())) => None,
            Some(Err(e)) => Some(e),
            None => Some("load the run's dataset to record reviews in it".to_string()),
        });
    };
    let shown = move || {
        let now = pending();
        let st = now.unwrap_or(run_state);
        let text = match st {
            ReviewState::Certain => "certain".to_string(),
            ReviewState::HeuristicUnreviewed => "unreviewed".to_string(),
            ReviewState::Accepted { label } => format!("accepted as {}", set.display_name(label)),
            ReviewState::Rejected => "rejected".to_string(),
        };
        let changed = now.is_some_and(|n| n != run_state);
        view! {
            <span class=format!("review {}", st.as_str()) data-testid="review-state" data-state=st.as_str()>{text}</span>
            {changed.then(|| view! { <span class="muted" data-testid="review-next-run">" (counts from the next run)"</span> })}
        }
    };
    view! {
        <span class="review-controls">
            " " {shown} " "
            <button class="small" data-testid="review-accept" title=format!("accept: the perturbed item's label is {}", set.display_name(expected))
                on:click=move |_| decide(Decision::Accept(expected))>"accept"</button>
            <button class="small" data-testid="review-reject" title="reject: the item is wrong and is never scored"
                on:click=move |_| decide(Decision::Reject)>"reject"</button>
            <button class="small link" data-testid="review-reset" title="forget the decision"
                on:click=move |_| decide(Decision::Reset)>"reset"</button>
            {move || problem.get().map(|p| view! { <span class="problem" role="alert">{p}</span> })}
        </span>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabprobe_core::probe::rules::RuleSet;
    use tabprobe_core::probe::{build_probe_set, ProbeSettings};
    use tabprobe_core::probe_kind::ProbeKind;
    use tabprobe_core::run::ProbeRun;
    use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};

    /// Always `label`'s probabilities; named `name`.
    struct Always(&'static str, usize);

    impl PairScorer for Always {
        fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
            let mut probs = [0.1f32; 3];
            probs[self.1] = 0.8;
            Ok(pairs
                .iter()
                .map(|_| PairScore {
                    probs,
                    logits: vec![],
                    truncated: false,
                    premise_tokens_dropped: 0,
                })
                .collect())
        }
        fn model_id(&self) -> ModelId {
            ModelId {
                name: self.0.into(),
                weights_sha256: self.0.repeat(8),
                label_set: LabelSet::ThreeWay,
                precision: Default::default(),
                label_only: false,
                scores_file: false,
            }
        }
    }

    fn run(scorer: &mut Always) -> Arc<RunResult> {
        let text = include_str!("../../../tests/fixtures/small-dataset.json");
        let d = tabprobe_core::parse_dataset("small-dataset.json", text).unwrap();
        let mut s = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
        s.hypothesis_only = true;
        let mut r = ProbeRun::new(build_probe_set(&d, &s, &RuleSet::default()).unwrap(), 8);
        r.run(scorer, |_| {}, || false).unwrap();
        Arc::new(r.finish(scorer.model_id()).unwrap())
    }

    #[test]
    fn a_drill_selects_with_the_run_its_figure_was_computed_on() {
        let runs = vec![run(&mut Always("main", 0)), run(&mut Always("hypo", 2))];
        // A figure of one model's report: that model's run, as it is.
        let own = Drill::of(1, ItemSelector::All)
            .selecting_run(&runs)
            .unwrap();
        assert_eq!(own.model.name, "hypo");
        assert!(own.hypothesis_only_model.is_none());
        // Table 8 read with the second model's hypothesis-only scores: the main run carrying
        // them, as core computed it, so its rows and their items agree.
        let t8 = Drill {
            model: 0,
            hypothesis_model: 1,
            items: ItemSelector::All,
        };
        let combined = t8.selecting_run(&runs).unwrap();
        assert_eq!(combined.model.name, "main");
        assert_eq!(
            combined.hypothesis_only_model.as_ref().unwrap().name,
            "hypo"
        );
        let hypo_pair = combined.hypothesis_only_pairs[0];
        assert_eq!(
            combined.predicted(hypo_pair),
            tabprobe_core::Label::Contradict
        );
        // A model that is not in the result selects nothing.
        assert!(Drill::of(2, ItemSelector::All)
            .selecting_run(&runs)
            .is_none());
    }

    #[test]
    fn an_item_is_right_when_the_model_does_what_its_expectation_says() {
        // Row deletion, docs/probes-and-metrics.md#default-rules: ENTAIL → {ENTAIL, NEUTRAL}; a model always saying ENTAIL keeps
        // its label, which the rule allows.
        let r = run(&mut Always("main", 0));
        assert!(!r.items.is_empty());
        assert!(r.items.iter().all(|it| r.verdict(it) == Verdict::Right));
        // Always CONTRADICT before and after: C → C is valid for row deletion too.
        let r = run(&mut Always("c", 2));
        assert!(r.items.iter().all(|it| r.verdict(it) == Verdict::Right));
    }
}
