//! Inoculation by fine-tuning (docs/inoculation.md): the loaded model is evaluated, fine-tuned on every
//! nested sample of core's [`InoculationPlan`] with every learning rate of the grid (early
//! stopping on dev accuracy), the learning rate with the best dev accuracy is kept per size,
//! and each kept model is evaluated on the same pairs. One async function serves the browser
//! worker (which awaits read-backs and yields between steps through [`Pace`]) and the CLI
//! (which blocks on it).
//!
//! Training choices beyond the paper's grid (stated in docs/inoculation.md#what-is-computed): AdamW with `transformers`'
//! defaults (β 0.9/0.999, ε 1e-8, no weight decay, gradient norm clipped at 1), the learning
//! rate decaying linearly to 0 over the planned steps without warm-up, no dropout, one dev
//! evaluation per epoch; the shuffling seed of grid run k is `seed + k`.

use tabprobe_core::inoculation::{
    GridPoint, InoculationPlan, InoculationProgress, InoculationResult, InoculationSettings,
    ModelEvaluation, Phase,
};
use tabprobe_core::run::RunResult;
use tabprobe_core::scoring::Pair;
use tabprobe_core::Label;

use crate::families::family::Family;
use crate::model::{ModelFiles, NliModel};
use crate::train::fit::{Event, LabelledPair, TrainOptions, TrainOutcome, Trainer};
use crate::Device;

/// How the caller paces a long inoculation: told of progress after every step or scored
/// chunk, it may await (the browser yields to its event loop so a cancel can land) and
/// answers whether to go on.
#[allow(async_fn_in_trait)] // driven on one thread (the worker, or the CLI's block_on)
pub trait Pace {
    /// Called after every unit of work; `false` cancels.
    async fn progress(&mut self, progress: &InoculationProgress) -> bool;

    /// The lower-case hex SHA-256 of a checkpoint's weights where the caller has a faster
    /// hash than this crate's `sha2` (the browser's Web Crypto: `sha2` runs at about 29 MB/s
    /// in wasm); `None`, the default, hashes with `sha2`.
    async fn sha256(&mut self, _weights: &[u8]) -> Option<String> {
        None
    }
}

/// Loads `files` with the caller's hash of its weights when it has one.
async fn load_hashed(
    name: &str,
    files: ModelFiles<'_>,
    device: &Device,
    pace: &mut impl Pace,
) -> Result<NliModel, String> {
    let loaded = match pace.sha256(files.weights).await {
        Some(sha256) => NliModel::load_with_sha256(name, files, sha256, device),
        None => NliModel::load(name, files, device),
    };
    loaded.map_err(|e| e.to_string())
}

/// The result and the kept checkpoint of every size.
#[derive(Debug, Clone)]
pub struct InoculationOutput {
    /// Tables, outcome and every evaluated item.
    pub result: InoculationResult,
    /// `(size, model.safetensors)` of the kept model per size, smallest first; the config and
    /// tokenizer are the loaded model's.
    pub checkpoints: Vec<(usize, Vec<u8>)>,
}

/// The message a cancelled inoculation ends with.
pub const CANCELLED: &str = "inoculation cancelled";

/// Whether this model can be fine-tuned here: the trainer holds RoBERTa's network and writes
/// RoBERTa's tensor names, which RoBERTa and XLM-RoBERTa checkpoints share.
pub fn check_trainable(model: &NliModel) -> Result<(), String> {
    match model.shape().family {
        Family::Roberta | Family::XlmRoberta => Ok(()),
        other => Err(format!(
            "inoculation fine-tunes RoBERTa and XLM-RoBERTa checkpoints; this is {} (its \
             scoring works, its training is not built yet)",
            other.display_name()
        )),
    }
}

/// `pairs` with their labels as the model's output indices, tokenized by the model.
fn labelled(base: &NliModel, pairs: Vec<(Pair, Label)>) -> Result<Vec<LabelledPair>, String> {
    let texts: Vec<Pair> = pairs.iter().map(|(p, _)| p.clone()).collect();
    let encoded = base.encode(&texts).map_err(|e| e.to_string())?;
    pairs
        .iter()
        .zip(encoded)
        .map(|((_, label), e)| {
            let index = base
                .labels()
                .labels
                .iter()
                .position(|l| l == label)
                .ok_or_else(|| format!("the model has no output for {label}"))?;
            Ok(LabelledPair {
                ids: e.ids,
                label: index,
            })
        })
        .collect()
}

/// The trainer's options for grid run `k` at learning rate `lr`.
fn grid_options(settings: &InoculationSettings, lr: f64, k: usize) -> TrainOptions {
    TrainOptions {
        epochs: settings.epochs,
        batch_size: settings.batch_size,
        learning_rate: lr,
        warmup_fraction: 0.0,
        weight_decay: 0.0,
        max_grad_norm: 1.0,
        evals_per_epoch: 1,
        patience: settings.patience.max(1),
        seed: settings.seed.wrapping_add(k as u64),
        max_steps: None,
        log_every: 1,
    }
}

/// Runs `trainer` to its end, reporting progress after every step as grid run `run` of
/// `runs` (sample size `size`, learning rate `learning_rate`) of at most `epochs` epochs;
/// `sizes` are the dev pairs evaluated and the rows of one step, counted into `work`.
async fn drive(
    trainer: &mut Trainer,
    (run, runs, size, learning_rate): (usize, usize, usize, f64),
    epochs: usize,
    (dev, rows): (usize, usize),
    work: &mut (f64, f64),
    (started, clock): (f64, fn() -> f64),
    pace: &mut impl Pace,
) -> Result<(), String> {
    let mut place = Phase::Training {
        run,
        runs,
        size,
        learning_rate,
        epoch: 0,
        epochs,
        step: 0,
        steps: trainer.total_steps(),
        loss: None,
        dev_accuracy: None,
    };
    while !trainer.is_done() {
        let before_step = trainer.steps();
        let events = trainer.step().await?;
        if let Phase::Training {
            epoch,
            step,
            loss,
            dev_accuracy,
            ..
        } = &mut place
        {
            for event in events {
                match event {
                    Event::Step { loss: l, .. } => *loss = Some(l),
                    Event::Eval { accuracy, .. } => {
                        *dev_accuracy = Some(accuracy);
                        work.0 += dev as f64;
                    }
                }
            }
            *epoch = (trainer.epoch() + 1).min(epochs);
            *step = trainer.steps();
        }
        if trainer.steps() > before_step {
            work.0 += 3.0 * rows as f64;
        }
        let progress = InoculationProgress {
            phase: place.clone(),
            work: *work,
            elapsed: clock() - started,
        };
        if !pace.progress(&progress).await {
            return Err(CANCELLED.to_string());
        }
    }
    Ok(())
}

/// The pairs every model is evaluated on.
fn evaluation_pairs(run: &RunResult, plan: &InoculationPlan) -> Result<Vec<Pair>, String> {
    InoculationResult::evaluation_pairs(run, plan)
        .iter()
        .map(|&p| run.pairs.get(p).map(|s| s.pair.clone()))
        .collect::<Option<_>>()
        .ok_or_else(|| "the run's items point past its pairs".to_string())
}

/// The grid's row of a finished run.
fn grid_point(size: usize, lr: f64, outcome: &TrainOutcome, seconds: f64) -> GridPoint {
    GridPoint {
        size,
        learning_rate: lr,
        dev_accuracy: outcome.best_accuracy,
        best_epoch: outcome.best_epoch,
        steps: outcome.steps,
        stopped: outcome.stopped.clone(),
        chosen: false,
        seconds,
    }
}

/// Planned work in forward-pair equivalents, for the remaining-time estimate: every grid
/// run's epochs over its sample (3 per training pair) and dev pairs, and every evaluation.
fn planned_work(settings: &InoculationSettings, dev: usize, eval: usize) -> f64 {
    let train_work: f64 = settings
        .sizes
        .iter()
        .map(|&n| ((3 * n + dev) * settings.epochs * settings.learning_rates.len()) as f64)
        .sum();
    train_work + (eval * (settings.sizes.len() + 1)) as f64
}

/// The loaded model's row of the result: its dev accuracy from its predictions `before`.
fn base_evaluation(
    base: &NliModel,
    run: &RunResult,
    plan: &InoculationPlan,
    before: &[Label],
) -> ModelEvaluation {
    let dev_right = plan
        .dev
        .iter()
        .filter(|&&e| {
            run.examples
                .get(e)
                .is_some_and(|ex| before.get(e) == Some(&ex.gold))
        })
        .count();
    ModelEvaluation {
        size: 0,
        learning_rate: None,
        dev_accuracy: dev_right as f64 / plan.dev.len().max(1) as f64,
        weights_sha256: base.id().weights_sha256.clone(),
    }
}

/// Runs the whole inoculation of `plan` (made from `run`) on the model in `files`. `clock`
/// gives seconds from any fixed origin (`std::time::Instant` does not run in the browser).
pub async fn inoculate(
    name: &str,
    files: ModelFiles<'_>,
    device: &Device,
    run: &RunResult,
    plan: &InoculationPlan,
    clock: fn() -> f64,
    pace: &mut impl Pace,
) -> Result<InoculationOutput, String> {
    let started = clock();
    let base = load_hashed(name, files, device, pace).await?;
    check_trainable(&base)?;
    let config = base
        .encoder_config()
        .ok_or("the model has no encoder configuration")?
        .clone();
    let settings = &plan.settings;
    let eval_pairs = evaluation_pairs(run, plan)?;
    let dev = labelled(&base, plan.dev_pairs(run))?;
    let runs = settings.sizes.len() * settings.learning_rates.len();
    let mut work = (0.0f64, planned_work(settings, dev.len(), eval_pairs.len()));

    let mut predictions: Vec<Vec<Label>> = Vec::new();
    let mut models: Vec<ModelEvaluation> = Vec::new();
    let before = score_all(&base, &eval_pairs, 0, &mut work, (started, clock), pace).await?;
    models.push(base_evaluation(&base, run, plan, &before));
    predictions.push(before);

    let mut grid: Vec<GridPoint> = Vec::new();
    let mut checkpoints = Vec::new();
    let mut k = 0usize;
    for &size in &settings.sizes {
        let train = labelled(&base, plan.training_pairs(run, size))?;
        let mut best: Option<(usize, Vec<u8>)> = None;
        for &lr in &settings.learning_rates {
            k += 1;
            let options = grid_options(settings, lr, k);
            let run_started = clock();
            let mut trainer = Trainer::new(
                &config,
                files.weights,
                train.clone(),
                dev.clone(),
                &options,
                device,
                clock,
            )?;
            let sizes = (dev.len(), settings.batch_size.min(train.len()));
            let run_at = (k, runs, size, lr);
            drive(
                &mut trainer,
                run_at,
                settings.epochs,
                sizes,
                &mut work,
                (started, clock),
                pace,
            )
            .await?;
            let outcome = trainer.finish().await?;
            let index = grid.len();
            grid.push(grid_point(size, lr, &outcome, clock() - run_started));
            let better = best
                .as_ref()
                .is_none_or(|(b, _)| outcome.best_accuracy > grid[*b].dev_accuracy);
            if better {
                best = Some((index, outcome.weights));
            }
        }
        let Some((chosen, weights)) = best else {
            continue;
        };
        grid[chosen].chosen = true;
        let point = &grid[chosen];
        let name = format!("{name} inoculated n={size}");
        let tuned = load_hashed(
            &name,
            ModelFiles {
                weights: &weights,
                ..files
            },
            device,
            pace,
        )
        .await?;
        let model_index = models.len();
        models.push(ModelEvaluation {
            size,
            learning_rate: Some(point.learning_rate),
            dev_accuracy: point.dev_accuracy,
            weights_sha256: tuned.id().weights_sha256.clone(),
        });
        let timing = (started, clock);
        let scored = score_all(&tuned, &eval_pairs, model_index, &mut work, timing, pace).await?;
        predictions.push(scored);
        checkpoints.push((size, weights));
    }
    let result = InoculationResult::assemble(
        run,
        plan,
        base.id().clone(),
        grid,
        models,
        &predictions,
        clock() - started,
    )
    .map_err(|e| e.to_string())?;
    Ok(InoculationOutput {
        result,
        checkpoints,
    })
}

/// Predicted labels of `pairs`, a batch at a time with progress in between.
async fn score_all(
    model: &NliModel,
    pairs: &[Pair],
    index: usize,
    work: &mut (f64, f64),
    (started, clock): (f64, fn() -> f64),
    pace: &mut impl Pace,
) -> Result<Vec<Label>, String> {
    let mut out = Vec::with_capacity(pairs.len());
    for chunk in pairs.chunks(model.batch_size().max(1)) {
        let scores = model.score_async(chunk).await.map_err(|e| e.to_string())?;
        if let Some(bad) = scores
            .iter()
            .position(|s| s.probs.iter().any(|p| !p.is_finite()))
        {
            return Err(format!(
                "{} gave a non-finite probability for evaluation pair {}",
                model.id().name,
                out.len() + bad
            ));
        }
        out.extend(scores.iter().map(|s| s.predicted()));
        work.0 += chunk.len() as f64;
        let progress = InoculationProgress {
            phase: Phase::Evaluating {
                model: index,
                done: out.len(),
                total: pairs.len(),
            },
            work: *work,
            elapsed: clock() - started,
        };
        if !pace.progress(&progress).await {
            return Err(CANCELLED.to_string());
        }
    }
    Ok(out)
}

/// [`inoculate`], blocking, with [`crate::train::native_clock`] (native only: the CLI).
#[cfg(not(target_family = "wasm"))]
pub fn inoculate_blocking(
    name: &str,
    files: ModelFiles<'_>,
    device: &Device,
    run: &RunResult,
    plan: &InoculationPlan,
    pace: &mut impl Pace,
) -> Result<InoculationOutput, String> {
    futures_lite::future::block_on(inoculate(
        name,
        files,
        device,
        run,
        plan,
        crate::train::native_clock,
        pace,
    ))
}
