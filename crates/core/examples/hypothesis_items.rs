//! Prints every hypothesis-probe item of a dataset as one JSON line, with the table it is
//! judged against: what a reviewer reads to adjudicate the tool's labels
//! (docs/probes-and-metrics.md#certain-precision). Usage:
//!
//! `cargo run -p tabprobe-core --example hypothesis_items -- <source> <files or folders>… [--split S] [--seed N]`
//!
//! `<source>` is a free name written on each line; the files are imported as the CLI
//! imports them (a dataset JSON, INFOTABS or TabPert folders, …).

use std::path::{Path, PathBuf};

use serde_json::json;
use tabprobe_core::data::import::{import_files, ImportOptions, InputFile};
use tabprobe_core::data::table::Table;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, Edit, Expectation, Premise, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;

fn walk(base: &Path, p: &Path, out: &mut Vec<InputFile>) -> std::io::Result<()> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            walk(base, &e, out)?;
        }
    } else {
        let name = p
            .strip_prefix(base)
            .unwrap_or(p)
            .to_string_lossy()
            .to_string();
        out.push(InputFile::new(name, std::fs::read(p)?));
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str| -> Option<String> {
        let i = args.iter().position(|a| a == flag)?;
        let v = args.get(i + 1).cloned();
        args.drain(i..(i + 2).min(args.len()));
        v
    };
    let split = take("--split");
    let seed: u64 = take("--seed").map(|s| s.parse()).transpose()?.unwrap_or(0);
    let (source, paths) = args.split_first().ok_or("usage: <source> <paths>…")?;
    let mut files = Vec::new();
    for p in paths {
        let p = Path::new(p);
        walk(p.parent().unwrap_or(Path::new(".")), p, &mut files)?;
    }
    let (dataset, _) = import_files(files, &ImportOptions::default())?;
    let mut settings = ProbeSettings::new(ProbeKind::HYPOTHESIS.to_vec(), seed);
    settings.splits = split.map(|s| vec![s]);
    let set = build_probe_set(&dataset, &settings, &RuleSet::default())?;
    for it in &set.items {
        let ex = &set.examples[it.example];
        let (Edit::HypothesisSpan { before, after, .. }, Expectation::Label { labels }) =
            (&it.edit, &it.expectation)
        else {
            continue;
        };
        let table = match &ex.input.premise {
            Premise::Table(Table::KeyValue(t)) => json!({
                "title": t.title,
                "rows": t.rows.iter().map(|r| format!("{}: {}", r.key, r.values.join(" | "))).collect::<Vec<_>>(),
            }),
            other => json!(format!("{other:?}")),
        };
        println!(
            "{}",
            json!({
                "source": source,
                "id": it.id,
                "kind": it.probe.as_str(),
                "certainty": it.certainty,
                "basis": it.basis,
                "gold": ex.gold,
                "expected": labels,
                "hypothesis": ex.input.hypothesis,
                "perturbed": it.perturbed.hypothesis,
                "before": before,
                "after": after,
                "table": table,
            })
        );
    }
    Ok(())
}
