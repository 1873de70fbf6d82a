//! Shards on a cluster (issue 14): cutting this process's shard out of the probe set and
//! stamping it, resuming a killed run from its partial file, and `tabprobe merge`.

use std::path::{Path, PathBuf};

use clap::Args;
use tabprobe_core::probe::{ProbeSet, ProbeSettings};
use tabprobe_core::run::shard::{
    merge_shards, restrict, ProbeSetDigest, ShardSource, ShardSpec, ShardStamp, ShardTotals,
};
use tabprobe_core::run::ProbeRun;
use tabprobe_core::scoring::ModelId;
use tabprobe_core::Dataset;

/// The program and version shards are stamped with; merge refuses shards of different ones.
pub const TOOL: &str = concat!("tabprobe ", env!("CARGO_PKG_VERSION"));

/// Options of `tabprobe merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' run files (`tabprobe probe --shard i/n`), every shard once, in any order.
    #[arg(required = true, value_name = "SHARD.json")]
    pub shards: Vec<PathBuf>,
    /// Where to write the merged run file.
    #[arg(short = 'o', long = "out", value_name = "RUN.json")]
    pub out: PathBuf,
}

/// Where the shard came from, in words.
pub fn describe(source: &ShardSource) -> &'static str {
    match source {
        ShardSource::Flag => "from --shard",
        ShardSource::Slurm => "from SLURM_ARRAY_TASK_ID, 0-based, and SLURM_ARRAY_TASK_COUNT",
        ShardSource::KubernetesIndexedJob => "from JOB_COMPLETION_INDEX, 0-based, and --shards",
    }
}

/// Shard `spec` of `set` and the stamp its run file carries (`backend`: `--backend`).
pub fn cut(
    set: &ProbeSet,
    spec: ShardSpec,
    dataset: &Dataset,
    model: &ModelId,
    backend: &str,
) -> Result<(ProbeSet, ShardStamp), String> {
    let settings: &ProbeSettings = &set.settings;
    let probe_set = ProbeSetDigest::new(dataset, settings, &set.rules, model)
        .map_err(|e| format!("cannot digest the probe set: {e}"))?;
    let (part, positions) = restrict(set, spec);
    let stamp = ShardStamp {
        index: spec.index,
        count: spec.count,
        tool: TOOL.to_string(),
        backend: backend.to_string(),
        probe_set,
        totals: ShardTotals {
            examples: set.examples.len(),
            items: set.items.len(),
            pairs: set.pairs.len(),
        },
        positions,
    };
    Ok((part, stamp))
}

/// `--resume`: takes the scores already in `out` (a partial or complete run file of the same
/// probe set, model and shard) into `run`. No file at `out` starts from the beginning.
pub fn resume(
    run: &mut ProbeRun,
    out: &Path,
    model: &ModelId,
    stamp: Option<&ShardStamp>,
) -> Result<(), String> {
    if !out.exists() {
        eprintln!(
            "resume: {} does not exist yet; starting from the first pair",
            out.display()
        );
        return Ok(());
    }
    let name = out.display().to_string();
    let previous = crate::report::read_run(out)?;
    let refuse = |field: &str, why: &str| {
        format!("{name}: cannot resume: {field} {why}; delete the file or run without --resume")
    };
    if previous.model.weights_sha256 != model.weights_sha256 {
        return Err(refuse(
            "$.model.weights_sha256",
            "differs from --model's weights (another model scored it)",
        ));
    }
    let set = run.set();
    if previous.settings != set.settings {
        return Err(refuse("$.settings", "differ from this run's options"));
    }
    if previous.rules != set.rules {
        return Err(refuse("$.rules", "differ from this run's --rules"));
    }
    match (previous.shard.as_ref(), stamp) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            if a.backend != b.backend {
                return Err(refuse(
                    "$.shard.backend",
                    &format!(
                        "is {:?}, this run's --backend is {:?}",
                        a.backend, b.backend
                    ),
                ));
            }
            if (a.index, a.count) != (b.index, b.count) {
                return Err(refuse(
                    "$.shard",
                    &format!(
                        "is shard {}/{}, this run is shard {}/{}",
                        a.index, a.count, b.index, b.count
                    ),
                ));
            }
            if let Some(field) = a.probe_set.first_difference(&b.probe_set) {
                return Err(refuse(&format!("$.{field}"), "differs from this run's"));
            }
        }
        (Some(a), None) => {
            return Err(refuse(
                "$.shard",
                &format!("is shard {}/{}, this run is not sharded", a.index, a.count),
            ))
        }
        (None, Some(_)) => return Err(refuse("$.shard", "is absent, this run is a shard")),
    }
    if previous.pairs.len() > set.pairs.len() {
        return Err(refuse(
            "$.pairs",
            &format!(
                "has {} pairs, this run only {}",
                previous.pairs.len(),
                set.pairs.len()
            ),
        ));
    }
    if let Some(k) = previous
        .pairs
        .iter()
        .zip(&set.pairs)
        .position(|(old, new)| old.pair != *new)
    {
        return Err(refuse(
            &format!("$.pairs[{k}]"),
            "is not this run's pair at that place (the dataset changed?)",
        ));
    }
    let kept = previous.pairs.len();
    let progress = run
        .resume_with(previous.pairs.into_iter().map(|p| p.score).collect())
        .map_err(|e| format!("{name}: cannot resume: {e}"))?;
    eprintln!(
        "resume: {kept} of {} pairs already scored in {name}; scoring the other {}",
        progress.total,
        progress.total - progress.done
    );
    Ok(())
}

/// Runs `tabprobe merge`.
pub fn run_merge(args: &MergeArgs) -> Result<(), String> {
    let mut shards = Vec::with_capacity(args.shards.len());
    for path in &args.shards {
        shards.push((path.display().to_string(), crate::report::read_run(path)?));
    }
    let n = shards.len();
    let merged = merge_shards(shards).map_err(|e| e.to_string())?;
    let text = serde_json::to_string(&merged)
        .map_err(|e| format!("cannot serialise the merged run: {e}"))?;
    crate::io::write_atomic(&args.out, &(text + "\n"))?;
    eprintln!(
        "merged {n} shards: {} examples, {} items, {} pairs; wrote {}",
        merged.examples.len(),
        merged.items.len(),
        merged.pairs.len(),
        args.out.display()
    );
    Ok(())
}
