//! The training loop: seeded shuffling into length-bucketed batches, cross-entropy on the
//! `<s>` logits, AdamW steps, periodic dev accuracy with early stopping, and the best
//! checkpoint kept as `model.safetensors` bytes.

use burn::prelude::*;
use burn::tensor::loss::cross_entropy_with_logits;
use tabprobe_core::rng::Rng;

use crate::blocks::classifier::RobertaForSequenceClassification;
use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::loader::load_weights;
use crate::text::batch::{max_rows_within_budget, plan_batches, Batch};
use crate::text::tokenize::EncodedPair;
use crate::train::optimize::{learning_rate, track, AdamWSteps};
use crate::train::params::{to_safetensors_async, Params};

/// One tokenized training or evaluation pair with its gold label as a model output index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelledPair {
    /// `<s> P </s></s> H </s>` ids (see [`crate::PairTokenizer`]).
    pub ids: Vec<u32>,
    /// Index into the model's outputs (`id2label` order).
    pub label: usize,
}

/// Hyper-parameters of one training run.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// Passes over the training pairs (at most).
    pub epochs: usize,
    /// Pairs per optimisation step.
    pub batch_size: usize,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// Fraction of all steps spent warming up.
    pub warmup_fraction: f64,
    /// AdamW weight decay (matrices only).
    pub weight_decay: f32,
    /// Global gradient-norm clip.
    pub max_grad_norm: f32,
    /// Dev evaluations per epoch (at least 1; the last one ends the epoch).
    pub evals_per_epoch: usize,
    /// Stop after this many evaluations in a row without a better dev accuracy.
    pub patience: usize,
    /// Seeds the shuffling (initialisation has its own seed, see [`super::initial_weights`]).
    pub seed: u64,
    /// Stop after this many steps in total (short runs and tests); `None` = all epochs.
    pub max_steps: Option<usize>,
    /// Print a progress event every this many steps.
    pub log_every: usize,
}

/// What the loop reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// After an optimisation step.
    Step {
        /// Steps done.
        step: usize,
        /// Steps planned.
        total: usize,
        /// Mean training loss over the steps since the last event.
        loss: f64,
        /// Learning rate used.
        learning_rate: f64,
        /// Optimisation steps per second since the start.
        steps_per_second: f64,
        /// Training pairs per second since the start.
        examples_per_second: f64,
    },
    /// After a dev evaluation.
    Eval {
        /// Steps done.
        step: usize,
        /// Fraction of epochs done.
        epoch: f64,
        /// Dev accuracy.
        accuracy: f64,
        /// Whether it is the best so far (the checkpoint kept).
        best: bool,
    },
}

/// The result of [`train`].
#[derive(Debug, Clone)]
pub struct TrainOutcome {
    /// `model.safetensors` of the checkpoint with the best dev accuracy.
    pub weights: Vec<u8>,
    /// Its dev accuracy.
    pub best_accuracy: f64,
    /// The step it was taken at.
    pub best_step: usize,
    /// The epoch it was taken in (1-based).
    pub best_epoch: usize,
    /// Every evaluation as (step, dev accuracy).
    pub evals: Vec<(usize, f64)>,
    /// Optimisation steps run.
    pub steps: usize,
    /// Mean training loss of the first and of the last logged window.
    pub first_loss: f64,
    /// See `first_loss`.
    pub last_loss: f64,
    /// Training pairs processed.
    pub examples_seen: usize,
    /// Why the loop ended.
    pub stopped: String,
}

/// The order of one epoch: shuffled with the seed, cut into windows of 50 batches whose pairs
/// are sorted by length (so a batch pads little), and the batches shuffled again.
pub fn epoch_batches(
    lengths: &[usize],
    batch_size: usize,
    seed: u64,
    epoch: usize,
) -> Vec<Vec<usize>> {
    let mut rng = Rng::derive(seed, &format!("epoch-{epoch}"));
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    rng.shuffle(&mut order);
    let batch_size = batch_size.max(1);
    let mut batches = Vec::new();
    for window in order.chunks_mut(batch_size * 50) {
        window.sort_by_key(|&i| lengths[i]);
        batches.extend(window.chunks(batch_size).map(|b| b.to_vec()));
    }
    rng.shuffle(&mut batches);
    batches
}

/// The model's output index with the highest logit for every pair (first index on ties),
/// reading the logits back asynchronously (so it runs in the browser too).
pub async fn predict_async(
    network: &RobertaForSequenceClassification,
    config: &RobertaConfig,
    pairs: &[LabelledPair],
    batch_size: usize,
) -> Result<Vec<usize>, String> {
    let encoded: Vec<EncodedPair> = pairs.iter().map(LabelledPair::encoded).collect();
    let device = network.device();
    let mut out = vec![0usize; pairs.len()];
    let budget = |seq| {
        max_rows_within_budget(
            seq,
            config.num_attention_heads,
            config.intermediate_size,
            config.hidden_size,
        )
    };
    for batch in plan_batches(&encoded, batch_size, config.pad_token_id as u32, budget) {
        let (ids, pos, mask) = batch.tensors(&device);
        let logits = network
            .forward(ids, pos, mask)
            .into_data_async()
            .await
            .map_err(|e| format!("reading logits failed: {e:?}"))?
            .try_into_vec::<f32>()
            .map_err(|e| format!("reading logits failed: {e:?}"))?;
        let n = logits.len() / batch.rows.len().max(1);
        for (row, values) in batch.rows.iter().zip(logits.chunks_exact(n.max(1))) {
            let mut best = 0;
            for (i, v) in values.iter().enumerate() {
                if *v > values[best] {
                    best = i;
                }
            }
            out[*row] = best;
        }
    }
    Ok(out)
}

/// [`predict_async`], blocking (native only).
#[cfg(not(target_family = "wasm"))]
pub fn predict(
    network: &RobertaForSequenceClassification,
    config: &RobertaConfig,
    pairs: &[LabelledPair],
    batch_size: usize,
) -> Result<Vec<usize>, String> {
    futures_lite::future::block_on(predict_async(network, config, pairs, batch_size))
}

impl LabelledPair {
    fn encoded(&self) -> EncodedPair {
        EncodedPair {
            type_ids: Vec::new(),
            ids: self.ids.clone(),
            truncated: false,
            premise_tokens_dropped: 0,
        }
    }
}

/// Fraction of pairs whose prediction equals the gold label (0 for no pairs).
pub fn accuracy(predicted: &[usize], pairs: &[LabelledPair]) -> f64 {
    if pairs.is_empty() {
        return 0.0;
    }
    let right = predicted
        .iter()
        .zip(pairs)
        .filter(|(p, g)| **p == g.label)
        .count();
    right as f64 / pairs.len() as f64
}

/// A training run as a state machine, so that the browser can await every read-back, report
/// progress and take a cancel between steps: [`Trainer::step`] runs one optimisation step (and
/// the dev evaluation that falls after it), [`Trainer::finish`] gives the outcome. The same
/// machine drives the native [`train`].
///
/// It trains the model `weights` (a `model.safetensors` of shape `config`: a fresh one from
/// [`super::initial_weights`] or a checkpoint to fine-tune) on the training pairs and keeps
/// the checkpoint with the best accuracy on the dev pairs. Training runs on the autodiff
/// wrapper of `device`. Dropout is not applied (every forward is deterministic), so
/// overfitting is held back by early stopping alone.
pub struct Trainer {
    config: RobertaConfig,
    plain: Device,
    autodiff: Device,
    /// The trained tensors; `network` is made of them again after every step.
    params: Params,
    network: RobertaForSequenceClassification,
    optimizer: AdamWSteps,
    train: Vec<LabelledPair>,
    dev: Vec<LabelledPair>,
    options: TrainOptions,
    labels: usize,
    lengths: Vec<usize>,
    per_epoch: usize,
    total: usize,
    warmup: usize,
    eval_at: Vec<usize>,
    epoch: usize,
    batches: Vec<Vec<usize>>,
    next_batch: usize,
    outcome: TrainOutcome,
    window: (f64, usize),
    since_best: usize,
    clock: fn() -> f64,
    started: f64,
    done: bool,
}

impl Trainer {
    /// Loads `weights` for training. `clock` gives seconds (any origin): steps per second in
    /// the events are measured with it (`std::time::Instant` does not run in the browser;
    /// natively [`native_clock`]).
    pub fn new(
        config: &RobertaConfig,
        weights: &[u8],
        train: Vec<LabelledPair>,
        dev: Vec<LabelledPair>,
        options: &TrainOptions,
        device: &Device,
        clock: fn() -> f64,
    ) -> Result<Trainer, String> {
        if train.is_empty() {
            return Err("no training pairs".into());
        }
        let plain = device.clone().without_autodiff();
        let autodiff = plain.clone().autodiff();
        let mut params = Params::load(config, &weights, &autodiff).map_err(|e| e.to_string())?;
        track(&mut params);
        let network = params.network(config).map_err(|e| e.to_string())?;
        let labels = config.num_labels();
        if let Some(bad) = train.iter().chain(&dev).find(|p| p.label >= labels) {
            return Err(format!(
                "label index {} but the model has {labels} outputs",
                bad.label
            ));
        }
        let lengths: Vec<usize> = train.iter().map(|p| p.ids.len()).collect();
        let batch_size = options.batch_size.max(1);
        let per_epoch = train.len().div_ceil(batch_size);
        let planned = per_epoch * options.epochs.max(1);
        let total = options.max_steps.map_or(planned, |m| m.min(planned));
        let warmup = (total as f64 * options.warmup_fraction).round() as usize;
        let evals = options.evals_per_epoch.max(1);
        let eval_at: Vec<usize> = (1..=evals)
            .map(|k| (per_epoch * k).div_ceil(evals))
            .collect();
        let started = clock();
        Ok(Trainer {
            config: config.clone(),
            plain,
            autodiff,
            params,
            network,
            optimizer: AdamWSteps::new(options.weight_decay, options.max_grad_norm),
            batches: epoch_batches(&lengths, batch_size, options.seed, 0),
            train,
            dev,
            options: options.clone(),
            labels,
            lengths,
            per_epoch,
            total,
            warmup,
            eval_at,
            epoch: 0,
            next_batch: 0,
            outcome: TrainOutcome {
                weights: Vec::new(),
                best_accuracy: f64::NEG_INFINITY,
                best_step: 0,
                best_epoch: 0,
                evals: Vec::new(),
                steps: 0,
                first_loss: f64::NAN,
                last_loss: f64::NAN,
                examples_seen: 0,
                stopped: "all epochs done".into(),
            },
            window: (0.0, 0),
            since_best: 0,
            clock,
            started,
            done: false,
        })
    }

    /// Whether training has ended (all epochs, the step limit, or early stopping).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Steps planned in all (every epoch, or the step limit).
    pub fn total_steps(&self) -> usize {
        self.total
    }

    /// Steps in one epoch.
    pub fn steps_per_epoch(&self) -> usize {
        self.per_epoch
    }

    /// Steps run so far.
    pub fn steps(&self) -> usize {
        self.outcome.steps
    }

    /// The current epoch (0-based).
    pub fn epoch(&self) -> usize {
        self.epoch
    }

    /// Runs the next optimisation step and, when one falls due, the dev evaluation; returns
    /// what happened. Does nothing once [`Trainer::is_done`].
    pub async fn step(&mut self) -> Result<Vec<Event>, String> {
        let mut events = Vec::new();
        if self.done {
            return Ok(events);
        }
        if self.outcome.steps >= self.total {
            self.outcome.stopped = format!("step limit {} reached", self.total);
            self.done = true;
            return Ok(events);
        }
        if self.next_batch >= self.batches.len() {
            self.epoch += 1;
            if self.epoch >= self.options.epochs.max(1) {
                self.done = true;
                return Ok(events);
            }
            self.batches = epoch_batches(
                &self.lengths,
                self.options.batch_size.max(1),
                self.options.seed,
                self.epoch,
            );
            self.next_batch = 0;
        }
        let i = self.next_batch;
        self.next_batch += 1;
        let rows = self.batches[i].clone();
        let labels = self.labels;
        let n = rows.len();
        let Some((batch, sorted_targets)) = self.padded_batch(&rows) else {
            return Ok(events);
        };
        let (ids, pos, mask) = batch.tensors(&self.autodiff);
        let logits = self.network.forward(ids, pos, mask);
        let target =
            Tensor::<2>::from_data(TensorData::new(sorted_targets, [n, labels]), &self.autodiff);
        let loss = cross_entropy_with_logits(logits, target);
        let loss_value =
            loss.clone()
                .inner()
                .into_scalar_async::<f32>()
                .await
                .map_err(|e| format!("reading the loss failed: {e:?}"))? as f64;
        if !loss_value.is_finite() {
            return Err(format!(
                "the loss became {loss_value} at step {}",
                self.outcome.steps + 1
            ));
        }
        let mut grads = loss.backward();
        let lr = learning_rate(
            self.outcome.steps,
            self.total,
            self.warmup,
            self.options.learning_rate,
        );
        self.optimizer.step(&mut self.params, &mut grads, lr);
        self.network = self
            .params
            .network(&self.config)
            .map_err(|e| e.to_string())?;
        self.outcome.steps += 1;
        self.outcome.examples_seen += n;
        self.window.0 += loss_value;
        self.window.1 += 1;
        let steps = self.outcome.steps;
        if steps.is_multiple_of(self.options.log_every.max(1)) || steps == self.total {
            let secs = ((self.clock)() - self.started).max(1e-9);
            let mean = self.window.0 / self.window.1 as f64;
            if self.outcome.first_loss.is_nan() {
                self.outcome.first_loss = mean;
            }
            self.outcome.last_loss = mean;
            events.push(Event::Step {
                step: steps,
                total: self.total,
                loss: mean,
                learning_rate: lr,
                steps_per_second: steps as f64 / secs,
                examples_per_second: self.outcome.examples_seen as f64 / secs,
            });
            self.window = (0.0, 0);
        }
        if self.eval_at.contains(&(i + 1)) || steps == self.total {
            let (acc, bytes) = self.evaluate().await?;
            let best = acc > self.outcome.best_accuracy;
            self.outcome.evals.push((steps, acc));
            events.push(Event::Eval {
                step: steps,
                epoch: self.epoch as f64 + (i + 1) as f64 / self.per_epoch as f64,
                accuracy: acc,
                best,
            });
            if best {
                self.outcome.best_accuracy = acc;
                self.outcome.best_step = steps;
                self.outcome.best_epoch = self.epoch + 1;
                self.outcome.weights = bytes;
                self.since_best = 0;
            } else {
                self.since_best += 1;
                if self.since_best >= self.options.patience.max(1) {
                    self.outcome.stopped = format!(
                        "early stop: no better dev accuracy in {} evaluation(s)",
                        self.since_best
                    );
                    self.done = true;
                }
            }
        }
        if steps >= self.total && !self.done {
            if self.total < self.per_epoch * self.options.epochs.max(1) {
                self.outcome.stopped = format!("step limit {} reached", self.total);
            }
            self.done = true;
        }
        Ok(events)
    }

    /// Training rows `rows` as one padded batch, with their one-hot targets in the batch's
    /// row order (`None` for no rows).
    fn padded_batch(&self, rows: &[usize]) -> Option<(Batch, Vec<f32>)> {
        let labels = self.labels;
        let encoded: Vec<EncodedPair> = rows.iter().map(|&r| self.train[r].encoded()).collect();
        let mut targets = vec![0.0f32; rows.len() * labels];
        for (k, &r) in rows.iter().enumerate() {
            targets[k * labels + self.train[r].label] = 1.0;
        }
        let pad = self.config.pad_token_id as u32;
        let batch = plan_batches(&encoded, rows.len(), pad, |_| usize::MAX)
            .into_iter()
            .next()?;
        // plan_batches sorts rows by length: reorder the targets the same way.
        let mut sorted_targets = Vec::with_capacity(targets.len());
        for &k in &batch.rows {
            sorted_targets.extend_from_slice(&targets[k * labels..(k + 1) * labels]);
        }
        Some((batch, sorted_targets))
    }

    /// Dev accuracy of the current weights, with the weights as `model.safetensors` bytes.
    async fn evaluate(&self) -> Result<(f64, Vec<u8>), String> {
        let bytes = to_safetensors_async(&self.params).await?;
        let eval_net =
            load_weights(&self.config, &bytes, &self.plain).map_err(|e| e.to_string())?;
        let acc = accuracy(
            &predict_async(&eval_net, &self.config, &self.dev, 32).await?,
            &self.dev,
        );
        Ok((acc, bytes))
    }

    /// The outcome: the best checkpoint (or, when no evaluation ran, the current weights with
    /// their dev accuracy).
    pub async fn finish(mut self) -> Result<TrainOutcome, String> {
        if self.outcome.weights.is_empty() {
            let (acc, bytes) = self.evaluate().await?;
            self.outcome.evals.push((self.outcome.steps, acc));
            self.outcome.best_accuracy = acc;
            self.outcome.best_step = self.outcome.steps;
            self.outcome.best_epoch = self.outcome.steps.div_ceil(self.per_epoch.max(1));
            self.outcome.weights = bytes;
        }
        Ok(self.outcome)
    }
}

/// Seconds since the first call (native only): the clock [`train`] gives [`Trainer`].
#[cfg(not(target_family = "wasm"))]
pub fn native_clock() -> f64 {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// Trains to the end with [`Trainer`], blocking (native only): the CLI's `tabprobe train`.
#[cfg(not(target_family = "wasm"))]
pub fn train(
    config: &RobertaConfig,
    weights: &[u8],
    train: &[LabelledPair],
    dev: &[LabelledPair],
    options: &TrainOptions,
    device: &Device,
    on_event: &mut dyn FnMut(&Event),
) -> Result<TrainOutcome, String> {
    let mut trainer = Trainer::new(
        config,
        weights,
        train.to_vec(),
        dev.to_vec(),
        options,
        device,
        native_clock,
    )?;
    futures_lite::future::block_on(async {
        while !trainer.is_done() {
            for event in trainer.step().await? {
                on_event(&event);
            }
        }
        trainer.finish().await
    })
}
