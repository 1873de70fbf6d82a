//! Throughput benchmark (examples/s) of the NLI model: batch sizes 1, 8, 32 on the tiny golden
//! checkpoint and on a roberta-base-shaped model with random weights made in memory. The
//! measuring itself is [`tabprobe_model::bench`], which `tabprobe bench` uses too (that one
//! takes a checkpoint folder).
//!
//! Not a test: run it on a quiet machine, with the release profile (opt-level 3; the site's
//! size-optimised wasm has its own `web` profile):
//!
//! ```text
//! cargo run --release -p tabprobe-model --example bench [--features fast-cpu] -- \
//!   [--models tiny,base] [--backends flex,wgpu] [--seq 128] [--reps 3] [--batches 1,8,32] \
//!   [--budgets-mib 64] [--float f32|f16|int8]
//! ```
//!
//! `--float f16` makes f16 the wgpu device's default float type before the model loads, so
//! weights and activations are f16 (the adapter needs `shader-f16`); it then also scores eight
//! pairs of different lengths on `flex` in f32 and prints the largest logit and probability
//! differences.
//!
//! `--float int8` runs the model at the int8 precision (on `flex` only) and, like f16, prints
//! how far eight pairs land from f32.
//!
//! `--gelu-rows N` first times GELU alone on the CPU backend over an [N, 3072] activation
//! (roberta-base's feed-forward width; N = batch × seq, 1024 for batch 8 at 128 tokens): burn's
//! `gelu` beside tabprobe's pass ([`tabprobe_model::blocks::activation::gelu`]), median of `--reps`.
//!
//! `--dense-rows N` first times roberta-base's three dense shapes alone on the CPU backend,
//! `[N, k] · [k, n]`: burn's `linear` (gemm) beside tabprobe's packed product
//! ([`tabprobe_model::blocks::packed`], native `fast-cpu` builds), with GFLOP/s.
//!
//! `--budgets-mib` runs every batch size under each activation budget in turn
//! ([`NliModel::set_tensor_budget`]; the page uses 64 MiB): on a GPU a larger budget runs a
//! batch in fewer, larger passes.

use std::time::Instant;

use burn::tensor::FloatDType;
use tabprobe_model::bench::{measure, random_weights, roberta_base_config_json, synthetic_pair};
use tabprobe_model::devices::backend::device_by_name;
use tabprobe_model::{Device, ModelFiles, NliModel, RobertaConfig, TokenizerFiles};

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/tiny-f32");

struct Args {
    models: Vec<String>,
    backends: Vec<String>,
    seq: usize,
    reps: usize,
    batches: Vec<usize>,
    budgets_mib: Vec<usize>,
    float: String,
    gelu_rows: usize,
    dense_rows: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        models: vec!["tiny".into(), "base".into()],
        backends: vec!["flex".into()],
        seq: 128,
        reps: 3,
        batches: vec![1, 8, 32],
        budgets_mib: vec![64],
        float: "f32".into(),
        gelu_rows: 0,
        dense_rows: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let list = || value.split(',').map(str::to_string).collect::<Vec<_>>();
        match flag.as_str() {
            "--models" => a.models = list(),
            "--backends" => a.backends = list(),
            "--seq" => a.seq = value.parse().map_err(|e| format!("--seq: {e}"))?,
            "--reps" => a.reps = value.parse().map_err(|e| format!("--reps: {e}"))?,
            "--batches" => a.batches = numbers(&list(), "--batches")?,
            "--budgets-mib" => a.budgets_mib = numbers(&list(), "--budgets-mib")?,
            "--float" => a.float = value,
            "--dense-rows" => {
                a.dense_rows = value.parse().map_err(|e| format!("--dense-rows: {e}"))?
            }
            "--gelu-rows" => {
                a.gelu_rows = value.parse().map_err(|e| format!("--gelu-rows: {e}"))?
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

fn numbers(items: &[String], flag: &str) -> Result<Vec<usize>, String> {
    items
        .iter()
        .map(|b| b.parse().map_err(|e| format!("{flag}: {e}")))
        .collect()
}

/// Median milliseconds of `op` over `reps` runs (after one untimed).
fn median_ms(reps: usize, mut op: impl FnMut()) -> f64 {
    op();
    let mut times: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            op();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// GELU alone on the CPU backend: burn's op beside tabprobe's pass, on `[rows, 3072]`.
fn gelu_comparison(rows: usize, reps: usize) {
    use burn::tensor::{Distribution, Tensor};
    let device = Device::flex();
    let x = Tensor::<2>::random([rows, 3072], Distribution::Normal(0.0, 1.0), &device);
    let burn_ms = median_ms(reps, || {
        let _ = burn::tensor::activation::gelu(x.clone()).into_data();
    });
    let ours_ms = median_ms(reps, || {
        let _ = tabprobe_model::blocks::activation::gelu(x.clone()).into_data();
    });
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "gelu [{rows}, 3072] on flex ({threads} cores): burn {burn_ms:.2} ms, tabprobe {ours_ms:.2} ms \
         ({:.1}x)",
        burn_ms / ours_ms
    );
}

/// A roberta-base-shaped dense layer alone on the CPU backend: burn's `linear` (gemm) beside
/// tabprobe's packed product ([`tabprobe_model::blocks::packed`]) on `[rows, k] · [k, n]`.
fn dense_comparison(rows: usize, reps: usize) {
    use burn::tensor::module::linear;
    use burn::tensor::{Distribution, Tensor};
    use tabprobe_model::blocks::nn::Dense;
    let device = Device::flex();
    for (k, n) in [(768, 768), (768, 3072), (3072, 768)] {
        let x = Tensor::<2>::random([rows, k], Distribution::Normal(0.0, 1.0), &device);
        let w = Tensor::<2>::random([k, n], Distribution::Normal(0.0, 0.05), &device);
        let b = Tensor::<1>::random([n], Distribution::Normal(0.0, 0.05), &device);
        let burn_ms = median_ms(reps, || {
            let _ = linear(x.clone(), w.clone(), Some(b.clone())).into_data();
        });
        let dense = Dense::new(w.clone(), b.clone());
        let ours_ms = median_ms(reps, || {
            let _ = dense.forward(x.clone()).into_data();
        });
        let gflop = 2.0 * (rows * k * n) as f64 / 1e9;
        println!(
            "dense [{rows}, {k}]·[{k}, {n}] on flex ({} threads): burn {burn_ms:.2} ms ({:.0} GFLOP/s), \
             tabprobe {ours_ms:.2} ms ({:.0} GFLOP/s)",
            rayon_threads(),
            gflop / burn_ms * 1e3,
            gflop / ours_ms * 1e3,
        );
    }
}

/// The threads burn's CPU kernels and tabprobe's share (`RAYON_NUM_THREADS`, else the cores).
fn rayon_threads() -> String {
    std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .to_string()
    })
}

fn main() -> Result<(), String> {
    let args = parse_args()?;
    if args.dense_rows > 0 {
        dense_comparison(args.dense_rows, args.reps);
    }
    if args.gelu_rows > 0 {
        gelu_comparison(args.gelu_rows, args.reps);
    }
    let read = |f: &str| std::fs::read(format!("{TINY}/{f}")).map_err(|e| format!("{f}: {e}"));
    let tokenizer = read("tokenizer.json")?;
    println!(
        "model\tbackend\tbudget MiB\tseq\tbatch\texamples/s (median of {})\tbest",
        args.reps
    );
    for backend in &args.backends {
        let mut device = device_by_name(backend)?;
        if args.float == "f16" {
            device
                .configure(FloatDType::F16)
                .map_err(|e| format!("f16 on {backend}: {e:?}"))?;
        }
        for model_name in &args.models {
            let (config, weights) = match model_name.as_str() {
                "tiny" => (read("config.json")?, read("model.safetensors")?),
                "base" => {
                    let json = roberta_base_config_json(args.seq);
                    let config =
                        RobertaConfig::from_json_bytes(&json).map_err(|e| e.to_string())?;
                    let weights = random_weights(&config)?;
                    (json, weights)
                }
                other => return Err(format!("unknown model {other}")),
            };
            let t = Instant::now();
            let mut model = NliModel::load(
                model_name,
                ModelFiles {
                    config_json: &config,
                    weights: &weights,
                    tokenizer: TokenizerFiles::Json(&tokenizer),
                    tokenizer_config: None,
                },
                &device,
            )
            .map_err(|e| e.to_string())?;
            if args.float == "int8" {
                model
                    .set_precision(tabprobe_model::Precision::Int8)
                    .map_err(|e| e.to_string())?;
            }
            if args.float == "f16" || args.float == "int8" {
                let files = ModelFiles {
                    config_json: &config,
                    weights: &weights,
                    tokenizer: TokenizerFiles::Json(&tokenizer),
                    tokenizer_config: None,
                };
                let reference = NliModel::load(model_name, files, &Device::flex())
                    .map_err(|e| e.to_string())?;
                let vocab = model.shape().vocab_size;
                let pairs: Vec<_> = (0..8)
                    .map(|i| synthetic_pair(args.seq.saturating_sub(7 * i).max(2), vocab))
                    .collect();
                let got = model
                    .score_encoded_blocking(&pairs)
                    .map_err(|e| e.to_string())?;
                let want = reference
                    .score_encoded_blocking(&pairs)
                    .map_err(|e| e.to_string())?;
                let (mut logit, mut prob) = (0f32, 0f32);
                for (g, w) in got.iter().zip(&want) {
                    for (a, b) in g.logits.iter().zip(&w.logits) {
                        logit = logit.max((a - b).abs());
                    }
                    for (a, b) in g.probs.iter().zip(&w.probs) {
                        prob = prob.max((a - b).abs());
                    }
                }
                println!(
                    "# {model_name}: {} on {backend} vs f32 on flex, 8 pairs: max |logit diff| \
                     {logit:.2e}, max |prob diff| {prob:.2e} (logits of pair 0: {:?} vs {:?})",
                    args.float, got[0].logits, want[0].logits
                );
            }
            drop(weights);
            eprintln!("{model_name} on {backend}: loaded in {:.2?}", t.elapsed());
            for &budget in &args.budgets_mib {
                model.set_tensor_budget(budget.saturating_mul(1 << 20));
                for &batch in &args.batches {
                    let r = measure(&mut model, batch, args.seq, args.reps)
                        .map_err(|e| e.to_string())?;
                    println!(
                        "{model_name}\t{backend}\t{budget}\t{}\t{batch}\t{:.2}\t{:.2}",
                        r.seq_len, r.median, r.best
                    );
                }
            }
        }
    }
    Ok(())
}
