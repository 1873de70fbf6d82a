//! Writing the run in progress to browser storage as it runs ([`crate::runs::keep`] holds the
//! entries' layout). [`Keeper`] gathers the chunks of scores the worker posts and writes them
//! at most every [`FLUSH_EVERY_MS`], one write in flight at a time so records stay in order;
//! [`keep_end`] finishes or removes what is kept when the run ends. [`matching_models`] says
//! whether the loaded models may go on with a kept run. The run itself is driven by
//! [`crate::runs::drive`].

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_worker::protocol::{ModelInfo, ProbeRequest, Slot};

use crate::runs::keep::{self, KeptChunk, KeptRun, FLUSH_EVERY_MS};

/// Where the keeping of the run in progress shows and lives (part of the runs context).
#[derive(Clone, Copy)]
pub struct KeepSignals {
    /// The scores on their way to storage.
    keeper: StoredValue<Option<Keeper>>,
    /// Pairs of the run in progress kept in the browser so far.
    pub kept: RwSignal<usize>,
    /// Why the run in progress is not (or no longer) kept, if so.
    pub problem: RwSignal<Option<String>>,
    /// A storage failure outside a run's keeping (removing a kept run).
    pub storage_error: RwSignal<Option<String>>,
}

impl KeepSignals {
    /// Nothing kept; `storage_error` is where removal failures are told.
    pub fn new(storage_error: RwSignal<Option<String>>) -> KeepSignals {
        KeepSignals {
            keeper: StoredValue::new(None),
            kept: RwSignal::new(0),
            problem: RwSignal::new(None),
            storage_error,
        }
    }
}

/// The kept run's scores on their way to storage.
pub struct Keeper {
    /// The header as last written (with the totals heard since).
    header: KeptRun,
    /// Chunks not written yet.
    buffer: Vec<KeptChunk>,
    /// When the last write started, ms.
    last_write_ms: f64,
    /// A write (or the first one, of the requests) is in flight.
    writing: bool,
    /// Write everything buffered now, not at the next interval.
    force: bool,
    /// Storage refused a write: nothing more is kept for this run.
    broken: bool,
}

impl Keeper {
    fn new(header: KeptRun) -> Keeper {
        Keeper {
            header,
            buffer: Vec::new(),
            last_write_ms: 0.0,
            writing: true,
            force: false,
            broken: false,
        }
    }

    /// The write to start now, if one is due: none in flight, something buffered, and the
    /// interval passed (or `force`).
    fn due(&mut self, now_ms: f64, force: bool) -> Option<(KeptRun, Vec<KeptChunk>)> {
        self.force |= force;
        if self.broken || self.writing || self.buffer.is_empty() {
            return None;
        }
        if !self.force && now_ms - self.last_write_ms < FLUSH_EVERY_MS {
            return None;
        }
        self.writing = true;
        self.last_write_ms = now_ms;
        Some((self.header.clone(), std::mem::take(&mut self.buffer)))
    }

    /// A write ended; returns whether another is due at once (forced, with more buffered).
    fn written(&mut self, header: KeptRun) -> bool {
        // Totals heard while the write was in flight are not in the written header.
        for (m, mine) in header.models.iter().zip(&self.header.models) {
            debug_assert_eq!(m.weights_sha256, mine.weights_sha256);
        }
        let totals: Vec<usize> = self.header.models.iter().map(|m| m.total).collect();
        self.header = header;
        for (m, t) in self.header.models.iter_mut().zip(totals) {
            m.total = m.total.max(t);
        }
        self.writing = false;
        if self.buffer.is_empty() {
            self.force = false;
        }
        self.force
    }
}

/// Starts keeping the run whose header is `kept`: a `fresh` run first writes its requests
/// (removing any run kept before); a resumed one is already there and goes on after it.
pub(crate) fn keep_begin(keep: KeepSignals, kept: KeptRun, requests: &[ProbeRequest], fresh: bool) {
    keep.problem.set(None);
    keep.keeper.set_value(Some(Keeper::new(kept.clone())));
    let requests = fresh.then(|| requests.to_vec());
    spawn_local(async move {
        let begun = match requests {
            Some(requests) => keep::begin(&kept, &requests).await,
            None => Ok(()),
        };
        let mut ok = true;
        keep.keeper.update_value(|k| {
            if let Some(k) = k {
                k.writing = false;
                if begun.is_err() {
                    k.broken = true;
                    ok = false;
                }
            }
        });
        if let Err(e) = begun {
            keep.problem.set(Some(format!(
                "{e} — this run is not kept: a reload or crash would lose it"
            )));
        }
        if ok {
            keep_due(keep, false);
        }
    });
}

/// Takes a chunk of scores the worker posted.
pub(crate) fn keep_scores(keep: KeepSignals, chunk: KeptChunk) {
    keep.keeper.update_value(|k| {
        if let Some(k) = k {
            k.buffer.push(chunk);
        }
    });
    keep_due(keep, false);
}

/// Notes the size of model `k`'s probe set as the worker built it.
pub(crate) fn keep_total(keep: KeepSignals, k: usize, total: usize) {
    keep.keeper.update_value(|keeper| {
        if let Some(m) = keeper.as_mut().and_then(|kp| kp.header.models.get_mut(k)) {
            m.total = total;
        }
    });
}

/// Writes what is buffered now (a model finished).
pub(crate) fn keep_now(keep: KeepSignals) {
    keep_due(keep, true);
}

/// Starts the due write, if any; when it ends, the next forced one.
fn keep_due(keep: KeepSignals, force: bool) {
    let now = js_sys::Date::now();
    let job = keep
        .keeper
        .try_update_value(|k| k.as_mut().and_then(|k| k.due(now, force)))
        .flatten();
    let Some((header, chunks)) = job else { return };
    spawn_local(async move {
        let result = keep::append(header, &chunks).await;
        let mut again = false;
        let mut kept = None;
        let mut problem = None;
        keep.keeper.update_value(|k| {
            if let Some(k) = k {
                match result {
                    Ok(h) => {
                        kept = Some(h.kept());
                        again = k.written(h);
                    }
                    Err(e) => {
                        k.writing = false;
                        k.broken = true;
                        problem = Some(e.message);
                    }
                }
            }
        });
        if let Some(n) = kept {
            keep.kept.set(n);
        }
        if let Some(e) = problem {
            keep.problem.set(Some(format!(
                "{e} — the rest of this run is not kept: a reload or crash would lose it"
            )));
        }
        if again {
            keep_due(keep, true);
        }
    });
}

/// Stops keeping the run: waits for the write in flight, then removes what is kept
/// (`discard`: the run ended by itself) or writes what is still buffered and returns the
/// header (the run was interrupted; `None` when it could not be kept).
pub(crate) async fn keep_end(keep: KeepSignals, discard: bool) -> Option<KeptRun> {
    while keep
        .keeper
        .with_value(|k| k.as_ref().is_some_and(|k| k.writing))
    {
        gloo::timers::future::TimeoutFuture::new(10).await;
    }
    let keeper = keep.keeper.try_update_value(Option::take).flatten()?;
    if discard {
        if let Err(e) = keep::discard().await {
            keep.storage_error.set(Some(e.message));
        }
        return None;
    }
    if keeper.broken {
        return None;
    }
    if keeper.buffer.is_empty() {
        return Some(keeper.header);
    }
    match keep::append(keeper.header.clone(), &keeper.buffer).await {
        Ok(header) => Some(header),
        // What was written before still resumes.
        Err(_) => Some(keeper.header),
    }
}

/// The loaded models that may go on with `kept`: each of its models must be loaded in its
/// slot with the same weights (by SHA-256); otherwise says which to load.
pub fn matching_models(
    kept: &KeptRun,
    loaded: impl Fn(Slot) -> Option<ModelInfo>,
) -> Result<Vec<(Slot, ModelInfo)>, String> {
    kept.models
        .iter()
        .map(|m| {
            let want = || {
                format!(
                    "load {} (weights {}) as the {} to resume",
                    m.name,
                    &m.weights_sha256[..m.weights_sha256.len().min(12)],
                    m.slot
                )
            };
            match loaded(m.slot) {
                Some(info)
                    if info.id.weights_sha256 == m.weights_sha256
                        && info.id.precision == m.precision =>
                {
                    Ok((m.slot, info))
                }
                // The same weights at another precision would mix two precisions in one run.
                Some(info) if info.id.weights_sha256 == m.weights_sha256 => Err(format!(
                    "the run was made in {} and {} now runs in {}: choose {} in the model bar's precision to resume",
                    m.precision, m.name, info.id.precision, m.precision
                )),
                Some(info) => Err(format!("{}: {} is loaded there now", want(), info.id.name)),
                None => Err(want()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::keep::KeptModel;
    use crate::runs::tests::model as info;
    use tabprobe_core::scoring::PairScore;
    use tabprobe_core::scoring::Precision;

    fn header() -> KeptRun {
        KeptRun {
            started_ms: 0.0,
            dataset: "d.json".into(),
            models: vec![KeptModel {
                slot: Slot::Main,
                name: "tiny".into(),
                weights_sha256: "abcdef0123456789".into(),
                precision: Precision::F32,
                kept: 0,
                total: 0,
            }],
            records: 0,
        }
    }

    fn chunk(from: usize) -> KeptChunk {
        KeptChunk {
            model: 0,
            chunk: 2,
            from,
            scores: vec![
                PairScore {
                    probs: [1.0, 0.0, 0.0],
                    logits: vec![1.0, 0.0, 0.0],
                    truncated: false,
                    premise_tokens_dropped: 0,
                };
                2
            ],
        }
    }

    #[test]
    fn writes_wait_for_the_interval_one_at_a_time_and_a_forced_one_drains() {
        let mut k = Keeper::new(header());
        k.buffer.push(chunk(0));
        // The first write (the requests) is in flight.
        assert!(k.due(5_000.0, false).is_none());
        k.writing = false;
        let (_, first) = k.due(5_000.0, false).expect("due: nothing written yet");
        assert_eq!(first.len(), 1);
        k.buffer.push(chunk(2));
        // In flight: nothing else starts, even forced.
        assert!(k.due(9_000.0, true).is_none());
        let mut written = header();
        written.records = 1;
        // Forced with more buffered: the next write is due at once.
        assert!(k.written(written));
        let (h, second) = k.due(5_001.0, false).expect("forced");
        assert_eq!((h.records, second.len()), (1, 1));
        assert!(!k.written(h));
        // Not forced: the next waits FLUSH_EVERY_MS after the last write started.
        k.buffer.push(chunk(4));
        assert!(k.due(5_001.0 + FLUSH_EVERY_MS - 1.0, false).is_none());
        assert!(k.due(5_001.0 + FLUSH_EVERY_MS, false).is_some());
    }

    #[test]
    fn a_total_heard_during_a_write_survives_it() {
        let mut k = Keeper::new(header());
        k.writing = false;
        k.buffer.push(chunk(0));
        let (h, _) = k.due(FLUSH_EVERY_MS, false).unwrap();
        k.header.models[0].total = 40;
        k.written(h);
        assert_eq!(k.header.models[0].total, 40);
    }

    #[test]
    fn only_the_same_weights_may_resume() {
        let kept = header();
        assert_eq!(
            matching_models(&kept, |_| None).unwrap_err(),
            "load tiny (weights abcdef012345) as the main model to resume"
        );
        assert_eq!(
            matching_models(&kept, |_| Some(info("other-hash"))).unwrap_err(),
            "load tiny (weights abcdef012345) as the main model to resume: m is loaded there now"
        );
        let ok = matching_models(&kept, |_| Some(info("abcdef0123456789"))).unwrap();
        assert_eq!(ok.len(), 1);
        // The same weights at f16-mixed may not go on with an f32 run.
        let half = |_| {
            let mut m = info("abcdef0123456789");
            m.id.precision = Precision::F16Mixed;
            Some(m)
        };
        assert_eq!(
            matching_models(&kept, half).unwrap_err(),
            "the run was made in f32 and tiny now runs in f16-mixed: choose f32 in the model bar's precision to resume"
        );
    }
}
