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
//!   [--models tiny,base] [--backends flex,wgpu] [--seq 128] [--reps 3]
//! ```

use std::time::Instant;

use tabprobe_model::bench::{device_by_name, measure, random_weights, roberta_base_config_json};
use tabprobe_model::{ModelFiles, NliModel, RobertaConfig, TokenizerFiles};

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/tiny-f32");

struct Args {
    models: Vec<String>,
    backends: Vec<String>,
    seq: usize,
    reps: usize,
    batches: Vec<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        models: vec!["tiny".into(), "base".into()],
        backends: vec!["flex".into()],
        seq: 128,
        reps: 3,
        batches: vec![1, 8, 32],
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
            "--batches" => {
                a.batches = list()
                    .iter()
                    .map(|b| b.parse().map_err(|e| format!("--batches: {e}")))
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

fn main() -> Result<(), String> {
    let args = parse_args()?;
    let read = |f: &str| std::fs::read(format!("{TINY}/{f}")).map_err(|e| format!("{f}: {e}"));
    let tokenizer = read("tokenizer.json")?;
    println!(
        "model\tbackend\tseq\tbatch\texamples/s (median of {})\tbest",
        args.reps
    );
    for backend in &args.backends {
        let device = device_by_name(backend)?;
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
                },
                &device,
            )
            .map_err(|e| e.to_string())?;
            drop(weights);
            eprintln!("{model_name} on {backend}: loaded in {:.2?}", t.elapsed());
            for &batch in &args.batches {
                let r =
                    measure(&mut model, batch, args.seq, args.reps).map_err(|e| e.to_string())?;
                println!(
                    "{model_name}\t{backend}\t{}\t{batch}\t{:.2}\t{:.2}",
                    r.seq_len, r.median, r.best
                );
            }
        }
    }
    Ok(())
}
