//! Inoculation jobs started from a run's results page (docs/inoculation.md, paper §7): the
//! controller that starts the fine-tuning in the model worker, follows its progress, cancels
//! it, keeps each finished result in IndexedDB under its run, and lists and deletes the kept
//! results. The panel that shows all this only renders and calls it.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::inoculation::{InoculationProgress, InoculationResult, InoculationSettings};
use tabprobe_core::run::RunResult;
use tabprobe_worker::protocol::Slot;

use crate::runs::inoculation_jobs;
use crate::state::AppState;
use crate::storage::inoculation_store::{self, SavedInoculation};
use crate::worker::client::client;

/// The job id of an inoculation whose run is still being cut into pieces for the worker
/// (worker job ids start at 1).
const PREPARING: u64 = 0;

/// What a cancel leaves: nothing is kept of an unfinished inoculation.
const CANCELLED: &str = "cancelled: nothing was kept";

/// Where an inoculation started here stands.
#[derive(Clone, Debug, PartialEq)]
pub enum InoculationStatus {
    /// None running.
    Idle,
    /// Being prepared or trained.
    Running {
        /// The worker's job, or [`PREPARING`] while the run is cut into pieces.
        job: u64,
        /// The worker's last report, once it sent one.
        progress: Option<InoculationProgress>,
    },
    /// Could not start, failed, was cancelled, or finished but could not be kept.
    Failed(String),
}

/// The inoculation jobs and kept results of one saved run, as the results page shows them.
#[derive(Clone, Copy)]
pub struct Inoculations {
    run_id: StoredValue<String>,
    /// The job started here, if any.
    pub status: RwSignal<InoculationStatus>,
    /// The results kept for this run, oldest first.
    pub saved: RwSignal<Vec<SavedInoculation>>,
    /// The kept result the reader opened (`None`: the newest).
    pub shown: RwSignal<Option<String>>,
    /// Kept results that could not be read, or a store that failed.
    pub store_problems: RwSignal<Vec<String>>,
}

impl Inoculations {
    /// The jobs of saved run `run_id`; its kept results are read now.
    pub fn new(run_id: String) -> Self {
        let this = Inoculations {
            run_id: StoredValue::new(run_id),
            status: RwSignal::new(InoculationStatus::Idle),
            saved: RwSignal::new(Vec::new()),
            shown: RwSignal::new(None),
            store_problems: RwSignal::new(Vec::new()),
        };
        this.refresh(this.run_id.get_value());
        this
    }

    /// Whether a job is being prepared or trained.
    pub fn running(self) -> bool {
        matches!(self.status.get(), InoculationStatus::Running { .. })
    }

    /// Reads the kept results of run `run_id` (this one's; passed in, as the panel may have
    /// closed by the time a job finishes).
    fn refresh(self, run_id: String) {
        spawn_local(async move {
            match inoculation_store::for_run(&run_id).await {
                Ok((found, problems)) => {
                    let _ = self.saved.try_set(found);
                    let _ = self.store_problems.try_set(problems);
                }
                Err(e) => {
                    let _ = self.store_problems.try_set(vec![e]);
                }
            }
        });
    }

    /// Fine-tunes the main model on `run` (the main model's run) with `settings` in the worker;
    /// the finished result is kept and shown.
    pub fn start(self, state: AppState, run: Arc<RunResult>, settings: InoculationSettings) {
        let status = self.status;
        let run_id = self.run_id.get_value();
        if state.slot(Slot::Main).model.get_untracked().is_none() {
            status.set(InoculationStatus::Failed(
                "load a model first: inoculation fine-tunes the main model".into(),
            ));
            return;
        }
        let c = match client() {
            Ok(c) => c,
            Err(e) => {
                status.set(InoculationStatus::Failed(e));
                return;
            }
        };
        // Job 0 while the run is cut into pieces for the worker (in slices of the page's
        // thread); a cancel then stops it before it starts.
        status.set(InoculationStatus::Running {
            job: PREPARING,
            progress: None,
        });
        spawn_local(async move {
            let pieces = crate::timing::run_pieces_sliced([&*run]).await;
            drop(run);
            let preparing = matches!(
                status.try_get_untracked(),
                Some(InoculationStatus::Running { job: PREPARING, .. })
            );
            if !preparing {
                return;
            }
            let started = c.inoculate(Slot::Main, pieces, settings, move |p| {
                let _ = status.try_update(|s| {
                    if let InoculationStatus::Running { progress, .. } = s {
                        *progress = Some(p);
                    }
                });
            });
            let (job, done) = match started {
                Ok(x) => x,
                Err(e) => {
                    let _ = status.try_set(InoculationStatus::Failed(e));
                    return;
                }
            };
            let _ = status.try_set(InoculationStatus::Running {
                job,
                progress: None,
            });
            match done.await {
                Ok((result, _)) => self.keep(run_id, job, result).await,
                Err(f) => {
                    let _ = status.try_set(InoculationStatus::Failed(if f.is_cancelled() {
                        CANCELLED.into()
                    } else {
                        f.message()
                    }));
                }
            }
        });
    }

    /// Keeps the result worker job `job` finished under run `run_id`, and shows it.
    async fn keep(self, run_id: String, job: u64, result: InoculationResult) {
        let created_ms = js_sys::Date::now();
        let id = format!("{run_id}/{created_ms:.0}");
        inoculation_jobs::remember(&id, job);
        let entry = SavedInoculation {
            id: id.clone(),
            run_id: run_id.clone(),
            created_ms,
            result,
        };
        let saved_ok = inoculation_store::save(&entry).await;
        let _ = self.status.try_set(match saved_ok {
            Ok(()) => InoculationStatus::Idle,
            Err(e) => InoculationStatus::Failed(format!(
                "the inoculation finished but could not be kept: {e}"
            )),
        });
        let _ = self.saved.try_update(|v| {
            if !v.iter().any(|s| s.id == id) {
                v.push(entry)
            }
        });
        let _ = self.shown.try_set(Some(id));
        self.refresh(run_id);
    }

    /// Stops the job started here: before it reaches the worker, or by asking the worker.
    pub fn cancel(self) {
        if let InoculationStatus::Running { job, .. } = self.status.get_untracked() {
            if job == PREPARING {
                self.status.set(InoculationStatus::Failed(CANCELLED.into()));
            } else if let Ok(c) = client() {
                let _ = c.cancel(job);
            }
        }
    }

    /// Deletes kept result `id`.
    pub fn delete(self, id: String) {
        spawn_local(async move {
            if let Err(e) = inoculation_store::delete(&id).await {
                let _ = self.store_problems.try_set(vec![e]);
            }
            let _ = self.saved.try_update(|v| v.retain(|s| s.id != id));
        });
    }
}
