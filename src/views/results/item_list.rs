//! Drill-down: the items behind a number of the results view (an edge of a transition graph,
//! a cell of an invalid-transition table, a probe's score row, a Table 8 combination, a
//! set of examples behind an evidence row, a word-order cell or an Ω_x point, a BLEU-2 bin,
//! every item of the run), listed with what
//! changed, what a correct model does, and every model's `before → after` on the same item.
//! Each item opens in the table editor or the hypothesis rewriter.

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::metrics::group::Group;
use tabprobe_core::metrics::transition_report::{TransitionSet, NO_SPLIT};
use tabprobe_core::metrics::{paired_checks, CounterfactualClass};
use tabprobe_core::probe::relevance::relevant_rows_after;
use tabprobe_core::probe::{Edit, Expectation, Premise, ProbeItem, ProbeKind};
use tabprobe_core::review::{set_item_review, Decision, ReviewState};
use tabprobe_core::run::RunResult;
use tabprobe_core::share::{from_run_item, SharedResult};
use tabprobe_core::{Label, LabelSet};

use crate::components::label_badge::LabelBadge;
use crate::components::share_button::ShareButton;
use crate::route::{navigate, Route};
use crate::state::{AppState, LoadedDataset, WorkItem};

/// Which items to list.
#[derive(Clone, Debug, PartialEq)]
pub enum Drill {
    /// Items of transition set `set` whose transition in model `model`'s run is `from → to`.
    Edge {
        /// Which run (0 = main model).
        model: usize,
        /// The transition set (its rule judges the items).
        set: TransitionSet,
        /// The split (`None` = pooled).
        split: Option<String>,
        /// Restrict to a reasoning category.
        category: Option<String>,
        /// Before.
        from: Label,
        /// After.
        to: Label,
    },
    /// Items of transition set `set`, predicted `before` first, whose after-label is invalid.
    Invalid {
        /// Which run.
        model: usize,
        /// The transition set.
        set: TransitionSet,
        /// The split (`None` = every split).
        split: Option<String>,
        /// Restrict to a reasoning category.
        category: Option<String>,
        /// The label predicted before (`None` = any).
        before: Option<Label>,
    },
    /// Items of one probe that a row of Tables 4 / 7 counts (not NEUTRAL; certain or
    /// accepted, and heuristic-unreviewed ones when the table includes them).
    Probe {
        /// The probe.
        probe: ProbeKind,
        /// Restrict to a split or category (`None` = the row "all").
        group: Option<Group>,
        /// Whether the table counted heuristic items nobody reviewed.
        include_heuristic: bool,
    },
    /// Counterfactual items with one combination of Table 8's three checks.
    Paired {
        /// Which run's full-model predictions (C-THP, O-THP).
        model: usize,
        /// Which run's hypothesis-only predictions (O-Hypo); `model` itself for its own
        /// empty-premise scores.
        hypothesis_model: usize,
        /// Whether the table counted heuristic items nobody reviewed.
        include_heuristic: bool,
        /// Which Table 8: label-flipping or label-preserving counterfactuals.
        class: CounterfactualClass,
        /// Restrict to a split or category (`None` = the rows "all").
        group: Option<Group>,
        /// Right on the counterfactual.
        c_thp: bool,
        /// Right on the original.
        o_thp: bool,
        /// Hypothesis-only right on the original.
        o_hypo: bool,
    },
    /// Items of `probe` on the examples an example-level figure counts (an evidence row, an
    /// Ω_x point).
    Examples {
        /// Which run counted them.
        model: usize,
        /// The probe whose items are listed.
        probe: ProbeKind,
        /// The examples' ids.
        examples: BTreeSet<String>,
        /// What the figure is, for the heading.
        what: String,
    },
    /// Word-order permutations whose BLEU-2 falls in `[lo, hi)` (`hi` included for the last bin).
    BleuBin {
        /// Which run.
        model: usize,
        /// Restrict to a split or category (`None` = the rows "all").
        group: Option<Group>,
        /// Lower edge.
        lo: f64,
        /// Upper edge.
        hi: f64,
        /// Whether `hi` is included.
        last: bool,
    },
    /// Every item of the run (the item count of the report head).
    All,
    /// Items whose original or perturbed premise was truncated to fit the model (the run
    /// table's `truncated_pairs`).
    Truncated,
}

impl Drill {
    /// A heading for the list.
    pub fn describe(&self) -> String {
        let split = |s: &Option<String>| s.clone().unwrap_or_else(|| "all splits".into());
        let cat = |c: &Option<String>| {
            c.as_ref()
                .map(|c| format!(", category {c}"))
                .unwrap_or_default()
        };
        let grp = |g: &Option<Group>| {
            g.as_ref()
                .map(|g| format!(" ({})", g.label()))
                .unwrap_or_default()
        };
        match self {
            Drill::Edge {
                set,
                split: s,
                category,
                from,
                to,
                ..
            } => format!(
                "{} items predicted {from} before and {to} after ({}{})",
                crate::components::score_tables::set_title(*set),
                split(s),
                cat(category)
            ),
            Drill::Invalid {
                set,
                split: s,
                category,
                before,
                ..
            } => format!(
                "{} items with an invalid transition{} ({}{})",
                crate::components::score_tables::set_title(*set),
                before.map(|b| format!(" from {b}")).unwrap_or_default(),
                split(s),
                cat(category)
            ),
            Drill::Probe {
                probe,
                group,
                include_heuristic,
            } => {
                format!(
                    "{} items counted{}{}",
                    probe.as_str().replace('_', " "),
                    if *include_heuristic {
                        " (unreviewed heuristic items included)"
                    } else {
                        ""
                    },
                    grp(group)
                )
            }
            Drill::Paired {
                class,
                group,
                c_thp,
                o_thp,
                o_hypo,
                ..
            } => {
                let rw = |b: &bool| if *b { "right" } else { "wrong" };
                format!(
                    "{} counterfactual items with C-THP {}, O-THP {}, O-Hypo {}{}",
                    class.as_str().replace('_', "-"),
                    rw(c_thp),
                    rw(o_thp),
                    rw(o_hypo),
                    grp(group)
                )
            }
            Drill::Examples {
                probe,
                examples,
                what,
                ..
            } => format!(
                "{} items of the {} examples {what}",
                probe.as_str().replace('_', " "),
                examples.len()
            ),
            Drill::BleuBin { lo, hi, group, .. } => {
                format!(
                    "word-order permutations with BLEU-2 from {lo:.2} to {hi:.2}{}",
                    grp(group)
                )
            }
            Drill::All => "items of the run".into(),
            Drill::Truncated => {
                "items whose original or perturbed premise was truncated to fit the model".into()
            }
        }
    }

    /// Which run's predictions select the items.
    fn model(&self) -> usize {
        match self {
            Drill::Edge { model, .. }
            | Drill::Invalid { model, .. }
            | Drill::BleuBin { model, .. }
            | Drill::Paired { model, .. }
            | Drill::Examples { model, .. } => *model,
            _ => 0,
        }
    }

    /// The run whose predictions select the items: Table 8 with a second model's
    /// hypothesis-only scores selects with the main run carrying them (as the table was
    /// computed); `None` when that run is not in `runs`.
    pub fn selecting_run(&self, runs: &[Arc<RunResult>]) -> Option<Arc<RunResult>> {
        let run = runs.get(self.model())?;
        match self {
            Drill::Paired {
                model,
                hypothesis_model,
                include_heuristic,
                ..
            } => {
                let combined = if hypothesis_model != model {
                    run.with_hypothesis_model(runs.get(*hypothesis_model)?)
                        .ok()?
                } else {
                    (**run).clone()
                };
                // As the table was computed: heuristic items counted when it included them.
                Some(Arc::new(if *include_heuristic {
                    tabprobe_core::report::heuristic_counted(&combined)
                } else {
                    combined
                }))
            }
            _ => Some(run.clone()),
        }
    }

    /// Whether `item` of `run` is behind the number.
    pub fn matches(&self, run: &RunResult, item: &ProbeItem) -> bool {
        let ex = run.example_of(item);
        let in_split = |s: &Option<String>| {
            s.as_ref().is_none_or(|s| {
                ex.and_then(|e| e.split.as_deref()).unwrap_or(NO_SPLIT) == s.as_str()
            })
        };
        let in_cat = |c: &Option<String>| {
            c.as_ref()
                .is_none_or(|c| ex.is_some_and(|e| e.categories.contains(c)))
        };
        match self {
            Drill::Edge {
                set,
                split,
                category,
                from,
                to,
                ..
            } => {
                let t = run.transition(item);
                set.contains(run, item)
                    && in_split(split)
                    && in_cat(category)
                    && t.before == *from
                    && t.after == *to
            }
            Drill::Invalid {
                set,
                split,
                category,
                before,
                ..
            } => {
                let t = run.transition(item);
                set.contains(run, item)
                    && in_split(split)
                    && in_cat(category)
                    && before.is_none_or(|b| t.before == b)
                    && run.rules.is_valid(set.operation(), t.before, t.after) == Some(false)
            }
            Drill::Probe {
                probe,
                group,
                include_heuristic,
            } => {
                // What core's score tables count: not NEUTRAL, and by review state.
                item.probe == *probe
                    && item.scored_labels().is_some()
                    && item.review.is_counted(*include_heuristic)
                    && ex.is_some_and(|e| {
                        e.gold != Label::Neutral && group.as_ref().is_none_or(|g| g.contains(e))
                    })
            }
            Drill::Paired {
                class,
                group,
                c_thp,
                o_thp,
                o_hypo,
                ..
            } => {
                // Core's own per-item checks: the row lists exactly the items it counts.
                let (Some(ex), Some(c)) = (ex, paired_checks(run, item)) else {
                    return false;
                };
                c.class == *class
                    && group.as_ref().is_none_or(|g| g.contains(ex))
                    && c.c_thp == *c_thp
                    && c.o_thp == *o_thp
                    && c.o_hypo == *o_hypo
            }
            Drill::Examples {
                probe, examples, ..
            } => item.probe == *probe && ex.is_some_and(|e| examples.contains(&e.id)),
            Drill::BleuBin {
                lo,
                hi,
                last,
                group,
                ..
            } => match &item.edit {
                // The same binning and grouping as core's word-order metrics (items of an
                // unknown example are not counted there).
                Edit::WordsPermuted { bleu2, .. } => {
                    *bleu2 >= *lo
                        && (*bleu2 < *hi || (*last && *bleu2 <= *hi))
                        && ex.is_some_and(|e| group.as_ref().is_none_or(|g| g.contains(e)))
                }
                _ => false,
            },
            Drill::All => true,
            Drill::Truncated => [item.original_pair, item.perturbed_pair]
                .iter()
                .any(|&p| run.pairs.get(p).is_some_and(|p| p.score.truncated)),
        }
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

/// Whether the model's prediction on `item` is what a correct model does.
pub fn item_ok(run: &RunResult, item: &ProbeItem) -> bool {
    let t = run.transition(item);
    // An accepted item is judged by the label its reviewer asserted.
    match (item.scored_labels(), &item.expectation) {
        (Some(labels), _) => labels.contains(&t.after),
        (None, Expectation::Transition { operation }) => {
            run.rules.is_valid(*operation, t.before, t.after) == Some(true)
        }
        (None, Expectation::Label { .. }) => false,
    }
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
    let chosen: Vec<ProbeItem> = selecting
        .items
        .iter()
        .filter(|it| drill.matches(&selecting, it))
        .cloned()
        .collect();
    let total = chosen.len();
    // The other models' runs, whose predictions a shared item also carries.
    let others: Vec<Arc<RunResult>> = runs
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != drill.model())
        .map(|(_, r)| r.clone())
        .collect();
    let model_heads = runs
        .iter()
        .map(|r| view! { <th scope="col">{r.model.label()}</th> })
        .collect::<Vec<_>>();
    let rows = chosen
        .into_iter()
        .take(MAX_ROWS)
        .map(|item| {
            let ex = selecting.example_of(&item).cloned();
            let per_model = runs
                .iter()
                .map(|r| {
                    let same = r.items.iter().find(|i| i.id == item.id);
                    // In a narrow window the cells stack and each shows its column's name.
                    let label = r.model.label();
                    match same {
                        Some(i) => {
                            let t = r.transition(i);
                            let ok = item_ok(r, i);
                            view! {
                                <td class="transition" class:invalid=!ok data-testid="item-transition" data-label=label>
                                    <LabelBadge label=t.before set=set/>" → "<LabelBadge label=t.after set=set/>
                                    <span class="mark">{if ok { " ✓" } else { " ✗" }}</span>
                                </td>
                            }
                            .into_any()
                        }
                        None => view! { <td class="muted" data-label=label>"not run"</td> }.into_any(),
                    }
                })
                .collect::<Vec<_>>();
            let other_refs: Vec<&RunResult> = others.iter().map(|r| r.as_ref()).collect();
            let shared = from_run_item(&selecting, &item, &other_refs);
            let wi = work_item(&selecting, &item, shared.clone());
            let share = view! {
                <ShareButton result=Signal::stored(shared) label="Share"/>
            };
            let actions = match wi {
                Some(wi) => {
                    let wi2 = wi.clone();
                    view! {
                        <button class="small" data-testid="open-editor" on:click=move |_| open_item(state, wi.clone(), Route::Editor)>"Edit table"</button>
                        <button class="small" data-testid="open-rewriter" on:click=move |_| open_item(state, wi2.clone(), Route::Rewriter)>"Rewrite hypothesis"</button>
                    }
                    .into_any()
                }
                None => view! { <span class="muted" title="plain-text premise: the editor edits tables">"text premise"</span> }.into_any(),
            };
            view! {
                <tr data-testid="drill-item" data-example=ex.as_ref().map(|e| e.id.clone())>
                    <td><code>{item.id.clone()}</code>{(item.certainty == tabprobe_core::probe::Certainty::Heuristic).then(|| view! { <span class="heuristic" title="expectation needs a person's review">" heuristic"</span> })}
                        <ReviewControls item=item.clone() state=state set=set/></td>
                    <td class="hyp" data-label="hypothesis">{item.perturbed.hypothesis.clone()}</td>
                    <td data-label="what changed">{describe_item(&selecting, &item)}</td>
                    <td data-label="gold">{ex.as_ref().map(|e| view! { <LabelBadge label=e.gold set=set/> })}</td>
                    <td data-label="a correct model">{expectation_text(&selecting, &item, set)}</td>
                    {per_model}
                    <td class="actions">{actions}{share}</td>
                </tr>
            }
        })
        .collect::<Vec<_>>();
    // Escape closes the panel (issue 18 §5) wherever focus is, except in a text field or a
    // list box, where Escape belongs to the field.
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
                <h2 class="drill-title" tabindex="-1" node_ref=heading data-testid="drill-title">{format!("{total} {}", drill.describe())}</h2>
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
                tabprobe_core::review::review_of(&d.dataset, &id2)
                    .and_then(tabprobe_core::review::state_of)
            })
        })
    };
    let problem = RwSignal::new(None::<String>);
    let run_state = item.review;
    let item = StoredValue::new(item);
    let decide = move |decision: Decision| {
        let mut err = None;
        state.dataset.update(|d| match d {
            Some(d) => {
                let mut ds = (*d.dataset).clone();
                match item.with_value(|it| set_item_review(&mut ds, it, decision)) {
                    Ok(()) => *d = LoadedDataset::new(d.file.clone(), ds),
                    Err(e) => err = Some(e.to_string()),
                }
            }
            None => err = Some("load the run's dataset to record reviews in it".to_string()),
        });
        problem.set(err);
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
