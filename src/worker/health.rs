//! The model worker's health as the page records it: the last crash with the models it
//! unloaded, and where each loaded model came from (picked files, a URL, a bundled model) —
//! what the model bar shows and what a reload after a crash needs. Written by the loading
//! code ([`crate::models::load`], [`crate::models::bundled`]) and the crash handler
//! ([`crate::models::crash`]), which both sit above this module.

use leptos::prelude::*;
use tabprobe_core::run::models_manifest::BundledModel;
use tabprobe_worker::protocol::Slot;

/// Where the model in a slot came from: what a reload after a crash needs.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelSource {
    /// Files the user picked or dropped: a page cannot read them again by itself.
    Files,
    /// A checkpoint folder at this base URL (its files are in the Cache API).
    Url(String),
    /// A model of the site's manifest.
    Bundled(BundledModel),
    /// A scores file imported as a model (the page keeps the picked file while it is open).
    Scores,
}

/// A model the crash unloaded.
#[derive(Clone, Debug, PartialEq)]
pub struct LostModel {
    /// Worker slot (0 = main, 1 = second).
    pub slot: Slot,
    /// Its name as the model bar showed it.
    pub name: String,
    /// Where it came from; `None` when unknown.
    pub source: Option<ModelSource>,
}

impl LostModel {
    /// Whether the page can load it again without the user picking files.
    pub fn reloadable(&self) -> bool {
        matches!(
            self.source,
            Some(ModelSource::Url(_) | ModelSource::Bundled(_) | ModelSource::Scores)
        )
    }
}

/// The last crash of the model worker, until dismissed.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerCrash {
    /// What happened, for the user.
    pub message: String,
    /// The models it unloaded.
    pub lost: Vec<LostModel>,
}

/// The worker's health, kept in [`AppState::worker`].
#[derive(Clone, Copy)]
pub struct WorkerHealth {
    /// The last crash, shown in the model bar until dismissed or until the models are back.
    pub crash: RwSignal<Option<WorkerCrash>>,
    /// Milliseconds the busy worker has said nothing for, while the watch reports it
    /// ([`crate::worker::watch`]); `None` while it answers.
    pub silent_ms: RwSignal<Option<f64>>,
    /// Per slot, where the loaded model came from (a signal: the model bar offers a bundled
    /// model only while it is not the one loaded).
    sources: RwSignal<[Option<ModelSource>; 2]>,
    /// Per slot, the base URL of the URL load under way (cleared when it ends or another
    /// load starts).
    loading_url: RwSignal<[Option<String>; 2]>,
}

impl WorkerHealth {
    /// No crash, nothing loaded.
    pub fn new() -> WorkerHealth {
        WorkerHealth {
            crash: RwSignal::new(None),
            silent_ms: RwSignal::new(None),
            sources: RwSignal::new([None, None]),
            loading_url: RwSignal::new([None, None]),
        }
    }

    /// Records where the model now loaded in `slot` came from.
    pub fn record_source(&self, slot: Slot, source: ModelSource) {
        self.sources.update(|s| s[slot.index()] = Some(source));
    }

    /// A model is back in `slot`: it is no longer listed as lost.
    pub fn reloaded(&self, slot: Slot) {
        self.crash.update(|c| {
            if let Some(c) = c {
                c.lost.retain(|m| m.slot != slot);
            }
        });
    }

    /// Whether the model in `slot` came from a URL that `matches`.
    pub fn source_is_url(&self, slot: Slot, matches: impl Fn(&str) -> bool) -> bool {
        matches!(self.source(slot), Some(ModelSource::Url(u)) if matches(&u))
    }

    /// Where the model in `slot` came from, if one was loaded (not tracked).
    pub fn source(&self, slot: Slot) -> Option<ModelSource> {
        self.sources.with_untracked(|s| s[slot.index()].clone())
    }

    /// Notes the URL load under way in `slot`: from the base URL `url`, or (`None`) none — a
    /// load from files started, or the URL load ended.
    pub fn load_started(&self, slot: Slot, url: Option<String>) {
        self.loading_url
            .update(|u| u[slot.index()] = url.map(|u| base_of(&u)));
    }

    /// Whether the checkpoint at the base URL `path` is the one loaded in `slot` (the caller
    /// checks that the slot still holds a model), and whether it is the URL load under way
    /// there (tracked).
    pub fn loaded_or_loading(&self, slot: Slot, path: &str) -> (bool, bool) {
        let i = slot.index();
        let path = base_of(path);
        let loaded = self.sources.with(|s| match &s[i] {
            Some(ModelSource::Url(u)) => base_of(u) == path,
            Some(ModelSource::Bundled(m)) => base_of(&m.path) == path,
            _ => false,
        });
        let loading = self
            .loading_url
            .with(|u| u[i].as_deref() == Some(path.as_str()));
        (loaded, loading)
    }
}

impl Default for WorkerHealth {
    fn default() -> Self {
        WorkerHealth::new()
    }
}

/// A base URL without its trailing slashes, so `models/x/` and `models/x` are one folder.
fn base_of(url: &str) -> String {
    url.trim_end_matches('/').to_string()
}
