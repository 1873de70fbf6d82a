//! The probe runner (docs/using-the-site.md#the-probe-runner): choose probes, splits, caps, seed and validity
//! rules (shown and editable; the linearization comes from the model bar); see the number of
//! examples, items, forward passes and the estimated time before running (counts follow
//! every keystroke); run in the model worker with a progress bar moving per batch, pairs/s,
//! elapsed and smoothed remaining time, and cancel (what was scored is kept).

use leptos::prelude::*;
use tabprobe_core::probe::rules::{Operation, RuleSet};
use tabprobe_core::probe::word_order::PermutationTarget;
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::Label;
use tabprobe_worker::protocol::Slot;

use crate::components::interrupted_run::InterruptedRun;
use crate::components::model_panel::ModelPanel;
use crate::components::pairs_download::PairsDownload;
use crate::components::progress_bar::{duration, ProgressBar};
use crate::components::run_estimate::RunEstimate;
use crate::components::score_tables::operation_title;
use crate::runs::drive::{cancel_run, start_run};
use crate::runs::{ProbeCountsState, RunStatus, RunnerForm, RunsState};
use crate::state::AppState;

/// What a probe does, in a few words (shown next to its checkbox).
fn probe_help(p: ProbeKind) -> &'static str {
    match p {
        ProbeKind::RowDeletion => "delete one row (one item per row)",
        ProbeKind::RowInsertion => "insert a row with a new key from another table",
        ProbeKind::RowValueUpdate => "replace one value of a multi-valued row",
        ProbeKind::RowPermutation => "k random reorderings of the rows",
        ProbeKind::DeleteThenInsert => "delete a row, then insert a new key",
        ProbeKind::RelevantRowDeletion => "delete each annotated relevant row",
        ProbeKind::AllRelevantRowsDeletion => "delete all annotated relevant rows at once",
        ProbeKind::IrrelevantRowDeletion => "delete a row not annotated as relevant",
        ProbeKind::PremiseRemoval => "remove the whole premise (should give NEUTRAL)",
        ProbeKind::MonotoneNumber => "numbers under over/under/before/after (Table 2)",
        ProbeKind::PlainNumber => "numbers and dates without such a word",
        ProbeKind::NamedEntity => "replace a table value in the hypothesis",
        ProbeKind::Negation => "insert or remove not / n't",
        ProbeKind::NominalModifier => "add a true table fact to the title mention",
        ProbeKind::Quantifier => "substitute all/most/some/no…",
        ProbeKind::WordOrder => "permute the words (q per example)",
        ProbeKind::RowSwap => "swap a key's values between two tables (Fig. 5)",
        ProbeKind::TitleSwap => "give a table another title (Fig. 6)",
        ProbeKind::Counterfactual => {
            "hand-made items: examples with derived_from (editor, rewriter, shipped)"
        }
    }
}

fn probe_checkbox(runs: RunsState, p: ProbeKind, disabled: Option<&'static str>) -> impl IntoView {
    let checked = move || runs.form.with(|f| f.settings.probes.contains(&p));
    let toggle = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        runs.form.update(|f| {
            f.settings.probes.retain(|x| *x != p);
            if on {
                f.settings.probes.push(p);
                // Keep the order of `ProbeKind::all()` (docs/probes-and-metrics.md#probes) so runs with the same probes are the same run.
                let all = ProbeKind::all();
                f.settings
                    .probes
                    .sort_by_key(|k| all.iter().position(|x| x == k));
            }
        });
    };
    view! {
        <label class="check" class:disabled=disabled.is_some() title=disabled.unwrap_or("")>
            <input type="checkbox" data-testid=format!("probe-{}", p.as_str())
                prop:checked=checked disabled=disabled.is_some() on:change=toggle/>
            <span class="name">{p.display_name()}</span>
            <span class="help">{disabled.unwrap_or(probe_help(p))}</span>
        </label>
    }
}

/// Parses an optional positive number field (empty = none).
fn opt_number(v: &str) -> Option<usize> {
    v.trim().parse::<usize>().ok().filter(|n| *n > 0)
}

/// The validity rules, editable: one row per operation, a checkbox per (before, after).
#[component]
fn RulesEditor(runs: RunsState) -> impl IntoView {
    let rows = Operation::ALL
        .into_iter()
        .map(|op| {
            let cells = Label::ALL
                .into_iter()
                .map(|before| {
                    let boxes = Label::ALL
                        .into_iter()
                        .map(|after| {
                            let checked = move || {
                                runs.form
                                    .with(|f| f.rules.is_valid(op, before, after) == Some(true))
                            };
                            let on = move |ev: leptos::ev::Event| {
                                let on = event_target_checked(&ev);
                                runs.form.update(|f| {
                                    if let Some(mut rule) = f.rules.get(op).cloned() {
                                        let v = rule.valid.entry(before).or_default();
                                        v.retain(|l| *l != after);
                                        if on {
                                            v.push(after);
                                            v.sort();
                                        }
                                        if !rule.source.ends_with("(edited)") {
                                            rule.source = format!("{} (edited)", rule.source);
                                        }
                                        f.rules.set(rule);
                                    }
                                });
                            };
                            view! {
                                <label class="rule-box" title=format!("{before} → {after} valid")>
                                    <input type="checkbox" prop:checked=checked on:change=on
                                        data-testid=format!("rule-{}-{}-{}", tabprobe_core::report::operation_name(op), before.as_str(), after.as_str())/>
                                    {&after.as_str()[..1]}
                                </label>
                            }
                        })
                        .collect::<Vec<_>>();
                    view! { <td>{boxes}</td> }
                })
                .collect::<Vec<_>>();
            let source = move || {
                runs.form
                    .with(|f| f.rules.get(op).map(|r| r.source.clone()).unwrap_or_default())
            };
            view! {
                <tr><th scope="row">{operation_title(op)}</th>{cells}<td class="muted">{source}</td></tr>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <table class="rules" data-testid="rules">
            <thead><tr><th scope="col">"operation"</th><th scope="col">"ENTAIL →"</th><th scope="col">"NEUTRAL →"</th><th scope="col">"CONTRADICT →"</th><th scope="col">"source"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
        <button class="small" data-testid="rules-reset" on:click=move |_| runs.form.update(|f| f.rules = RuleSet::default())>"Reset to the paper's rules"</button>
    }
}

/// The runner screen.
#[component]
pub fn RunnerView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let runs = expect_context::<RunsState>();
    let form = runs.form;
    // The probe set the form describes: the worker counts it (the page's thread stays free
    // while a large dataset expands), and the counts are shown before running.
    Effect::new(move |_| {
        form.track();
        state.dataset.track();
        let _ = state.linearization_of(Slot::Main);
        runs.recount(state);
    });
    let linearization = move || state.linearization.get().describe();
    let cancelling = move || {
        matches!(
            runs.status.get(),
            RunStatus::Running {
                cancelling: true,
                ..
            }
        )
    };
    let can_run = move || {
        !runs.running()
            && state.slot(Slot::Main).model.with(|m| m.is_some())
            && matches!(runs.counts.get(), ProbeCountsState::Ready(Ok(c)) if c.forward_passes > 0)
    };
    view! {
        <section class="runner" data-testid="runner">
            <h1>"Probe runner"</h1>
            <ModelPanel/>
            <div class="runner-grid">
                <div class="runner-form">
                    <RunnerProbeChoice state=state runs=runs/>
                    <fieldset>
                        <legend>"Splits"</legend>
                        <RunnerSplits state=state form=form/>
                    </fieldset>
                    <RunnerOptions state=state form=form/>
                    <p class="linearization" data-testid="runner-linearization">"Premise text: "<strong>{linearization}</strong>" (change it in the model bar above)"</p>
                    <details class="rules-box">
                        <summary>"Validity rules (docs/probes-and-metrics.md#default-rules) — which after-labels are valid for each label before; editable, stored with the result"</summary>
                        <RulesEditor runs=runs/>
                    </details>
                </div>
                <aside class="runner-side">
                    <h2>"Before running"</h2>
                    <RunnerCounts state=state runs=runs/>
                    {move || state.slot(Slot::Main).model.with(|m| m.is_none()).then(|| view! { <p class="hint" data-testid="runner-no-model">"Load a model in the model bar to run."</p> })}
                    <InterruptedRun/>
                    <div class="run-buttons">
                        <button class="primary" data-testid="run" disabled=move || !can_run() on:click=move |_| start_run(state, runs)>"Run probes"</button>
                        <button data-testid="cancel" disabled=move || !runs.running() || cancelling() on:click=move |_| cancel_run(runs)>
                            {move || if cancelling() { "Cancelling…" } else { "Cancel" }}
                        </button>
                    </div>
                    <PairsDownload state=state runs=runs/>
                    <RunnerStatus runs=runs/>
                    {move || runs.storage_error.get().map(|e| view! { <p class="problem">{e}</p> })}
                </aside>
            </div>
        </section>
    }
}

/// The probes to run, in the paper's three groups; the probes that read annotated relevant
/// rows are offered only when the dataset has them.
#[component]
fn RunnerProbeChoice(state: AppState, runs: RunsState) -> impl IntoView {
    let has_relevance = move || {
        state.dataset.with(|d| {
            d.as_ref().is_some_and(|d| {
                d.dataset
                    .examples
                    .iter()
                    .any(|e| e.relevant_rows.as_ref().is_some_and(|r| !r.is_empty()))
            })
        })
    };
    let hand_made = move || {
        state.dataset.with(|d| {
            d.as_ref().map_or(0, |d| {
                d.dataset
                    .examples
                    .iter()
                    .filter(|e| e.derived_from.is_some())
                    .count()
            })
        })
    };
    let group = move |title: &'static str, kinds: Vec<ProbeKind>| {
        view! {
            <fieldset class="probes">
                <legend>{title}</legend>
                {move || {
                    let rel = has_relevance();
                    kinds.iter().map(|&p| {
                        let needs_rel = matches!(p, ProbeKind::RelevantRowDeletion | ProbeKind::AllRelevantRowsDeletion | ProbeKind::IrrelevantRowDeletion);
                        let disabled = (needs_rel && !rel).then_some("unavailable: this dataset has no annotated relevant rows (mark them in the table editor)");
                        probe_checkbox(runs, p, disabled).into_any()
                    }).collect::<Vec<_>>()
                }}
            </fieldset>
        }
    };
    view! {
        {group("Table probes (§4.1, §4.2, §4.7)", ProbeKind::TABLE.to_vec())}
        {group("Hypothesis probes (§4.4)", ProbeKind::HYPOTHESIS.to_vec())}
        {group("Word order and counterfactuals (§4.5, §4.6)", ProbeKind::OTHER.to_vec())}
        <p class="hint">{move || format!("{} hand-made items (examples with derived_from) in the loaded dataset.", hand_made())}</p>
    }
}

/// A box per split of the loaded dataset with its size; all checked means no restriction.
#[component]
fn RunnerSplits(state: AppState, form: RwSignal<RunnerForm>) -> impl IntoView {
    let splits = move || {
        state.dataset.with(|d| {
            d.as_ref()
                .map(|d| {
                    d.summary
                        .by_split
                        .iter()
                        // Examples without a split cannot be picked by split.
                        .filter_map(|(s, c)| Some((s.clone()?, c.total())))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    move || {
        splits()
            .into_iter()
            .map(|(s, n)| {
                let s2 = s.clone();
                let checked = move || {
                    form.with(|f| f.settings.splits.as_ref().is_none_or(|v| v.contains(&s2)))
                };
                let all: Vec<String> = splits().into_iter().map(|x| x.0).collect();
                let s3 = s.clone();
                let toggle = move |ev: leptos::ev::Event| {
                    let on = event_target_checked(&ev);
                    form.update(|f| {
                        let mut v = f.settings.splits.clone().unwrap_or_else(|| all.clone());
                        v.retain(|x| *x != s3);
                        if on {
                            v.push(s3.clone());
                        }
                        v.sort();
                        f.settings.splits = (v.len() != all.len()).then_some(v);
                    });
                };
                view! {
                    <label class="check">
                        <input type="checkbox" data-testid=format!("split-{s}") prop:checked=checked on:change=toggle/>
                        <span class="name">{s.clone()}</span><span class="help">{format!("{n} examples")}</span>
                    </label>
                }
            })
            .collect::<Vec<_>>()
    }
}

/// Caps, seed, permutation counts, what word order permutes, the hypothesis-only scores and
/// whether the second model runs too.
#[component]
fn RunnerOptions(state: AppState, form: RwSignal<RunnerForm>) -> impl IntoView {
    let number = move |label: &'static str,
                       testid: &'static str,
                       get: fn(&RunnerForm) -> String,
                       set: fn(&mut RunnerForm, &str),
                       help: &'static str| {
        view! {
            <label class="field">
                <span>{label}</span>
                // Read on every keystroke, so the counts and the estimate follow the typing; the
                // field is not rewritten from the form (that would undo a half-typed number).
                <input type="number" min="0" data-testid=testid
                    prop:value=form.with_untracked(get)
                    on:input=move |ev| { let v = event_target_value(&ev); form.update(|f| set(f, &v)) }/>
                <span class="help">{help}</span>
            </label>
        }
    };
    let second_box = move || {
        state.slot(Slot::Second).model.get().map(|m| {
            view! {
                <label class="check">
                    <input type="checkbox" data-testid="use-second" prop:checked=move || form.with(|f| f.use_second)
                        on:change=move |ev| { let on = event_target_checked(&ev); form.update(|f| f.use_second = on) }/>
                    <span class="name">{format!("also run the second model ({})", m.id.name)}</span>
                    <span class="help">"same items, shown side by side; its hypothesis-only scores feed Table 8"</span>
                </label>
            }
        })
    };
    view! {
        <fieldset class="numbers">
            <legend>"Caps, seed and options"</legend>
            {number("items per example and probe", "cap-example", |f| f.settings.caps.per_example.map(|n| n.to_string()).unwrap_or_default(), |f, v| f.settings.caps.per_example = opt_number(v), "empty = no cap")}
            {number("items per probe in the run", "cap-run", |f| f.settings.caps.per_run.map(|n| n.to_string()).unwrap_or_default(), |f, v| f.settings.caps.per_run = opt_number(v), "a seeded sample; empty = no cap")}
            {number("seed", "seed", |f| f.settings.seed.to_string(), |f, v| if let Ok(s) = v.trim().parse() { f.settings.seed = s }, "every random choice derives from it")}
            {number("row permutations k", "permutations", |f| f.settings.permutations.to_string(), |f, v| if let Some(n) = opt_number(v) { f.settings.permutations = n }, "default 5 (docs/probes-and-metrics.md)")}
            {number("word-order permutations q", "word-order-q", |f| f.settings.word_order.q.to_string(), |f, v| if let Some(n) = opt_number(v) { f.settings.word_order.q = n }, "UNLI: 100")}
            <label class="field">
                <span>"permute"</span>
                <select data-testid="word-order-target" on:change=move |ev| {
                    let t = match event_target_value(&ev).as_str() { "hypothesis" => PermutationTarget::Hypothesis, "premise" => PermutationTarget::Premise, _ => PermutationTarget::Both };
                    form.update(|f| f.settings.word_order.target = t)
                }>
                    <option value="both" selected=move || form.with(|f| f.settings.word_order.target == PermutationTarget::Both)>"hypothesis and premise"</option>
                    <option value="hypothesis" selected=move || form.with(|f| f.settings.word_order.target == PermutationTarget::Hypothesis)>"hypothesis only"</option>
                    <option value="premise" selected=move || form.with(|f| f.settings.word_order.target == PermutationTarget::Premise)>"premise only"</option>
                </select>
            </label>
            <label class="check">
                <input type="checkbox" data-testid="hypothesis-only" prop:checked=move || form.with(|f| f.settings.hypothesis_only)
                    on:change=move |ev| { let on = event_target_checked(&ev); form.update(|f| f.settings.hypothesis_only = on) }/>
                <span class="name">"score each hypothesis alone too"</span>
                <span class="help">"the main model with an empty premise (not a trained hypothesis-only model) — Table 8's O-Hypo when no second model runs"</span>
            </label>
            <label class="check">
                <input type="checkbox" data-testid="hypothesis-only-items" prop:checked=move || form.with(|f| f.settings.hypothesis_only_items)
                    on:change=move |ev| { let on = event_target_checked(&ev); form.update(|f| f.settings.hypothesis_only_items = on) }/>
                <span class="name">"score each perturbed hypothesis alone too"</span>
                <span class="help">"the hypothesis-only rows of Tables 4 and 7: every hypothesis and counterfactual item with an empty premise (the main model's hypothesis-only view)"</span>
            </label>
            {second_box}
        </fieldset>
    }
}

/// The probe set's size before running: examples, items and forward passes (for every
/// model that will run), with the time estimate and the count per probe.
#[component]
fn RunnerCounts(state: AppState, runs: RunsState) -> impl IntoView {
    let models_running = move || {
        let second = runs.form.with(|f| f.use_second)
            && state.slot(Slot::Second).model.with(|m| m.is_some());
        if second {
            2
        } else {
            1
        }
    };
    move || {
        match runs.counts.get() {
        ProbeCountsState::NoDataset => view! { <p class="empty" data-testid="runner-no-dataset">"No dataset loaded — load one on the Dataset screen (the demo loads by itself)."</p> }.into_any(),
        ProbeCountsState::Counting => view! { <p class="muted" data-testid="runner-counting">"counting the probe set…"</p> }.into_any(),
        ProbeCountsState::Ready(Err(e)) => view! { <p class="problem" data-testid="runner-counts-error">{e}</p> }.into_any(),
        ProbeCountsState::Ready(Ok(c)) => {
            let per = c
                .per_probe
                .iter()
                .map(|(k, n)| view! { <li>{format!("{}: {n}", k.display_name())}</li> })
                .collect::<Vec<_>>();
            let m = models_running();
            view! {
                <div class="counts" data-testid="runner-counts">
                    <p>
                        <strong data-testid="count-examples">{c.examples}</strong>" examples · "
                        <strong data-testid="count-items">{c.items}</strong>" perturbed items · "
                        <strong data-testid="count-passes">{c.forward_passes * m}</strong>" forward passes"
                        {(m > 1).then(|| format!(" ({} per model, 2 models; the second also scores each hypothesis alone)", c.forward_passes))}
                        <RunEstimate passes=c.forward_passes/>
                        {(c.skipped > 0).then(|| format!(" · {} skipped (example × probe)", c.skipped))}
                    </p>
                    <ul class="per-probe">{per}</ul>
                </div>
            }.into_any()
        }
    }
    }
}

/// The run in progress (progress bar, pairs kept), the finished run with its link, or why it
/// could not run.
#[component]
fn RunnerStatus(runs: RunsState) -> impl IntoView {
    move || {
        match runs.status.get() {
        RunStatus::Idle => None,
        RunStatus::Running {
            model_index,
            models,
            model,
            total,
            started_ms,
            resumed,
            cancelling,
            ..
        } => {
            let done = Signal::derive(move || match runs.status.get() {
                RunStatus::Running { done, .. } => done,
                _ => 0,
            });
            let remaining_s = Signal::derive(move || match runs.status.get() {
                RunStatus::Running { remaining_s, .. } => remaining_s,
                _ => None,
            });
            Some(view! {
                <div class="run-status running">
                    <p>{format!("Running {model} (model {model_index} of {models})")}{cancelling.then_some(" — cancelling after the batch in flight…")}</p>
                    <ProgressBar done=done total=Signal::derive(move || total) started_ms=started_ms resumed=resumed remaining_s=remaining_s/>
                    <p class="hint" data-testid="run-kept">{move || match runs.keep.problem.get() {
                        Some(problem) => problem,
                        None => format!("{} pairs kept in this browser (a reload or crash resumes from there)", runs.keep.kept.get()),
                    }}</p>
                </div>
            }.into_any())
        }
        RunStatus::Finished {
            id,
            elapsed_ms,
            pairs,
            cancelled,
            resumed,
        } => Some(view! {
            <div class="run-status done" data-testid="run-finished">
                <p>
                    {if cancelled { "Cancelled — the items scored so far are kept. " } else { "Finished. " }}
                    {format!("{pairs} forward passes in {}.", duration(elapsed_ms))}" "
                    {(resumed > 0).then(|| view! { <span data-testid="run-resumed">{format!("Resumed: {resumed} of them were scored before the interruption and kept. ")}</span> })}
                    <a href=crate::route::Route::Results(Some(id)).href() data-testid="open-results">"Open the results →"</a>
                </p>
            </div>
        }.into_any()),
        RunStatus::Failed(e) => Some(view! { <p class="problem" role="alert" data-testid="run-error">{e}</p> }.into_any()),
    }
    }
}
