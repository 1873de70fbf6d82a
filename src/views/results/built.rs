//! A run's report (core's [`FullReport`]) as the results page waits for it: built by the model
//! worker, or on the page when the worker cannot, held in a [`LocalResource`] that the report's
//! parts read once it is here.

use std::future::IntoFuture;
use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::report::{Figures, FullReport, Section};
use tabprobe_core::run::RunResult;

use crate::runs::store::SavedRun;
use crate::timing;

/// The report of a run, and where it was built.
pub struct BuiltReport {
    /// Core's report of every model of the run.
    pub report: FullReport,
    /// "worker", or "page" when the worker could not build it.
    pub place: &'static str,
    /// Why the page built it, for the reader.
    pub note: Option<String>,
}

impl BuiltReport {
    /// Model `model`'s figures over its `group`-th group of examples (0 = every example).
    pub fn figures(&self, model: usize, group: usize) -> Option<&Figures> {
        self.report.figures.get(model)?.get(group)
    }

    /// Per model (in run order), its sections under the default options.
    pub fn sections(&self) -> &[Vec<Section>] {
        &self.report.sections
    }
}

/// The report of one saved run, loading from the moment the run is shown.
#[derive(Clone, Copy)]
pub struct Built {
    report: LocalResource<Arc<BuiltReport>>,
}

impl Built {
    /// Starts building the report of `saved`.
    pub fn new(saved: Arc<SavedRun>) -> Self {
        let report = LocalResource::new(move || {
            let saved = saved.clone();
            async move { Arc::new(build_report(&saved).await) }
        });
        Built { report }
    }

    /// The report, once built (tracked).
    pub fn get(&self) -> Option<Arc<BuiltReport>> {
        self.report.get()
    }

    /// Ready when the report is built.
    pub fn ready(&self) -> impl std::future::Future<Output = Arc<BuiltReport>> {
        self.report.into_future()
    }
}

/// The report of `saved`, built by the model worker from the run files in pieces (the Blob
/// the page stores, or for a run saved as one JSON text its pieces written here in slices),
/// and where it was built. When the worker cannot (it failed to start, or died), the page
/// builds it on its own thread rather than show nothing, and says why.
async fn build_report(saved: &SavedRun) -> BuiltReport {
    let asked = async {
        let c = crate::worker::client::client()?;
        match &saved.pieces {
            Some(p) => {
                c.build_report(Some((&p.blob, p.piece_bytes.clone())), Vec::new())
                    .await
            }
            None => {
                let parts = timing::run_pieces_sliced(saved.results.iter().map(|r| &**r)).await;
                c.build_report(None, parts).await
            }
        }
    }
    .await;
    match asked {
        Ok(report) => BuiltReport {
            report,
            place: "worker",
            note: None,
        },
        Err(e) => {
            let runs: Vec<&RunResult> = saved.results.iter().map(|r| &**r).collect();
            let report = timing::timed("report-on-page", || FullReport::build(&runs));
            let note = format!(
                "The model worker could not build this report ({e}); this page built it instead, which may have held it for a moment."
            );
            BuiltReport {
                report,
                place: "page",
                note: Some(note),
            }
        }
    }
}
