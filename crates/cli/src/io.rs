//! File helpers shared by the subcommands: every error names the file and what went wrong,
//! so a message alone tells the user what to fix.

use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use tabprobe_core::checkpoint::{ceiling, check_size, Found, Reader, CLI_MAX_WEIGHTS_BYTES};
use tabprobe_core::data::import::MAX_FILE_BYTES;
use tabprobe_core::display::bytes;
use tabprobe_core::Dataset;

/// Largest run file `report` and `merge` read when it is a regular file: a merged cluster
/// run of INFOTABS train × the table probes is estimated at 0.7 GB (docs/clusters.md#sizing-on-paper).
/// Pipes and devices keep the import limit ([`MAX_FILE_BYTES`]), so an endless stream still
/// stops early.
pub const MAX_RUN_FILE_BYTES: u64 = 4 * 1024 * 1024 * 1024;

/// How long opening a named pipe may wait for a writer: opening a FIFO blocks until one
/// appears, and a command must not hang on a pipe nothing writes to.
pub const PIPE_OPEN_TIMEOUT: Duration = Duration::from_secs(5);

/// Opens `path` for reading; a named pipe with no writer is given [`PIPE_OPEN_TIMEOUT`].
/// Errors start `<path>: cannot read <what>:`.
fn open(path: &Path, what: &str) -> Result<std::fs::File, String> {
    let cannot = |e: std::io::Error| format!("{}: cannot read{what}: {e}", path.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let is_fifo = std::fs::metadata(path)
            .map(|m| m.file_type().is_fifo())
            .unwrap_or(false);
        if is_fifo {
            // Open in a thread and stop waiting after the timeout; the thread, blocked in
            // open(2), ends with the process.
            let (send, recv) = mpsc::channel();
            let owned = path.to_path_buf();
            std::thread::spawn(move || {
                let _ = send.send(std::fs::File::open(owned));
            });
            return match recv.recv_timeout(PIPE_OPEN_TIMEOUT) {
                Ok(opened) => opened.map_err(cannot),
                Err(_) => Err(format!(
                    "{}: cannot read{what}: it is a named pipe and nothing wrote to it within {} s",
                    path.display(),
                    PIPE_OPEN_TIMEOUT.as_secs()
                )),
            };
        }
    }
    std::fs::File::open(path).map_err(cannot)
}

/// Reads at most `limit` bytes of `path`: a larger file (or an endless one such as
/// `/dev/zero`) is an error naming the file and the limit, after reading `limit + 1` bytes
/// at most. The file system's size is checked first where it has one.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    read_limited(path, limit, "", |_| {
        format!(
            "{}: larger than {}, the most a file may hold here; is this the right file?",
            path.display(),
            bytes(limit)
        )
    })
}

/// [`read_bytes`], with ` <what>` after "cannot read" in errors (` model file`) and
/// `too_large` saying what passing `limit` means: it gets the file's size where the file
/// system has one, else the bytes read when reading stopped.
fn read_limited(
    path: &Path,
    limit: u64,
    what: &str,
    too_large: impl Fn(Found) -> String,
) -> Result<Vec<u8>, String> {
    let file = open(path, what)?;
    if let Some(size) = file
        .metadata()
        .ok()
        .filter(|m| m.is_file() && m.len() > limit)
        .map(|m| m.len())
    {
        return Err(too_large(Found::Size(size)));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: cannot read{what}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(Found::Streamed(bytes.len() as u64)));
    }
    Ok(bytes)
}

/// `bytes` read from `path` as text; the error names the first invalid byte.
fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: cannot read: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Checks the size of the checkpoint file at `path` against the ceiling of one named `name`
/// without reading it: for files another library opens itself (burn's PyTorch reader).
pub fn check_model_file_size(path: &Path, name: &str) -> Result<(), String> {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let file = path.display().to_string();
    check_size(name, &file, Found::Size(size), Reader::CommandLine).map_err(|e| e.to_string())
}

/// Reads a whole text file of at most the import limit ([`MAX_FILE_BYTES`]).
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = read_bytes(path, MAX_FILE_BYTES)?;
    utf8(path, bytes)
}

/// Reads a run file as text: up to [`MAX_RUN_FILE_BYTES`] from a regular file, up to
/// [`MAX_FILE_BYTES`] from anything else.
pub fn read_run_text(path: &Path) -> Result<String, String> {
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let limit = if regular {
        MAX_RUN_FILE_BYTES
    } else {
        MAX_FILE_BYTES
    };
    let bytes = read_bytes(path, limit)?;
    utf8(path, bytes)
}

/// Reads the checkpoint file at `path`, held to the ceiling of a checkpoint file named
/// `name` (core's `checkpoint::ceiling`: 1 MiB for a `config.json`, 64 MiB for a
/// `tokenizer.json`, [`CLI_MAX_WEIGHTS_BYTES`] for weights, …); the error names the file,
/// the ceiling and its size or the bytes read. A name no checkpoint reader reads gets the
/// weights' ceiling.
pub fn read_model_file(path: &Path, name: &str) -> Result<Vec<u8>, String> {
    let limit = ceiling(name, Reader::CommandLine).unwrap_or(CLI_MAX_WEIGHTS_BYTES);
    let file = path.display().to_string();
    read_limited(path, limit, " model file", |found| {
        match check_size(name, &file, found, Reader::CommandLine) {
            Err(e) => e.to_string(),
            Ok(()) => format!("{file}: larger than {}", bytes(limit)),
        }
    })
}

/// Reads and validates a dataset file (the product's JSON format). Every problem is listed,
/// each with the file name and the line or JSON path at fault.
pub fn read_dataset(path: &Path) -> Result<Dataset, String> {
    let text = read_text(path)?;
    let name = path.display().to_string();
    tabprobe_core::parse_dataset(&name, &text).map_err(|e| {
        format!(
            "{name}: not a valid tabprobe dataset ({} problem(s)):\n{}",
            e.problems.len(),
            e.report()
        )
    })
}

/// Parses JSON into `T`, naming the file, the JSON path and line/column of the first error.
pub fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, String> {
    tabprobe_core::data::json::parse_json_at(&path.display().to_string(), text)
        .map_err(|e| e.to_string())
}

/// Writes `text`, creating the parent folder if needed.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create folder: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// Writes `text` so that `path` holds either its old or its new content, never a mix: into a
/// temporary file beside it (`.<name>.tmp-<pid>`), flushed to disk, then renamed over it.
/// A process killed mid-write leaves the old file (and possibly the temporary one).
pub fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create folder: {e}", dir.display()))?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let tmp = dir
        .unwrap_or(Path::new("."))
        .join(format!(".{name}.tmp-{}", std::process::id()));
    let cannot = |e: std::io::Error| format!("{}: cannot write: {e}", tmp.display());
    let mut file = std::fs::File::create(&tmp).map_err(cannot)?;
    file.write_all(text.as_bytes()).map_err(cannot)?;
    file.sync_all().map_err(cannot)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(|e| {
        format!(
            "{}: cannot replace it with {}: {e}",
            path.display(),
            tmp.display()
        )
    })
}
