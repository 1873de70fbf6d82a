//! Messages between the page and the model worker. Each message is a JSON header; byte
//! payloads travel beside it as transferred `ArrayBuffer`s, in the order the header names
//! them, so they are neither copied through JSON nor cloned. A checkpoint's weights travel as
//! a `Blob` (a picked file, a download): the browser holds its bytes and the worker reads it a
//! tensor at a time.

use serde::{Deserialize, Serialize};
pub use tabprobe_core::checkpoint::TokenizerKind;
use tabprobe_core::data::import::{ImportError, ImportReport};
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::inoculation::{InoculationProgress, InoculationResult, InoculationSettings};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeCounts, ProbeSet, ProbeSettings};
use tabprobe_core::report::FullReport;
use tabprobe_core::scoring::{ModelId, Pair, PairScore};
use tabprobe_core::Dataset;

/// A model slot of the worker: the main model, and a second model to compare with (e.g. the
/// bundled hypothesis-only one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Slot {
    /// The model the page works with: live predictions, probe runs, inoculation.
    Main,
    /// The model compared with it in probe runs (Table 8's hypothesis-only column).
    Second,
}

impl Slot {
    /// Both slots, main first.
    pub const ALL: [Slot; 2] = [Slot::Main, Slot::Second];

    /// The slot's position in per-slot arrays (`[main, second]`).
    pub fn index(self) -> usize {
        match self {
            Slot::Main => 0,
            Slot::Second => 1,
        }
    }
}

impl std::fmt::Display for Slot {
    /// `main model` or `second model`, as the page names them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Slot::Main => "main model",
            Slot::Second => "second model",
        })
    }
}

/// Which compute device a load asks for (the model bar's backend choice).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackendChoice {
    /// The faster of WebGPU and the CPU here, by a short measurement the worker makes once (a
    /// browser's software WebGPU adapter is often far slower than its CPU).
    #[default]
    Auto,
    /// WebGPU; the load fails when the browser offers no adapter.
    #[serde(rename = "webgpu")]
    WebGpu,
    /// burn's CPU backend (with helper workers on several cores).
    Cpu,
}

impl BackendChoice {
    /// All choices, in the order the model bar lists them.
    pub const ALL: [BackendChoice; 3] = [
        BackendChoice::Auto,
        BackendChoice::WebGpu,
        BackendChoice::Cpu,
    ];

    /// The value of the model bar's select (and of the choice the page keeps).
    pub fn key(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::WebGpu => "webgpu",
            BackendChoice::Cpu => "cpu",
        }
    }

    /// The choice of `key`; `None` for anything else.
    pub fn from_key(key: &str) -> Option<BackendChoice> {
        BackendChoice::ALL.into_iter().find(|c| c.key() == key)
    }

    /// How the model bar names it.
    pub fn label(self) -> &'static str {
        match self {
            BackendChoice::Auto => "Backend: the faster",
            BackendChoice::WebGpu => "Backend: WebGPU",
            BackendChoice::Cpu => "Backend: CPU",
        }
    }
}

/// The precision a load runs at, where its device allows it (the model bar's precision choice;
/// docs/model-families.md#precision).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionChoice {
    /// f16-mixed where the WebGPU adapter has `shader-f16`; f32 elsewhere (the CPU path, and
    /// adapters without it, such as software ones).
    #[default]
    F16WhereOffered,
    /// f32 always.
    F32,
    /// int8 on the CPU path (the dense layers' products in integers; never the default); f32
    /// on WebGPU.
    #[serde(rename = "int8")]
    Int8OnCpu,
}

impl PrecisionChoice {
    /// All choices, in the order the model bar lists them.
    pub const ALL: [PrecisionChoice; 3] = [
        PrecisionChoice::F16WhereOffered,
        PrecisionChoice::F32,
        PrecisionChoice::Int8OnCpu,
    ];

    /// The value of the model bar's select (and of the choice the page keeps).
    pub fn key(self) -> &'static str {
        match self {
            PrecisionChoice::F16WhereOffered => "f16",
            PrecisionChoice::F32 => "f32",
            PrecisionChoice::Int8OnCpu => "int8",
        }
    }

    /// The choice of `key`; `None` for anything else.
    pub fn from_key(key: &str) -> Option<PrecisionChoice> {
        PrecisionChoice::ALL.into_iter().find(|c| c.key() == key)
    }

    /// How the model bar names it.
    pub fn label(self) -> &'static str {
        match self {
            PrecisionChoice::F16WhereOffered => "Precision: f16-mixed where the GPU has it",
            PrecisionChoice::F32 => "Precision: f32",
            PrecisionChoice::Int8OnCpu => "Precision: int8 on the CPU path",
        }
    }
}

/// What a probe set is built from: the dataset and the runner's settings and rules. Sent
/// whole with each request (the dataset is small beside the probe set it expands to: the
/// INFOTABS dev split is 0.4 MB as JSON, its row-deletion probe set 32 MB), so a worker that
/// was restarted after a crash needs no state from before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeRequest {
    /// The dataset.
    pub dataset: Dataset,
    /// Probes, seed, linearization, caps, splits.
    pub settings: ProbeSettings,
    /// Validity rules.
    pub rules: RuleSet,
}

impl ProbeRequest {
    /// The probe set (core's `build_probe_set`), or core's reason why not.
    pub fn build(&self) -> Result<ProbeSet, String> {
        build_probe_set(&self.dataset, &self.settings, &self.rules).map_err(|e| e.to_string())
    }
}

/// What an interrupted probe run kept (the page's IndexedDB, written from
/// [`Response::RunScores`]): the scores of its first pairs and the chunk it handed them out
/// in. A resumed run hands out the same chunks, so every batch — rows and padding — is the
/// one the uninterrupted run would have scored, and its run file is the same to the byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResume {
    /// Pairs per chunk of the interrupted run.
    pub chunk: usize,
    /// The scores of its first `scores.len()` pairs, in order.
    pub scores: Vec<PairScore>,
}

/// Page → worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Load a checkpoint into `slot`. Byte parts: `config.json`, then the tokenizer part(s);
    /// the trailing Blob is `model.safetensors`.
    LoadModel {
        /// The model slot.
        slot: Slot,
        /// Human name, e.g. the folder name.
        name: String,
        /// Which tokenizer files follow the config.
        tokenizer: TokenizerKind,
        /// Pairs per forward pass.
        batch_size: usize,
        /// Caller-chosen load id, echoed in the reply. When several loads into one slot
        /// overlap, only the latest one requested takes the slot; the others fail with
        /// "replaced by a newer load" (an automatic load never overwrites the user's model).
        #[serde(default)]
        load: u64,
        /// Which device to run it on.
        #[serde(default)]
        backend: BackendChoice,
        /// Whether it may run in f16-mixed.
        #[serde(default)]
        precision: PrecisionChoice,
        /// This worker is another worker's helper ([`crate::pool`]): it loads on the CPU and
        /// starts no helpers of its own.
        #[serde(default)]
        helper: bool,
    },
    /// Score `pairs` with the model in `slot`; answered by progress messages and one
    /// [`Response::Scores`] (or an error) carrying the same `job`.
    Score {
        /// Caller-chosen job id.
        job: u64,
        /// Which model.
        slot: Slot,
        /// Pairs to score, in order.
        pairs: Vec<Pair>,
    },
    /// Build the probe set `probe` describes and run it with the model in `slot` (core's
    /// `build_probe_set`, then `ProbeRun` batch by batch): the page never builds a whole
    /// probe set on its thread. Answered by [`Response::Progress`] messages and one
    /// [`Response::RunFinished`] (also after a cancel, holding what was scored) or
    /// [`Response::JobFailed`] (a probe set that cannot be built fails so, with core's
    /// message).
    RunProbe {
        /// Caller-chosen job id.
        job: u64,
        /// Which model.
        slot: Slot,
        /// The dataset, settings and rules.
        probe: Box<ProbeRequest>,
        /// The scores an interrupted run of the same set kept, to go on after them.
        #[serde(default)]
        resume: Option<RunResume>,
    },
    /// Import the files whose bytes follow as parts, one per name (core's `import_files`,
    /// which the page would otherwise run on its thread); answered by one
    /// [`Response::Imported`] with the same `request`.
    Import {
        /// Caller-chosen request id.
        request: u64,
        /// The files' names (paths inside a picked folder), in the order of the parts.
        names: Vec<String>,
        /// The dataset's name.
        dataset_name: String,
    },
    /// Count the probe set `probe` describes (what the runner shows before a run); answered by
    /// one [`Response::ProbeCounts`] with the same `request`.
    CountProbeSet {
        /// Caller-chosen request id.
        request: u64,
        /// The dataset, settings and rules.
        probe: Box<ProbeRequest>,
        /// Also check that the scores file imported into this slot was made for the set (a
        /// run checks it before scoring anything; asked first, no model's run starts).
        #[serde(default)]
        scores_of: Option<Slot>,
    },
    /// Fine-tune the model in `slot` on the challenge items of the probe run whose pieces
    /// (core's `run::pieces`, one run) follow as byte parts (docs/inoculation.md); answered by
    /// [`Response::InoculationProgress`] messages and one [`Response::InoculationFinished`]
    /// or [`Response::JobFailed`] (also after a cancel). The kept checkpoints stay in the
    /// worker under `job` for [`Request::LoadInoculated`] and [`Request::ExportInoculated`].
    Inoculate {
        /// Caller-chosen job id.
        job: u64,
        /// The model to fine-tune.
        slot: Slot,
        /// Probes, sizes, learning rates, epochs, seed.
        settings: InoculationSettings,
    },
    /// Load the checkpoint inoculation `job` kept for sample size `size` into `slot`;
    /// answered like [`Request::LoadModel`].
    LoadInoculated {
        /// The inoculation's job id.
        job: u64,
        /// Which size's checkpoint.
        size: usize,
        /// The slot to load it into.
        slot: Slot,
        /// Pairs per forward pass.
        batch_size: usize,
        /// Caller-chosen load id (see [`Request::LoadModel`]).
        load: u64,
        /// Which device to run it on.
        #[serde(default)]
        backend: BackendChoice,
        /// Whether it may run in f16-mixed.
        #[serde(default)]
        precision: PrecisionChoice,
    },
    /// Load the model in `slot` again, from the files this worker kept, on the device `backend`
    /// names (the model bar's backend choice changed); answered like [`Request::LoadModel`].
    MoveModel {
        /// The slot whose model moves.
        slot: Slot,
        /// Where to.
        backend: BackendChoice,
        /// Whether it may run in f16-mixed.
        #[serde(default)]
        precision: PrecisionChoice,
        /// Pairs per forward pass.
        batch_size: usize,
        /// Caller-chosen load id (see [`Request::LoadModel`]).
        load: u64,
    },
    /// Import a scores file (docs/scoring-elsewhere.md) into `slot` as a model: the trailing
    /// Blob is the file. Answered like a load ([`Response::ModelLoaded`] or
    /// [`Response::LoadFailed`]); a refused file leaves the slot as it was.
    ImportScores {
        /// The model slot.
        slot: Slot,
        /// Caller-chosen load id (see [`Request::LoadModel`]).
        load: u64,
        /// The name the user gave the imported model.
        name: String,
        /// The file's name, for errors and the model bar.
        file: String,
        /// The dataset's labels: the file's probabilities and labels must be over them.
        label_set: LabelSet,
    },
    /// Write the pairs file (docs/scoring-elsewhere.md) of the probe set `probe` describes;
    /// answered by [`Response::CheckpointFiles`] with the one file, or
    /// [`Response::JobFailed`] with core's reason.
    ExportPairs {
        /// A new request id.
        request: u64,
        /// The dataset, settings (their linearization names the file's) and rules.
        probe: Box<ProbeRequest>,
        /// The file's name.
        file: String,
    },
    /// Send back the Hugging Face files of the checkpoint inoculation `job` kept for `size`;
    /// answered by [`Response::CheckpointFiles`] or [`Response::JobFailed`].
    ExportInoculated {
        /// A new job id for this request.
        request: u64,
        /// The inoculation's job id.
        job: u64,
        /// Which size's checkpoint.
        size: usize,
    },
    /// Build the whole report of a saved run (core's [`FullReport`]) from its run files in
    /// pieces (core's `run::pieces`, main model first): in a trailing Blob whose pieces are
    /// `piece_bytes` long (the Blob the page stores), or, with `piece_bytes` empty, as byte
    /// parts. Answered by one [`Response::Report`] with the same `request`; the page's
    /// thread never computes a report.
    BuildReport {
        /// Caller-chosen request id.
        request: u64,
        /// The byte length of each piece in the Blob, in order (empty: the pieces are parts).
        #[serde(default)]
        piece_bytes: Vec<usize>,
    },
    /// Stop `job` after the batch in flight.
    Cancel {
        /// The job to stop.
        job: u64,
    },
    /// Are you there? Answered at once with [`Response::Pong`] whenever the worker's event
    /// loop is free: the page's watch (`src/worker/watch.rs`) sends one every second while a
    /// job waits, and a worker that stays silent is one that stopped or hangs.
    Ping {
        /// Echoed in the answer.
        n: u64,
    },
}

/// The compute device the worker chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Backend {
    /// WebGPU through burn-wgpu.
    WebGpu,
    /// burn's `flex` CPU backend in wasm, with the reason WebGPU was not used.
    Cpu {
        /// Why not WebGPU: "WebGPU unavailable: …", "faster here than WebGPU" or "chosen".
        reason: String,
    },
    /// No computation: the scores come from an imported scores file.
    ScoresFile,
}

impl Backend {
    /// How the UI names it.
    pub fn describe(&self) -> String {
        match self {
            Backend::WebGpu => "WebGPU".to_string(),
            Backend::Cpu { reason } => format!("CPU ({reason})"),
            Backend::ScoresFile => "scores file (computed elsewhere)".to_string(),
        }
    }
}

fn one() -> usize {
    1
}

/// What the UI shows about a loaded model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Name and weight hash (share links carry these).
    pub id: ModelId,
    /// The model's labels in its own order, as `config.json`'s `id2label` names them.
    pub labels: Vec<String>,
    /// The architecture's short name (`RoBERTa`, `BERT`, `DeBERTa-v2/v3`, …).
    #[serde(default)]
    pub architecture: String,
    /// Parameters the network uses (`None`: unknown, or more than a `u64` holds).
    #[serde(default)]
    pub parameters: Option<u64>,
    /// Maximum tokens per pair.
    pub max_tokens: usize,
    /// Transformer layers (encoder and decoder together for BART).
    pub layers: usize,
    /// Hidden size.
    pub hidden_size: usize,
    /// Where it runs.
    pub backend: Backend,
    /// Why it runs there: the choice, and the measurement behind an automatic one.
    #[serde(default)]
    pub backend_note: String,
    /// Why it runs at its precision (`id.precision`): the choice, and whether the adapter has
    /// `shader-f16`.
    #[serde(default)]
    pub precision_note: String,
    /// Workers that score together on the CPU path (this one and its helpers, as planned);
    /// 1 on WebGPU.
    #[serde(default = "one")]
    pub workers: usize,
    /// Wall time of loading (parse, upload, warm-up), milliseconds.
    pub load_ms: f64,
    /// The model worker's wasm memory once the model has loaded, in bytes (it never shrinks,
    /// so this is also the most the load took); `None` from a worker that did not say.
    #[serde(default)]
    pub memory_bytes: Option<f64>,
    /// For scores imported from a file, what the file holds; `None` for a network.
    #[serde(default)]
    pub imported: Option<ImportedInfo>,
}

/// What an imported scores file holds (the model bar's line for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedInfo {
    /// The file's name.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Scored pairs (lines).
    pub pairs: usize,
    /// Lines that gave a label without probabilities.
    pub label_only: usize,
}

impl ModelInfo {
    /// The model bar's line: architecture, parameters, sizes and load time, e.g.
    /// `RoBERTa · 124.6 M parameters · 12 layers · hidden 768 · max 512 tokens · loaded in 6.1 s`.
    pub fn summary(&self) -> String {
        if let Some(i) = &self.imported {
            let kind = match i.label_only {
                0 => "probabilities".to_string(),
                n if n == i.pairs => "labels only".to_string(),
                n => format!("{n} with a label only"),
            };
            return format!(
                "imported scores · {} ({}) · {} pairs · {kind} · read in {:.1} s",
                i.file,
                tabprobe_core::display::bytes(i.bytes),
                i.pairs,
                self.load_ms / 1000.0
            );
        }
        let mut parts = Vec::new();
        if !self.architecture.is_empty() {
            parts.push(self.architecture.clone());
        }
        if let Some(n) = self.parameters {
            parts.push(format!("{} parameters", parameter_count(n)));
        }
        parts.push(format!("{} layers", self.layers));
        parts.push(format!("hidden {}", self.hidden_size));
        parts.push(format!("max {} tokens", self.max_tokens));
        parts.push(format!("loaded in {:.1} s", self.load_ms / 1000.0));
        parts.join(" · ")
    }

    /// The model bar's note on memory, e.g. `the model worker holds 1.47 GB after loading (a
    /// worker addresses at most 4.29 GB; the weights file stays with the browser)`; under a
    /// gigabyte in MB (`21.3 MB`).
    pub fn memory_note(&self) -> Option<String> {
        use tabprobe_core::display::bytes;
        // wasm32's address space: 4 GiB.
        let most = bytes(4 << 30);
        self.memory_bytes.map(|held| {
            let held = bytes(held as u64);
            format!(
                "the model worker holds {held} after loading (a worker addresses at most \
                 {most}; the weights file stays with the browser)"
            )
        })
    }
}

/// A parameter count for people: `124.6 M`, `1.40 B`, or the exact number below a million
/// with thousands separated (`86,019`).
pub fn parameter_count(n: u64) -> String {
    if n >= 1_000_000_000 {
        format!("{:.2} B", n as f64 / 1e9)
    } else if n >= 1_000_000 {
        format!("{:.1} M", n as f64 / 1e6)
    } else {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }
}

/// How a long job (scoring, a probe run, an inoculation) or an export ended without its
/// answer. A cancel is its own case, not a message to compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum JobError {
    /// Stopped by [`Request::Cancel`] after `done` of `total` units of work (pairs, or an
    /// inoculation's forward-pair equivalents).
    Cancelled {
        /// Work done when it stopped.
        done: usize,
        /// Work in the job.
        total: usize,
    },
    /// Failed: what happened, for the user.
    Failed(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Cancelled { done, total } => write!(f, "cancelled after {done} of {total}"),
            JobError::Failed(message) => f.write_str(message),
        }
    }
}

impl From<String> for JobError {
    fn from(message: String) -> Self {
        JobError::Failed(message)
    }
}

/// Worker → page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// The worker's message handler is installed. A worker drops messages that arrive while
    /// its wasm is still being fetched, so the page queues requests until it hears this.
    Ready,
    /// The model in `slot` is ready.
    ModelLoaded {
        /// The slot it was loaded into.
        slot: Slot,
        /// The request's load id.
        #[serde(default)]
        load: u64,
        /// What it is.
        info: ModelInfo,
    },
    /// Loading into `slot` failed; the slot keeps its previous model.
    LoadFailed {
        /// The slot.
        slot: Slot,
        /// The request's load id.
        #[serde(default)]
        load: u64,
        /// What went wrong, for the user.
        message: String,
    },
    /// `done` of `total` pairs of `job` are scored.
    Progress {
        /// The job.
        job: u64,
        /// Pairs scored so far.
        done: usize,
        /// Pairs in the job.
        total: usize,
    },
    /// All scores of `job`, in request order.
    Scores {
        /// The job.
        job: u64,
        /// One score per pair.
        scores: Vec<PairScore>,
        /// Wall time of scoring, milliseconds.
        elapsed_ms: f64,
        /// Workers that scored them (this one and its loaded helpers at the start).
        #[serde(default = "one")]
        workers: usize,
    },
    /// The result of a [`Request::Import`]: the dataset and what was found, or the located
    /// problem that stopped it.
    Imported {
        /// The request's id.
        request: u64,
        /// The import, or why not.
        result: Result<Box<(Dataset, ImportReport)>, ImportError>,
    },
    /// The counts of a [`Request::CountProbeSet`], or why the probe set cannot be built.
    ProbeCounts {
        /// The request's id.
        request: u64,
        /// The counts, or core's message.
        counts: Result<ProbeCounts, String>,
    },
    /// The scores of one chunk of probe run `job`, pairs `from..from + scores.len()`, posted
    /// as soon as the chunk is scored so the page can keep them (a run in progress survives a
    /// reload or a crash: [`RunResume`]).
    RunScores {
        /// The job.
        job: u64,
        /// Pairs per chunk of this run.
        chunk: usize,
        /// The first pair's position in the probe set.
        from: usize,
        /// The chunk's scores, in order.
        scores: Vec<PairScore>,
    },
    /// One piece of the run file of `job` (core's `run::pieces`) as its one byte part. A run
    /// file travels so, a piece per message, because the page parses each message in a task
    /// of its own: the whole file at once (34 MB for the INFOTABS dev split's row deletions)
    /// would block the page for most of a second.
    RunPiece {
        /// The job.
        job: u64,
    },
    /// A probe run ended, after its [`Response::RunPiece`]s: complete, or cancelled (then the
    /// run's `cancelled_at` is set and it holds the examples and items scored before the
    /// cancel). A trailing Blob holds the pieces one after the other, for the page to store
    /// without copying them on its thread.
    RunFinished {
        /// The job.
        job: u64,
        /// The byte length of each piece sent (and in the Blob), in order.
        piece_bytes: Vec<usize>,
        /// Wall time of scoring, milliseconds.
        elapsed_ms: f64,
    },
    /// Where inoculation `job` stands.
    InoculationProgress {
        /// The job.
        job: u64,
        /// Phase, work and time.
        progress: InoculationProgress,
    },
    /// Inoculation `job` finished.
    InoculationFinished {
        /// The job.
        job: u64,
        /// Tables, grid and every evaluated item.
        result: Box<InoculationResult>,
    },
    /// Files for the page to save, byte parts in the order of `names`: an inoculated
    /// checkpoint's ([`Request::ExportInoculated`]) or a pairs file ([`Request::ExportPairs`]).
    CheckpointFiles {
        /// The request's `request` id.
        request: u64,
        /// File names (a checkpoint's `config.json`, `model.safetensors`, `tokenizer.json` or
        /// `vocab.json` and `merges.txt`; a pairs file's name).
        names: Vec<String>,
    },
    /// The report a [`Request::BuildReport`] asked for, or why the run files do not read.
    Report {
        /// The request's id.
        request: u64,
        /// The report, or what is wrong with the run files.
        report: Result<Box<FullReport>, String>,
    },
    /// Long job or request `job` ended without its answer: cancelled, or failed. Answers every
    /// job (scoring, probe runs, inoculations) and every export.
    JobFailed {
        /// The job's (or request's) id.
        job: u64,
        /// How it ended.
        error: JobError,
    },
    /// The worker panicked (a bug, or the test hook of `outputs::TEST_PANIC_KEY`); sent by its
    /// panic hook just before it dies, so the page can say what happened. The page then sees
    /// the worker's `error` event, ends every job and starts a fresh worker.
    Panicked {
        /// The panic message and place.
        message: String,
    },
    /// The answer to [`Request::Ping`].
    Pong {
        /// The ping's number.
        n: u64,
    },
    /// A message the worker could not read (a bug, not user input).
    BadRequest {
        /// What was wrong.
        message: String,
    },
}

impl Response {
    /// The id of the request this answers (a load's, a job's or a request's), or `None` for
    /// the messages that answer no one request (ready, a panic, a pong, a bad request).
    pub fn request_id(&self) -> Option<u64> {
        match self {
            Response::ModelLoaded { load, .. } | Response::LoadFailed { load, .. } => Some(*load),
            Response::Progress { job, .. }
            | Response::Scores { job, .. }
            | Response::RunScores { job, .. }
            | Response::RunPiece { job }
            | Response::RunFinished { job, .. }
            | Response::InoculationProgress { job, .. }
            | Response::InoculationFinished { job, .. }
            | Response::JobFailed { job, .. } => Some(*job),
            Response::Imported { request, .. }
            | Response::ProbeCounts { request, .. }
            | Response::CheckpointFiles { request, .. }
            | Response::Report { request, .. } => Some(*request),
            Response::Ready
            | Response::Panicked { .. }
            | Response::Pong { .. }
            | Response::BadRequest { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_failure_says_cancelled_or_why_and_names_its_job() {
        let cancelled = Response::JobFailed {
            job: 7,
            error: JobError::Cancelled { done: 3, total: 10 },
        };
        assert_eq!(cancelled.request_id(), Some(7));
        // The wire form the Node tests read (tests/dawn/worker_on_dawn.mjs).
        assert_eq!(
            serde_json::to_string(&cancelled).expect("serialises"),
            r#"{"JobFailed":{"job":7,"error":{"Cancelled":{"done":3,"total":10}}}}"#
        );
        assert_eq!(
            JobError::Cancelled { done: 3, total: 10 }.to_string(),
            "cancelled after 3 of 10"
        );
        let failed = JobError::from("no model is loaded as the main model".to_string());
        assert_eq!(failed.to_string(), "no model is loaded as the main model");
        // Every answer names its request; the messages that answer none do not.
        assert_eq!(Response::RunPiece { job: 4 }.request_id(), Some(4));
        assert_eq!(Response::Pong { n: 1 }.request_id(), None);
        assert_eq!(Response::Ready.request_id(), None);
    }

    #[test]
    fn parameter_counts_read_as_people_write_them() {
        assert_eq!(parameter_count(0), "0");
        assert_eq!(parameter_count(999), "999");
        assert_eq!(parameter_count(86_019), "86,019");
        assert_eq!(parameter_count(999_999), "999,999");
        // roberta-base's classifier: 124,647,939 parameters.
        assert_eq!(parameter_count(124_647_939), "124.6 M");
        assert_eq!(parameter_count(1_400_000_000), "1.40 B");
    }

    #[test]
    fn the_memory_note_reads_the_workers_memory_in_gb() {
        let mut info = ModelInfo {
            id: ModelId {
                name: "m".into(),
                weights_sha256: "ab".into(),
                label_set: tabprobe_core::LabelSet::ThreeWay,
                precision: Default::default(),
                label_only: false,
                scores_file: false,
            },
            labels: vec![],
            architecture: String::new(),
            parameters: None,
            max_tokens: 512,
            layers: 1,
            hidden_size: 8,
            backend: Backend::WebGpu,
            backend_note: String::new(),
            precision_note: String::new(),
            workers: 1,
            load_ms: 1.0,
            memory_bytes: Some(1.0),
            imported: None,
        };
        // The info of a worker from before `memory_bytes` reads as `None`.
        let mut older = serde_json::to_value(&info).expect("serialises");
        older
            .as_object_mut()
            .expect("an object")
            .remove("memory_bytes");
        info = serde_json::from_value(older).expect("an older worker's info reads");
        // An older worker says nothing of its memory: no note.
        assert_eq!(info.memory_bytes, None);
        assert_eq!(info.memory_note(), None);
        // 1,474,560,000 bytes (22,500 wasm pages of 64 KiB) = 1.47 GB.
        info.memory_bytes = Some(22_500.0 * 65_536.0);
        assert_eq!(
            info.memory_note().expect("a note"),
            "the model worker holds 1.47 GB after loading (a worker addresses at most 4.29 GB; \
             the weights file stays with the browser)"
        );
        // 21,233,664 bytes (324 pages) = 21.2 MB.
        info.memory_bytes = Some(324.0 * 65_536.0);
        assert!(info
            .memory_note()
            .expect("a note")
            .starts_with("the model worker holds 21.2 MB after loading"));
    }
}
