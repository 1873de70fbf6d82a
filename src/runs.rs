//! Probe runs from the page: the runner's form (probes, splits, caps, seed, validity rules),
//! the run in progress (driven in the model worker, one model after the other on the same
//! probe set), and finished runs (kept in IndexedDB by [`crate::run_store`]). Lives in its own
//! context so a run goes on, and its form keeps its values, while the user is on other screens.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{ProbeCounts, ProbeKind, ProbeSet, ProbeSettings};
use tabprobe_core::run::pace::{estimate_seconds, RemainingClock};

use crate::run_keep::{KeptChunk, KeptModel, KeptRun};
use crate::run_store::{self, RunMeta, SavedRun, StoredPieces};
use crate::state::AppState;
use crate::worker_client::{client, RunUpdate};
use tabprobe_worker::protocol::{ModelInfo, ProbeRequest, RunResume, Slot};

/// What the runner is doing.
#[derive(Clone, Debug, PartialEq)]
pub enum RunStatus {
    /// Nothing running.
    Idle,
    /// Scoring in the worker.
    Running {
        /// Model being run (1-based position and count).
        model_index: usize,
        /// How many models run.
        models: usize,
        /// The model's name.
        model: String,
        /// Pairs scored, over all models so far.
        done: usize,
        /// Pairs to score over all models.
        total: usize,
        /// `Date.now()` at the start.
        started_ms: f64,
        /// The user asked to cancel.
        cancelling: bool,
        /// Seconds left, smoothed ([`RemainingClock`]); `None` until known.
        remaining_s: Option<f64>,
    },
    /// Finished (or cancelled with what was scored kept).
    Finished {
        /// The saved run's id.
        id: String,
        /// Wall time, ms.
        elapsed_ms: f64,
        /// Pairs scored.
        pairs: usize,
        /// Cancelled before the end.
        cancelled: bool,
        /// Pairs whose scores came from the interrupted run it resumed (0 for a fresh run).
        resumed: usize,
    },
    /// Could not run.
    Failed(String),
}

/// The runner's form; kept across navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct RunnerForm {
    /// Probes, caps, seed, splits, word-order options (the linearization is taken from the
    /// model bar when the run starts).
    pub settings: ProbeSettings,
    /// Validity rules in force (editable).
    pub rules: RuleSet,
    /// Also run the second model on the same probe set.
    pub use_second: bool,
}

impl Default for RunnerForm {
    fn default() -> Self {
        RunnerForm {
            settings: ProbeSettings::new(vec![ProbeKind::RowDeletion], 1),
            rules: RuleSet::default(),
            use_second: true,
        }
    }
}

/// How long the form must rest before its probe set is counted, ms.
const COUNT_DEBOUNCE_MS: u32 = 120;

/// The runner's counts of the probe set its form describes (built in the worker).
#[derive(Clone, Debug, PartialEq)]
pub enum ProbeCountsState {
    /// No dataset is loaded.
    NoDataset,
    /// The worker is counting the form as it is now (earlier counts are stale).
    Counting,
    /// The counts, or why the probe set cannot be built.
    Ready(Result<ProbeCounts, String>),
}

/// Runs context: form, status, saved runs.
#[derive(Clone, Copy)]
pub struct RunsState {
    /// The form.
    pub form: RwSignal<RunnerForm>,
    /// The counts of the form's probe set ([`RunsState::recount`]).
    pub counts: RwSignal<ProbeCountsState>,
    /// The run in progress or the last outcome.
    pub status: RwSignal<RunStatus>,
    /// Saved runs, newest first.
    pub saved: RwSignal<Vec<RunMeta>>,
    /// The run on screen in the results view.
    pub current: RwSignal<Option<Arc<SavedRun>>>,
    /// The last storage problem (results still shown, but not kept).
    pub storage_error: RwSignal<Option<String>>,
    /// The id of the run on screen when the browser refused to save it (quota): the page
    /// offers its download.
    pub unsaved: RwSignal<Option<String>>,
    /// A run that was interrupted (a reload, a crash) and is kept to resume
    /// ([`crate::run_resume`]), or why the kept one cannot be read.
    pub interrupted: RwSignal<Option<Result<KeptRun, String>>>,
    /// Pairs of the run in progress kept in the browser so far.
    pub kept: RwSignal<usize>,
    /// Why the run in progress is not kept (storage refused), if it is not.
    pub keep_problem: RwSignal<Option<String>>,
    /// Bumped by each recount: an answer for an older form is dropped.
    count_generation: StoredValue<u64>,
    job: StoredValue<Option<u64>>,
    cancel: StoredValue<bool>,
    clock: StoredValue<Option<RemainingClock>>,
    /// The scores of the run in progress on their way to storage.
    pub(crate) keeper: StoredValue<Option<crate::run_resume::Keeper>>,
}

impl RunsState {
    /// Empty state; call [`RunsState::refresh`] to read the saved runs.
    pub(crate) fn new() -> RunsState {
        RunsState {
            form: RwSignal::new(RunnerForm::default()),
            counts: RwSignal::new(ProbeCountsState::NoDataset),
            count_generation: StoredValue::new(0),
            status: RwSignal::new(RunStatus::Idle),
            saved: RwSignal::new(Vec::new()),
            current: RwSignal::new(None),
            storage_error: RwSignal::new(None),
            unsaved: RwSignal::new(None),
            job: StoredValue::new(None),
            cancel: StoredValue::new(false),
            clock: StoredValue::new(None),
            interrupted: RwSignal::new(None),
            kept: RwSignal::new(0),
            keep_problem: RwSignal::new(None),
            keeper: StoredValue::new(None),
        }
    }

    /// Puts `saved` on screen in the results view. The run it replaces is freed in a later
    /// task: freeing the INFOTABS dev split's row-deletion run takes about 25 ms, which would
    /// otherwise add to the task that builds the new report.
    pub fn show(self, saved: SavedRun) {
        let old = self.current.get_untracked();
        self.current.set(Some(Arc::new(saved)));
        if let Some(old) = old {
            spawn_local(async move {
                // Twice: the old report is unmounted by an effect that runs after this task.
                gloo::timers::future::TimeoutFuture::new(0).await;
                gloo::timers::future::TimeoutFuture::new(0).await;
                drop(old);
            });
        }
    }

    /// Counts the probe set the form describes for the main model, in the worker; the counts
    /// read [`ProbeCountsState::Counting`] until the answer for this form arrives.
    pub fn recount(self, state: AppState) {
        self.count_generation.update_value(|g| *g += 1);
        let this = self.count_generation.get_value();
        if state.dataset.with_untracked(|d| d.is_none()) {
            self.counts.set(ProbeCountsState::NoDataset);
            return;
        }
        self.counts.set(ProbeCountsState::Counting);
        spawn_local(async move {
            // Typing a number changes the form on every keystroke: count only the form the
            // user stopped at, not every one on the way.
            gloo::timers::future::TimeoutFuture::new(COUNT_DEBOUNCE_MS).await;
            let current = || self.count_generation.try_get_value() == Some(this);
            if !current() {
                return;
            }
            let form = self.form.get_untracked();
            let counts = match (probe_request(&state, &form, Slot::Main), client()) {
                (Ok(request), Ok(c)) => c.count_probe_set(request).await,
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            if current() {
                self.counts.set(ProbeCountsState::Ready(counts));
            }
        });
    }

    /// Re-reads the list of saved runs.
    pub async fn refresh(self) {
        match run_store::list().await {
            Ok(list) => self.saved.set(list),
            Err(e) => self.storage_error.set(Some(e)),
        }
    }

    /// Whether a run is under way.
    pub fn running(&self) -> bool {
        matches!(self.status.get(), RunStatus::Running { .. })
    }
}

/// What the worker builds the probe set of the model in `slot` from: the loaded dataset and
/// the form, with the model bar's linearization (no premise for a model that reads the
/// hypothesis alone). The second model also scores every hypothesis alone (Table 8's
/// hypothesis-only column). The page never builds a whole probe set itself: on the INFOTABS
/// dev split the row-deletion set alone took the page's thread 0.4 s.
pub fn probe_request(
    state: &AppState,
    form: &RunnerForm,
    slot: Slot,
) -> Result<ProbeRequest, String> {
    let loaded = state
        .dataset
        .get_untracked()
        .ok_or("no dataset is loaded")?;
    let mut settings = form.settings.clone();
    settings.linearization = untrack(|| state.linearization_of(slot));
    settings.hypothesis_only |= slot == Slot::Second;
    Ok(ProbeRequest {
        dataset: (*loaded.dataset).clone(),
        settings,
        rules: form.rules.clone(),
    })
}

/// The probe set of the first `examples` examples of the chosen splits only, built on the
/// page: small enough for its thread (a speed measurement scores a few of its pairs).
pub fn probe_set_head(
    state: &AppState,
    form: &RunnerForm,
    slot: Slot,
    examples: usize,
) -> Result<ProbeSet, String> {
    let mut request = probe_request(state, form, slot)?;
    let d = &mut request.dataset;
    if let Some(splits) = &request.settings.splits {
        d.examples
            .retain(|e| e.split.as_ref().is_some_and(|s| splits.contains(s)));
    }
    d.examples.truncate(examples);
    request.build()
}

/// The models a run of `form` scores, with their slots: the main model, and the second when
/// asked for and loaded (tracked).
pub fn run_models(state: &AppState, form: &RunnerForm) -> Vec<(Slot, ModelInfo)> {
    let mut models: Vec<(Slot, ModelInfo)> = state
        .slot(Slot::Main)
        .model
        .get()
        .map(|m| (Slot::Main, m))
        .into_iter()
        .collect();
    if form.use_second {
        if let Some(second) = state.slot(Slot::Second).model.get() {
            models.push((Slot::Second, second));
        }
    }
    models
}

/// The estimated seconds of a run: for each model, its forward passes ÷ the pairs/s last
/// measured on it and its backend, summed ([`estimate_seconds`]); `None` while a model has
/// no measured speed (tracked).
pub fn run_estimate_s(state: &AppState, passes: &[(ModelInfo, usize)]) -> Option<f64> {
    passes
        .iter()
        .map(|(m, n)| state.pace.rate(m).and_then(|r| estimate_seconds(*n, r)))
        .sum()
}

/// Starts a run of the form's probe set: the main model, then (when asked and loaded) the
/// second model on the same items. The result is saved in IndexedDB and opened; while it
/// runs, its scores are kept ([`crate::run_keep`]) so a reload or crash can resume it.
pub fn start_run(state: AppState, runs: RunsState) {
    if runs.running() {
        return;
    }
    let form = runs.form.get_untracked();
    // The main model first, then the second when asked for and loaded.
    let infos = untrack(|| run_models(&state, &form));
    if infos.first().is_none_or(|(slot, _)| *slot != Slot::Main) {
        runs.status.set(RunStatus::Failed(
            "load a model first (model bar above)".into(),
        ));
        return;
    }
    // The worker builds each model's probe set; the second model also scores every
    // hypothesis alone: Table 8's hypothesis-only column.
    let requests: Result<Vec<ProbeRequest>, String> = infos
        .iter()
        .map(|&(slot, _)| probe_request(&state, &form, slot))
        .collect();
    let requests = match requests {
        Ok(r) => r,
        Err(e) => {
            runs.status.set(RunStatus::Failed(e));
            return;
        }
    };
    // The run's size, from the runner's counts (the main model's pairs, for each model) until
    // the worker reports each model's own.
    let per_model = match untrack(|| runs.counts.get()) {
        ProbeCountsState::Ready(Ok(c)) => c.forward_passes,
        _ => 0,
    };
    let dataset = state
        .dataset
        .get_untracked()
        .map(|d| d.file.clone())
        .unwrap_or_default();
    let kept = KeptRun {
        started_ms: js_sys::Date::now(),
        dataset,
        models: infos
            .iter()
            .map(|(slot, m)| KeptModel {
                slot: *slot,
                name: m.id.name.clone(),
                weights_sha256: m.id.weights_sha256.clone(),
                kept: 0,
                total: 0,
            })
            .collect(),
        records: 0,
    };
    let resumes = vec![None; infos.len()];
    drive(
        state,
        runs,
        RunPlan {
            infos,
            requests,
            resumes,
            per_model,
            kept,
            fresh: true,
        },
    );
}

/// What [`drive`] runs: each model (slot and info, in order) with its request and the scores
/// an interrupted run kept for it.
pub(crate) struct RunPlan {
    pub(crate) infos: Vec<(Slot, ModelInfo)>,
    pub(crate) requests: Vec<ProbeRequest>,
    pub(crate) resumes: Vec<Option<RunResume>>,
    /// Forward passes per model, estimated before the worker says (0: unknown).
    pub(crate) per_model: usize,
    /// The kept run's header.
    pub(crate) kept: KeptRun,
    /// A new run (its requests are written first) rather than a resumed one.
    pub(crate) fresh: bool,
}

/// Runs `plan` in the worker, one model after the other, keeping the scores as they come and
/// saving the finished run.
pub(crate) fn drive(state: AppState, runs: RunsState, plan: RunPlan) {
    let RunPlan {
        infos,
        requests,
        resumes,
        per_model,
        kept,
        fresh,
    } = plan;
    let models: Vec<(Slot, String)> = infos.iter().map(|(s, m)| (*s, m.id.name.clone())).collect();
    let model_count = models.len();
    // Pairs already scored by the interrupted run: shown as done, not counted in the rate.
    let resumed: Vec<usize> = resumes
        .iter()
        .map(|r| r.as_ref().map_or(0, |r| r.scores.len()))
        .collect();
    let resumed_all: usize = resumed.iter().sum();
    let total = (per_model * model_count).max(resumed_all);
    let started_ms = js_sys::Date::now();
    // The clock starts from the estimate, when every model has a measured speed.
    let passes: Vec<(ModelInfo, usize)> =
        infos.iter().map(|(_, m)| (m.clone(), per_model)).collect();
    let prior_rate = untrack(|| run_estimate_s(&state, &passes))
        .filter(|s| *s > 0.0)
        .map(|s| total as f64 / s);
    let clock = RemainingClock::new(total.saturating_sub(resumed_all), started_ms, prior_rate);
    let remaining_s = clock.remaining_s();
    runs.clock.set_value(Some(clock));
    runs.cancel.set_value(false);
    runs.interrupted.set(None);
    runs.kept.set(resumed_all);
    let dataset = kept.dataset.clone();
    crate::run_resume::keep_begin(runs, kept, &requests, fresh);
    runs.status.set(RunStatus::Running {
        model_index: 1,
        models: models.len(),
        model: models[0].1.clone(),
        done: resumed.first().copied().unwrap_or(0),
        total,
        started_ms,
        cancelling: false,
        remaining_s,
    });
    spawn_local(async move {
        let client = match client() {
            Ok(c) => c,
            Err(e) => {
                crate::run_resume::keep_end(runs, true).await;
                runs.status.set(RunStatus::Failed(e));
                return;
            }
        };
        let mut results = Vec::new();
        // The run files' pieces as the worker sent them, every model's: what is stored, so
        // the page never serialises the run.
        let mut pieces = Vec::new();
        let mut failure: Option<(String, bool)> = None;
        let mut before = 0;
        // Pairs scored in this session by the models before this one (the clock's count).
        let mut new_before = 0;
        for (k, (((slot, name), request), resume)) in
            models.into_iter().zip(requests).zip(resumes).enumerate()
        {
            if runs.cancel.get_value() {
                break;
            }
            let resumed_here = resumed[k];
            let update = {
                let name = name.clone();
                move |update: RunUpdate| match update {
                    RunUpdate::Progress { done, total: total_here } => {
                        let now = js_sys::Date::now();
                        // This model's set as the worker built it; the models after it are
                        // estimated at its size.
                        let grand_total = before + total_here * (model_count - k);
                        crate::run_resume::keep_total(runs, k, total_here);
                        let mut left = None;
                        runs.clock.update_value(|c| {
                            left = c.as_mut().and_then(|c| {
                                c.set_total(grand_total.saturating_sub(resumed_all));
                                c.report(new_before + done.saturating_sub(resumed_here), now)
                            });
                        });
                        runs.status.update(|s| {
                            if let RunStatus::Running {
                                done: d,
                                total: t,
                                model_index,
                                model,
                                remaining_s,
                                ..
                            } = s
                            {
                                *d = before + done;
                                *t = grand_total;
                                *model_index = k + 1;
                                *model = name.clone();
                                *remaining_s = left;
                            }
                        })
                    }
                    RunUpdate::Scores {
                        chunk,
                        from,
                        scores,
                    } => crate::run_resume::keep_scores(
                        runs,
                        KeptChunk {
                            model: k,
                            chunk,
                            from,
                            scores,
                        },
                    ),
                }
            };
            let (job, outcome) = match client.run_probe(slot, request, resume, update) {
                Ok(j) => j,
                Err(e) => {
                    crate::run_resume::keep_end(runs, true).await;
                    runs.status.set(RunStatus::Failed(e));
                    return;
                }
            };
            runs.job.set_value(Some(job));
            if runs.cancel.get_value() {
                let _ = client.cancel(job);
            }
            match outcome.await {
                Ok((finished, ms)) => {
                    let result = finished.run;
                    pieces.push(StoredPieces {
                        piece_bytes: finished.piece_bytes,
                        blob: finished.blob,
                    });
                    let stop = result.cancelled_at.is_some();
                    // This run's speed is the next estimate's.
                    let scored = result.cancelled_at.map_or(result.pairs.len(), |p| p.done);
                    if let Some(info) = state.slot(slot).model.get_untracked() {
                        state
                            .pace
                            .record(&info, scored.saturating_sub(resumed_here), ms);
                    }
                    before += scored;
                    new_before += scored.saturating_sub(resumed_here);
                    results.push(Arc::new(result));
                    if stop {
                        break;
                    }
                    // Every score of this model is kept before the next model starts: a crash
                    // during the next one must not cost this one.
                    crate::run_resume::keep_now(runs);
                }
                Err(f) => {
                    // A failed model (non-finite outputs, a crashed worker) ends the run; the
                    // models that finished before it are still saved below.
                    failure = Some((format!("{name}: {}", f.message), f.lost));
                    break;
                }
            }
        }
        runs.job.set_value(None);
        // A worker that died (or stopped answering) ends the run, not the model: what was
        // scored stays kept, to resume once the models are loaded again.
        if let Some((message, true)) = &failure {
            if let Some(kept) = crate::run_resume::keep_end(runs, false).await {
                runs.status.set(RunStatus::Failed(format!(
                    "{message} — the {} pairs scored so far are kept in this browser: load the model again and resume the run (below)",
                    kept.kept()
                )));
                runs.interrupted.set(Some(Ok(kept)));
                return;
            }
        } else {
            crate::run_resume::keep_end(runs, true).await;
        }
        let failure = failure.map(|(m, _)| m);
        if let Some(message) = failure.clone().filter(|_| results.is_empty()) {
            runs.status.set(RunStatus::Failed(message));
            return;
        }
        let cancelled = runs.cancel.get_value()
            || results.iter().any(|r| r.cancelled_at.is_some())
            || results.is_empty()
            || failure.is_some();
        let elapsed_ms = js_sys::Date::now() - started_ms;
        if results.is_empty() {
            runs.status.set(RunStatus::Failed(
                "cancelled before anything was scored".into(),
            ));
            return;
        }
        let scored: usize = results
            .iter()
            .map(|r| r.cancelled_at.map(|p| p.done).unwrap_or(r.pairs.len()))
            .sum();
        let created_ms = js_sys::Date::now();
        // One Blob of every model's pieces; should the browser refuse to make it, the run is
        // still shown (and offered for download) but not saved.
        let joined = StoredPieces::join(&pieces);
        let saved = SavedRun {
            meta: RunMeta {
                id: format!("run-{}", created_ms as u64),
                created_ms,
                dataset,
                probes: results[0]
                    .settings
                    .probes
                    .iter()
                    .map(|p| p.as_str().to_string())
                    .collect(),
                models: results.iter().map(|r| r.model.name.clone()).collect(),
                items: results[0].items.len(),
                cancelled,
            },
            results,
            pieces: joined.as_ref().ok().cloned(),
        };
        let id = saved.meta.id.clone();
        let stored = match &joined {
            Ok(p) => run_store::save(&saved.meta, p).await,
            Err(e) => Err(crate::idb::StoreError {
                message: e.clone(),
                quota: false,
            }),
        };
        match stored {
            Ok(()) => runs.unsaved.set(None),
            Err(e) => {
                // Kept in memory (shown, downloadable) even though the browser refused it.
                runs.unsaved.set(Some(id.clone()));
                runs.storage_error.set(Some(format!(
                    "{e} — the run is NOT saved: it stays open on this page until you leave or reload it; download its run file to keep it"
                )));
            }
        }
        runs.show(saved);
        if let Some(message) = failure {
            runs.status.set(RunStatus::Failed(format!(
                "{message} — the runs of the models before it are saved as {id}"
            )));
            runs.refresh().await;
            return;
        }
        runs.status.set(RunStatus::Finished {
            id: id.clone(),
            elapsed_ms,
            pairs: scored,
            cancelled,
            resumed: resumed_all,
        });
        runs.refresh().await;
        // Open the results when the user is still watching the runner.
        if let Some(w) = web_sys::window() {
            if w.location()
                .hash()
                .unwrap_or_default()
                .starts_with("#/runner")
            {
                let _ = w.location().set_hash(&format!("/results/{id}"));
            }
        }
    });
}

/// Asks the worker to stop the run after the batch in flight; what was scored is kept.
pub fn cancel_run(runs: RunsState) {
    // One cancel is enough: a second press (the button is disabled by then) does nothing.
    if runs.cancel.get_value() {
        return;
    }
    runs.cancel.set_value(true);
    runs.status.update(|s| {
        if let RunStatus::Running { cancelling, .. } = s {
            *cancelling = true;
        }
    });
    if let Some(job) = runs.job.get_value() {
        if let Ok(c) = client() {
            let _ = c.cancel(job);
        }
    }
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) {
    offer(name, gloo::file::Blob::new_with_options(text, Some(mime)));
}

/// Offers `bytes` as a file download named `name`.
pub fn download_bytes(name: &str, bytes: &[u8]) {
    offer(
        name,
        gloo::file::Blob::new_with_options(bytes, Some("application/octet-stream")),
    );
}

fn offer(name: &str, blob: gloo::file::Blob) {
    use wasm_bindgen::JsCast;
    let url = gloo::file::ObjectUrl::from(blob);
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let _ = a.set_attribute("href", &url);
    let _ = a.set_attribute("download", name);
    if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
        a.click();
    }
    // Keep the object URL alive until the download has surely started.
    gloo::timers::callback::Timeout::new(60_000, move || drop(url)).forget();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::LoadedDataset;
    use tabprobe_core::linearize::PremiseMode;
    use tabprobe_core::scoring::ModelId;
    use tabprobe_worker::protocol::Backend;

    /// A page state holding tests/fixtures/small-dataset.json (4 examples: dev, dev, test,
    /// none; 2 tables).
    fn state() -> AppState {
        let text = include_str!("../tests/fixtures/small-dataset.json");
        let d = tabprobe_core::parse_dataset("small-dataset.json", text).expect("fixture");
        let state = AppState::new();
        state.set_loaded(LoadedDataset::new("small-dataset.json", d), false);
        state
    }

    fn model(hash: &str) -> ModelInfo {
        ModelInfo {
            id: ModelId {
                name: "m".into(),
                weights_sha256: hash.into(),
                label_set: tabprobe_core::LabelSet::ThreeWay,
            },
            labels: vec![],
            architecture: "RoBERTa".into(),
            parameters: None,
            max_tokens: 512,
            layers: 1,
            hidden_size: 8,
            backend: Backend::Cpu {
                reason: "test".into(),
            },
            backend_note: String::new(),
            workers: 1,
            load_ms: 0.0,
            memory_bytes: None,
        }
    }

    #[test]
    fn each_model_gets_the_request_it_reads() {
        let state = state();
        let form = RunnerForm::default();
        state.slot(Slot::Main).model.set(Some(model("full")));
        state.slot(Slot::Second).model.set(Some(model("hypo")));
        state.hypothesis_only_weights.set(vec!["hypo".into()]);
        let main = probe_request(&state, &form, Slot::Main).unwrap();
        let second = probe_request(&state, &form, Slot::Second).unwrap();
        assert_eq!(main.dataset.examples.len(), 4);
        // The main model: the bar's linearization, no hypothesis-only pairs.
        assert_eq!(main.settings.linearization.premise, PremiseMode::Full);
        assert!(!main.settings.hypothesis_only);
        // The second model scores every hypothesis alone too, and this one reads no premise.
        assert!(second.settings.hypothesis_only);
        assert_eq!(
            second.settings.linearization.premise,
            PremiseMode::HypothesisOnly
        );
        assert!(second
            .build()
            .unwrap()
            .pairs
            .iter()
            .all(|p| p.premise.is_empty()));
        // Unmarked, the second model reads the premise.
        state.hypothesis_only_weights.set(vec![]);
        let second = probe_request(&state, &form, Slot::Second).unwrap();
        assert_eq!(second.settings.linearization.premise, PremiseMode::Full);
    }

    #[test]
    fn the_speed_measurement_builds_only_the_first_examples_of_the_chosen_splits() {
        let state = state();
        let mut form = RunnerForm::default();
        form.settings.splits = Some(vec!["dev".into()]);
        let head = probe_set_head(&state, &form, Slot::Main, 1).unwrap();
        assert_eq!(head.examples.len(), 1);
        assert_eq!(head.examples[0].split.as_deref(), Some("dev"));
        let all = probe_request(&state, &form, Slot::Main)
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(all.examples.len(), 2);
        assert!(head.pairs.len() < all.pairs.len());
    }

    #[test]
    fn no_dataset_is_said_so() {
        let state = AppState::new();
        assert_eq!(
            probe_request(&state, &RunnerForm::default(), Slot::Main).unwrap_err(),
            "no dataset is loaded"
        );
    }
}
