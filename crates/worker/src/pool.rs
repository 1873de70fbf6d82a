//! Helper workers for the CPU path. burn's CPU backend runs on one thread in wasm (wasm threads
//! need a nightly toolchain and cross-origin isolation), so on the CPU path the worker starts
//! helpers — copies of itself, each loading its own copy of the model — and splits each call's
//! batches between itself and them. Every batch is scored whole, as the model plans it
//! ([`NliModel::batch_rows`]), so a pair gets the very bits a single worker would give it. A
//! helper that fails to load, panics or answers wrongly is dropped, and its batches are scored
//! here instead: the pool can make a call faster, never wrong.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Promise};
use tabprobe_core::checkpoint::SmallFiles;
use tabprobe_core::scoring::{Pair, PairScore, ScoreError};
use tabprobe_model::{EncodedPair, NliModel};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

use crate::protocol::{BackendChoice, PrecisionChoice, Request, Response, Slot};
use crate::transport;

/// The script a helper runs: the worker's own loader, beside it (Trunk's `worker_loader.js`).
const HELPER_URL: &str = "./worker_loader.js";

/// At most this many model copies in all (the worker's and its helpers'), whatever the core
/// count: each copy is a full model in memory.
const MAX_COPIES: usize = 4;

/// The memory all copies together may take, in bytes of weights.
const MAX_WEIGHT_BYTES: usize = 2 << 30;

/// How many helpers to start for a model whose copies hold `weight_bytes` each ([`copy_bytes`])
/// on a machine of `cores` logical cores: one copy per core (this worker's included), at most
/// [`MAX_COPIES`] and at most [`MAX_WEIGHT_BYTES`] of weights in all.
pub fn helpers_for(cores: usize, weight_bytes: usize) -> usize {
    let by_memory = MAX_WEIGHT_BYTES / weight_bytes.max(1);
    cores.min(MAX_COPIES).min(by_memory).saturating_sub(1)
}

/// The bytes of weights one copy of a model holds, from its weight file's `file_bytes`: at int8
/// the copy keeps its f32 weights and adds the dense layers' int8 ones (held as i16: half the
/// f32 bytes of those layers), counted here as half the file again, an upper bound.
pub fn copy_bytes(file_bytes: usize, precision: PrecisionChoice) -> usize {
    match precision {
        PrecisionChoice::Int8OnCpu => file_bytes.saturating_add(file_bytes / 2),
        PrecisionChoice::F16WhereOffered | PrecisionChoice::F32 => file_bytes,
    }
}

/// The logical cores the browser reports (`navigator.hardwareConcurrency`; 1 if unknown).
pub fn cores() -> usize {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok();
    navigator
        .and_then(|n| js_sys::Reflect::get(&n, &"hardwareConcurrency".into()).ok())
        .and_then(|c| c.as_f64())
        .map_or(1, |c| (c as usize).max(1))
}

/// What one helper answered to a job.
type Answer = Result<Vec<PairScore>, String>;

/// One helper's state, shared with its message handler.
#[derive(Default)]
struct State {
    /// It posted `Ready`: messages may go to it.
    ready: bool,
    /// Its model is loaded: batches may go to it.
    loaded: bool,
    /// Why it is out of use, once it is.
    failed: Option<String>,
    /// Messages waiting for `Ready`.
    queued: Vec<(js_sys::Array, js_sys::Array)>,
    /// Jobs sent and not answered: the function that wakes their waiter.
    waiting: HashMap<u64, Function>,
    /// Answers not yet taken by their waiter.
    answers: HashMap<u64, Answer>,
    next_job: u64,
}

impl State {
    /// Marks the helper as out of use and wakes every waiter (each then finds no answer).
    fn fail(&mut self, why: String) {
        self.failed.get_or_insert(why);
        self.loaded = false;
        for (_, wake) in self.waiting.drain() {
            let _ = wake.call0(&JsValue::NULL);
        }
    }
}

/// One helper worker.
struct Helper {
    worker: Worker,
    state: Rc<RefCell<State>>,
    // Kept alive as long as the worker: its handlers.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

impl Helper {
    /// Starts a helper and asks it to load the model from `small` (copied) and `weights` (the
    /// same Blob: the browser shares its bytes, nothing is copied).
    fn start(
        name: &str,
        small: &SmallFiles<Vec<u8>>,
        weights: &Blob,
        batch_size: usize,
        precision: PrecisionChoice,
    ) -> Result<Helper, String> {
        let worker =
            Worker::new(HELPER_URL).map_err(|e| format!("cannot start a helper: {e:?}"))?;
        let state = Rc::new(RefCell::new(State::default()));
        let on_message = {
            let state = state.clone();
            let worker = worker.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let response = match transport::decode::<Response>(&event.data()) {
                    Ok(decoded) => decoded.header,
                    Err(e) => {
                        state.borrow_mut().fail(format!("unreadable message: {e}"));
                        return;
                    }
                };
                on_response(&state, &worker, response);
            })
        };
        let on_error = {
            let state = state.clone();
            Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
                event.prevent_default();
                state
                    .borrow_mut()
                    .fail(format!("it crashed: {}", event.message()));
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let (tokenizer, parts) = small.clone().into_parts();
        let load = Request::LoadModel {
            slot: Slot::Main,
            name: name.to_string(),
            tokenizer,
            batch_size,
            load: 1,
            backend: BackendChoice::Cpu,
            // The main worker's choice: a helper on the CPU path then runs at the same precision
            // as it (f32, or int8), so a pair gets the same bits whichever copy scores it.
            precision,
            helper: true,
        };
        let parts = parts
            .iter()
            .map(|p| js_sys::Uint8Array::from(p.as_slice()))
            .collect();
        let message = transport::encode_with_blob(&load, parts, Some(weights))?;
        state.borrow_mut().queued.push(message);
        Ok(Helper {
            worker,
            state,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    fn usable(&self) -> bool {
        let s = self.state.borrow();
        s.loaded && s.failed.is_none()
    }

    /// Sends `pairs` (one planned batch) to be scored; the job id to wait on.
    fn send(&self, pairs: Vec<Pair>) -> Result<u64, String> {
        let job = {
            let mut s = self.state.borrow_mut();
            s.next_job += 1;
            s.next_job
        };
        let request = Request::Score {
            job,
            slot: Slot::Main,
            pairs,
        };
        let (message, transfer) = transport::encode(&request, Vec::new())?;
        self.worker
            .post_message_with_transfer(&message, &transfer)
            .map_err(|e| format!("cannot reach a helper: {e:?}"))?;
        Ok(job)
    }

    /// The helper's answer to `job` (an error if it failed meanwhile).
    async fn answer(&self, job: u64) -> Answer {
        loop {
            {
                let mut s = self.state.borrow_mut();
                if let Some(answer) = s.answers.remove(&job) {
                    return answer;
                }
                if let Some(why) = &s.failed {
                    return Err(why.clone());
                }
            }
            let state = self.state.clone();
            let wait = Promise::new(&mut |resolve, _reject| {
                state.borrow_mut().waiting.insert(job, resolve);
            });
            let _ = JsFuture::from(wait).await;
        }
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// A helper's message: readiness, its load, its answers.
fn on_response(state: &Rc<RefCell<State>>, worker: &Worker, response: Response) {
    let mut s = state.borrow_mut();
    match response {
        Response::Ready => {
            s.ready = true;
            for (message, transfer) in std::mem::take(&mut s.queued) {
                if let Err(e) = worker.post_message_with_transfer(&message, &transfer) {
                    s.fail(format!("cannot reach it: {e:?}"));
                }
            }
        }
        Response::ModelLoaded { .. } => s.loaded = true,
        Response::LoadFailed { message, .. } => s.fail(format!("its load failed: {message}")),
        Response::Panicked { message } => s.fail(format!("it panicked: {message}")),
        Response::Scores { job, scores, .. } => answered(&mut s, job, Ok(scores)),
        Response::JobFailed { job, error } => answered(&mut s, job, Err(error.to_string())),
        _ => {}
    }
}

fn answered(s: &mut State, job: u64, answer: Answer) {
    s.answers.insert(job, answer);
    if let Some(wake) = s.waiting.remove(&job) {
        let _ = wake.call0(&JsValue::NULL);
    }
}

/// This worker's helpers for one model.
#[derive(Default)]
pub struct Pool {
    helpers: Vec<Rc<Helper>>,
}

impl Pool {
    /// Starts `count` helpers loading the model of `small` and `weights` at the main worker's
    /// `precision` choice; they join in as their loads finish.
    pub fn start(
        count: usize,
        name: &str,
        small: &SmallFiles<Vec<u8>>,
        weights: &Blob,
        batch_size: usize,
        precision: PrecisionChoice,
    ) -> Pool {
        let mut helpers = Vec::new();
        for _ in 0..count {
            match Helper::start(name, small, weights, batch_size, precision) {
                Ok(h) => helpers.push(Rc::new(h)),
                Err(e) => web_sys::console::warn_1(&format!("tabprobe worker: {e}").into()),
            }
        }
        Pool { helpers }
    }

    /// Workers that score a call together: this one and the helpers loaded by now.
    pub fn workers(&self) -> usize {
        1 + self.helpers.iter().filter(|h| h.usable()).count()
    }

    /// Scores `pairs` with `model`, its planned batches spread over this worker and the
    /// loaded helpers (round robin, this worker first); the scores are in `pairs`' order.
    pub async fn score(
        &self,
        model: &NliModel,
        pairs: &[Pair],
    ) -> Result<Vec<PairScore>, ScoreError> {
        let helpers: Vec<Rc<Helper>> = self
            .helpers
            .iter()
            .filter(|h| h.usable())
            .cloned()
            .collect();
        if helpers.is_empty() {
            return model.score_async(pairs).await;
        }
        let encoded = model.encode(pairs)?;
        let mut mine = Vec::new();
        let mut sent = Vec::new();
        for (i, rows) in model.batch_rows(&encoded).into_iter().enumerate() {
            match (i % (helpers.len() + 1)).checked_sub(1) {
                None => mine.push(rows),
                Some(h) => {
                    let batch = rows.iter().map(|&r| pairs[r].clone()).collect();
                    let job = helpers[h].send(batch);
                    sent.push((helpers[h].clone(), job, rows));
                }
            }
        }
        let mut out: Vec<Option<PairScore>> = vec![None; pairs.len()];
        for rows in &mine {
            score_here(model, pairs, &encoded, rows, &mut out).await?;
        }
        for (helper, job, rows) in sent {
            let answer = match job {
                Ok(job) => helper.answer(job).await,
                Err(e) => Err(e),
            };
            match answer {
                Ok(scores) if scores.len() == rows.len() => {
                    for (&r, s) in rows.iter().zip(scores) {
                        out[r] = Some(s);
                    }
                }
                other => {
                    let why = match other {
                        Ok(s) => format!("it answered {} scores for {} pairs", s.len(), rows.len()),
                        Err(e) => e,
                    };
                    web_sys::console::warn_1(
                        &format!("tabprobe worker: a helper is dropped ({why}); its batches are scored here").into(),
                    );
                    helper.state.borrow_mut().fail(why);
                    score_here(model, pairs, &encoded, &rows, &mut out).await?;
                }
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, s)| {
                s.ok_or_else(|| ScoreError::Failed(format!("pair {} was not scored", i + 1)))
            })
            .collect()
    }
}

/// Scores the batch of `rows` in this worker. A non-finite score's error is placed among
/// `pairs` (the model numbers it within the batch).
async fn score_here(
    model: &NliModel,
    pairs: &[Pair],
    encoded: &[EncodedPair],
    rows: &[usize],
    out: &mut [Option<PairScore>],
) -> Result<(), ScoreError> {
    let batch: Vec<EncodedPair> = rows.iter().map(|&r| encoded[r].clone()).collect();
    let scores = model
        .score_encoded_async(&batch)
        .await
        .map_err(|e| match e {
            ScoreError::NonFinite(mut nf) => {
                nf.index = rows.get(nf.index).copied().unwrap_or(nf.index);
                let hypothesis = pairs.get(nf.index).map(|p| p.hypothesis.as_str());
                ScoreError::NonFinite(nf.with_hypothesis(hypothesis))
            }
            other => other,
        })?;
    for (&r, s) in rows.iter().zip(scores) {
        out[r] = Some(s);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{copy_bytes, helpers_for};
    use crate::protocol::PrecisionChoice;

    #[test]
    fn one_copy_per_core_within_the_caps() {
        const MB: usize = 1 << 20;
        // roberta-base (499 MB of f32 weights): one helper on 2 cores, three on 8 (4 copies).
        assert_eq!(helpers_for(2, 499 * MB), 1);
        assert_eq!(helpers_for(8, 499 * MB), 3);
        // roberta-large (1,422 MB): two copies would pass 2 GiB, so none.
        assert_eq!(helpers_for(8, 1422 * MB), 0);
        // One core, or an unknown count: no helper.
        assert_eq!(helpers_for(1, MB), 0);
        assert_eq!(helpers_for(0, MB), 0);
        // At int8 a roberta-base copy counts 748.5 MB: two copies fit in 2 GiB, three do not.
        let int8 = copy_bytes(499 * MB, PrecisionChoice::Int8OnCpu);
        assert_eq!(int8, 748 * MB + MB / 2);
        assert_eq!(helpers_for(8, int8), 1);
        assert_eq!(copy_bytes(499 * MB, PrecisionChoice::F32), 499 * MB);
    }
}
