//! Throughput benchmark (examples/s) of the NLI model: batch sizes 1, 8, 32 on the tiny golden
//! checkpoint and on a roberta-base-shaped model with random weights made in memory.
//!
//! Not a test: run it on a quiet machine, with optimisation but without the release profile's
//! fat LTO (which costs minutes per link):
//!
//! ```text
//! CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_OPT_LEVEL=3 \
//! CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_PANIC=unwind \
//!   cargo run --release -p tabprobe-model --example bench [--features fast-cpu] -- \
//!   [--models tiny,base] [--backends flex,wgpu] [--seq 128] [--reps 3]
//! ```
//!
//! Weight values do not change speed, so the roberta-base-shaped model is random. Inputs are
//! pre-tokenized sequences of exactly `--seq` tokens, so padding plays no part.

use std::time::Instant;

use safetensors::tensor::TensorView;
use safetensors::Dtype;
use tabprobe_model::loader::expected_shapes;
use tabprobe_model::{Device, EncodedPair, ModelFiles, NliModel, RobertaConfig, TokenizerFiles};

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

/// A roberta-base-shaped checkpoint (config.json, model.safetensors) with random f32 weights.
fn random_base(seq: usize) -> Result<(Vec<u8>, Vec<u8>), String> {
    let config_json = serde_json::json!({
        "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
        "intermediate_size": 3072, "vocab_size": 50265, "type_vocab_size": 1,
        "max_position_embeddings": (seq.max(512) + 2), "layer_norm_eps": 1e-5,
        "id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"},
    })
    .to_string()
    .into_bytes();
    let config = RobertaConfig::from_json_bytes(&config_json).map_err(|e| e.to_string())?;
    // xorshift: reproducible, no dependency; values in [-0.05, 0.05).
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let shapes = expected_shapes(&config);
    let mut bytes: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, shape) in shapes {
        let n: usize = shape.iter().product();
        let mut data = Vec::with_capacity(n * 4);
        for _ in 0..n {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.1;
            data.extend_from_slice(&v.to_le_bytes());
        }
        bytes.push((format!("roberta.{name}"), shape, data));
    }
    let views = bytes
        .iter()
        .map(|(n, s, d)| {
            TensorView::new(Dtype::F32, s.clone(), d)
                .map(|v| (n.clone(), v))
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let weights = safetensors::serialize(views, None).map_err(|e| e.to_string())?;
    Ok((config_json, weights))
}

fn device(name: &str) -> Result<Device, String> {
    match name {
        "flex" => Ok(Device::flex()),
        "wgpu" => Device::wgpu_options()
            .init()
            .map_err(|e| format!("no wgpu adapter: {e}")),
        other => Err(format!("unknown backend {other}")),
    }
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
        let device = device(backend)?;
        for model_name in &args.models {
            let (config, weights) = match model_name.as_str() {
                "tiny" => (read("config.json")?, read("model.safetensors")?),
                "base" => random_base(args.seq)?,
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
            let seq = args.seq.min(model.config().max_tokens());
            for &batch in &args.batches {
                model.set_batch_size(batch);
                // Exactly `seq` tokens per example: <s> … </s>, ids away from the specials.
                let pair = EncodedPair {
                    ids: (0..seq)
                        .map(|i| match i {
                            0 => 0,
                            _ if i + 1 == seq => 2,
                            _ => 5 + (i as u32 * 7919) % 1000,
                        })
                        .collect(),
                    truncated: false,
                    premise_tokens_dropped: 0,
                };
                let inputs = vec![pair; batch];
                // Warm-up: kernel compilation, allocation.
                model
                    .score_encoded_blocking(&inputs)
                    .map_err(|e| e.to_string())?;
                let mut rates: Vec<f64> = (0..args.reps)
                    .map(|_| {
                        let t = Instant::now();
                        model
                            .score_encoded_blocking(&inputs)
                            .map(|_| batch as f64 / t.elapsed().as_secs_f64())
                            .map_err(|e| e.to_string())
                    })
                    .collect::<Result<_, _>>()?;
                rates.sort_by(f64::total_cmp);
                println!(
                    "{model_name}\t{backend}\t{seq}\t{batch}\t{:.2}\t{:.2}",
                    rates[rates.len() / 2],
                    rates[rates.len() - 1]
                );
            }
        }
    }
    Ok(())
}
