//! Running probes from the page: [`start_run`] runs the runner's form in the model worker,
//! one model after the other on the same probe set, keeps the scores as they come
//! ([`crate::runs::keeper`]) and saves the finished run ([`crate::runs::store`]); [`resume_run`]
//! goes on with a run a reload or crash interrupted; [`cancel_run`] stops after the batch in
//! flight. The state all this shows lives in [`crate::runs::RunsState`].

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::run::pace::RemainingClock;
use tabprobe_core::run::RunResult;
use tabprobe_worker::protocol::{ModelInfo, ProbeRequest, RunResume, Slot};

use crate::runs::keep::{self, KeptChunk, KeptModel, KeptRun};
use crate::runs::keeper::{
    keep_begin, keep_end, keep_now, keep_scores, keep_total, matching_models,
};
use crate::runs::store::{self, RunMeta, SavedRun, StoredPieces};
use crate::runs::{
    probe_request, run_estimate_s, run_models, ProbeCountsState, RunStatus, RunsState,
};
use crate::state::AppState;
use crate::worker::arriving::RunUpdate;
use crate::worker::client::{client, WorkerClient};

/// Starts a run of the form's probe set: the main model, then (when asked and loaded) the
/// second model on the same items. The result is saved in IndexedDB and opened; while it
/// runs, its scores are kept ([`crate::runs::keep`]) so a reload or crash can resume it.
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
                precision: m.id.precision,
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
struct RunPlan {
    infos: Vec<(Slot, ModelInfo)>,
    requests: Vec<ProbeRequest>,
    resumes: Vec<Option<RunResume>>,
    /// Forward passes per model, estimated before the worker says (0: unknown).
    per_model: usize,
    /// The kept run's header.
    kept: KeptRun,
    /// A new run (its requests are written first) rather than a resumed one.
    fresh: bool,
}

/// Runs `plan` in the worker, one model after the other, keeping the scores as they come and
/// saving the finished run.
fn drive(state: AppState, runs: RunsState, plan: RunPlan) {
    let RunPlan {
        infos,
        requests,
        resumes,
        per_model,
        kept,
        fresh,
    } = plan;
    let models: Vec<(Slot, String)> = infos.iter().map(|(s, m)| (*s, m.id.name.clone())).collect();
    // Slots holding imported scores: their files are checked against their sets first.
    let imported: Vec<Slot> = infos
        .iter()
        .filter(|(_, m)| m.imported.is_some())
        .map(|(s, _)| *s)
        .collect();
    // Pairs already scored by the interrupted run: shown as done, not counted in the rate.
    let resumed: Vec<usize> = resumes
        .iter()
        .map(|r| r.as_ref().map_or(0, |r| r.scores.len()))
        .collect();
    let tally = Tally {
        model_count: models.len(),
        resumed_all: resumed.iter().sum(),
        resumed,
        started_ms: js_sys::Date::now(),
    };
    let total = (per_model * tally.model_count).max(tally.resumed_all);
    let dataset = kept.dataset.clone();
    let remaining_s = begin(state, runs, &infos, per_model, total, &tally);
    keep_begin(runs.keep, kept, &requests, fresh);
    runs.status.set(RunStatus::Running {
        model_index: 1,
        models: models.len(),
        model: models[0].1.clone(),
        done: tally.resumed.first().copied().unwrap_or(0),
        total,
        started_ms: tally.started_ms,
        resumed: tally.resumed_all,
        cancelling: false,
        remaining_s,
    });
    spawn_local(async move {
        let client = match client() {
            Ok(c) => c,
            Err(e) => {
                keep_end(runs.keep, true).await;
                runs.status.set(RunStatus::Failed(e));
                return;
            }
        };
        // A scores file made for another probe set fails the run before any model scores.
        for slot in imported {
            let Some(k) = models.iter().position(|(s, _)| *s == slot) else {
                continue;
            };
            if let Err(message) = client.count_checked(requests[k].clone(), Some(slot)).await {
                keep_end(runs.keep, true).await;
                runs.status
                    .set(RunStatus::Failed(format!("{}: {message}", models[k].1)));
                return;
            }
        }
        let work = models.into_iter().zip(requests).zip(resumes);
        let Some(scored) = score_models(state, runs, &client, work, &tally).await else {
            return;
        };
        finish(runs, scored, dataset, &tally).await;
    });
}

/// What a run counts by, fixed when it starts.
struct Tally {
    /// How many models run.
    model_count: usize,
    /// Per model, the pairs the interrupted run had scored.
    resumed: Vec<usize>,
    /// Those pairs over every model.
    resumed_all: usize,
    /// `Date.now()` at the start.
    started_ms: f64,
}

/// Sets the run's clock going (from the estimate, when every model has a measured speed) and
/// clears what a run before it left; the seconds left, when the estimate gives them.
fn begin(
    state: AppState,
    runs: RunsState,
    infos: &[(Slot, ModelInfo)],
    per_model: usize,
    total: usize,
    tally: &Tally,
) -> Option<f64> {
    let passes: Vec<(ModelInfo, usize)> =
        infos.iter().map(|(_, m)| (m.clone(), per_model)).collect();
    let prior_rate = untrack(|| run_estimate_s(&state, &passes))
        .filter(|s| *s > 0.0)
        .map(|s| total as f64 / s);
    let clock = RemainingClock::new(
        total.saturating_sub(tally.resumed_all),
        tally.started_ms,
        prior_rate,
    );
    let remaining_s = clock.remaining_s();
    runs.clock.set_value(Some(clock));
    runs.cancel.set_value(false);
    runs.interrupted.set(None);
    runs.keep.kept.set(tally.resumed_all);
    remaining_s
}

/// What the models scored: their run files, the pieces the worker sent them in, and the
/// failure that ended the run early (its message, and whether the worker was lost).
struct Scored {
    results: Vec<Arc<RunResult>>,
    pieces: Vec<StoredPieces>,
    failure: Option<(String, bool)>,
}

/// Scores each model's probe set in turn, until the last, a cancel or a failure; `None` when
/// a model could not start (the run has failed and is ended).
async fn score_models(
    state: AppState,
    runs: RunsState,
    client: &WorkerClient,
    work: impl Iterator<Item = (((Slot, String), ProbeRequest), Option<RunResume>)>,
    tally: &Tally,
) -> Option<Scored> {
    let mut results = Vec::new();
    // The run files' pieces as the worker sent them, every model's: what is stored, so
    // the page never serialises the run.
    let mut pieces = Vec::new();
    let mut failure: Option<(String, bool)> = None;
    let mut before = 0;
    // Pairs scored in this session by the models before this one (the clock's count).
    let mut new_before = 0;
    for (k, (((slot, name), request), resume)) in work.enumerate() {
        if runs.cancel.get_value() {
            break;
        }
        let resumed_here = tally.resumed[k];
        let update = on_update(runs, k, name.clone(), before, new_before, tally);
        let (job, outcome) = match client.run_probe(slot, request, resume, update) {
            Ok(j) => j,
            Err(e) => {
                keep_end(runs.keep, true).await;
                runs.status.set(RunStatus::Failed(e));
                return None;
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
                keep_now(runs.keep);
            }
            Err(f) => {
                // A failed model (non-finite outputs, a crashed worker) ends the run; the
                // models that finished before it are still saved below.
                failure = Some((format!("{name}: {}", f.message()), f.is_lost()));
                break;
            }
        }
    }
    runs.job.set_value(None);
    Some(Scored {
        results,
        pieces,
        failure,
    })
}

/// What the worker's reports on model `k` (named `name`) do: move the progress and the clock,
/// and keep the scores. `before` pairs were scored by the models before it, `new_before` of
/// them in this session.
fn on_update(
    runs: RunsState,
    k: usize,
    name: String,
    before: usize,
    new_before: usize,
    tally: &Tally,
) -> impl Fn(RunUpdate) + 'static {
    let (model_count, resumed_all) = (tally.model_count, tally.resumed_all);
    let resumed_here = tally.resumed[k];
    move |update: RunUpdate| match update {
        RunUpdate::Progress {
            done,
            total: total_here,
        } => {
            let now = js_sys::Date::now();
            // This model's set as the worker built it; the models after it are
            // estimated at its size.
            let grand_total = before + total_here * (model_count - k);
            keep_total(runs.keep, k, total_here);
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
        } => keep_scores(
            runs.keep,
            KeptChunk {
                model: k,
                chunk,
                from,
                scores,
            },
        ),
    }
}

/// Ends the run: keeps it to resume when the worker was lost, otherwise saves what was scored
/// (or says why nothing was), shows it, and opens it when the user is still on the runner.
async fn finish(runs: RunsState, scored: Scored, dataset: String, tally: &Tally) {
    let Scored {
        results,
        pieces,
        failure,
    } = scored;
    // A worker that died (or stopped answering) ends the run, not the model: what was
    // scored stays kept, to resume once the models are loaded again.
    if let Some((message, true)) = &failure {
        if let Some(kept) = keep_end(runs.keep, false).await {
            runs.status.set(RunStatus::Failed(format!(
                "{message} — the {} pairs scored so far are kept in this browser: load the model again and resume the run (below)",
                kept.kept()
            )));
            runs.interrupted.set(Some(Ok(kept)));
            return;
        }
    } else {
        keep_end(runs.keep, true).await;
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
    let elapsed_ms = js_sys::Date::now() - tally.started_ms;
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
    let id = save(runs, results, &pieces, dataset, cancelled).await;
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
        resumed: tally.resumed_all,
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
}

/// Saves the finished run in IndexedDB and shows it; its id. A run the browser refuses to
/// keep is still shown, and offered for download.
async fn save(
    runs: RunsState,
    results: Vec<Arc<RunResult>>,
    pieces: &[StoredPieces],
    dataset: String,
    cancelled: bool,
) -> String {
    let created_ms = js_sys::Date::now();
    // One Blob of every model's pieces; should the browser refuse to make it, the run is
    // still shown (and offered for download) but not saved.
    let joined = StoredPieces::join(pieces);
    let saved = SavedRun {
        meta: RunMeta {
            // The tab's id too: two tabs finishing in the same millisecond keep both runs.
            id: format!(
                "run-{}-{}",
                created_ms as u64,
                crate::storage::tabs::tab_id()
            ),
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
        Ok(p) => store::save(&saved.meta, p).await,
        Err(e) => Err(crate::storage::idb::StoreError {
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
    id
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

/// Reads the run kept by an earlier visit, if any (when the page starts).
pub fn load_interrupted(runs: RunsState) {
    spawn_local(async move {
        match keep::load().await {
            Ok(Some(kept)) => runs.interrupted.set(Some(Ok(kept))),
            Ok(None) => {}
            Err(e) => runs.interrupted.set(Some(Err(e))),
        }
    });
}

/// Removes the kept run the user chose not to resume.
pub fn discard_interrupted(runs: RunsState) {
    spawn_local(async move {
        match keep::discard().await {
            Ok(()) => runs.interrupted.set(None),
            Err(e) => runs.storage_error.set(Some(e.message)),
        }
    });
}

/// Goes on with the kept run: the same models must be loaded; the worker scores only the
/// pairs it lacks, in the chunks it was scored in.
pub fn resume_run(state: AppState, runs: RunsState) {
    if runs.running() {
        return;
    }
    let Some(Ok(kept)) = runs.interrupted.get_untracked() else {
        return;
    };
    let infos = match matching_models(&kept, |slot| state.slot(slot).model.get_untracked()) {
        Ok(infos) => infos,
        Err(e) => {
            runs.status.set(RunStatus::Failed(e));
            return;
        }
    };
    spawn_local(async move {
        match keep::load_all(&kept).await {
            Ok((requests, resumes)) => {
                let per_model = kept.models.iter().map(|m| m.total).max().unwrap_or(0);
                drive(
                    state,
                    runs,
                    RunPlan {
                        infos,
                        requests,
                        resumes,
                        per_model,
                        kept,
                        fresh: false,
                    },
                );
            }
            Err(e) => runs.status.set(RunStatus::Failed(format!(
                "the kept run cannot be resumed: {e} (discard it and run again)"
            ))),
        }
    });
}
