//! `tabprobe bench`: examples/s of a checkpoint folder per backend × sequence length × batch
//! size (median of repeats after a warm-up), measured by `tabprobe_model::bench`. A
//! benchmark to run by hand on a quiet machine, not a test.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use tabprobe_model::bench::measure;
use tabprobe_model::devices::backend::{device_by_name, BACKENDS};
use tabprobe_model::{Device, Precision};

/// Options of `tabprobe bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Hugging Face checkpoint folders of any supported family, comma-separated (or the option
    /// repeated): config.json, model.safetensors (or pytorch_model.bin), and tokenizer.json
    /// (or vocab.json + merges.txt); or model names, org/name[@revision], from the local
    /// Hugging Face cache.
    #[arg(long = "model", value_delimiter = ',', required = true)]
    pub models: Vec<PathBuf>,
    /// Backends, comma-separated: flex (CPU), wgpu (first Vulkan/Metal/DX12 adapter, WGSL
    /// kernels; reported as "no adapter" when there is none) and, in a build with
    /// `--features vulkan`, vulkan (SPIR-V kernels; such a build runs it instead of wgpu).
    #[arg(long, value_delimiter = ',', default_value = "flex,wgpu")]
    pub backends: Vec<String>,
    /// Examples per forward call, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,8,32")]
    pub batch_sizes: Vec<usize>,
    /// Tokens per example, comma-separated (capped at the model's maximum).
    #[arg(long, value_delimiter = ',', default_value = "128,256")]
    pub seq_lens: Vec<usize>,
    /// Timed repeats per configuration after one warm-up; the median is reported.
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    /// MiB the largest activation of one forward pass may take; a batch needing more runs as
    /// several passes (roberta-base at 128 tokens: 42 rows within the default 64). Larger
    /// values let a GPU with larger binding limits run whole batches.
    #[arg(long, default_value_t = 64)]
    pub tensor_budget_mib: usize,
    /// f32, f16-mixed or int8 (see `tabprobe probe --precision`); printed in the last column.
    #[arg(long, default_value = "f32", value_parser = crate::probe::parse_precision)]
    pub precision: Precision,
}

/// Runs `tabprobe bench`: a header and one tab-separated line per configuration on stdout
/// (`<backend>\tno adapter (…)` for a backend that is not available), progress on stderr.
pub fn run(args: &BenchArgs) -> Result<(), String> {
    for b in &args.backends {
        if !BACKENDS.contains(&b.as_str()) {
            return Err(format!(
                "--backends: unknown backend {b:?}; expected {}",
                BACKENDS.join(" or ")
            ));
        }
    }
    if args.batch_sizes.contains(&0) || args.seq_lens.iter().any(|&s| s < 2) {
        return Err("--batch-sizes must be ≥ 1 and --seq-lens ≥ 2".to_string());
    }
    let repeats = args.repeats.max(1);
    println!("model\tarchitecture\tbackend\tseq_len\tbatch_size\texamples_per_s_median_of_{repeats}\tbest\tprecision");
    for backend in &args.backends {
        let device = match device_by_name(backend) {
            Ok(d) => d,
            Err(e) => {
                println!("\t\t{backend}\t{e}");
                continue;
            }
        };
        for folder in &args.models {
            bench_one(args, folder, backend, &device, repeats)?;
        }
    }
    Ok(())
}

/// One checkpoint on one backend: every sequence length × batch size.
fn bench_one(
    args: &BenchArgs,
    folder: &Path,
    backend: &str,
    device: &Device,
    repeats: usize,
) -> Result<(), String> {
    let t = Instant::now();
    let mut model = crate::probe::load_model(folder, device)?;
    model.set_tensor_budget(args.tensor_budget_mib.saturating_mul(1 << 20));
    model.set_precision(args.precision).map_err(|e| {
        format!(
            "{} on {backend}: --precision {}: {e}",
            folder.display(),
            args.precision
        )
    })?;
    let c = model.shape().clone();
    eprintln!(
        "{} on {backend}: {} ({} parameters), hidden {}, {} layers, {} heads, at most {} tokens; loaded in {:.2?}",
        model.id().name,
        c.family.display_name(),
        c.parameters.map_or_else(|| "?".to_string(), |n| n.to_string()),
        c.hidden_size,
        c.layers,
        c.heads,
        c.max_tokens,
        t.elapsed()
    );
    let mut measured = Vec::new();
    for &seq in &args.seq_lens {
        if seq > c.max_tokens {
            eprintln!(
                "note: {seq} tokens is more than the model takes; measuring {} instead",
                c.max_tokens
            );
        }
        // Two requests capped to the same length would only repeat a measurement.
        let actual = seq.min(c.max_tokens);
        if measured.contains(&actual) {
            continue;
        }
        measured.push(actual);
        for &batch in &args.batch_sizes {
            let r = measure(&mut model, batch, seq, repeats)
                .map_err(|e| format!("{} on {backend}: {e}", folder.display()))?;
            println!(
                "{}\t{}\t{backend}\t{}\t{}\t{:.2}\t{:.2}\t{}",
                model.id().name,
                c.family.display_name(),
                r.seq_len,
                r.batch_size,
                r.median,
                r.best,
                model.precision()
            );
        }
    }
    Ok(())
}
