//! `tabprobe inoculate`: fine-tunes a checkpoint on a probe run's challenge items (docs/inoculation.md)
//! with the model crate's driver — the one the browser worker runs — and writes the result
//! file (`inoculation.json`, printed by `tabprobe report`) and the kept checkpoint of every
//! size as a Hugging Face folder (`n<size>/`).

use std::path::{Path, PathBuf};

use clap::Args;
use tabprobe_core::inoculation::tables::render_text;
use tabprobe_core::inoculation::InoculationProgress;
use tabprobe_core::inoculation::{InoculationPlan, InoculationSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_model::devices::backend::device_by_name;
use tabprobe_model::train::inoculate::{inoculate_blocking, Pace};
use tabprobe_model::ModelFiles;

use crate::probe::read_checkpoint;

/// Arguments of `tabprobe inoculate`.
#[derive(Debug, Args)]
pub struct InoculateArgs {
    /// The checkpoint folder to fine-tune (config.json, model.safetensors, tokenizer.json), or
    /// a model name, org/name[@revision], from the local Hugging Face cache.
    #[arg(long)]
    pub model: PathBuf,
    /// The probe run whose items form the challenge set (`tabprobe probe` or the site's
    /// export).
    #[arg(long)]
    pub run: PathBuf,
    /// The dataset the run was made from; when given, the run's examples are checked
    /// against it.
    #[arg(long)]
    pub dataset: Option<PathBuf>,
    /// Probes whose items form the challenge set (comma-separated names; default: every
    /// probe in the run).
    #[arg(long)]
    pub probes: Option<String>,
    /// Nested sample sizes.
    #[arg(long, default_value = "100,200,300")]
    pub sizes: String,
    /// Learning rates tried per size.
    #[arg(long, default_value = "1e-4,5e-5,1e-5")]
    pub lrs: String,
    /// Epochs at most.
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Epochs without a better dev accuracy before stopping.
    #[arg(long, default_value_t = 3)]
    pub patience: usize,
    /// Training pairs per step.
    #[arg(long, default_value_t = 8)]
    pub batch_size: usize,
    /// Seed of the sampling and the training order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Split of the run's originals for early stopping (default: dev, else all).
    #[arg(long)]
    pub dev_split: Option<String>,
    /// Percentage points an accuracy must move to count as a change.
    #[arg(long, default_value_t = 1.0)]
    pub tolerance: f64,
    /// flex (CPU), wgpu or vulkan (see `tabprobe probe --backend`).
    #[arg(long, default_value = "flex")]
    pub backend: String,
    /// Output folder.
    #[arg(long)]
    pub out: PathBuf,
}

/// Prints progress on stderr every few seconds; never cancels.
struct Stderr {
    last: f64,
}

impl Pace for Stderr {
    async fn progress(&mut self, p: &InoculationProgress) -> bool {
        if p.elapsed - self.last >= 5.0 {
            self.last = p.elapsed;
            eprintln!("[{:>6.1}s] {}", p.elapsed, p.phase.describe());
        }
        true
    }
}

fn settings(
    args: &InoculateArgs,
    run_probes: Vec<ProbeKind>,
) -> Result<InoculationSettings, String> {
    let probes = match &args.probes {
        None => run_probes,
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|name| {
                ProbeKind::from_name(name)
                    .ok_or_else(|| format!("--probes: unknown probe {name:?}"))
            })
            .collect::<Result<_, _>>()?,
    };
    let settings = InoculationSettings {
        probes,
        sizes: InoculationSettings::parse_list("--sizes", &args.sizes)
            .map_err(|e| e.to_string())?,
        learning_rates: InoculationSettings::parse_list("--lrs", &args.lrs)
            .map_err(|e| e.to_string())?,
        epochs: args.epochs,
        patience: args.patience,
        batch_size: args.batch_size,
        seed: args.seed,
        dev_split: args.dev_split.clone(),
        tolerance_pp: args.tolerance,
    };
    settings.check().map_err(|e| e.to_string())?;
    Ok(settings)
}

/// Runs `tabprobe inoculate`.
pub fn run(args: &InoculateArgs) -> Result<(), String> {
    let run = crate::report::read_run(&args.run)?;
    if let Some(path) = &args.dataset {
        let dataset = crate::io::read_dataset(path)?;
        let ids: std::collections::HashSet<String> = dataset
            .examples
            .iter()
            .enumerate()
            .map(|(i, e)| e.id.clone().unwrap_or_else(|| format!("#{i}")))
            .collect();
        if let Some(missing) = run.examples.iter().find(|e| !ids.contains(&e.id)) {
            return Err(format!(
                "{}: example {:?} of the run is not in {}: was the run made from another dataset?",
                args.run.display(),
                missing.id,
                path.display()
            ));
        }
    }
    let mut in_run: Vec<ProbeKind> = run.items.iter().map(|i| i.probe).collect();
    in_run.sort();
    in_run.dedup();
    let settings = settings(args, in_run)?;
    let plan = InoculationPlan::new(&run, &settings)
        .map_err(|e| format!("{}: {e}", args.run.display()))?;
    eprintln!(
        "challenge set: {} items ({} with one expected label, {} evaluated only); {} held out; dev {} examples",
        plan.challenge.len(),
        plan.challenge.len() - plan.evaluate_only(),
        plan.evaluate_only(),
        plan.held_out.len(),
        plan.dev.len()
    );
    let checkpoint = read_checkpoint(&args.model)?;
    let device = device_by_name(&args.backend).map_err(|e| format!("--backend: {e}"))?;
    let output = inoculate_blocking(
        &checkpoint.name,
        checkpoint.files(),
        &device,
        &run,
        &plan,
        &mut Stderr { last: 0.0 },
    )?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    for (size, weights) in &output.checkpoints {
        let dir = args.out.join(format!("n{size}"));
        let files = ModelFiles {
            weights: weights.as_slice(),
            ..checkpoint.files()
        };
        write_folder(&dir, files)?;
    }
    let json = serde_json::to_string_pretty(&output.result)
        .map_err(|e| format!("cannot serialise the result: {e}"))?;
    let file = args.out.join("inoculation.json");
    crate::io::write_atomic(&file, &(json + "\n"))?;
    print!("{}", render_text(&output.result));
    eprintln!(
        "wrote {} and {} checkpoint folder(s) in {:.1} s",
        file.display(),
        output.checkpoints.len(),
        output.result.seconds
    );
    Ok(())
}

/// Writes a Hugging Face folder: the loaded model's config and tokenizer, the new weights.
fn write_folder(dir: &Path, files: ModelFiles<'_>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, bytes) in files.named() {
        std::fs::write(dir.join(name), bytes)
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))?;
    }
    Ok(())
}
