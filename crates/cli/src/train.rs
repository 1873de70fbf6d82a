//! `tabprobe train`: the project's own demo models, trained on INFOTABS train with the model
//! crate's trainer (or fine-tuned from a folder) and written in the Hugging Face layout
//! (`config.json`, `model.safetensors`, `tokenizer.json`) with a `training.json` record.

use std::path::PathBuf;
use std::time::Instant;
use tabprobe_core::checkpoint::{CheckpointFiles, TokenizerFiles, CONFIG_JSON, TOKENIZER_JSON};

use clap::Args;
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::scoring::PairOrder;
use tabprobe_model::train::{self, Event, LabelledPair, TrainOptions, TrainOutcome};
use tabprobe_model::{Device, PairTokenizer, RobertaConfig};

use crate::infotabs_split::{parse_premise, read_split, TextPair};
use crate::io;

/// `tabprobe train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The INFOTABS `data` folder.
    #[arg(long, default_value = "../shared/data/infotabs/data")]
    pub infotabs: PathBuf,
    /// The premise: `none` (hypothesis-only) or a linearization (`paragraph`, …).
    #[arg(long, default_value = "paragraph")]
    pub linearization: String,
    /// `tokenizer.json` for a new model (from `train-tokenizer`).
    #[arg(long, required_unless_present = "init_from")]
    pub tokenizer: Option<PathBuf>,
    /// Fine-tune this Hugging Face folder instead of starting from scratch.
    #[arg(long)]
    pub init_from: Option<PathBuf>,
    /// New model: hidden size.
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// New model: layers.
    #[arg(long, default_value_t = 2)]
    pub layers: usize,
    /// New model: attention heads.
    #[arg(long, default_value_t = 4)]
    pub heads: usize,
    /// New model: feed-forward width.
    #[arg(long, default_value_t = 512)]
    pub intermediate: usize,
    /// New model: longest input in tokens (the premise is truncated to fit).
    #[arg(long, default_value_t = 256)]
    pub max_tokens: usize,
    /// Passes over the training pairs (at most; early stopping may end sooner).
    #[arg(long, default_value_t = 3)]
    pub epochs: usize,
    /// Pairs per step.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Peak learning rate.
    #[arg(long, default_value_t = 5e-4)]
    pub lr: f64,
    /// Fraction of steps spent warming up.
    #[arg(long, default_value_t = 0.06)]
    pub warmup: f64,
    /// AdamW weight decay (matrices only).
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f32,
    /// Global gradient-norm clip.
    #[arg(long, default_value_t = 1.0)]
    pub max_grad_norm: f32,
    /// Dev evaluations per epoch.
    #[arg(long, default_value_t = 2)]
    pub evals_per_epoch: usize,
    /// Early stopping: evaluations without improvement before stopping.
    #[arg(long, default_value_t = 3)]
    pub patience: usize,
    /// Seeds initialisation and shuffling.
    #[arg(long, default_value_t = 13)]
    pub seed: u64,
    /// Stop after this many steps (short runs).
    #[arg(long)]
    pub max_steps: Option<usize>,
    /// Use only the first N training pairs (short runs).
    #[arg(long)]
    pub train_limit: Option<usize>,
    /// Evaluate on only the first N dev pairs (short runs).
    #[arg(long)]
    pub dev_limit: Option<usize>,
    /// Progress line every N steps.
    #[arg(long, default_value_t = 20)]
    pub log_every: usize,
    /// Output folder (Hugging Face layout).
    #[arg(long)]
    pub out: PathBuf,
}

/// The config of a new model sized by the flags, with the tokenizer's vocabulary and
/// tabprobe's label order (ENTAILMENT, NEUTRAL, CONTRADICTION).
fn new_config(args: &TrainArgs, vocab_size: usize) -> Result<RobertaConfig, String> {
    let json = serde_json::json!({
        "architectures": ["RobertaForSequenceClassification"],
        "model_type": "roberta",
        "vocab_size": vocab_size,
        "hidden_size": args.hidden,
        "num_hidden_layers": args.layers,
        "num_attention_heads": args.heads,
        "intermediate_size": args.intermediate,
        "hidden_act": "gelu",
        // Trained without dropout (deterministic steps); transformers reads these only in training.
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "classifier_dropout": null,
        // RoBERTa's positions start after the padding id: 2 extra rows.
        "max_position_embeddings": args.max_tokens + 2,
        "type_vocab_size": 1,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-5,
        "pad_token_id": 1,
        "bos_token_id": 0,
        "eos_token_id": 2,
        "position_embedding_type": "absolute",
        "id2label": {"0": "ENTAILMENT", "1": "NEUTRAL", "2": "CONTRADICTION"},
        "label2id": {"ENTAILMENT": 0, "NEUTRAL": 1, "CONTRADICTION": 2},
        "problem_type": "single_label_classification",
        "torch_dtype": "float32",
    });
    let bytes = serde_json::to_vec(&json).map_err(|e| e.to_string())?;
    RobertaConfig::from_json_bytes(&bytes).map_err(|e| format!("model config: {e}"))
}

/// `config.json` text as `transformers` writes it: unset optional keys are left out (it
/// reads `"num_labels": null` as an error), except `classifier_dropout`, whose null is meaningful.
fn config_json(config: &RobertaConfig) -> Result<String, String> {
    let mut value = serde_json::to_value(config).map_err(|e| e.to_string())?;
    if let Some(map) = value.as_object_mut() {
        map.retain(|key, v| !v.is_null() || key == "classifier_dropout");
    }
    serde_json::to_string_pretty(&value).map_err(|e| e.to_string())
}

/// Tokenizes pairs premise-first (only the premise is truncated) with gold output indices.
fn encode(
    pairs: &[TextPair],
    tokenizer: &PairTokenizer,
    config: &RobertaConfig,
    what: &str,
) -> Result<Vec<LabelledPair>, String> {
    let labels = tabprobe_model::LabelMap::from_config(config).map_err(|e| e.to_string())?;
    pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ids = tokenizer
                .encode_ordered(&p.premise, &p.hypothesis, PairOrder::PremiseFirst)
                .map_err(|e| format!("{what} pair {}: {e}", i + 1))?
                .ids;
            let label = labels
                .labels
                .iter()
                .position(|l| *l == p.label)
                .ok_or_else(|| {
                    format!(
                        "{what} pair {}: the model has no {:?} output",
                        i + 1,
                        p.label
                    )
                })?;
            Ok(LabelledPair { ids, label })
        })
        .collect()
}

/// CPU time of this process so far (user + system), from `/proc/self/stat` (Linux).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    // Clock ticks per second are 100 on Linux/x86-64 (USER_HZ).
    Some((utime + stime) / 100.0)
}

/// Trains a model and writes its folder.
pub fn run_train(args: &TrainArgs) -> Result<(), String> {
    let wall = Instant::now();
    let premise = parse_premise(&args.linearization)?;
    let (config, weights, tokenizer_json) = starting_point(args)?;
    let tokenizer = PairTokenizer::from_json_bytes(&tokenizer_json, config.max_tokens())
        .map_err(|e| format!("tokenizer: {e}"))?;
    let train_text = read_split(&args.infotabs, "train", premise, args.train_limit)?;
    let dev_text = read_split(&args.infotabs, "dev", premise, args.dev_limit)?;
    let train_pairs = encode(&train_text, &tokenizer, &config, "train")?;
    let dev_pairs = encode(&dev_text, &tokenizer, &config, "dev")?;
    let tokens: usize = train_pairs.iter().map(|p| p.ids.len()).sum();
    eprintln!(
        "{} train pairs ({:.1} tokens on average), {} dev pairs; {} layers × {} hidden, vocabulary {}",
        train_pairs.len(),
        tokens as f64 / train_pairs.len().max(1) as f64,
        dev_pairs.len(),
        config.num_hidden_layers,
        config.hidden_size,
        config.vocab_size
    );
    let outcome = train::train(
        &config,
        &weights,
        &train_pairs,
        &dev_pairs,
        &train_options(args),
        &Device::flex(),
        &mut log_event,
    )?;
    let wall_seconds = wall.elapsed().as_secs_f64();
    let config_text = config_json(&config)?;
    io::write(&args.out.join("config.json"), &(config_text + "\n"))?;
    let weights_path = args.out.join("model.safetensors");
    std::fs::write(&weights_path, &outcome.weights)
        .map_err(|e| format!("{}: cannot write: {e}", weights_path.display()))?;
    let tok_path = args.out.join("tokenizer.json");
    std::fs::write(&tok_path, &tokenizer_json)
        .map_err(|e| format!("{}: cannot write: {e}", tok_path.display()))?;
    let pairs = (train_pairs.len(), dev_pairs.len());
    let record = training_record(args, premise, pairs, &outcome, wall_seconds);
    let record_text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
    io::write(&args.out.join("training.json"), &(record_text + "\n"))?;
    println!(
        "wrote {}: best dev accuracy {:.2}% at step {} of {} ({}); {:.0} s wall, {} s CPU",
        args.out.display(),
        outcome.best_accuracy * 100.0,
        outcome.best_step,
        outcome.steps,
        outcome.stopped,
        wall_seconds,
        record.cpu_seconds.map_or("?".into(), |c| format!("{c:.0}"))
    );
    Ok(())
}

/// What training starts from: the config, weights and tokenizer.json of `--init-from`, or a
/// new model's config for `--tokenizer`'s vocabulary with seeded initial weights.
fn starting_point(args: &TrainArgs) -> Result<(RobertaConfig, Vec<u8>, Vec<u8>), String> {
    match &args.init_from {
        Some(dir) => {
            let CheckpointFiles {
                config_json,
                weights,
                tokenizer: TokenizerFiles::Json(tokenizer_json),
                ..
            } = crate::probe::read_checkpoint(dir)?.files
            else {
                return Err(format!(
                    "{}: --init-from needs tokenizer.json (the new folder gets a copy of it)",
                    dir.display()
                ));
            };
            let config = RobertaConfig::from_json_bytes(&config_json)
                .map_err(|e| format!("{}: {e}", dir.join(CONFIG_JSON).display()))?;
            Ok((config, weights, tokenizer_json))
        }
        None => {
            let path = args
                .tokenizer
                .as_ref()
                .ok_or("--tokenizer is required for a new model")?;
            // Held to a tokenizer.json's ceiling, whatever the file is called.
            let bytes = crate::io::read_model_file(path, TOKENIZER_JSON)?;
            let tok = PairTokenizer::from_json_bytes(&bytes, args.max_tokens)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let config = new_config(args, tok.vocab_size())?;
            let weights = train::initial_weights(&config, args.seed)?;
            Ok((config, weights, bytes))
        }
    }
}

/// The training loop's options, from the command line.
fn train_options(args: &TrainArgs) -> TrainOptions {
    TrainOptions {
        epochs: args.epochs,
        batch_size: args.batch_size,
        learning_rate: args.lr,
        warmup_fraction: args.warmup,
        weight_decay: args.weight_decay,
        max_grad_norm: args.max_grad_norm,
        evals_per_epoch: args.evals_per_epoch,
        patience: args.patience,
        seed: args.seed,
        max_steps: args.max_steps,
        log_every: args.log_every,
    }
}

/// Says on stderr what the training loop reports: steps (loss, learning rate, speed) and dev
/// evaluations.
fn log_event(e: &Event) {
    match e {
        Event::Step {
            step,
            total,
            loss,
            learning_rate,
            steps_per_second,
            examples_per_second,
        } => eprintln!(
            "step {step}/{total}  loss {loss:.4}  lr {learning_rate:.2e}  {steps_per_second:.2} steps/s  {examples_per_second:.1} pairs/s"
        ),
        Event::Eval {
            step,
            epoch,
            accuracy,
            best,
        } => eprintln!(
            "eval at step {step} (epoch {epoch:.2}): dev accuracy {:.2}%{}",
            accuracy * 100.0,
            if *best { "  (best so far, kept)" } else { "" }
        ),
    }
}

/// The `training.json` record of a finished training: the command, its settings, the
/// (train, dev) pair counts and what the loop reported.
fn training_record(
    args: &TrainArgs,
    premise: LinearizeSettings,
    (train_pairs, dev_pairs): (usize, usize),
    outcome: &TrainOutcome,
    wall_seconds: f64,
) -> crate::model_card::TrainingRecord {
    crate::model_card::TrainingRecord {
        // Named `tabprobe` whatever path ran it, so the record is the same on every machine.
        command: std::iter::once("tabprobe".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        init_from: args.init_from.as_ref().map(|p| p.display().to_string()),
        linearization: premise.name().to_string(),
        train_pairs,
        dev_pairs,
        seed: args.seed,
        epochs: args.epochs,
        batch_size: args.batch_size,
        learning_rate: args.lr,
        warmup_fraction: args.warmup,
        weight_decay: args.weight_decay,
        max_grad_norm: args.max_grad_norm,
        dropout: "none".into(),
        steps: outcome.steps,
        examples_seen: outcome.examples_seen,
        best_step: outcome.best_step,
        best_dev_accuracy: outcome.best_accuracy,
        evals: outcome.evals.clone(),
        first_loss: outcome.first_loss,
        last_loss: outcome.last_loss,
        stopped: outcome.stopped.clone(),
        wall_seconds,
        cpu_seconds: cpu_seconds(),
        examples_per_second: outcome.examples_seen as f64 / wall_seconds.max(1e-9),
    }
}
