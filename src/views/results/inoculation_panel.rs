//! Inoculation on a run's results page (docs/inoculation.md, paper §7): choose the challenge set and the
//! grid, see what will be trained on and what only evaluated (and why), start the fine-tuning
//! in the model worker with progress and cancel, and read the saved results
//! ([`super::inoculation_result`]). Results are kept in IndexedDB like runs.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::inoculation::{InoculationPlan, InoculationProgress, InoculationSettings};
use tabprobe_core::probe::ProbeKind;
use tabprobe_core::run::RunResult;
use tabprobe_worker::protocol::Slot;

use super::inoculation_result::InoculationResultView;
use crate::components::progress_bar::duration;
use crate::state::AppState;
use crate::storage::inoculation_store::{self, SavedInoculation};
use crate::worker::client::client;

/// The job id of an inoculation whose run is still being cut into pieces for the worker
/// (worker job ids start at 1).
const PREPARING: u64 = 0;

/// Where an inoculation started here stands.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Idle,
    Running {
        /// The worker's job, or [`PREPARING`].
        job: u64,
        progress: Option<InoculationProgress>,
    },
    Failed(String),
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
    let mut present: Vec<ProbeKind> = run.items.iter().map(|i| i.probe).collect();
    present.sort();
    present.dedup();
    let probes = RwSignal::new(present.clone());
    let sizes = RwSignal::new("100,200,300".to_string());
    let lrs = RwSignal::new("1e-4,5e-5,1e-5".to_string());
    let epochs = RwSignal::new(30usize);
    let patience = RwSignal::new(3usize);
    let seed = RwSignal::new(1u64);
    let status = RwSignal::new(Status::Idle);
    let saved = RwSignal::new(Vec::<SavedInoculation>::new());
    let shown = RwSignal::new(None::<String>);
    let store_problems = RwSignal::new(Vec::<String>::new());

    let refresh = {
        let run_id = run_id.clone();
        move || {
            let run_id = run_id.clone();
            spawn_local(async move {
                match inoculation_store::for_run(&run_id).await {
                    Ok((found, problems)) => {
                        let _ = saved.try_set(found);
                        let _ = store_problems.try_set(problems);
                    }
                    Err(e) => {
                        let _ = store_problems.try_set(vec![e]);
                    }
                }
            });
        }
    };
    refresh();

    let settings = move || -> Result<InoculationSettings, String> {
        let s = InoculationSettings {
            probes: probes.get(),
            sizes: InoculationSettings::parse_list("sample sizes", &sizes.get())?,
            learning_rates: InoculationSettings::parse_list("learning rates", &lrs.get())?,
            epochs: epochs.get(),
            patience: patience.get(),
            seed: seed.get(),
            ..InoculationSettings::default()
        };
        s.check()?;
        Ok(s)
    };
    let plan_run = run.clone();
    let plan = Memo::new(move |_| settings().and_then(|s| InoculationPlan::new(&plan_run, &s)));
    let plan_text = move || {
        match plan.get() {
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
        Err(e) => view! { <p class="problem" data-testid="inoculation-plan-error">{e}</p> }.into_any(),
    }
    };

    let start_run = run.clone();
    let start_id = run_id.clone();
    let start = move |_| {
        let Ok(settings) = settings() else { return };
        if state.slot(Slot::Main).model.get_untracked().is_none() {
            status.set(Status::Failed(
                "load a model first: inoculation fine-tunes the main model".into(),
            ));
            return;
        }
        let c = match client() {
            Ok(c) => c,
            Err(e) => {
                status.set(Status::Failed(e));
                return;
            }
        };
        // Job 0 while the run is cut into pieces for the worker (in slices of the page's
        // thread); a cancel then stops it before it starts.
        status.set(Status::Running {
            job: PREPARING,
            progress: None,
        });
        let run = start_run.clone();
        let run_id = start_id.clone();
        let refresh = refresh.clone();
        spawn_local(async move {
            let pieces = crate::timing::run_pieces_sliced([&*run]).await;
            drop(run);
            let preparing = matches!(
                status.try_get_untracked(),
                Some(Status::Running { job: PREPARING, .. })
            );
            if !preparing {
                return;
            }
            let started = c.inoculate(Slot::Main, pieces, settings, move |p| {
                let _ = status.try_update(|s| {
                    if let Status::Running { progress, .. } = s {
                        *progress = Some(p);
                    }
                });
            });
            let (job, done) = match started {
                Ok(x) => x,
                Err(e) => {
                    let _ = status.try_set(Status::Failed(e));
                    return;
                }
            };
            let _ = status.try_set(Status::Running {
                job,
                progress: None,
            });
            match done.await {
                Ok((result, _)) => {
                    let created_ms = js_sys::Date::now();
                    let id = format!("{run_id}/{created_ms:.0}");
                    crate::runs::inoculation_jobs::remember(&id, job);
                    let entry = SavedInoculation {
                        id: id.clone(),
                        run_id,
                        created_ms,
                        result,
                    };
                    let saved_ok = inoculation_store::save(&entry).await;
                    let _ = status.try_set(match saved_ok {
                        Ok(()) => Status::Idle,
                        Err(e) => Status::Failed(format!(
                            "the inoculation finished but could not be kept: {e}"
                        )),
                    });
                    let _ = saved.try_update(|v| {
                        if !v.iter().any(|s| s.id == id) {
                            v.push(entry)
                        }
                    });
                    let _ = shown.try_set(Some(id));
                    refresh();
                }
                Err(f) => {
                    let _ = status.try_set(if f.cancelled {
                        Status::Failed("cancelled: nothing was kept".into())
                    } else {
                        Status::Failed(f.message)
                    });
                }
            }
        });
    };
    let cancel = move |_| {
        if let Status::Running { job, .. } = status.get_untracked() {
            if job == PREPARING {
                status.set(Status::Failed("cancelled: nothing was kept".into()));
            } else if let Ok(c) = client() {
                let _ = c.cancel(job);
            }
        }
    };
    let running = move || matches!(status.get(), Status::Running { .. });

    let probe_boxes = present
        .iter()
        .map(|&k| {
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

    let progress_view = move || match status.get() {
        Status::Idle => None,
        Status::Failed(m) => Some(
            view! { <p class="problem" role="alert" data-testid="inoculation-error">{m}</p> }
                .into_any(),
        ),
        Status::Running { progress, .. } => {
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
                            " "<button class="small" data-testid="inoculation-cancel" on:click=cancel>"Cancel"</button>
                        </p>
                    </div>
                }
                .into_any(),
            )
        }
    };

    let saved_list = move || {
        let list = saved.get();
        if list.is_empty() {
            return None;
        }
        let current = shown.get().or_else(|| list.last().map(|s| s.id.clone()));
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
                        <button class="link" data-testid="saved-inoculation" on:click=move |_| shown.set(Some(id.clone()))>{label}</button>
                        <button class="small link" data-testid="delete-inoculation" on:click=move |_| {
                            let del = del.clone();
                            spawn_local(async move {
                                if let Err(e) = inoculation_store::delete(&del).await {
                                    let _ = store_problems.try_set(vec![e]);
                                }
                                let _ = saved.try_update(|v| v.retain(|s| s.id != del));
                            });
                        }>"delete"</button>
                    </li>
                }
            })
            .collect::<Vec<_>>();
        let chosen = current.and_then(|c| list.into_iter().find(|s| s.id == c));
        Some(view! {
            <ul class="saved-runs" data-testid="inoculation-list">{items}</ul>
            {chosen.map(|s| view! { <InoculationResultView saved=Arc::new(s)/> })}
        })
    };

    view! {
        <section id="inoculation" class="result-part" data-testid="inoculation">
            <h2>"Inoculation (§7)"</h2>
            <p class="hint">"Fine-tune the loaded model on a few perturbed items and see whether the challenge set and the original test sets move (Liu et al. 2019): nested samples (the 100 are inside the 200), each learning rate tried, early stopping on dev accuracy, the best learning rate kept per size. Training runs in the model worker; fine-tuned weights stay in this page until it closes (download them to keep them)."</p>
            <div class="inoculation-form">
                <fieldset><legend>"Challenge set"</legend>{probe_boxes}</fieldset>
                <label>"Sample sizes "<input type="text" data-testid="inoculation-sizes" prop:value=move || sizes.get() on:input=move |ev| sizes.set(event_target_value(&ev))/></label>
                <label>"Learning rates "<input type="text" data-testid="inoculation-lrs" prop:value=move || lrs.get() on:input=move |ev| lrs.set(event_target_value(&ev))/></label>
                <label>"Epochs ≤ "<input type="number" min="1" max="1000" data-testid="inoculation-epochs" prop:value=move || epochs.get().to_string() on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse() { epochs.set(v) } }/></label>
                <label>"Patience "<input type="number" min="1" data-testid="inoculation-patience" prop:value=move || patience.get().to_string() on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse() { patience.set(v) } }/></label>
                <label>"Seed "<input type="number" min="0" data-testid="inoculation-seed" prop:value=move || seed.get().to_string() on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse() { seed.set(v) } }/></label>
            </div>
            {plan_text}
            <p>
                <button data-testid="inoculate" disabled=move || running() || plan.get().is_err() on:click=start>"Inoculate"</button>
            </p>
            {progress_view}
            {move || (!store_problems.get().is_empty()).then(|| view! { <p class="problem" data-testid="inoculation-store-error">{store_problems.get().join("; ")}</p> })}
            {saved_list}
        </section>
    }
}
