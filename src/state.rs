//! App-wide state shared through Leptos context: the loaded dataset and the last load problems.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::models_manifest::ModelsManifest;
use tabprobe_core::summary::DatasetSummary;
use tabprobe_core::{Dataset, DatasetError, Label, Table};

use tabprobe_worker::protocol::ModelInfo;

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
    Import(tabprobe_core::import::ImportError),
    /// The file could not be read at all (too large, unreadable, network error).
    Unreadable {
        /// The file name or URL.
        file: String,
        /// What happened and what to do.
        message: String,
    },
}

/// Signals every view can reach with `use_context::<AppState>()`.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The dataset on screen; replaced only by a dataset that validated.
    pub dataset: RwSignal<Option<LoadedDataset>>,
    /// Problems of the last failed load, shown until dismissed or until a load succeeds.
    pub problem: RwSignal<Option<LoadProblem>>,
    /// The file being read right now, for a status line.
    pub loading: RwSignal<Option<String>>,
    /// The model in worker slot 0, once loaded; replaced only by a model that loaded.
    pub model: RwSignal<Option<ModelInfo>>,
    /// What the model loader is doing or why it failed.
    pub model_status: RwSignal<ModelStatus>,
    /// How tables become premise text for the model.
    pub linearization: RwSignal<LinearizeSettings>,
    /// The model in worker slot 1 (a second model to compare with, e.g. hypothesis-only).
    pub second_model: RwSignal<Option<ModelInfo>>,
    /// The second model loader's state line.
    pub second_model_status: RwSignal<ModelStatus>,
    /// The site's bundled models (`models/index.json`), `None` when the site has none.
    pub bundled: RwSignal<Option<ModelsManifest>>,
    /// Weight hashes (SHA-256) of loaded models that were trained on the hypothesis alone
    /// (a bundled model whose manifest linearization is `none`). Runs give such a model an
    /// empty premise for every pair: table text is input it never saw in training.
    pub hypothesis_only_weights: RwSignal<Vec<String>>,
    /// Per slot, a counter bumped by every load that starts: a load whose number is no longer
    /// the latest gives up, so an automatic load never overwrites a model the user chose.
    pub load_generation: StoredValue<[u64; 2]>,
    /// The item the table editor and the hypothesis rewriter work on (set by whoever opens
    /// them: the dataset browser, a probe result's drill-down, a share link).
    pub work_item: RwSignal<Option<WorkItem>>,
    // Added for issue 12 §2 (worker crashes), by the worker helper: kept last for the merge.
    /// The model worker's last crash and where each loaded model came from (to reload them).
    pub worker: crate::worker_crash::WorkerHealth,
}

/// One table + hypothesis opened for hand editing. It may be a perturbed table that is not in
/// the dataset (a probe item), so it carries the table itself rather than an id.
#[derive(Clone, Debug, PartialEq)]
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
    pub relevant_rows: Option<Vec<usize>>,
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
}

impl AppState {
    /// Empty state: nothing loaded, no problems.
    pub fn new() -> AppState {
        AppState {
            dataset: RwSignal::new(None),
            problem: RwSignal::new(None),
            loading: RwSignal::new(None),
            model: RwSignal::new(None),
            model_status: RwSignal::new(ModelStatus::Idle),
            linearization: RwSignal::new(LinearizeSettings::default()),
            work_item: RwSignal::new(None),
            second_model: RwSignal::new(None),
            second_model_status: RwSignal::new(ModelStatus::Idle),
            bundled: RwSignal::new(None),
            hypothesis_only_weights: RwSignal::new(Vec::new()),
            load_generation: StoredValue::new([0, 0]),
            worker: crate::worker_crash::WorkerHealth::new(),
        }
    }

    /// The loaded-model signal of worker `slot` (0 = main, anything else = second).
    pub fn model_in(&self, slot: u32) -> RwSignal<Option<ModelInfo>> {
        if slot == 0 {
            self.model
        } else {
            self.second_model
        }
    }

    /// The loader status signal of worker `slot`.
    pub fn status_of(&self, slot: u32) -> RwSignal<ModelStatus> {
        if slot == 0 {
            self.model_status
        } else {
            self.second_model_status
        }
    }
}

impl Default for AppState {
    fn default() -> Self {
        AppState::new()
    }
}
