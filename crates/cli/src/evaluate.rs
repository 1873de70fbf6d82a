//! `tabprobe evaluate`: a model's accuracy per INFOTABS split next to the majority
//! baseline, optionally with every pair's logits (for `scripts/interop_check.py`) and the
//! model card.

use std::path::{Path, PathBuf};

use clap::Args;
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_core::Label;
use tabprobe_model::Device;

use crate::infotabs_split::{parse_premise, read_split, SplitResult, SPLITS};
use crate::io;

/// `tabprobe evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// The model folder (Hugging Face layout).
    #[arg(long)]
    pub model: PathBuf,
    /// The INFOTABS `data` folder.
    #[arg(long, default_value = "../shared/data/infotabs/data")]
    pub infotabs: PathBuf,
    /// The premise: `none` (hypothesis-only) or a linearization.
    #[arg(long, default_value = "paragraph")]
    pub linearization: String,
    /// Splits to score, comma-separated.
    #[arg(long, default_value = "dev,test_alpha1,test_alpha2,test_alpha3")]
    pub splits: String,
    /// Score only the first N pairs of each split.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write one JSON line per scored pair (premise, hypothesis, input ids, logits in the
    /// model's order) here — the input of `scripts/interop_check.py`.
    #[arg(long)]
    pub logits: Option<PathBuf>,
    /// Write the model card (README.md) here, from the model's `training.json` and the
    /// accuracies just measured.
    #[arg(long)]
    pub card: Option<PathBuf>,
    /// The card's title.
    #[arg(long, default_value = "tabprobe demo model")]
    pub name: String,
    /// Another model folder whose `evaluation.json` the card shows beside this model's.
    #[arg(long)]
    pub compare: Option<PathBuf>,
    /// That model's name in the card.
    #[arg(long, default_value = "other model")]
    pub compare_name: String,
}

/// Train's most frequent label (ties: the first in E, N, C order).
fn majority_label(infotabs: &Path) -> Result<Label, String> {
    let train = read_split(infotabs, "train", LinearizeSettings::no_premise(), None)?;
    let count = |l: Label| train.iter().filter(|p| p.label == l).count();
    Ok(Label::ALL.into_iter().fold(
        Label::Entail,
        |best, l| if count(l) > count(best) { l } else { best },
    ))
}

/// Scores the splits and prints accuracy and the majority baseline per split.
pub fn run_evaluate(args: &EvaluateArgs) -> Result<(), String> {
    let premise = parse_premise(&args.linearization)?;
    let mut model = crate::probe::load_model(&args.model, &Device::flex())?;
    model.set_batch_size(32);
    let majority = majority_label(&args.infotabs)?;
    let mut results = Vec::new();
    let mut lines = String::new();
    println!(
        "split         pairs  accuracy  majority ({})",
        majority.as_str()
    );
    for split in args
        .splits
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        if !SPLITS.contains(&split) {
            return Err(format!(
                "--splits: unknown split {split:?}; expected {}",
                SPLITS.join(", ")
            ));
        }
        let pairs = read_split(&args.infotabs, split, premise, args.limit)?;
        let inputs: Vec<Pair> = pairs
            .iter()
            .map(|p| Pair {
                premise: p.premise.clone(),
                hypothesis: p.hypothesis.clone(),
                order: PairOrder::PremiseFirst,
            })
            .collect();
        let scores = model
            .score_blocking(&inputs)
            .map_err(|e| format!("{split}: {e}"))?;
        let mut right = 0;
        for ((p, s), input) in pairs.iter().zip(&scores).zip(&inputs) {
            let best = (0..3).fold(0, |b, i| if s.probs[i] > s.probs[b] { i } else { b });
            if Label::ALL[best] == p.label {
                right += 1;
            }
            if args.logits.is_some() {
                let ids = model.encode_pair(input).map_err(|e| e.to_string())?.ids;
                let line = serde_json::json!({
                    "split": split, "premise": p.premise, "hypothesis": p.hypothesis,
                    "input_ids": ids, "logits": s.logits,
                });
                lines.push_str(&line.to_string());
                lines.push('\n');
            }
        }
        let n = pairs.len().max(1) as f64;
        let result = SplitResult {
            split: split.to_string(),
            pairs: pairs.len(),
            accuracy: right as f64 / n,
            majority_baseline: pairs.iter().filter(|p| p.label == majority).count() as f64 / n,
        };
        println!(
            "{:<12} {:>6}  {:>7.2}%  {:>7.2}%",
            result.split,
            result.pairs,
            result.accuracy * 100.0,
            result.majority_baseline * 100.0
        );
        results.push(result);
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
        io::write(path, &(text + "\n"))?;
    }
    if let Some(path) = &args.logits {
        io::write(path, &lines)?;
    }
    if let Some(path) = &args.card {
        let training_path = args.model.join("training.json");
        let training: crate::model_card::TrainingRecord =
            io::parse_json(&training_path, &io::read_text(&training_path)?)?;
        let compare = match &args.compare {
            Some(dir) => {
                let p = dir.join("evaluation.json");
                Some(crate::model_card::Comparison {
                    name: args.compare_name.clone(),
                    results: io::parse_json(&p, &io::read_text(&p)?)?,
                })
            }
            None => None,
        };
        let card = crate::model_card::render(
            &args.name,
            &args.model,
            model.encoder_config().ok_or_else(|| {
                format!(
                    "model cards are written for the models tabprobe trains (RoBERTa); {} is {}",
                    args.model.display(),
                    model.shape().family.display_name()
                )
            })?,
            &training,
            &results,
            compare.as_ref(),
        )?;
        io::write(path, &card)?;
    }
    Ok(())
}
