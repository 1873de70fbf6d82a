//! The estimated time of a run, next to its forward passes: passes ÷ the pairs/s last
//! measured on each model (weight hash) and backend, summed over the models that run
//! ([`crate::runs::run_estimate_s`]). A model with no measured speed is measured first: the
//! worker scores the first [`MEASURE_PAIRS`] pairs of the probe set (two batches), off the
//! page thread, and the estimate appears when it answers.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::{ModelInfo, Slot};

use crate::components::progress_bar::duration;
use crate::runs::{probe_set_head, run_estimate_s, run_models, RunsState};
use crate::state::pace::{backend_short, rate_key, Measuring};
use crate::state::AppState;
use crate::worker::client::client;
use tabprobe_core::scoring::DEFAULT_BATCH_SIZE;

/// Pairs a speed measurement scores: two batches, so one slow first batch does not decide.
pub const MEASURE_PAIRS: usize = 2 * DEFAULT_BATCH_SIZE;

/// The examples (of the chosen splits) whose probe set gives the measured pairs: a table has
/// about a dozen rows, so a few examples' row deletions fill [`MEASURE_PAIRS`].
const MEASURE_EXAMPLES: usize = 8;

/// "about 1 min 05 s"; under a second says so.
fn about(seconds: f64) -> String {
    if seconds < 1.0 {
        "under 1 s".to_string()
    } else {
        duration(1000.0 * seconds)
    }
}

/// Starts a speed measurement of the model in `slot` on the first pairs of the form's probe
/// set, unless one was already started for it.
fn measure(state: AppState, runs: RunsState, slot: Slot, model: ModelInfo) {
    let key = rate_key(&model);
    if state
        .pace
        .measuring
        .with_untracked(|m| m.contains_key(&key))
    {
        return;
    }
    let form = runs.form.get_untracked();
    // A few examples give the measurement's pairs: the page does not build the whole set.
    let Ok(mut set) = probe_set_head(&state, &form, slot, MEASURE_EXAMPLES) else {
        return;
    };
    set.pairs.truncate(MEASURE_PAIRS);
    let n = set.pairs.len();
    if n == 0 {
        return;
    }
    let set_state = move |m: Option<Measuring>| {
        state.pace.measuring.update(|all| match m {
            Some(m) => {
                all.insert(key.clone(), m);
            }
            None => {
                all.remove(&key);
            }
        })
    };
    set_state(Some(Measuring::Running));
    match client().and_then(|c| c.score(slot, set.pairs, |_, _| {})) {
        Err(e) => set_state(Some(Measuring::Failed(e))),
        Ok((_job, result)) => spawn_local(async move {
            match result.await {
                Ok((_, ms)) => {
                    state.pace.record_measured(&model, n, ms);
                    set_state(None);
                }
                Err(f) => set_state(Some(Measuring::Failed(f.message()))),
            }
        }),
    }
}

/// The estimate for `passes` forward passes per model (measuring a model first if needed).
#[component]
pub fn RunEstimate(passes: usize) -> impl IntoView {
    let state = expect_context::<AppState>();
    let runs = expect_context::<RunsState>();
    let models = Memo::new(move |_| runs.form.with(|f| run_models(&state, f)));
    Effect::new(move |_| {
        if runs.running() || passes == 0 {
            return;
        }
        let unmeasured = models
            .get()
            .into_iter()
            .find(|(_, m)| state.pace.rate(m).is_none());
        if let Some((slot, m)) = unmeasured {
            untrack(|| measure(state, runs, slot, m));
        }
    });
    move || {
        let models = models.get();
        if models.is_empty() || passes == 0 {
            return None;
        }
        let per_model: Vec<(ModelInfo, usize)> =
            models.iter().map(|(_, m)| (m.clone(), passes)).collect();
        let view = match run_estimate_s(&state, &per_model) {
            Some(s) => {
                let rates = models
                    .iter()
                    .filter_map(|(_, m)| {
                        state
                            .pace
                            .rate(m)
                            .map(|r| format!("{r:.1} pairs/s on {}", backend_short(m)))
                    })
                    .collect::<Vec<_>>()
                    .join(", then ");
                view! {
                    <span class="estimate" data-testid="count-estimate" data-state="estimate" data-seconds=format!("{s:.3}")>
                        " · about "<strong>{about(s)}</strong>
                        <span class="help">{format!(" (forward passes ÷ {rates}, last measured on this model)")}</span>
                    </span>
                }
                .into_any()
            }
            None => {
                let failed = models.iter().find_map(|(_, m)| {
                    state
                        .pace
                        .measuring
                        .with(|all| match all.get(&rate_key(m)) {
                            Some(Measuring::Failed(e)) => Some(e.clone()),
                            _ => None,
                        })
                });
                let text = match failed {
                    Some(e) => format!(" · time unknown: measuring the model's speed failed ({e})"),
                    None => " · time: measuring the model's speed on a few batches…".to_string(),
                };
                view! { <span class="estimate" data-testid="count-estimate" data-state="measuring">{text}</span> }.into_any()
            }
        };
        Some(view)
    }
}
