//! `tabprobe`: the native command line over tabprobe's crates. Builds the bundled demo dataset
//! from INFOTABS, writes the dataset JSON Schema, validates dataset files, prints
//! linearizations, runs probe sets (whole or as cluster shards, merged back) and plain predictions with a real model, benchmarks it,
//! prints paper-style reports, and trains and evaluates the demo models.

mod bench;
mod convert;
mod demo;
mod evaluate;
mod hub_cache;
mod imported;
mod infotabs_split;
mod inoculate;
mod io;
mod linearize;
mod model_card;
mod pairs;
mod predict;
mod probe;
mod report;
mod shard;
mod train;
mod train_tokenizer;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tabprobe",
    version,
    about = "Systematic evidence probes for tabular NLI models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process, so the size of the `probe` variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Build the demo dataset (INFOTABS dev tables + the paper's running examples).
    Demo {
        /// The INFOTABS `data` folder (holding `maindata/`, `tables/json/`, `reasoning/`).
        #[arg(long, default_value = "../shared/data/infotabs/data")]
        infotabs: PathBuf,
        /// Number of dev tables to include besides the two running examples.
        #[arg(long, default_value_t = 40)]
        tables: usize,
        /// Where to write the dataset JSON.
        #[arg(long, default_value = "public/demo/dataset.json")]
        out: PathBuf,
    },
    /// Convert published data (INFOTABS, TabFact, Table-BERT, MNLI/SNLI, TabPert, the probing
    /// paper's counterfactual pairs; files, folders or zips) into a dataset JSON.
    Convert(convert::ConvertArgs),
    /// Write `model.safetensors` next to a checkpoint's `pytorch_model.bin`, so the browser
    /// (which cannot read PyTorch's format) can load the folder.
    ConvertWeights {
        /// The checkpoint folder holding `pytorch_model.bin`.
        folder: PathBuf,
    },
    /// Write the JSON Schema of the dataset format.
    Schema {
        /// Where to write it.
        #[arg(long, default_value = "public/schema/dataset-v1.json")]
        out: PathBuf,
    },
    /// Validate dataset files and print every problem found.
    Validate {
        /// Dataset JSON files.
        files: Vec<PathBuf>,
    },
    /// Print every table of a dataset as premise text, one JSON line per table.
    Linearize {
        /// The dataset (tabprobe dataset JSON).
        #[arg(long)]
        dataset: PathBuf,
        /// paragraph, infotabs_compat, horizontal_template, vertical_template or concatenation.
        #[arg(long, default_value = "infotabs_compat")]
        strategy: String,
    },
    /// Run a probe set with a real model on the CPU and write the run file.
    Probe(probe::ProbeArgs),
    /// Write the pairs of a probe set as JSON lines (no model needed), for a model tabprobe
    /// cannot run to score elsewhere (docs/scoring-elsewhere.md).
    Pairs(pairs::PairsArgs),
    /// Merge the run files of a sharded probe run (`probe --shard i/n`) into the run file
    /// one process would have written, byte for byte.
    Merge(shard::MergeArgs),
    /// Score premise/hypothesis pairs from a JSON-lines file with a real model on the CPU.
    Predict(predict::PredictArgs),
    /// Measure examples/s of a model per backend, sequence length and batch size.
    Bench(bench::BenchArgs),
    /// Train a byte-level BPE tokenizer on INFOTABS train text.
    TrainTokenizer(train_tokenizer::TokenizerArgs),
    /// Train a RoBERTa NLI classifier on INFOTABS train (from scratch or from a checkpoint).
    Train(train::TrainArgs),
    /// Accuracy of a model on INFOTABS splits next to the majority baseline.
    Evaluate(evaluate::EvaluateArgs),
    /// Fine-tune a model on a probe run's challenge items (paper §7) and write the before/after
    /// tables and the fine-tuned checkpoints.
    Inoculate(inoculate::InoculateArgs),
    /// Print the paper-style tables of a run file or an inoculation result (and optionally
    /// write them as CSV).
    Report {
        /// The run file written by `tabprobe probe`, or `inoculation.json`.
        run: PathBuf,
        /// Also write one CSV file per table into this folder.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Count heuristic items nobody has reviewed in Tables 4, 7 and 8 and the
        /// label-preserving transition sets (left out by default; the tables say how many
        /// either way).
        #[arg(long)]
        include_heuristic: bool,
        /// Tables 4 and 7: draw one item per example and per column (preserved, flipped)
        /// instead of the paper's one item per example; the tables' notes say which.
        #[arg(long)]
        per_column: bool,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Demo {
            infotabs,
            tables,
            out,
        } => {
            let dataset = demo::build(&infotabs, tables)?;
            let text = dataset
                .to_json_pretty()
                .map_err(|e| format!("cannot serialise the dataset: {e}"))?;
            io::write(&out, &(text + "\n"))?;
            println!(
                "wrote {}: {} tables, {} examples",
                out.display(),
                dataset.tables.len(),
                dataset.examples.len()
            );
            Ok(())
        }
        Command::ConvertWeights { folder } => {
            let bin = folder.join("pytorch_model.bin");
            let out = folder.join("model.safetensors");
            if out.exists() {
                return Err(format!(
                    "{} exists already; nothing to convert",
                    out.display()
                ));
            }
            io::check_model_file_size(&bin, tabprobe_core::checkpoint::PYTORCH_BIN)?;
            let bytes = tabprobe_model::loading::pytorch::safetensors_from_pytorch_file(&bin)
                .map_err(|e| e.to_string())?;
            std::fs::write(&out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
            println!("wrote {} ({} bytes)", out.display(), bytes.len());
            Ok(())
        }
        Command::Schema { out } => {
            let text = tabprobe_core::data::schema::dataset_schema_json()
                .map_err(|e| format!("cannot serialise the schema: {e}"))?;
            io::write(&out, &text)?;
            println!("wrote {}", out.display());
            Ok(())
        }
        Command::Validate { files } => {
            let mut failed = 0;
            for file in &files {
                let name = file.display().to_string();
                let text = io::read_text(file)?;
                match tabprobe_core::parse_dataset(&name, &text) {
                    Ok(d) => println!(
                        "{name}: ok ({} tables, {} examples)",
                        d.tables.len(),
                        d.examples.len()
                    ),
                    Err(e) => {
                        failed += 1;
                        eprintln!("{}", e.report());
                    }
                }
            }
            if failed == 0 {
                Ok(())
            } else {
                Err(format!("{failed} of {} file(s) have problems", files.len()))
            }
        }
        Command::Linearize { dataset, strategy } => {
            let s =
                tabprobe_core::linearize::Linearization::from_name(&strategy).ok_or_else(|| {
                    let known: Vec<&str> = tabprobe_core::linearize::Linearization::ALL
                        .iter()
                        .map(|l| l.as_str())
                        .collect();
                    format!(
                        "--strategy: unknown strategy {strategy:?}; expected one of {}",
                        known.join(", ")
                    )
                })?;
            linearize::run(&dataset, s)
        }
        Command::Convert(args) => convert::run(&args),
        Command::Probe(args) => probe::run(&args),
        Command::Pairs(args) => pairs::run(&args),
        Command::Merge(args) => shard::run_merge(&args),
        Command::Predict(args) => predict::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::TrainTokenizer(args) => train_tokenizer::run_tokenizer(&args),
        Command::Train(args) => train::run_train(&args),
        Command::Evaluate(args) => evaluate::run_evaluate(&args),
        Command::Inoculate(args) => inoculate::run(&args),
        Command::Report {
            run,
            csv,
            include_heuristic,
            per_column,
        } => report::run(
            &run,
            csv.as_deref(),
            &tabprobe_core::report::ReportOptions {
                include_heuristic,
                per_column,
            },
        ),
    }
}
