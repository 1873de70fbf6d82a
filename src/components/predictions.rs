//! Hypotheses with their gold labels and, when a model is loaded, the model's prediction for
//! each (probabilities, right or wrong, truncation), scored in the worker as one job that is
//! re-run when the model or the linearization changes and cancelled when the view goes away.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::scoring::{Pair, PairScore};
use tabprobe_core::{Example, Label, LabelSet, Table};
use tabprobe_worker::protocol::{ModelInfo, Slot};

use crate::components::label_badge::LabelBadge;
use crate::components::open_item::OpenItemButtons;
use crate::state::AppState;
use crate::worker::client::client;

/// Where the premise of the listed examples comes from.
#[derive(Clone, Debug)]
pub enum PremiseSource {
    /// One table, linearized with the chosen strategy.
    Table(Table),
    /// Each example's own plain-text premise.
    Text,
}

#[derive(Clone, Debug, PartialEq)]
enum Scoring {
    Idle,
    Running { done: usize, total: usize },
    Done { elapsed_ms: f64 },
    Failed(String),
}

fn pairs(
    source: &PremiseSource,
    settings: &LinearizeSettings,
    examples: &[Example],
) -> Result<Vec<Pair>, String> {
    examples
        .iter()
        .map(|e| match source {
            PremiseSource::Table(t) => settings
                .table_pair(t, &e.hypothesis)
                .map_err(|err| err.to_string()),
            PremiseSource::Text => {
                Ok(settings.pair(e.premise.as_deref().unwrap_or_default(), &e.hypothesis))
            }
        })
        .collect()
}

/// The list of hypotheses; `chosen` is the one whose evidence rows the table marks.
#[component]
pub fn HypothesisList(
    examples: Vec<Example>,
    source: PremiseSource,
    set: LabelSet,
    chosen: RwSignal<Option<usize>>,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let live = LiveScoring::new();
    live.follow(state, examples.clone(), source.clone());
    let LiveScoring {
        scores, scoring, ..
    } = live;
    let golds: Vec<Label> = examples.iter().map(|e| e.label).collect();
    let status = move || status_text(scoring.get(), scores, &golds);
    let items = examples
        .into_iter()
        .enumerate()
        .map(|(i, e)| hypothesis_item(i, e, &source, set, chosen, scores))
        .collect::<Vec<_>>();
    view! {
        <div class="hypotheses-pane">
            <p class="scoring-status" data-testid="scoring-status">{status}</p>
            <ol class="hypotheses" data-testid="hypotheses">{items}</ol>
        </div>
    }
}

/// The main model's scores of a list's hypotheses, and which scoring run owns them.
#[derive(Clone, Copy)]
struct LiveScoring {
    /// Per example, its score once the run finished.
    scores: RwSignal<Vec<Option<PairScore>>>,
    scoring: RwSignal<Scoring>,
    /// Counts the runs started: a run writes its progress and scores only while it is the
    /// latest.
    generation: StoredValue<u64>,
    /// The worker job of the run under way.
    running_job: StoredValue<Option<u64>>,
}

impl LiveScoring {
    fn new() -> Self {
        LiveScoring {
            scores: RwSignal::new(Vec::new()),
            scoring: RwSignal::new(Scoring::Idle),
            generation: StoredValue::new(0),
            running_job: StoredValue::new(None),
        }
    }

    /// Cancels the worker job of the run under way, if any.
    fn cancel_running(self) {
        if let Some(job) = self.running_job.get_value() {
            if let Ok(c) = client() {
                let _ = c.cancel(job);
            }
        }
    }

    /// Scores `examples` again each time the main model or its linearization changes
    /// (cancelling the run under way), and cancels the run when the list goes away.
    fn follow(self, state: AppState, examples: Vec<Example>, source: PremiseSource) {
        Effect::new(move |_| {
            let model = state.slot(Slot::Main).model.get();
            let settings = state.linearization_of(Slot::Main);
            self.cancel_running();
            self.generation.update_value(|g| *g += 1);
            let this = self.generation.get_value();
            self.scores.set(Vec::new());
            if model.is_none() || examples.is_empty() {
                self.scoring.set(Scoring::Idle);
                state.pace.live.set(None);
                return;
            }
            let batch = match pairs(&source, &settings, &examples) {
                Ok(p) => p,
                Err(e) => {
                    self.scoring.set(Scoring::Failed(e));
                    // The cancelled run's result is dropped as out of date: clear its count
                    // in the model bar here, or "scoring n / m" would stay.
                    state.pace.live.set(None);
                    return;
                }
            };
            self.start(state, batch, model, this);
        });
        on_cleanup(move || {
            self.cancel_running();
            // The model bar's "scoring n / m" belongs to the list on screen.
            state.pace.live.try_set(None);
        });
    }

    /// Starts run `this`: `batch` scored by `model` in the worker, its progress shown here
    /// and in the model bar.
    fn start(self, state: AppState, batch: Vec<Pair>, model: Option<ModelInfo>, this: u64) {
        let LiveScoring {
            scores,
            scoring,
            generation,
            running_job,
        } = self;
        let total = batch.len();
        scoring.set(Scoring::Running { done: 0, total });
        state.pace.live.set(Some((0, total)));
        let started = client().and_then(|c| {
            c.score(Slot::Main, batch, move |done, total| {
                if generation.try_get_value() == Some(this) {
                    scoring.try_set(Scoring::Running { done, total });
                    state.pace.live.try_set(Some((done, total)));
                }
            })
        });
        match started {
            Err(e) => {
                scoring.set(Scoring::Failed(e));
                state.pace.live.set(None);
            }
            Ok((job, result)) => {
                running_job.set_value(Some(job));
                spawn_local(async move {
                    let result = result.await;
                    // A newer run (or a closed view) owns the signals now.
                    if generation.try_get_value() != Some(this) {
                        return;
                    }
                    running_job.try_set_value(None);
                    state.pace.live.try_set(None);
                    match result {
                        Ok((s, elapsed_ms)) => {
                            if let Some(m) = &model {
                                state.pace.record(m, s.len(), elapsed_ms);
                            }
                            scores.try_set(s.into_iter().map(Some).collect());
                            scoring.try_set(Scoring::Done { elapsed_ms });
                        }
                        Err(f) => {
                            scoring.try_set(Scoring::Failed(f.message()));
                        }
                    }
                });
            }
        }
    }
}

/// The scoring status line: progress, how many the model got right, or the failure.
fn status_text(
    scoring: Scoring,
    scores: RwSignal<Vec<Option<PairScore>>>,
    golds: &[Label],
) -> Option<String> {
    match scoring {
        Scoring::Idle => None,
        Scoring::Running { done, total } => Some(format!("scoring {done} / {total} pairs…")),
        Scoring::Done { elapsed_ms } => {
            let (n, right) = scores.with(|s| {
                let right = s
                    .iter()
                    .zip(golds)
                    .filter(|(s, g)| s.as_ref().is_some_and(|s| s.predicted() == **g))
                    .count();
                (s.len(), right)
            });
            Some(format!(
                "model right on {right} of {n} · scored in {elapsed_ms:.0} ms"
            ))
        }
        Scoring::Failed(e) => Some(format!("scoring failed: {e}")),
    }
}

/// Hypothesis `i` of the list: gold label, text, premise, tags, and the model's prediction
/// once scored; a click makes it the chosen one (or unchooses it).
fn hypothesis_item(
    i: usize,
    e: Example,
    source: &PremiseSource,
    set: LabelSet,
    chosen: RwSignal<Option<usize>>,
    scores: RwSignal<Vec<Option<PairScore>>>,
) -> impl IntoView {
    let has_rows = e.relevant_rows.as_ref().is_some_and(|r| !r.is_empty());
    let gold = e.label;
    let prediction = move || {
        scores
            .with(|s| s.get(i).cloned().flatten())
            .map(|score| view! { <Prediction score=score gold=gold set=set/> })
    };
    view! {
        <li
            class="hypothesis"
            class:chosen=move || chosen.get() == Some(i)
            data-testid="hypothesis"
            on:click=move |_| chosen.set(if chosen.get() == Some(i) { None } else { Some(i) })
        >
            <LabelBadge label=e.label set=set/>
            <span class="text">{e.hypothesis.clone()}</span>
            {e.premise.clone().map(|p| view! { <p class="premise">{p}</p> })}
            <span class="tags">
                {e.id.clone().map(|id| view! { <span class="tag id">{id}</span> })}
                {e.split.clone().map(|s| view! { <span class="tag split">{s}</span> })}
                {e.categories.iter().map(|c| view! { <span class="tag category">{c.clone()}</span> }).collect::<Vec<_>>()}
                {has_rows.then(|| view! { <span class="tag evidence" title="has human-annotated relevant rows">"evidence rows"</span> })}
                {e.derived_from.clone().map(|d| {
                    let op = tabprobe_core::display::readable(e.operation.as_deref().unwrap_or("derived"));
                    view! { <span class="tag derived" data-testid="derived-tag" title="a perturbed or hand-made item">{format!("{op} of {d}")}</span> }
                })}
                {match source { PremiseSource::Table(t) => Some(view! { <OpenItemButtons example=e.clone() table=t.clone()/> }), PremiseSource::Text => None }}
            </span>
            {prediction}
        </li>
    }
}

/// The letter a probability bar carries: the first of the label's name in `set` (E, N, C;
/// TabFact's E, R), so a bar reads without its colour.
pub fn label_letter(set: LabelSet, label: Label) -> char {
    set.display_name(label).chars().next().unwrap_or('?')
}

/// One prediction: label, probabilities, right/wrong against gold (when given), truncation.
#[component]
pub fn Prediction(
    score: PairScore,
    #[prop(into)] gold: Option<Label>,
    set: LabelSet,
) -> impl IntoView {
    let predicted = score.predicted();
    let right = gold.is_none_or(|g| predicted == g);
    let probs = Label::ALL
        .iter()
        .zip(score.probs)
        .filter(|(l, _)| set.labels().contains(l))
        .map(|(l, p)| {
            let class = match l {
                Label::Entail => "prob entail",
                Label::Neutral => "prob neutral",
                Label::Contradict => "prob contradict",
            };
            view! {
                <span class=class title=set.display_name(*l) data-testid="prob">
                    <span class="bar" style=format!("width: {:.0}%", p * 100.0)></span>
                    <span class="value"><span class="letter" data-testid="prob-letter">{label_letter(set, *l)}</span>" "{format!("{:.3}", p)}</span>
                </span>
            }
        })
        .collect::<Vec<_>>();
    let probs_json = serde_json::to_string(&score.probs).unwrap_or_default();
    let logits_json = serde_json::to_string(&score.logits).unwrap_or_default();
    view! {
        <div class="prediction" class:wrong=!right data-testid="prediction" data-probs=probs_json data-logits=logits_json>
            <span class="muted">"model: "</span>
            <LabelBadge label=predicted set=set/>
            {gold.map(|_| view! { <span class="verdict" data-testid="verdict">{if right { "✓ right" } else { "✗ wrong" }}</span> })}
            <span class="probs">{probs}</span>
            {score.truncated.then(|| view! {
                <span class="truncated" data-testid="truncated" title="rows past the model's maximum length were never seen">
                    {format!("premise truncated: {} tokens dropped", score.premise_tokens_dropped)}
                </span>
            })}
        </div>
    }
}
