//! `tabprobe predict`: scores premise/hypothesis pairs from a JSON-lines file with a real
//! checkpoint (on the CPU unless `--backend` says otherwise) and writes one JSON line per input line (logits, probabilities in
//! ENTAIL/NEUTRAL/CONTRADICT order, the predicted label, truncation).
//!
//! The whole input is read, checked and tokenized before any scoring, so a bad line fails the
//! command in a second instead of after minutes of work, and every bad line is reported at once.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use serde::{Deserialize, Serialize};
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::scoring::{Pair, PairScore, ScoreError};
use tabprobe_core::{Dataset, Label};
use tabprobe_model::devices::backend::device_by_name;
use tabprobe_model::{EncodedPair, NliModel};

/// Options of `tabprobe predict`.
#[derive(Args, Debug)]
pub struct PredictArgs {
    /// A Hugging Face checkpoint folder: config.json, model.safetensors, and tokenizer.json
    /// (or vocab.json + merges.txt); or a model name, org/name[@revision], read offline from
    /// the local Hugging Face cache (HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub).
    #[arg(long)]
    pub model: PathBuf,
    /// JSON lines, each `{"premise": …, "hypothesis": …}` or `{"table": "<table id>",
    /// "hypothesis": …}` (tables are looked up in --dataset); an optional `"id"` is copied to
    /// the output. Blank lines are skipped.
    #[arg(long)]
    pub input: PathBuf,
    /// Where to write the JSON lines (stdout when absent).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The dataset holding the tables that `"table"` lines name.
    #[arg(long)]
    pub dataset: Option<PathBuf>,
    /// Table → text: paragraph, infotabs_compat, horizontal_template, vertical_template,
    /// concatenation.
    #[arg(long, default_value = "infotabs_compat")]
    pub linearization: String,
    /// Which text the model reads first: premise_first or hypothesis_first.
    #[arg(long, default_value = "premise_first")]
    pub order: String,
    /// Pairs per forward pass.
    #[arg(long, default_value_t = tabprobe_model::DEFAULT_BATCH_SIZE)]
    pub batch_size: usize,
    /// Where the model runs: flex, wgpu or vulkan (see `tabprobe probe --backend`).
    #[arg(long, default_value = "flex")]
    pub backend: String,
    /// f32, f16-mixed or int8 (see `tabprobe probe --precision`).
    #[arg(long, default_value = "f32", value_parser = crate::probe::parse_precision)]
    pub precision: tabprobe_model::Precision,
}

/// One input line as written by the user.
#[derive(Deserialize)]
struct InputLine {
    #[serde(default)]
    premise: Option<String>,
    #[serde(default)]
    table: Option<String>,
    hypothesis: String,
    #[serde(default)]
    id: Option<serde_json::Value>,
}

/// One output line.
#[derive(Serialize)]
struct OutputLine<'a> {
    /// 1-based line of the input file.
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a serde_json::Value>,
    label: Label,
    /// ENTAIL, NEUTRAL, CONTRADICT.
    probs: [f32; 3],
    /// The model's own label order (`id2label`).
    logits: &'a [f32],
    truncated: bool,
    premise_tokens_dropped: usize,
}

/// A checked input line, tokenized.
struct Item {
    line: usize,
    id: Option<serde_json::Value>,
    /// For naming the pair in a non-finite score's error.
    hypothesis: String,
    encoded: EncodedPair,
}

/// What an input line must look like, appended to every message about a bad line.
const EXPECTED: &str = r#"expected a JSON object {"premise": "...", "hypothesis": "..."} or {"table": "<table id>", "hypothesis": "..."}"#;

/// At most this many bad lines are listed; the rest are counted.
const MAX_LISTED_ERRORS: usize = 20;

/// Pairs scored between two progress messages and output flushes.
const CHUNK: usize = 512;

/// Turns one non-blank line into the pair to score, or says what is wrong with it.
fn parse_line(
    text: &str,
    dataset: Option<&Dataset>,
    settings: &LinearizeSettings,
) -> Result<(Pair, Option<serde_json::Value>), String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        // serde_json's own position says "line 1" of the one-line text; the column is what
        // helps, the line is already in the prefix.
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or_default();
        format!("not JSON (column {}: {message}); {EXPECTED}", e.column())
    })?;
    if !value.is_object() {
        return Err(format!("not a JSON object; {EXPECTED}"));
    }
    let line: InputLine = serde_path_to_error::deserialize(value).map_err(|e| {
        let at = e.path().to_string();
        if at == "." {
            format!("{}; {EXPECTED}", e.inner())
        } else {
            format!("at {at}: {}; {EXPECTED}", e.inner())
        }
    })?;
    let pair = match (line.premise, line.table) {
        (Some(premise), None) => settings.pair(&premise, &line.hypothesis),
        (None, Some(table_id)) => {
            let dataset = dataset.ok_or_else(|| {
                format!("names table {table_id:?} but no --dataset was given to look it up in")
            })?;
            let table = dataset
                .table(&table_id)
                .ok_or_else(|| format!("table {table_id:?} is not in the dataset"))?;
            settings
                .table_pair(table, &line.hypothesis)
                .map_err(|e| e.to_string())?
        }
        (Some(_), Some(_)) => {
            return Err(format!(
                "has both \"premise\" and \"table\"; give one of them; {EXPECTED}"
            ))
        }
        (None, None) => return Err(format!("has neither \"premise\" nor \"table\"; {EXPECTED}")),
    };
    Ok((pair, line.id))
}

/// Runs `tabprobe predict`.
pub fn run(args: &PredictArgs) -> Result<(), String> {
    let settings = crate::probe::parse_linearization(&args.linearization, &args.order)?;
    let dataset = match &args.dataset {
        Some(path) => Some(crate::io::read_dataset(path)?),
        None => None,
    };
    let text = crate::io::read_text(&args.input)?;
    let model = load_predictor(args)?;
    let items = read_items(args, &text, &model, dataset.as_ref(), &settings)?;
    let out_name = args
        .out
        .as_deref()
        .map_or_else(|| "stdout".to_string(), |p: &Path| p.display().to_string());
    let mut out = open_out(args.out.as_deref())?;
    let write_err = |e: std::io::Error| format!("{out_name}: cannot write: {e}");

    let started = Instant::now();
    let mut done = 0;
    let mut truncated = 0;
    for chunk in items.chunks(CHUNK) {
        let encoded: Vec<EncodedPair> = chunk.iter().map(|it| it.encoded.clone()).collect();
        let scores = model
            .score_encoded_blocking(&encoded)
            .map_err(|e| placed_error(args, chunk, done, e))?;
        for (item, score) in chunk.iter().zip(&scores) {
            truncated += usize::from(score.truncated);
            let json = output_json(item, score)?;
            match writeln!(out, "{json}") {
                // The reader (e.g. `head`) has seen enough.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                r => r.map_err(write_err)?,
            }
        }
        done += chunk.len();
        if items.len() > CHUNK {
            eprintln!(
                "scored {done}/{} pairs, {:.1}s",
                items.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    match out.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
        r => r.map_err(write_err)?,
    }
    if truncated > 0 {
        eprintln!(
            "note: {truncated} of {} pairs had their premise truncated to fit the model",
            items.len()
        );
    }
    if let Some(path) = &args.out {
        eprintln!("wrote {} predictions to {}", items.len(), path.display());
    }
    Ok(())
}

/// The model `--model` names on `--backend`, at `--precision` and `--batch-size`; says on
/// stderr what it is.
fn load_predictor(args: &PredictArgs) -> Result<NliModel, String> {
    let device = device_by_name(&args.backend).map_err(|e| format!("--backend: {e}"))?;
    let mut model = crate::probe::load_model(&args.model, &device)?;
    model
        .set_precision(args.precision)
        .map_err(|e| format!("--precision {}: {e}", args.precision))?;
    model.set_batch_size(args.batch_size);
    let shape = model.shape();
    eprintln!(
        "{}: {} ({}), {} parameters, {} layers, hidden {}, at most {} tokens",
        model.id().name,
        shape.family.display_name(),
        shape.family.class_name(),
        shape
            .parameters
            .map_or_else(|| "more than 2^64".to_string(), |n| n.to_string()),
        shape.layers,
        shape.hidden_size,
        shape.max_tokens
    );
    Ok(model)
}

/// Every non-blank line of the input `text`, checked and tokenized; all bad lines are named
/// at once (the first [`MAX_LISTED_ERRORS`]), before anything is scored.
fn read_items(
    args: &PredictArgs,
    text: &str,
    model: &NliModel,
    dataset: Option<&Dataset>,
    settings: &LinearizeSettings,
) -> Result<Vec<Item>, String> {
    let file = args.input.display().to_string();
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let checked = parse_line(raw, dataset, settings).and_then(|(pair, id)| {
            model
                .encode_pair(&pair)
                .map(|encoded| Item {
                    line,
                    id,
                    hypothesis: pair.hypothesis.clone(),
                    encoded,
                })
                .map_err(|e| format!("cannot tokenize the pair: {e}"))
        });
        match checked {
            Ok(item) => items.push(item),
            Err(e) => errors.push(format!("{file}: line {line}: {e}")),
        }
    }
    if !errors.is_empty() {
        let n = errors.len();
        let mut message = format!("{file}: {n} bad line(s):\n");
        message.push_str(&errors[..n.min(MAX_LISTED_ERRORS)].join("\n"));
        if n > MAX_LISTED_ERRORS {
            message.push_str(&format!("\n… and {} more", n - MAX_LISTED_ERRORS));
        }
        return Err(message);
    }
    if items.is_empty() {
        return Err(format!(
            "{file}: no pairs to score (the file has no non-blank line)"
        ));
    }
    Ok(items)
}

/// Where the predictions go: `path` (its folder made), else stdout.
fn open_out(path: Option<&Path>) -> Result<Box<dyn Write>, String> {
    Ok(match path {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("{}: cannot create folder: {e}", dir.display()))?;
            }
            let f = std::fs::File::create(path)
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            Box::new(BufWriter::new(f))
        }
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    })
}

/// A scoring error of `chunk` (whose first item is the `done`-th), named for the user: the
/// model numbers a non-finite pair within the chunk, so it is named by its input line.
fn placed_error(args: &PredictArgs, chunk: &[Item], done: usize, e: ScoreError) -> String {
    let e = match e {
        ScoreError::NonFinite(nf) => {
            let item = &chunk[nf.index.min(chunk.len() - 1)];
            let owner = match &item.id {
                Some(id) => format!("{} line {}, id {id}", args.input.display(), item.line),
                None => format!("{} line {}", args.input.display(), item.line),
            };
            ScoreError::NonFinite(
                nf.offset(done)
                    .owned_by(Some(owner))
                    .with_hypothesis(Some(&item.hypothesis)),
            )
        }
        other => other,
    };
    format!("{}: {e}", args.model.display())
}

/// The output line of `item` scored `score`, as JSON.
fn output_json(item: &Item, score: &PairScore) -> Result<String, String> {
    let line = OutputLine {
        line: item.line,
        id: item.id.as_ref(),
        label: score.predicted(),
        probs: score.probs,
        logits: &score.logits,
        truncated: score.truncated,
        premise_tokens_dropped: score.premise_tokens_dropped,
    };
    serde_json::to_string(&line).map_err(|e| format!("cannot serialise a prediction: {e}"))
}
