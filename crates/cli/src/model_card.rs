//! The model card (`README.md`) written beside a demo model by `tabprobe evaluate --card`:
//! architecture, tokenizer, data, how it was trained and how long it took, and the accuracies
//! just measured next to the majority baseline and, optionally, another model's.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tabprobe_model::families::encoder::walk::expected_shapes;
use tabprobe_model::RobertaConfig;

use crate::infotabs_split::SplitResult;

/// `training.json`, written beside a checkpoint by `tabprobe train` and read back for its card.
#[derive(Debug, Serialize, Deserialize)]
pub struct TrainingRecord {
    /// The command line of the run (program named `tabprobe`).
    pub command: String,
    /// The checkpoint fine-tuned, if any (else the weights were initialised from the seed).
    #[serde(default)]
    pub init_from: Option<String>,
    /// `paragraph`, `none`, …
    pub linearization: String,
    /// Training pairs.
    pub train_pairs: usize,
    /// Dev pairs used for early stopping.
    pub dev_pairs: usize,
    /// Seed of initialisation and shuffling.
    pub seed: u64,
    /// Epochs planned.
    pub epochs: usize,
    /// Pairs per step.
    pub batch_size: usize,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// Warm-up fraction.
    pub warmup_fraction: f64,
    /// AdamW weight decay.
    pub weight_decay: f32,
    /// Global gradient-norm clip.
    pub max_grad_norm: f32,
    /// Dropout used (`none`: every step is deterministic).
    pub dropout: String,
    /// Steps run.
    pub steps: usize,
    /// Training pairs processed.
    pub examples_seen: usize,
    /// Step of the kept checkpoint.
    pub best_step: usize,
    /// Its dev accuracy.
    pub best_dev_accuracy: f64,
    /// Every evaluation as (step, dev accuracy).
    pub evals: Vec<(usize, f64)>,
    /// Mean loss of the first logged window.
    pub first_loss: f64,
    /// Mean loss of the last logged window.
    pub last_loss: f64,
    /// Why training ended.
    pub stopped: String,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
    /// CPU seconds of the run.
    pub cpu_seconds: Option<f64>,
    /// Training pairs per wall-clock second.
    pub examples_per_second: f64,
}

/// Another model's results, shown in the same table.
pub struct Comparison {
    /// Its name in the table.
    pub name: String,
    /// Its per-split results.
    pub results: Vec<SplitResult>,
}

fn split_label(split: &str) -> &str {
    match split {
        "test_alpha1" => "α1 (test)",
        "test_alpha2" => "α2 (adversarial)",
        "test_alpha3" => "α3 (other domains)",
        other => other,
    }
}

fn pct(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

/// The recorded command with the program named `tabprobe` (the run may have used any path).
fn command_line(recorded: &str) -> String {
    match recorded.split_once(' ') {
        Some((_, args)) => format!("tabprobe {args}"),
        None => "tabprobe".to_string(),
    }
}

/// Renders the card as Markdown (plain text is readable as it is).
pub fn render(
    name: &str,
    model_dir: &Path,
    config: &RobertaConfig,
    training: &TrainingRecord,
    results: &[SplitResult],
    compare: Option<&Comparison>,
) -> Result<String, String> {
    let weights_path = model_dir.join("model.safetensors");
    let weight_bytes = std::fs::metadata(&weights_path)
        .map_err(|e| format!("{}: {e}", weights_path.display()))?
        .len();
    let params: usize = expected_shapes(config)
        .values()
        .map(|s| s.iter().product::<usize>())
        .sum();
    let reads_no_premise =
        tabprobe_core::linearize::LinearizeSettings::from_name(&training.linearization)
            .is_some_and(|l| l.hypothesis_only());
    let premise = match training.linearization.as_str() {
        _ if reads_no_premise => "none — the premise is empty, the model sees `<s> hypothesis </s>` only (a hypothesis-only baseline: whatever it gets right, it gets right without the table)".to_string(),
        other => format!("the table linearized by core's `{other}` strategy, then the hypothesis: `<s> premise </s></s> hypothesis </s>`, the premise truncated to fit"),
    };
    let mut s = String::new();
    s += &format!("# {name}\n\n");
    s += "A small RoBERTa NLI classifier trained by tabprobe's own Rust trainer (`tabprobe train`: burn \
autodiff on the CPU) with **no pretrained weights** — none can be fetched where the project is built — so \
this is a **weak model**: it has read INFOTABS' 16,538 training pairs and nothing else. It is bundled so \
the site runs with no download and the probes have something real to examine. Where the full model does \
no better than the hypothesis-only one (table below), it is barely using the table; the probes show where.\n\n";
    s += "## Accuracy (as measured by `tabprobe evaluate`)\n\n";
    match compare {
        Some(c) => {
            s += &format!("| split | pairs | this model | {} | majority baseline |\n|---|---:|---:|---:|---:|\n", c.name);
            for r in results {
                let other = c
                    .results
                    .iter()
                    .find(|o| o.split == r.split)
                    .map_or("—".to_string(), |o| pct(o.accuracy));
                s += &format!(
                    "| {} | {} | {} | {} | {} |\n",
                    split_label(&r.split),
                    r.pairs,
                    pct(r.accuracy),
                    other,
                    pct(r.majority_baseline)
                );
            }
        }
        None => {
            s += "| split | pairs | this model | majority baseline |\n|---|---:|---:|---:|\n";
            for r in results {
                s += &format!(
                    "| {} | {} | {} | {} |\n",
                    split_label(&r.split),
                    r.pairs,
                    pct(r.accuracy),
                    pct(r.majority_baseline)
                );
            }
        }
    }
    s += "\nAccuracy: the share of pairs whose most probable label is the gold label. Majority baseline: \
the share of pairs whose gold label is the most frequent label of INFOTABS train (always guessing it). \
INFOTABS splits are balanced, so the baseline is about 33%.\n\n";
    s += "## Architecture\n\n";
    s += &format!(
        "`RobertaForSequenceClassification` (Hugging Face layout, loads in `transformers`): {} layers, hidden size {}, \
{} attention heads, feed-forward {} ({}), at most {} tokens ({} position rows), vocabulary {}, labels {}. \
{} parameters; `model.safetensors` is f32, {} bytes.\n\n",
        config.num_hidden_layers,
        config.hidden_size,
        config.num_attention_heads,
        config.intermediate_size,
        serde_json::to_value(config.hidden_act)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        config.max_tokens(),
        config.max_position_embeddings,
        config.vocab_size,
        config
            .id2label
            .as_ref()
            .map(|m| m.values().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default(),
        params,
        weight_bytes
    );
    s += "## Tokenizer\n\n";
    s += &format!(
        "Byte-level BPE with {} entries, trained by `tabprobe train-tokenizer` (the `tokenizers` crate's BPE trainer) \
on INFOTABS train: every hypothesis and every table's paragraph. RoBERTa's special tokens \
`<s> <pad> </s> <unk> <mask>` are ids 0–4; RoBERTa post-processor. The same `tokenizer.json` serves both demo models.\n\n",
        config.vocab_size
    );
    s += "## Data\n\n";
    s += &format!(
        "INFOTABS (Gupta, Mehta, Nokhiz, Srikumar, ACL 2020; Apache-2.0; tables from Wikipedia infoboxes, CC BY-SA): \
the train split, {} pairs, premise-first. Premise: {}. Early stopping used dev (1,800 pairs); α1, α2 and α3 \
were never seen in training.\n\n",
        training.train_pairs, premise
    );
    s += "## Training\n\n";
    s += &format!(
        "- Retrain both demo models from scratch: `scripts/train-demo-models.sh`. This model's run: `{}`.\n\
- {}\n\
- Seed {} (initialisation and shuffling); no dropout, so the same seed gives the same weights.\n\
- AdamW (β 0.9/0.999, ε 1e-8, weight decay {} on matrices), peak learning rate {}, linear warm-up over {}% of the steps then linear decay, \
gradient clipping at global norm {}, batch {}, at most {} epochs, dev accuracy twice per epoch with early stopping.\n\
- Ran {} steps ({}); kept the checkpoint of step {} (best dev accuracy).\n\
- Time: {:.0} s wall, {} CPU, {:.1} training pairs/s, on a shared 2-core machine.\n",
        command_line(&training.command),
        match &training.init_from {
            Some(dir) => format!(
                "Initialised from the checkpoint in `{dir}` (trained from scratch by the same script) and fine-tuned: \
a first run from scratch with table premises (4 layers, peak learning rate 5e-4) was still at chance \
(loss ln 3, dev 33.3%) after 400 steps, so the premise is added to a model that has already learnt from the hypotheses."
            ),
            None => "Initialised at random from the seed (as `transformers` initialises RoBERTa).".to_string(),
        },
        training.seed,
        training.weight_decay,
        training.learning_rate,
        training.warmup_fraction * 100.0,
        training.max_grad_norm,
        training.batch_size,
        training.epochs,
        training.steps,
        training.stopped,
        training.best_step,
        training.wall_seconds,
        training
            .cpu_seconds
            .map_or("unknown".to_string(), |c| format!("{c:.0} s")),
        training.examples_per_second
    );
    s += "\n## Interoperability\n\n`python3 scripts/interop_check.py` loads this folder with `transformers` and checks \
that its tokenizer gives the same ids and its logits equal tabprobe's within 1e-4 on 50 dev pairs.\n";
    Ok(s)
}
