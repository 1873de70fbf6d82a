//! The training loop: seeded shuffling into length-bucketed batches, cross-entropy on the
//! `<s>` logits, AdamW steps, periodic dev accuracy with early stopping, and the best
//! checkpoint kept as `model.safetensors` bytes.

use std::time::Instant;

use burn::prelude::*;
use burn::tensor::loss::cross_entropy_with_logits;
use tabprobe_core::rng::Rng;

use crate::batch::{max_rows_within_budget, plan_batches};
use crate::classifier::RobertaForSequenceClassification;
use crate::config::RobertaConfig;
use crate::loader::load_weights;
use crate::tokenize::EncodedPair;
use crate::train::optimize::{learning_rate, track, AdamWSteps};
use crate::train::params::to_safetensors;

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

/// The model's output index with the highest logit for every pair (first index on ties).
pub fn predict(
    network: &RobertaForSequenceClassification,
    config: &RobertaConfig,
    pairs: &[LabelledPair],
    batch_size: usize,
) -> Result<Vec<usize>, String> {
    let encoded: Vec<EncodedPair> = pairs
        .iter()
        .map(|p| EncodedPair {
            type_ids: Vec::new(),
            ids: p.ids.clone(),
            truncated: false,
            premise_tokens_dropped: 0,
        })
        .collect();
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
            .into_data()
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

/// Trains the model `weights` (a `model.safetensors` of shape `config`: a fresh one from
/// [`super::initial_weights`] or a checkpoint to fine-tune) on `train` and returns the
/// checkpoint with the best accuracy on `dev`. `device` is the plain device (e.g.
/// `Device::flex()`); training runs on its autodiff wrapper. Dropout is not applied (every
/// forward is deterministic), so overfitting is held back by early stopping alone.
pub fn train(
    config: &RobertaConfig,
    weights: &[u8],
    train: &[LabelledPair],
    dev: &[LabelledPair],
    options: &TrainOptions,
    device: &Device,
    on_event: &mut dyn FnMut(&Event),
) -> Result<TrainOutcome, String> {
    if train.is_empty() {
        return Err("no training pairs".into());
    }
    let plain = device.clone().without_autodiff();
    let autodiff = plain.clone().autodiff();
    let mut network = load_weights(config, weights, &autodiff).map_err(|e| e.to_string())?;
    track(&mut network);
    let labels = config.num_labels();
    if let Some(bad) = train.iter().chain(dev).find(|p| p.label >= labels) {
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
    let mut optimizer = AdamWSteps::new(options.weight_decay, options.max_grad_norm);

    let evaluate = |network: &RobertaForSequenceClassification| -> Result<(f64, Vec<u8>), String> {
        let bytes = to_safetensors(network)?;
        let eval_net = load_weights(config, &bytes, &plain).map_err(|e| e.to_string())?;
        let acc = accuracy(&predict(&eval_net, config, dev, 32)?, dev);
        Ok((acc, bytes))
    };

    let start = Instant::now();
    let mut outcome = TrainOutcome {
        weights: Vec::new(),
        best_accuracy: f64::NEG_INFINITY,
        best_step: 0,
        evals: Vec::new(),
        steps: 0,
        first_loss: f64::NAN,
        last_loss: f64::NAN,
        examples_seen: 0,
        stopped: "all epochs done".into(),
    };
    let (mut window_loss, mut window_steps, mut since_best) = (0.0f64, 0usize, 0usize);
    'epochs: for epoch in 0..options.epochs.max(1) {
        for (i, rows) in epoch_batches(&lengths, batch_size, options.seed, epoch)
            .into_iter()
            .enumerate()
        {
            if outcome.steps >= total {
                outcome.stopped = format!("step limit {total} reached");
                break 'epochs;
            }
            let encoded: Vec<EncodedPair> = rows
                .iter()
                .map(|&r| EncodedPair {
                    type_ids: Vec::new(),
                    ids: train[r].ids.clone(),
                    truncated: false,
                    premise_tokens_dropped: 0,
                })
                .collect();
            let mut targets = vec![0.0f32; rows.len() * labels];
            for (k, &r) in rows.iter().enumerate() {
                targets[k * labels + train[r].label] = 1.0;
            }
            let n = rows.len();
            let batches = plan_batches(&encoded, n, config.pad_token_id as u32, |_| usize::MAX);
            let Some(batch) = batches.into_iter().next() else {
                continue;
            };
            // plan_batches sorts rows by length: reorder the targets the same way.
            let mut sorted_targets = Vec::with_capacity(targets.len());
            for &k in &batch.rows {
                sorted_targets.extend_from_slice(&targets[k * labels..(k + 1) * labels]);
            }
            let (ids, pos, mask) = batch.tensors(&autodiff);
            let logits = network.forward(ids, pos, mask);
            let target =
                Tensor::<2>::from_data(TensorData::new(sorted_targets, [n, labels]), &autodiff);
            let loss = cross_entropy_with_logits(logits, target);
            let loss_value = loss.clone().inner().into_scalar::<f32>() as f64;
            if !loss_value.is_finite() {
                return Err(format!(
                    "the loss became {loss_value} at step {}",
                    outcome.steps + 1
                ));
            }
            let mut grads = loss.backward();
            let lr = learning_rate(outcome.steps, total, warmup, options.learning_rate);
            optimizer.step(&mut network, &mut grads, lr);
            outcome.steps += 1;
            outcome.examples_seen += n;
            window_loss += loss_value;
            window_steps += 1;
            if outcome.steps.is_multiple_of(options.log_every.max(1)) || outcome.steps == total {
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                let mean = window_loss / window_steps as f64;
                if outcome.first_loss.is_nan() {
                    outcome.first_loss = mean;
                }
                outcome.last_loss = mean;
                on_event(&Event::Step {
                    step: outcome.steps,
                    total,
                    loss: mean,
                    learning_rate: lr,
                    steps_per_second: outcome.steps as f64 / secs,
                    examples_per_second: outcome.examples_seen as f64 / secs,
                });
                (window_loss, window_steps) = (0.0, 0);
            }
            if eval_at.contains(&(i + 1)) || outcome.steps == total {
                let (acc, bytes) = evaluate(&network)?;
                let best = acc > outcome.best_accuracy;
                outcome.evals.push((outcome.steps, acc));
                on_event(&Event::Eval {
                    step: outcome.steps,
                    epoch: epoch as f64 + (i + 1) as f64 / per_epoch as f64,
                    accuracy: acc,
                    best,
                });
                if best {
                    outcome.best_accuracy = acc;
                    outcome.best_step = outcome.steps;
                    outcome.weights = bytes;
                    since_best = 0;
                } else {
                    since_best += 1;
                    if since_best >= options.patience.max(1) {
                        outcome.stopped = format!(
                            "early stop: no better dev accuracy in {since_best} evaluation(s)"
                        );
                        break 'epochs;
                    }
                }
            }
        }
    }
    if outcome.weights.is_empty() {
        let (acc, bytes) = evaluate(&network)?;
        outcome.evals.push((outcome.steps, acc));
        outcome.best_accuracy = acc;
        outcome.best_step = outcome.steps;
        outcome.weights = bytes;
    }
    Ok(outcome)
}
