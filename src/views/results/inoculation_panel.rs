//! Inoculation on a run's results page (docs/inoculation.md, paper §7): choose the challenge set and the
//! grid, see what will be trained on and what only evaluated (and why), start the fine-tuning
//! in the model worker with progress and cancel, and read the saved results
//! ([`super::inoculation_result`]). The jobs and the kept results are
//! [`crate::runs::inoculation`]'s; this panel renders them and calls it.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::inoculation::{InoculationError, InoculationPlan, InoculationSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::RunResult;

use super::inoculation_result::InoculationResultView;
use crate::components::progress_bar::duration;
use crate::runs::inoculation::{InoculationStatus, Inoculations};
use crate::state::AppState;

/// The form's fields, as typed.
#[derive(Clone, Copy)]
struct Fields {
    probes: RwSignal<Vec<ProbeKind>>,
    sizes: RwSignal<String>,
    lrs: RwSignal<String>,
    epochs: RwSignal<usize>,
    patience: RwSignal<usize>,
    seed: RwSignal<u64>,
}

impl Fields {
    /// The defaults, with every probe of the run in the challenge set.
    fn new(present: Vec<ProbeKind>) -> Self {
        Fields {
            probes: RwSignal::new(present),
            sizes: RwSignal::new("100,200,300".to_string()),
            lrs: RwSignal::new("1e-4,5e-5,1e-5".to_string()),
            epochs: RwSignal::new(30),
            patience: RwSignal::new(3),
            seed: RwSignal::new(1),
        }
    }

    /// The settings the fields describe, or why they are not settings.
    fn settings(self) -> Result<InoculationSettings, InoculationError> {
        let s = InoculationSettings {
            probes: self.probes.get(),
            sizes: InoculationSettings::parse_list("sample sizes", &self.sizes.get())?,
            learning_rates: InoculationSettings::parse_list("learning rates", &self.lrs.get())?,
            epochs: self.epochs.get(),
            patience: self.patience.get(),
            seed: self.seed.get(),
            ..InoculationSettings::default()
        };
        s.check()?;
        Ok(s)
    }
}

/// The inoculation section of a run's report.
#[component]
pub fn InoculationPanel(
    /// The main model's run.
    run: Arc<RunResult>,
    /// The saved run's id (results are stored under it).
    run_id: String,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let jobs = Inoculations::new(run_id);
    let mut present: Vec<ProbeKind> = run.items.iter().map(|i| i.probe).collect();
    present.sort();
    present.dedup();
    let fields = Fields::new(present.clone());
    let plan_run = run.clone();
    let plan = Memo::new(move |_| {
        fields
            .settings()
            .and_then(|s| InoculationPlan::new(&plan_run, &s))
    });
    let start = move |_| {
        if let Ok(settings) = fields.settings() {
            jobs.start(state, run.clone(), settings);
        }
    };
    view! {
        <section id="inoculation" class="result-part" data-testid="inoculation">
            <h2>"Inoculation (§7)"</h2>
            <p class="hint">"Fine-tune the loaded model on a few perturbed items and see whether the challenge set and the original test sets move (Liu et al. 2019): nested samples (the 100 are inside the 200), each learning rate tried, early stopping on dev accuracy, the best learning rate kept per size. Training runs in the model worker; fine-tuned weights stay in this page until it closes (download them to keep them)."</p>
            <InoculationForm fields=fields present=present/>
            {move || plan_text(plan.get())}
            <p>
                <button data-testid="inoculate" disabled=move || jobs.running() || plan.get().is_err() on:click=start>"Inoculate"</button>
            </p>
            <InoculationProgressView jobs=jobs/>
            {move || (!jobs.store_problems.get().is_empty()).then(|| view! { <p class="problem" data-testid="inoculation-store-error">{jobs.store_problems.get().join("; ")}</p> })}
            <KeptInoculations jobs=jobs/>
        </section>
    }
}

/// The challenge set (a box per probe of the run) and the grid.
#[component]
fn InoculationForm(fields: Fields, present: Vec<ProbeKind>) -> impl IntoView {
    let Fields {
        probes,
        sizes,
        lrs,
        epochs,
        patience,
        seed,
    } = fields;
    let probe_boxes = present
        .into_iter()
        .map(|k| {
            view! {
                <label class="check">
                    <input type="checkbox" data-testid="inoculation-probe" data-probe=k.as_str()
                        prop:checked=move || probes.get().contains(&k)
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            probes.update(|p| {
                                p.retain(|x| *x != k);
                                if on { p.push(k); p.sort(); }
                            });
                        }/>
                    {format!(" {}", k.display_name())}
                </label>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <div class="inoculation-form">
            <fieldset><legend>"Challenge set"</legend>{probe_boxes}</fieldset>
            <label>"Sample sizes "<input type="text" data-testid="inoculation-sizes" prop:value=move || sizes.get() on:input=move |ev| sizes.set(event_target_value(&ev))/></label>
            <label>"Learning rates "<input type="text" data-testid="inoculation-lrs" prop:value=move || lrs.get() on:input=move |ev| lrs.set(event_target_value(&ev))/></label>
            <label>"Epochs ≤ "<input type="number" min="1" max="1000" data-testid="inoculation-epochs" prop:value=move || epochs.get().to_string() on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse() { epochs.set(v) } }/></label>
            <label>"Patience "<input type="number" min="1" data-testid="inoculation-patience" prop:value=move || patience.get().to_string() on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse() { patience.set(v) } }/></label>
            <label>"Seed "<input type="number" min="0" data-testid="inoculation-seed" prop:value=move || seed.get().to_string() on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse() { seed.set(v) } }/></label>
        </div>
    }
}

/// What the plan will train on, evaluate only and leave out — or why there is no plan.
fn plan_text(plan: Result<InoculationPlan, InoculationError>) -> AnyView {
    match plan {
        Ok(p) => view! {
            <p class="hint" data-testid="inoculation-plan">
                {format!(
                    "Challenge set: {} items. {} have one expected label and can be trained on; {} are evaluated only — their rule allows several labels after the edit (e.g. deleting a row from an ENTAIL example allows ENTAIL or NEUTRAL), so no single training target is right. Samples of {} are drawn from the first; {} items outside the largest sample are held out for evaluation. Early stopping reads {} original examples ({}). Left out: {} heuristic items nobody reviewed, {} rejected.",
                    p.challenge.len(),
                    p.challenge.len() - p.evaluate_only(),
                    p.evaluate_only(),
                    p.settings.sizes.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" ⊂ "),
                    p.held_out.len(),
                    p.dev.len(),
                    p.dev_split.clone().map(|s| format!("split {s}")).unwrap_or_else(|| "every split".into()),
                    p.unreviewed,
                    p.rejected,
                )}
            </p>
        }
        .into_any(),
        Err(e) => view! { <p class="problem" data-testid="inoculation-plan-error">{e.to_string()}</p> }.into_any(),
    }
}

/// The job started here: its phase, times and a cancel button while it runs; why it
/// stopped when it failed.
#[component]
fn InoculationProgressView(jobs: Inoculations) -> impl IntoView {
    move || match jobs.status.get() {
        InoculationStatus::Idle => None,
        InoculationStatus::Failed(m) => Some(
            view! { <p class="problem" role="alert" data-testid="inoculation-error">{m}</p> }
                .into_any(),
        ),
        InoculationStatus::Running { progress, .. } => {
            let (what, pct, elapsed, remaining) = match &progress {
                None => ("starting…".to_string(), 0.0, String::new(), "—".to_string()),
                Some(p) => (
                    p.phase.describe(),
                    100.0 * p.fraction(),
                    duration(1000.0 * p.elapsed),
                    p.remaining()
                        .map(|s| format!("≤ {}", duration(1000.0 * s)))
                        .unwrap_or_else(|| "—".into()),
                ),
            };
            Some(
                view! {
                    <div class="progress" data-testid="inoculation-progress">
                        <div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow=format!("{pct:.0}")>
                            <div class="fill" style:width=format!("{pct:.1}%")></div>
                        </div>
                        <p class="progress-text">
                            <span data-testid="inoculation-phase">{what}</span>
                            " · elapsed "<span data-testid="inoculation-elapsed">{elapsed}</span>
                            " · remaining "<span data-testid="inoculation-remaining">{remaining}</span>
                            " "<button class="small" data-testid="inoculation-cancel" on:click=move |_| jobs.cancel()>"Cancel"</button>
                        </p>
                    </div>
                }
                .into_any(),
            )
        }
    }
}

/// The results kept for this run, each to open or delete, and the one open (the newest
/// unless the reader chose another).
#[component]
fn KeptInoculations(jobs: Inoculations) -> impl IntoView {
    move || {
        let list = jobs.saved.get();
        if list.is_empty() {
            return None;
        }
        let current = jobs
            .shown
            .get()
            .or_else(|| list.last().map(|s| s.id.clone()));
        let items = list
            .iter()
            .map(|s| {
                let id = s.id.clone();
                let sel = current.as_deref() == Some(id.as_str());
                let sizes: Vec<String> = s.result.settings.sizes.iter().map(|n| n.to_string()).collect();
                let label = format!(
                    "{} · {} · n = {}",
                    crate::components::kept_note::local_time(s.created_ms),
                    s.result.settings.probes.iter().map(|p| p.display_name()).collect::<Vec<_>>().join(", "),
                    sizes.join(", ")
                );
                let del = id.clone();
                view! {
                    <li class:selected=sel>
                        <button class="link" data-testid="saved-inoculation" on:click=move |_| jobs.shown.set(Some(id.clone()))>{label}</button>
                        <button class="small link" data-testid="delete-inoculation" on:click=move |_| jobs.delete(del.clone())>"delete"</button>
                    </li>
                }
            })
            .collect::<Vec<_>>();
        let chosen = current.and_then(|c| list.into_iter().find(|s| s.id == c));
        Some(view! {
            <ul class="saved-runs" data-testid="inoculation-list">{items}</ul>
            {chosen.map(|s| view! { <InoculationResultView saved=Arc::new(s)/> })}
        })
    }
}
