//! `tabprobe probe`: builds a probe set from a dataset and runs it natively with a real
//! RoBERTa checkpoint on the CPU (burn's `flex` device), writing the run file (`RunResult`
//! JSON) from which `tabprobe report` recomputes every metric. With `--shard` it scores one
//! shard (see [`crate::shard`]); with `--resume` it continues a killed run.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use tabprobe_core::checkpoint::{CheckpointFiles, PytorchBin, PYTORCH_BIN};
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::word_order::PermutationTarget;
use tabprobe_core::probe::{build_probe_set, Caps, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::shard::ShardSpec;
use tabprobe_core::run::{ProbeRun, Progress, RunResult};
use tabprobe_core::scoring::PairOrder;
use tabprobe_core::scoring::{PairScorer, Precision};
use tabprobe_model::devices::backend::device_by_name;
use tabprobe_model::{Device, ModelFiles, NliModel};

use crate::imported::ImportedScorer;

/// Pairs are padded to a multiple of this many tokens (see
/// [`NliModel::set_pad_to_multiple`]).
pub const PAD_MULTIPLE: usize = 8;

/// Batches of `--batch-size` pairs handed to the model at a time (and between checkpoints).
pub const CHUNK_BATCHES: usize = 4;

/// What a probe set is built from: shared by `tabprobe probe` and `tabprobe pairs`.
#[derive(Args, Debug)]
pub struct ProbeSetArgs {
    /// The dataset (tabprobe dataset JSON).
    #[arg(long)]
    pub dataset: PathBuf,
    /// Probes, comma-separated: names such as row_deletion, negation, word_order, or the
    /// groups `table`, `hypothesis`, `all`.
    #[arg(long, value_delimiter = ',', required = true)]
    pub probes: Vec<String>,
    /// The seed every random choice derives from.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Only examples of these splits (comma-separated; all when absent).
    #[arg(long, value_delimiter = ',')]
    pub splits: Option<Vec<String>>,
    /// Table → text: paragraph, infotabs_compat, horizontal_template, vertical_template,
    /// concatenation; or none, for a model that reads the hypothesis alone.
    #[arg(long, default_value = "infotabs_compat")]
    pub linearization: String,
    /// Which text the model reads first: premise_first or hypothesis_first.
    #[arg(long, default_value = "premise_first")]
    pub order: String,
    /// At most this many items per example and probe (seeded sample).
    #[arg(long)]
    pub cap_per_example: Option<usize>,
    /// At most this many items per probe over the run (seeded sample).
    #[arg(long)]
    pub cap_per_run: Option<usize>,
    /// k for row permutation.
    #[arg(long, default_value_t = 5)]
    pub permutations: usize,
    /// Rows drawn per example for row insertion (and cells for relational value updates).
    #[arg(long, default_value_t = 3)]
    pub insertions: usize,
    /// Word-order permutations per example (q).
    #[arg(long, default_value_t = 100)]
    pub word_order_q: usize,
    /// What the word-order probe permutes: hypothesis, premise or both.
    #[arg(long, default_value = "both")]
    pub word_order_target: String,
    /// Also score every hypothesis with an empty premise (needed for Table 8's O-Hypo).
    #[arg(long)]
    pub hypothesis_only: bool,
    /// Also score every perturbed hypothesis of Tables 4 and 7 with an empty premise (their
    /// hypothesis-only rows; implies --hypothesis-only).
    #[arg(long)]
    pub hypothesis_only_items: bool,
    /// A JSON file of validity rules (`{"rules": [...]}` as in a run file); each rule replaces
    /// the default rule of its operation, the others stay.
    #[arg(long)]
    pub rules: Option<PathBuf>,
}

/// Options of `tabprobe probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The probe set.
    #[command(flatten)]
    pub set: ProbeSetArgs,
    /// A Hugging Face checkpoint folder: config.json, model.safetensors, and tokenizer.json
    /// (or vocab.json + merges.txt); or a model name, org/name[@revision], read offline from
    /// the local Hugging Face cache (HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub).
    #[arg(long, required_unless_present = "scores", conflicts_with = "scores")]
    pub model: Option<PathBuf>,
    /// Instead of a model: a scores file (JSON lines, docs/scoring-elsewhere.md) with a score
    /// for every pair `tabprobe pairs` writes for these options — a model scored elsewhere.
    #[arg(long)]
    pub scores: Option<PathBuf>,
    /// What results call the model of --scores (default: the file's name without extension).
    #[arg(long, requires = "scores")]
    pub scores_name: Option<String>,
    /// Where to write the run file.
    #[arg(long)]
    pub out: PathBuf,
    /// Where the model runs: flex (CPU, one thread per core), wgpu (the first
    /// Vulkan/Metal/DX12 adapter, e.g. a GPU, with the browser's WGSL kernels) or, in a build
    /// with `--features vulkan`, vulkan (the first Vulkan GPU, SPIR-V kernels). Shards record
    /// it and shards of different backends do not merge.
    #[arg(long, default_value = "flex")]
    pub backend: String,
    /// The arithmetic: f32; f16-mixed (the transformer body's dense weights and the inputs
    /// of its products in f16, accumulated in f32; softmax, layer norms, head and logits in
    /// f32), for a GPU with 16-bit floats; or int8 (the same dense layers with int8 weights per
    /// output channel and int8 activations per row, summed in i32; the rest f32), on the CPU
    /// (`--backend flex`) only. The run file records it; runs at different precisions do not
    /// merge.
    #[arg(long, default_value = "f32", value_parser = parse_precision)]
    pub precision: Precision,
    /// Pairs per forward pass.
    #[arg(long, default_value_t = tabprobe_model::DEFAULT_BATCH_SIZE)]
    pub batch_size: usize,
    /// Score only shard i of n (1-based, 1 ≤ i ≤ n): the examples whose id hashes to it
    /// (FNV-1a 64 of the id, mod n, plus 1). Without it, Slurm's SLURM_ARRAY_TASK_ID and
    /// SLURM_ARRAY_TASK_COUNT, or Kubernetes' JOB_COMPLETION_INDEX with --shards n, choose
    /// the shard; both indices are 0-based (task 0 is shard 1/n). Merge the shards' files
    /// with `tabprobe merge`.
    #[arg(long, value_name = "i/n")]
    pub shard: Option<String>,
    /// The number of shards when the shard comes from JOB_COMPLETION_INDEX (a Kubernetes
    /// Indexed Job: its completions).
    #[arg(long, value_name = "n")]
    pub shards: Option<usize>,
    /// Continue from the run file already at --out (one a killed or cancelled run left):
    /// its scored pairs are kept and only the rest are scored. It must be of the same probe
    /// set, model and shard.
    #[arg(long)]
    pub resume: bool,
    /// Write the run so far to --out (atomically: a temporary file renamed over it) at most
    /// this often while scoring, so a killed run leaves a file to --resume from; 0 writes
    /// after every batch.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub checkpoint_every: u64,
}

/// Expands the `--probes` names.
pub fn parse_probes(names: &[String]) -> Result<Vec<ProbeKind>, String> {
    let mut out: Vec<ProbeKind> = Vec::new();
    for raw in names {
        let name = raw.trim();
        let kinds: Vec<ProbeKind> = match name {
            "all" => ProbeKind::all(),
            "table" => ProbeKind::TABLE.to_vec(),
            "hypothesis" => ProbeKind::HYPOTHESIS.to_vec(),
            _ => match ProbeKind::from_name(name) {
                Some(k) => vec![k],
                None => {
                    let known: Vec<&str> = ProbeKind::all().iter().map(|k| k.as_str()).collect();
                    return Err(format!(
                        "--probes: unknown probe {name:?}; expected one of {}, or table, hypothesis, all",
                        known.join(", ")
                    ));
                }
            },
        };
        for k in kinds {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    if out.is_empty() {
        return Err("--probes: no probe given".to_string());
    }
    Ok(out)
}

/// Parses `--linearization` and `--order`: a strategy's name, or `none` for a model that
/// reads the hypothesis alone (core's premise mode), in either order.
pub fn parse_linearization(name: &str, order: &str) -> Result<LinearizeSettings, String> {
    let settings = crate::infotabs_split::parse_premise(name)?;
    Ok(LinearizeSettings {
        order: parse_order(order)?,
        ..settings
    })
}

/// Parses an `--order` name.
pub fn parse_order(name: &str) -> Result<PairOrder, String> {
    match name {
        "premise_first" => Ok(PairOrder::PremiseFirst),
        "hypothesis_first" => Ok(PairOrder::HypothesisFirst),
        other => Err(format!(
            "--order: unknown pair order {other:?}; expected premise_first or hypothesis_first"
        )),
    }
}

/// The probe settings the arguments describe.
pub fn settings(args: &ProbeSetArgs) -> Result<ProbeSettings, String> {
    let linearization = parse_linearization(&args.linearization, &args.order)?;
    let target = match args.word_order_target.as_str() {
        "hypothesis" => PermutationTarget::Hypothesis,
        "premise" => PermutationTarget::Premise,
        "both" => PermutationTarget::Both,
        other => {
            return Err(format!(
            "--word-order-target: unknown target {other:?}; expected hypothesis, premise or both"
        ))
        }
    };
    let mut s = ProbeSettings::new(parse_probes(&args.probes)?, args.seed);
    s.caps = Caps {
        per_example: args.cap_per_example,
        per_run: args.cap_per_run,
    };
    s.linearization = linearization;
    s.permutations = args.permutations;
    s.insertions = args.insertions;
    s.splits = args.splits.clone();
    s.word_order.q = args.word_order_q;
    s.word_order.target = target;
    s.hypothesis_only = args.hypothesis_only;
    s.hypothesis_only_items = args.hypothesis_only_items;
    Ok(s)
}

/// The default rules with the file's rules (if any) replacing theirs.
pub fn rules(path: Option<&Path>) -> Result<RuleSet, String> {
    let mut rules = RuleSet::default();
    if let Some(path) = path {
        let text = crate::io::read_text(path)?;
        let user: RuleSet = crate::io::parse_json(path, &text)?;
        for r in user.rules {
            rules.set(r);
        }
    }
    Ok(rules)
}

/// A checkpoint folder's files, read.
pub struct Checkpoint {
    /// The folder's name.
    pub name: String,
    /// The files' bytes; the weights are `model.safetensors`, converted in memory from
    /// `pytorch_model.bin` when that is all the folder has.
    pub files: CheckpointFiles<Vec<u8>>,
}

impl Checkpoint {
    /// The files as the model crate takes them.
    pub fn files(&self) -> ModelFiles<'_> {
        self.files.as_ref().map(Vec::as_slice)
    }
}

/// Reads a checkpoint folder's files (found by core's one checkpoint rule, each held to its
/// kind's ceiling by [`crate::io::read_model_file`]).
///
/// `dir` may also be a Hugging Face model name (`org/name`, `name`, with an optional
/// `@revision`) when no such folder exists: it is then read from the local Hugging Face cache
/// ([`crate::hub_cache`]) and named as given.
pub fn read_checkpoint(dir: &Path) -> Result<Checkpoint, String> {
    if !dir.is_dir() {
        let hub = dir
            .to_str()
            .and_then(tabprobe_core::checkpoint::HubName::parse);
        let Some(hub) = hub.filter(|_| !dir.exists()) else {
            return Err(format!(
                "{}: not a folder; --model expects a checkpoint folder with config.json, \
                 model.safetensors (or pytorch_model.bin) and tokenizer.json, or a Hugging Face \
                 model name (org/name) in the local Hugging Face cache",
                dir.display()
            ));
        };
        let roots = crate::hub_cache::cache_roots(|k| std::env::var(k).ok());
        let snapshot = crate::hub_cache::resolve(&hub, &roots)
            .map_err(|e| format!("{}: not a folder, and {e}", dir.display()))?;
        let mut checkpoint = read_checkpoint_folder(&snapshot)?;
        checkpoint.name = hub.repo;
        return Ok(checkpoint);
    }
    read_checkpoint_folder(dir)
}

/// [`read_checkpoint`] of a folder on disk.
fn read_checkpoint_folder(dir: &Path) -> Result<Checkpoint, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let found = CheckpointFiles::find(&names, PytorchBin::Accept).map_err(|missing| {
        format!(
            "{}: not a complete checkpoint folder: {missing}",
            dir.display()
        )
    })?;
    let files = found.try_map(|i| {
        let path = dir.join(&names[i]);
        // Checkpoints from before safetensors ship pytorch_model.bin; it is converted in memory.
        if names[i] == PYTORCH_BIN {
            crate::io::check_model_file_size(&path, PYTORCH_BIN)?;
            tabprobe_model::loading::pytorch::safetensors_from_pytorch_file(&path)
                .map_err(|e| e.to_string())
        } else {
            crate::io::read_model_file(&path, &names[i])
        }
    })?;
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string());
    Ok(Checkpoint { name, files })
}

/// Reads a checkpoint folder and loads it on `device`.
pub fn load_model(dir: &Path, device: &Device) -> Result<NliModel, String> {
    let checkpoint = read_checkpoint(dir)?;
    NliModel::load(&checkpoint.name, checkpoint.files(), device)
        .map_err(|e| format!("{}: cannot load the model: {e}", dir.display()))
}

/// Reads `--precision`.
pub fn parse_precision(name: &str) -> Result<Precision, String> {
    Precision::parse(name)
        .ok_or_else(|| format!("{name:?} is not a precision; expected f32, f16-mixed or int8"))
}

/// Runs `tabprobe probe`.
pub fn run(args: &ProbeArgs) -> Result<(), String> {
    let settings = settings(&args.set)?;
    let rules = rules(args.set.rules.as_deref())?;
    let shard = ShardSpec::resolve(args.shard.as_deref(), args.shards, |k| {
        std::env::var(k).ok()
    })
    .map_err(|e| e.to_string())?;
    let dataset = crate::io::read_dataset(&args.set.dataset)?;
    let mut set = build_probe_set(&dataset, &settings, &rules).map_err(|e| {
        format!(
            "{}: cannot build the probe set: {e}",
            args.set.dataset.display()
        )
    })?;
    let (mut scorer, source, backend) = scorer(args, &set, dataset.label_set)?;
    let id = scorer.model_id();
    if id.label_set != dataset.label_set {
        eprintln!(
            "note: the model is {:?} but the dataset is {:?}; labels the model cannot predict count as wrong",
            id.label_set, dataset.label_set
        );
    }
    let stamp = match shard {
        Some((spec, source)) => {
            let (part, stamp) = crate::shard::cut(&set, spec, &dataset, &id, &backend)?;
            eprintln!(
                "shard {}/{} ({}): {} of {} examples",
                spec.index,
                spec.count,
                crate::shard::describe(&source),
                part.examples.len(),
                set.examples.len()
            );
            set = part;
            Some(stamp)
        }
        None => None,
    };
    let c = set.counts();
    eprintln!(
        "probe set: {} examples, {} items, {} distinct pairs to score, {} skipped",
        c.examples, c.items, c.forward_passes, c.skipped
    );
    for (k, n) in &c.per_probe {
        eprintln!("  {:<28} {n}", k.as_str());
    }
    // The model cuts each chunk into batches of pairs of one padded length, so chunks are a
    // few batches long for the batches to fill.
    let mut run = ProbeRun::new(set, args.batch_size.saturating_mul(CHUNK_BATCHES));
    if args.resume {
        crate::shard::resume(&mut run, &args.out, &id, stamp.as_ref())?;
    }
    let save = |result: RunResult| -> Result<(), String> {
        let result = RunResult {
            shard: stamp.clone(),
            ..result
        };
        let text = serde_json::to_string(&result)
            .map_err(|e| format!("cannot serialise the run result: {e}"))?;
        crate::io::write_atomic(&args.out, &(text + "\n"))
    };
    let started = Instant::now();
    let every = Duration::from_secs(args.checkpoint_every);
    let mut saved = Instant::now();
    let mut progress = progress_printer(started);
    while let Some(batch) = run.next_batch() {
        let scores = match &mut scorer {
            Scorer::Model(model) => model
                .score(&batch)
                .map_err(|e| format!("{source}: {}", run.locate(e)))?,
            Scorer::Imported(imported) => imported
                .score(&batch)
                .map_err(|e| format!("{source}: {e}"))?,
        };
        let p = run.submit(scores).map_err(|e| e.to_string())?;
        progress(p);
        if !run.is_complete() && saved.elapsed() >= every {
            save(run.partial_result(id.clone()))?;
            saved = Instant::now();
        }
    }
    if std::io::stderr().is_terminal() {
        eprintln!();
    }
    let result = run.finish(id).map_err(|e| e.to_string())?;
    let truncated = result.pairs.iter().filter(|p| p.score.truncated).count();
    if truncated > 0 {
        eprintln!(
            "note: {truncated} of {} pairs had their premise truncated to fit the model",
            result.pairs.len()
        );
    }
    save(result)?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

/// What scores the pairs: a model, or a scores file.
enum Scorer {
    Model(Box<NliModel>),
    Imported(ImportedScorer),
}

impl Scorer {
    fn model_id(&self) -> tabprobe_core::scoring::ModelId {
        match self {
            Scorer::Model(m) => m.model_id(),
            Scorer::Imported(i) => i.id.clone(),
        }
    }
}

/// The scorer the arguments name, the file it comes from (for messages) and the backend a
/// shard records (`scores` for a scores file).
fn scorer(
    args: &ProbeArgs,
    set: &tabprobe_core::probe::ProbeSet,
    label_set: tabprobe_core::LabelSet,
) -> Result<(Scorer, String, String), String> {
    if let Some(path) = &args.scores {
        let imported = ImportedScorer::read(path, args.scores_name.as_deref(), set, label_set)?;
        if imported.label_only > 0 {
            eprintln!(
                "note: {} of {} pairs have a label without probabilities (probability 1 on the label)",
                imported.label_only,
                set.pairs.len()
            );
        }
        return Ok((
            Scorer::Imported(imported),
            path.display().to_string(),
            "scores".into(),
        ));
    }
    let path = args.model.as_deref().ok_or("give --model or --scores")?;
    let device = device_by_name(&args.backend).map_err(|e| format!("--backend: {e}"))?;
    let mut model = load_model(path, &device)?;
    model
        .set_precision(args.precision)
        .map_err(|e| format!("--precision {}: {e}", args.precision))?;
    model.set_batch_size(args.batch_size);
    // A pair's scores must not depend on which pairs share its batch, or a sharded run (other
    // neighbours) would differ from the single run in the last bits.
    model.set_pad_to_multiple(Some(PAD_MULTIPLE));
    Ok((
        Scorer::Model(Box::new(model)),
        path.display().to_string(),
        args.backend.clone(),
    ))
}

/// Prints progress: on a terminal one line rewritten in place; in a log, a line per tenth of
/// the run.
fn progress_printer(started: Instant) -> impl FnMut(Progress) {
    let terminal = std::io::stderr().is_terminal();
    let mut last_step = usize::MAX;
    move |p: Progress| {
        let percent = (100 * p.done).checked_div(p.total).unwrap_or(100);
        let step = if terminal { percent } else { percent / 10 };
        if step != last_step {
            last_step = step;
            let msg = format!(
                "scored {}/{} pairs ({percent}%), {:.1}s",
                p.done,
                p.total,
                started.elapsed().as_secs_f64()
            );
            if terminal {
                eprint!("\r{msg}");
                let _ = std::io::stderr().flush();
            } else {
                eprintln!("{msg}");
            }
        }
    }
}
