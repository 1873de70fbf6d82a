//! Probe runs from the page, as state: the runner's form (probes, splits, caps, seed, validity
//! rules), the run in progress (driven by [`crate::runs::drive`]), a run interrupted by a reload
//! or crash, and finished runs (kept in IndexedDB by [`crate::runs::store`]). Lives in its own
//! context so a run goes on, and its form keeps its values, while the user is on other screens.
//!
//! The room's other files: starting, resuming and cancelling a run in the worker ([`drive`]),
//! the run in progress kept in IndexedDB as it runs ([`keep`], [`keeper`]), finished runs
//! ([`store`]), inoculation jobs started from a
//! run's results ([`inoculation`]) and the worker jobs holding their checkpoints
//! ([`inoculation_jobs`]).

pub mod drive;
pub mod inoculation;
pub mod inoculation_jobs;
pub mod keep;
pub mod keeper;
pub mod store;

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{ProbeCounts, ProbeSet, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::pace::{estimate_seconds, RemainingClock};

use crate::runs::keep::KeptRun;
use crate::runs::keeper::KeepSignals;
use crate::runs::store::{RunMeta, SavedRun};
use crate::state::AppState;
use crate::worker::client::client;
use tabprobe_worker::protocol::{ModelInfo, ProbeRequest, Slot};

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
        /// Pairs of `done` an interrupted run had scored and kept (0 for a fresh run): shown
        /// as done, left out of the rate.
        resumed: usize,
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
    /// ([`crate::runs::drive::resume_run`]), or why the kept one cannot be read.
    pub interrupted: RwSignal<Option<Result<KeptRun, String>>>,
    /// The keeping of the run in progress ([`crate::runs::keeper`]).
    pub keep: KeepSignals,
    /// Bumped by each recount: an answer for an older form is dropped.
    count_generation: StoredValue<u64>,
    /// The worker's job of the model running now.
    pub(crate) job: StoredValue<Option<u64>>,
    /// The user asked to cancel.
    pub(crate) cancel: StoredValue<bool>,
    /// The remaining-time clock of the run in progress.
    pub(crate) clock: StoredValue<Option<RemainingClock>>,
}

impl RunsState {
    /// Empty state; call [`RunsState::refresh`] to read the saved runs.
    pub(crate) fn new() -> RunsState {
        let storage_error = RwSignal::new(None);
        RunsState {
            form: RwSignal::new(RunnerForm::default()),
            counts: RwSignal::new(ProbeCountsState::NoDataset),
            count_generation: StoredValue::new(0),
            status: RwSignal::new(RunStatus::Idle),
            saved: RwSignal::new(Vec::new()),
            current: RwSignal::new(None),
            storage_error,
            unsaved: RwSignal::new(None),
            job: StoredValue::new(None),
            cancel: StoredValue::new(false),
            clock: StoredValue::new(None),
            interrupted: RwSignal::new(None),
            keep: KeepSignals::new(storage_error),
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
        match store::list().await {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::state::LoadedDataset;
    use tabprobe_core::linearize::PremiseMode;
    use tabprobe_core::scoring::ModelId;
    use tabprobe_worker::protocol::Backend;

    /// A page state holding tests/fixtures/small-dataset.json (4 examples: dev, dev, test,
    /// none; 2 tables).
    fn state() -> AppState {
        let text = include_str!("../../tests/fixtures/small-dataset.json");
        let d = tabprobe_core::parse_dataset("small-dataset.json", text).expect("fixture");
        let state = AppState::new();
        state.set_loaded(LoadedDataset::new("small-dataset.json", d), false);
        state
    }

    /// A loaded model's info for tests: named `m`, weights hashed `hash`.
    pub(crate) fn model(hash: &str) -> ModelInfo {
        ModelInfo {
            id: ModelId {
                name: "m".into(),
                weights_sha256: hash.into(),
                label_set: tabprobe_core::LabelSet::ThreeWay,
                precision: Default::default(),
                label_only: false,
                scores_file: false,
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
            precision_note: String::new(),
            workers: 1,
            load_ms: 0.0,
            memory_bytes: None,
            imported: None,
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
