//! `tabprobe convert`: published data (files, folders, zips) → the product's dataset JSON, or an
//! INFOTABS-style TSV. Uses the same importers as the site (`tabprobe_core::data::import`) and prints
//! the same summary: the format detected for each file, counts per split and label, unmatched
//! table ids and skipped rows with their reasons.

use std::path::{Path, PathBuf};

use tabprobe_core::data::import::{import_files, too_large, ImportOptions, InputFile, Limits};

/// Arguments of `tabprobe convert`.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Files, folders (read recursively, in name order) and zip archives, in any mix.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write: `*.json` = tabprobe dataset JSON; `*.tsv` = INFOTABS-style TSV of the
    /// examples (`annotater_id table_id hypothesis label`).
    #[arg(short, long)]
    out: PathBuf,
    /// Keep only these splits (comma-separated or repeated), e.g. `--split dev,alpha1`.
    #[arg(long, value_delimiter = ',')]
    split: Vec<String>,
    /// The dataset's name (default: the first input's stem; a tabprobe dataset JSON given alone
    /// keeps its own, as it keeps everything it holds).
    #[arg(long)]
    name: Option<String>,
    /// Also write the import summary as JSON here.
    #[arg(long)]
    report: Option<PathBuf>,
}

/// Runs the conversion.
pub fn run(args: &ConvertArgs) -> Result<(), String> {
    let limits = Limits::default();
    let mut files = Vec::new();
    let mut total = 0u64;
    for input in &args.inputs {
        let base = input.parent().unwrap_or(Path::new(""));
        collect(base, input, &limits, &mut total, &mut files)?;
    }
    let options = ImportOptions {
        name: args.name.clone(),
        splits: args.split.clone(),
        limits,
    };
    let (dataset, report) = import_files(files, &options).map_err(|e| e.to_string())?;
    print!("{}", report.to_text());
    let ext = args.out.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "tsv" => {
            let tsv = tabprobe_core::data::export::to_infotabs_tsv(&dataset.examples);
            crate::io::write(&args.out, &tsv.text)?;
            println!(
                "wrote {}: {} examples ({} with a text premise left out; {} hypotheses had tabs or line breaks replaced by spaces)",
                args.out.display(),
                tsv.written,
                tsv.without_table,
                tsv.flattened
            );
        }
        "json" => {
            let text = dataset
                .to_json_pretty()
                .map_err(|e| format!("cannot serialise the dataset: {e}"))?;
            crate::io::write(&args.out, &(text + "\n"))?;
            println!(
                "wrote {}: {} tables, {} examples",
                args.out.display(),
                dataset.tables.len(),
                dataset.examples.len()
            );
        }
        other => {
            return Err(format!(
                "--out {}: unknown extension {other:?}; expected .json (dataset) or .tsv (INFOTABS TSV)",
                args.out.display()
            ))
        }
    }
    if let Some(path) = &args.report {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| format!("cannot serialise the report: {e}"))?;
        crate::io::write(path, &(text + "\n"))?;
    }
    Ok(())
}

/// Adds `path` (a file, or every file under a folder) to `out`, named relative to `base`.
/// Sizes are checked from the file system before a file is read.
fn collect(
    base: &Path,
    path: &Path,
    limits: &Limits,
    total: &mut u64,
    out: &mut Vec<InputFile>,
) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let name = path
        .strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("{}: cannot list: {e}", path.display()))?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: cannot list: {e}", path.display()))?;
        entries.sort();
        for e in entries {
            collect(base, &e, limits, total, out)?;
        }
        return Ok(());
    }
    if meta.len() > limits.max_file_bytes {
        return Err(too_large(&name, meta.len(), limits.max_file_bytes).to_string());
    }
    *total += meta.len();
    if *total > limits.max_total_bytes {
        return Err(format!(
            "{name}: the inputs come to more than {} together (the limit)",
            tabprobe_core::display::bytes(limits.max_total_bytes)
        ));
    }
    // Bounded again while reading: a device or pipe has no size to check beforehand.
    let bytes = crate::io::read_bytes(path, limits.max_file_bytes)?;
    out.push(InputFile::new(name, bytes));
    Ok(())
}
