//! Scoring speed and live scoring, for the estimates and the model bar: the last pairs/s
//! measured per model (weight hash) and backend — from a probe run, the open table's
//! hypotheses, or a short measurement the runner starts in the worker — and the open table's
//! scoring in progress ("scoring n / m" in the model bar). Kept in [`crate::state::AppState`].

use std::collections::HashMap;

use leptos::prelude::*;
use tabprobe_core::run::pace::pairs_per_second;
use tabprobe_worker::protocol::{Backend, ModelInfo};

/// Jobs smaller than this are not timed: one or two pairs measure the message round trip,
/// not the model (the live prediction of the editor scores one pair).
pub const MIN_TIMED_PAIRS: usize = 8;

/// Speeds and live scoring, shared by the views.
#[derive(Clone, Copy)]
pub struct PaceState {
    /// Last measured pairs/s, by [`rate_key`].
    rates: RwSignal<HashMap<String, f64>>,
    /// The open table's hypotheses being scored: (done, total); `None` when idle.
    pub live: RwSignal<Option<(usize, usize)>>,
    /// Speed measurements started by the runner, by [`rate_key`]: under way, or failed.
    pub measuring: RwSignal<HashMap<String, Measuring>>,
}

/// A speed measurement of the runner ([`crate::components::run_estimate`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Measuring {
    /// Scoring the first pairs of the probe set in the worker.
    Running,
    /// It failed: why.
    Failed(String),
}

/// How the estimate names a backend: "WebGPU", "CPU" or "scores file".
pub fn backend_short(model: &ModelInfo) -> &'static str {
    match model.backend {
        Backend::WebGpu => "WebGPU",
        Backend::Cpu { .. } => "CPU",
        Backend::ScoresFile => "scores file",
    }
}

/// The key a speed is kept under: the model's weight hash and the backend it runs on.
pub fn rate_key(model: &ModelInfo) -> String {
    format!("{} {}", model.id.weights_sha256, model.backend.describe())
}

impl PaceState {
    /// Nothing measured.
    pub fn new() -> PaceState {
        PaceState {
            rates: RwSignal::new(HashMap::new()),
            live: RwSignal::new(None),
            measuring: RwSignal::new(HashMap::new()),
        }
    }

    /// The last measured pairs/s of `model` (tracked).
    pub fn rate(&self, model: &ModelInfo) -> Option<f64> {
        let key = rate_key(model);
        self.rates.with(|r| r.get(&key).copied())
    }

    /// Records that `model` scored `pairs` in `ms` (the worker's own timing); jobs of fewer
    /// than [`MIN_TIMED_PAIRS`] pairs are ignored.
    pub fn record(&self, model: &ModelInfo, pairs: usize, ms: f64) {
        if pairs >= MIN_TIMED_PAIRS {
            self.record_measured(model, pairs, ms);
        }
    }

    /// Records a deliberate measurement: `model` scored `pairs` in `ms`, however few.
    pub fn record_measured(&self, model: &ModelInfo, pairs: usize, ms: f64) {
        if let Some(rate) = pairs_per_second(pairs, ms) {
            let key = rate_key(model);
            self.rates.update(|r| {
                r.insert(key, rate);
            });
        }
    }
}

impl Default for PaceState {
    fn default() -> Self {
        PaceState::new()
    }
}
