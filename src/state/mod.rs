//! App-wide state shared through Leptos context: the loaded dataset and the last load problems,
//! the work item with the editors' unsaved drafts, and what the browser keeps of them; the
//! scoring speeds measured per model ([`pace`]).

pub mod pace;

use std::sync::Arc;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use tabprobe_core::data::summary::DatasetSummary;
use tabprobe_core::edit::TableDraft;
use tabprobe_core::linearize::{LinearizeSettings, PremiseMode};
use tabprobe_core::run::models_manifest::ModelsManifest;
use tabprobe_core::{Dataset, DatasetError, Label, Table};

use tabprobe_worker::protocol::{BackendChoice, ModelInfo, PrecisionChoice, Slot};

use crate::worker::health::ModelSource;

/// A dataset that passed validation, with the counts the browser shows.
#[derive(Clone)]
pub struct LoadedDataset {
    /// The file name it came from (or `demo`).
    pub file: String,
    /// The validated dataset.
    pub dataset: Arc<Dataset>,
    /// Counts computed once on load.
    pub summary: Arc<DatasetSummary>,
}

impl LoadedDataset {
    /// Wraps a validated dataset and computes its summary.
    pub fn new(file: impl Into<String>, dataset: Dataset) -> LoadedDataset {
        let summary = DatasetSummary::of(&dataset);
        LoadedDataset {
            file: file.into(),
            dataset: Arc::new(dataset),
            summary: Arc::new(summary),
        }
    }
}

/// What went wrong with the last load attempt. The dataset already loaded is untouched.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadProblem {
    /// The file was read but did not validate.
    Invalid(DatasetError),
    /// Published data could not be imported; the error names the file, place and expectation.
    Import(tabprobe_core::data::import::ImportError),
    /// The file could not be read at all (too large, unreadable, network error).
    Unreadable {
        /// The file name or URL.
        file: String,
        /// What happened and what to do.
        message: String,
    },
}

/// One model slot of the worker, as the page shows it.
#[derive(Clone, Copy)]
pub struct SlotState {
    /// The model in the slot, once loaded; replaced only by a model that loaded.
    pub model: RwSignal<Option<ModelInfo>>,
    /// What the slot's loader is doing or why it failed.
    pub status: RwSignal<ModelStatus>,
    /// A counter bumped by every load into the slot that starts: a load whose number is no
    /// longer the latest gives up, so an automatic load never overwrites a model the user
    /// chose.
    pub load_generation: StoredValue<u64>,
}

impl SlotState {
    fn new() -> SlotState {
        SlotState {
            model: RwSignal::new(None),
            status: RwSignal::new(ModelStatus::Idle),
            load_generation: StoredValue::new(0),
        }
    }
}

/// Signals every view can reach with `expect_context::<AppState>()`. Made once, by the app
/// root (no `Default`): a view outside the root fails loudly instead of working on a second,
/// empty state.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The dataset on screen; replaced only by a dataset that validated.
    pub dataset: RwSignal<Option<LoadedDataset>>,
    /// Problems of the last failed load, shown until dismissed or until a load succeeds.
    pub problem: RwSignal<Option<LoadProblem>>,
    /// The file being read right now, for a status line.
    pub loading: RwSignal<Option<String>>,
    /// Per model slot (`[main, second]`, see [`AppState::slot`]): the loaded model, what its
    /// loader is doing and its load counter.
    pub slots: [SlotState; 2],
    /// How tables become premise text for the model.
    pub linearization: RwSignal<LinearizeSettings>,
    /// The site's bundled models (`models/index.json`), `None` when the site has none.
    pub bundled: RwSignal<Option<ModelsManifest>>,
    /// Weight hashes (SHA-256) of loaded models that were trained on the hypothesis alone
    /// (a bundled model whose manifest linearization is `none`). Such a model reads pairs in
    /// core's hypothesis-only premise mode ([`AppState::linearization_of`]): table text is
    /// input it never saw in training.
    pub hypothesis_only_weights: RwSignal<Vec<String>>,
    /// The item the table editor and the hypothesis rewriter work on (set by whoever opens
    /// them: the dataset browser, a probe result's drill-down, a share link).
    pub work_item: RwSignal<Option<WorkItem>>,
    /// The table editor's unsaved draft, kept across navigation and reloads.
    pub editor_draft: RwSignal<Option<EditorDraft>>,
    /// The hypothesis rewriter's unsaved draft, kept across navigation and reloads.
    pub rewriter_draft: RwSignal<Option<RewriterDraft>>,
    /// Whether the dataset on screen holds work done in the page (hand-made items,
    /// annotations, review decisions) that replacing it would lose.
    pub edited: RwSignal<bool>,
    /// The dataset as it was loaded (file, demo, import, restore); any other value of
    /// `dataset` is an edit of it.
    pub loaded_base: StoredValue<Option<Arc<Dataset>>>,
    /// Bumped whenever the user starts loading data: the demo and a restore that started
    /// before give way.
    pub load_generation_data: StoredValue<u64>,
    /// What the browser keeps of the work (see [`crate::storage::session`]).
    pub kept: KeptState,
    /// The model worker's last crash and where each loaded model came from (to reload them).
    pub worker: crate::worker::health::WorkerHealth,
    /// Measured scoring speeds and the open table's scoring in progress.
    pub pace: pace::PaceState,
    /// Where models run: the model bar's backend choice, kept in this browser
    /// ([`crate::models::device_choice`]).
    pub backend: RwSignal<BackendChoice>,
    /// The precision models run at where their device allows it (f16-mixed on WebGPU with
    /// `shader-f16`, int8 on the CPU path, or f32): the model bar's precision choice, kept the
    /// same way.
    pub precision: RwSignal<PrecisionChoice>,
}

/// What the page says about the work it keeps in the browser.
#[derive(Clone, Copy)]
pub struct KeptState {
    /// Set when the dataset was restored from this browser: when it was saved (ms since the
    /// epoch) and the file it came from.
    pub restored: RwSignal<Option<(f64, String)>>,
    /// Why the last write of the dataset failed (e.g. quota); cleared by the next success.
    pub error: RwSignal<Option<String>>,
    /// Why the last write of the drafts failed; cleared by the next success.
    pub drafts_error: RwSignal<Option<String>>,
    /// Writes scheduled or in flight (for the status line and the tests).
    pub pending: RwSignal<u32>,
    /// A stored dataset that no longer validates: kept (not written over) until the user
    /// downloads or discards it.
    pub invalid: RwSignal<Option<InvalidStored>>,
    /// The dataset the store holds already (or that needs no storing: the untouched demo).
    pub persisted: StoredValue<Option<Arc<Dataset>>>,
    /// The kept dataset could not be read (storage blocked or unavailable): nothing is
    /// written over it this session.
    pub read_failed: StoredValue<bool>,
    /// Bumped by each dataset change: a write waiting for its pause gives up when it moved.
    pub dataset_ticket: StoredValue<u64>,
    /// The same for the drafts.
    pub drafts_ticket: StoredValue<u64>,
    /// The kept dataset's revision as this tab last read or wrote it (`<n>:<tab id>`; `None`
    /// when nothing was kept): a write succeeds only while the store still holds it, so a
    /// write of another tab in between is merged, never overwritten
    /// (docs/browser-storage.md#two-tabs).
    pub guard: StoredValue<Option<String>>,
    /// When the kept dataset was last written (by this tab or another, ms since the epoch):
    /// what a reload brings back when a write fails.
    pub saved_ms: StoredValue<Option<f64>>,
    /// Another tab changed what this tab changed too, differently: nothing is written until
    /// the user chooses.
    pub conflict: RwSignal<Option<TabConflict>>,
    /// The site's other open tabs and what each is doing.
    pub others: RwSignal<Vec<OtherTab>>,
}

/// Another open tab of the site, as its last note said.
#[derive(Clone, Debug, PartialEq)]
pub struct OtherTab {
    /// Its id.
    pub id: String,
    /// What it is doing, in a few words (empty: nothing in particular).
    pub doing: String,
    /// When it was last heard (ms since the epoch).
    pub seen_ms: f64,
}

/// Two tabs changed the same entries of the kept dataset differently: the merges either way,
/// for the user to choose from.
#[derive(Clone, Debug, PartialEq)]
pub struct TabConflict {
    /// What both changed, for people ("example H1", "the review of H1/negation/0").
    pub what: Vec<String>,
    /// The merge that keeps the other tab's versions of those.
    pub theirs_wins: Arc<Dataset>,
    /// The merge that keeps this tab's.
    pub mine_wins: Arc<Dataset>,
    /// The dataset the other tab kept (the new base once the user has chosen).
    pub stored: Arc<Dataset>,
    /// Its file name and revision.
    pub file: String,
    /// The kept revision the choice is written over.
    pub guard: Option<String>,
}

/// A dataset read back from the browser that failed validation.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidStored {
    /// The file it came from originally.
    pub file: String,
    /// When it was saved (ms since the epoch).
    pub saved_ms: f64,
    /// The stored text, for download.
    pub text: Arc<String>,
    /// What is wrong with it when the problems panel does not list it (empty when it does).
    pub problem: String,
}

/// One table + hypothesis opened for hand editing. It may be a perturbed table that is not in
/// the dataset (a probe item), so it carries the table itself rather than an id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkItem {
    /// The dataset example it derives from, if any (becomes `derived_from` when saved).
    pub example_id: Option<String>,
    /// The table the hypothesis is judged against, as it stands before editing.
    pub table: Table,
    /// The hypothesis before editing.
    pub hypothesis: String,
    /// The gold (or expected) label of the item as opened, if known.
    pub label: Option<Label>,
    /// What produced the item, shown to the user (e.g. `dataset dev-12`, `row deletion: Genre`).
    pub origin: String,
    /// The human-relevant rows of `table` when the opener knows them (a probe item carries
    /// its example's rows through its own edit: a deleted row shifts the rows after it);
    /// `None` to take the dataset example's annotation as it stands.
    #[serde(default)]
    pub relevant_rows: Option<Vec<usize>>,
    /// The probe item as its run scored it, when the item was opened from a run's drill-down:
    /// the example's input and the item's, operation, rule, expectation, certainty and every
    /// model's predictions (core `share::from_run_item`). Until the user edits the item, its
    /// share link is this result; after an edit it is a hand edit of the item.
    #[serde(default)]
    pub probe_result: Option<tabprobe_core::share::SharedResult>,
}

/// The table editor's unsaved state for one work item: the edited table with each row's
/// origin and relevance mark (core [`TableDraft`]), and the label the user asserts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EditorDraft {
    /// The item the draft edits; the draft applies only while this item is open.
    pub item: WorkItem,
    /// The edited table.
    pub table: Table,
    /// Per row: the original row it came from.
    pub origin: Vec<Option<usize>>,
    /// Per row: marked as relevant evidence.
    pub relevant: Vec<bool>,
    /// Rows of the original table.
    pub original_rows: usize,
    /// The label the user asserts for the edited table; `None` until one is chosen (a probe
    /// item judged by a rule has no single expected label). Drafts kept before issue 18 hold a
    /// label here, which reads as `Some`.
    #[serde(default)]
    pub asserted: Option<Label>,
}

impl EditorDraft {
    /// The draft of `item` at `draft` with `asserted`.
    pub fn new(item: WorkItem, draft: &TableDraft, asserted: Option<Label>) -> EditorDraft {
        EditorDraft {
            item,
            table: draft.table.clone(),
            origin: draft.origin.clone(),
            relevant: draft.relevant.clone(),
            original_rows: draft.original_rows,
            asserted,
        }
    }

    /// The core draft, `None` when the per-row lists do not match the table (a stored
    /// draft from elsewhere).
    pub fn table_draft(&self) -> Option<TableDraft> {
        let n = self.table.row_count();
        let fits = self.origin.len() == n
            && self.relevant.len() == n
            && self
                .origin
                .iter()
                .flatten()
                .all(|&o| o < self.original_rows);
        fits.then(|| TableDraft {
            table: self.table.clone(),
            origin: self.origin.clone(),
            relevant: self.relevant.clone(),
            original_rows: self.original_rows,
        })
    }
}

/// The hypothesis rewriter's unsaved state for one work item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RewriterDraft {
    /// The item the draft rewrites.
    pub item: WorkItem,
    /// The hypothesis as rewritten so far.
    pub text: String,
    /// The label the user asserts for it (`None` until chosen; see [`EditorDraft::asserted`]).
    #[serde(default)]
    pub asserted: Option<Label>,
}

/// The model loader's state line.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum ModelStatus {
    /// Nothing happening.
    #[default]
    Idle,
    /// Reading files and loading into the worker.
    Loading(String),
    /// The last load failed; the previous model (if any) is still loaded.
    Failed(String),
    /// The last load succeeded with something to say (files the browser's cache could not
    /// keep).
    Note(String),
}

impl AppState {
    /// Empty state: nothing loaded, no problems.
    pub(crate) fn new() -> AppState {
        AppState {
            dataset: RwSignal::new(None),
            problem: RwSignal::new(None),
            loading: RwSignal::new(None),
            slots: [SlotState::new(), SlotState::new()],
            linearization: RwSignal::new(LinearizeSettings::default()),
            work_item: RwSignal::new(None),
            bundled: RwSignal::new(None),
            hypothesis_only_weights: RwSignal::new(Vec::new()),
            editor_draft: RwSignal::new(None),
            rewriter_draft: RwSignal::new(None),
            edited: RwSignal::new(false),
            loaded_base: StoredValue::new(None),
            load_generation_data: StoredValue::new(0),
            kept: KeptState {
                restored: RwSignal::new(None),
                error: RwSignal::new(None),
                drafts_error: RwSignal::new(None),
                pending: RwSignal::new(0),
                invalid: RwSignal::new(None),
                persisted: StoredValue::new(None),
                read_failed: StoredValue::new(false),
                dataset_ticket: StoredValue::new(0),
                drafts_ticket: StoredValue::new(0),
                guard: StoredValue::new(None),
                saved_ms: StoredValue::new(None),
                conflict: RwSignal::new(None),
                others: RwSignal::new(Vec::new()),
            },
            worker: crate::worker::health::WorkerHealth::new(),
            pace: pace::PaceState::new(),
            // The kept choices are read by the app at start (`device_choice::kept_*`): the
            // browser's storage is not there in native tests of the state.
            backend: RwSignal::new(BackendChoice::default()),
            precision: RwSignal::new(PrecisionChoice::default()),
        }
    }

    /// Puts a freshly loaded dataset on screen (from a file, the demo, an import or the
    /// browser's store); `edited` says whether it already holds work done in the page.
    pub fn set_loaded(&self, loaded: LoadedDataset, edited: bool) {
        self.loaded_base.set_value(Some(loaded.dataset.clone()));
        self.edited.set(edited);
        self.kept.restored.set(None);
        self.dataset.set(Some(loaded));
    }

    /// Applies `change` to a copy of the working dataset and puts the copy on screen only when
    /// it would load back from the browser's store (core's `check_reloads`, the validator run
    /// on what keeping it writes): a change that breaks a dataset rule — a ragged table from a
    /// share link saved as an item, say — is refused with the error loading it would give, and
    /// the dataset stays as it was, so what is kept always reloads. `None` when no dataset is
    /// loaded. Every change to the working dataset goes through here.
    pub fn change_dataset<T>(
        &self,
        change: impl FnOnce(&mut Dataset) -> Result<T, String>,
    ) -> Option<Result<T, String>> {
        let loaded = self.dataset.get_untracked()?;
        let mut dataset = (*loaded.dataset).clone();
        let result = change(&mut dataset).and_then(|out| {
            tabprobe_core::data::validate::check_reloads(&loaded.file, &dataset)
                .map_err(|e| format!("not saved, because the dataset would no longer load: {e}"))?;
            Ok(out)
        });
        if result.is_ok() {
            self.dataset
                .set(Some(LoadedDataset::new(loaded.file.clone(), dataset)));
        }
        Some(result)
    }

    /// Notes that the user started loading data (the demo or a restore under way gives way).
    pub fn user_load_started(&self) {
        self.load_generation_data.update_value(|g| *g += 1);
    }

    /// A load into `slot` completed with `info`: the slot holds the model, the worker's health
    /// record books where it came from (`source`, for a reload after a crash), and the slot is
    /// no longer listed as lost. The one place a completed load is booked.
    pub fn model_loaded(&self, slot: Slot, info: ModelInfo, source: ModelSource) {
        self.slot(slot).model.set(Some(info));
        self.worker.record_source(slot, source);
        self.worker.reloaded(slot);
    }

    /// The state of model slot `slot`.
    pub fn slot(&self, slot: Slot) -> SlotState {
        self.slots[slot.index()]
    }

    /// How the model in `slot` reads a pair (tracked): the model bar's linearization, with
    /// core's hypothesis-only premise mode for a model trained on the hypothesis alone (see
    /// [`AppState::hypothesis_only_weights`]). Runs, run estimates, live predictions and
    /// share links all take it from here.
    pub fn linearization_of(&self, slot: Slot) -> LinearizeSettings {
        let mut settings = self.linearization.get();
        let hypothesis_only = self.slot(slot).model.with(|m| {
            m.as_ref().is_some_and(|m| {
                self.hypothesis_only_weights
                    .with(|w| w.contains(&m.id.weights_sha256))
            })
        });
        if hypothesis_only {
            settings.premise = PremiseMode::HypothesisOnly;
        }
        settings
    }
}
