//! Live predictions for the editor and the rewriter: a pair is scored by the model in worker
//! the main slot a moment after it stops changing (debounced), superseded jobs are cancelled, and a
//! card shows the label and probabilities with what the user expects.

use gloo::timers::callback::Timeout;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::scoring::{Pair, PairScore};
use tabprobe_core::{Label, LabelSet};
use tabprobe_worker::protocol::Slot;

use crate::components::predictions::Prediction;
use crate::state::AppState;
use crate::worker::client::client;

/// How long the input must stay unchanged before it is scored.
pub const DEBOUNCE_MS: u32 = 350;

/// Where one live prediction stands.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveScore {
    /// No model is loaded.
    NoModel,
    /// Waiting for the input to settle, or for the worker.
    Pending,
    /// The model's answer for the current input.
    Done(PairScore),
    /// The input cannot be scored, or the worker failed.
    Failed(String),
}

impl LiveScore {
    /// The score, when there is one.
    pub fn score(&self) -> Option<&PairScore> {
        match self {
            LiveScore::Done(s) => Some(s),
            _ => None,
        }
    }

    fn state_name(&self) -> &'static str {
        match self {
            LiveScore::NoModel => "no-model",
            LiveScore::Pending => "pending",
            LiveScore::Done(_) => "done",
            LiveScore::Failed(_) => "failed",
        }
    }
}

/// Scores `pair` with the main model whenever it (or the model) changes, after
/// [`DEBOUNCE_MS`] of quiet. The returned signal always describes the latest input.
pub fn use_live_score(pair: Signal<Result<Pair, String>>) -> ReadSignal<LiveScore> {
    let state = expect_context::<AppState>();
    let (live, set_live) = signal(LiveScore::NoModel);
    let timer = StoredValue::new_local(None::<Timeout>);
    let running = StoredValue::new(None::<u64>);
    let generation = StoredValue::new(0u64);
    let stop = move || {
        timer.update_value(|t| drop(t.take()));
        if let Some(job) = running.get_value() {
            if let Ok(c) = client() {
                let _ = c.cancel(job);
            }
            running.set_value(None);
        }
    };
    Effect::new(move |_| {
        let model = state.slot(Slot::Main).model.get();
        let pair = pair.get();
        stop();
        generation.update_value(|g| *g += 1);
        let this = generation.get_value();
        if model.is_none() {
            set_live.set(LiveScore::NoModel);
            return;
        }
        let pair = match pair {
            Ok(p) => p,
            Err(e) => {
                set_live.set(LiveScore::Failed(e));
                return;
            }
        };
        set_live.set(LiveScore::Pending);
        let fire = move || {
            let started = client().and_then(|c| c.score(Slot::Main, vec![pair], |_, _| {}));
            match started {
                Err(e) => {
                    set_live.try_set(LiveScore::Failed(e));
                }
                Ok((job, result)) => {
                    running.try_set_value(Some(job));
                    spawn_local(async move {
                        let result = result.await;
                        if generation.try_get_value() != Some(this) {
                            return; // a newer input owns the signal
                        }
                        running.try_set_value(None);
                        let next = match result {
                            Ok((mut scores, _)) if scores.len() == 1 => {
                                LiveScore::Done(scores.remove(0))
                            }
                            Ok((scores, _)) => LiveScore::Failed(format!(
                                "the worker returned {} scores for one pair",
                                scores.len()
                            )),
                            Err(f) => LiveScore::Failed(f.message()),
                        };
                        set_live.try_set(next);
                    });
                }
            }
        };
        timer.set_value(Some(Timeout::new(DEBOUNCE_MS, fire)));
    });
    on_cleanup(stop);
    live
}

/// A titled card with one live prediction; `expected` is the gold or asserted label.
#[component]
pub fn ScoreCard(
    title: &'static str,
    score: ReadSignal<LiveScore>,
    #[prop(into)] expected: Signal<Option<Label>>,
    set: LabelSet,
    testid: &'static str,
) -> impl IntoView {
    let body = move || {
        match score.get() {
        LiveScore::NoModel => view! {
            <p class="empty">"No model loaded — load one in the model bar above to see predictions."</p>
        }
        .into_any(),
        LiveScore::Pending => view! { <p class="muted">"scoring…"</p> }.into_any(),
        LiveScore::Failed(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
        LiveScore::Done(s) => view! { <Prediction score=s gold=expected.get() set=set/> }.into_any(),
    }
    };
    view! {
        <div class="score-card" data-testid=testid data-state=move || score.with(|s| s.state_name())>
            <h3>{title}</h3>
            {body}
        </div>
    }
}
