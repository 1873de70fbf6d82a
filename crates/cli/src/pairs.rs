//! `tabprobe pairs`: writes the pairs file of a probe set (docs/scoring-elsewhere.md) — every
//! distinct premise/hypothesis pair a `tabprobe probe` run with the same options would score,
//! one JSON line each with its id — so a model tabprobe cannot run can score them elsewhere.
//! No model is needed.

use std::path::PathBuf;

use clap::Args;
use tabprobe_core::probe::build_probe_set;
use tabprobe_core::run::pairs_file::{pair_lines, pairs_jsonl};

use crate::probe::{rules, settings, ProbeSetArgs};

/// Options of `tabprobe pairs`.
#[derive(Args, Debug)]
pub struct PairsArgs {
    /// The probe set, as `tabprobe probe` takes it.
    #[command(flatten)]
    pub set: ProbeSetArgs,
    /// Where to write the pairs file (JSON lines).
    #[arg(long)]
    pub out: PathBuf,
}

/// Builds the probe set and writes its pairs.
pub fn run(args: &PairsArgs) -> Result<(), String> {
    let settings = settings(&args.set)?;
    let rules = rules(args.set.rules.as_deref())?;
    let dataset = crate::io::read_dataset(&args.set.dataset)?;
    let set = build_probe_set(&dataset, &settings, &rules).map_err(|e| {
        format!(
            "{}: cannot build the probe set: {e}",
            args.set.dataset.display()
        )
    })?;
    // The name as given: a strategy, or `none` for a model that reads the hypothesis alone.
    let lines = pair_lines(&set, &args.set.linearization);
    let text = pairs_jsonl(&lines).map_err(|e| format!("cannot encode the pairs: {e}"))?;
    crate::io::write_atomic(&args.out, &text)?;
    let c = set.counts();
    eprintln!(
        "wrote {}: {} pairs ({} examples, {} items)",
        args.out.display(),
        lines.len(),
        c.examples,
        c.items
    );
    Ok(())
}
