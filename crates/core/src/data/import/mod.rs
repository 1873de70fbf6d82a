//! Importers from published formats into the product's dataset. Each names the file and the
//! line (or JSON path) of anything it cannot read. [`bundle::import_files`] takes any set of
//! named files (several files, a folder, the entries of a zip), tells what each one is
//! ([`detect`]) and builds one dataset with an [`ImportReport`] of what it found and skipped.

pub mod bundle;
pub mod counterfactual;
pub mod detect;
pub mod infotabs;
pub mod merge;
pub mod nli_jsonl;
pub mod relevance_csv;
pub mod report;
pub mod tabfact;
pub mod tablebert;
pub mod tabpert;
pub mod zip;

pub use bundle::{import_files, ImportOptions};
pub use detect::{detect, Format};
pub use merge::merge;
pub use report::{ImportReport, SkipGroup};

/// A located problem in an input file that an importer could not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{file}:{location}: {message}")]
pub struct ImportError {
    /// The file name as given.
    pub file: String,
    /// `line N` or a JSON path.
    pub location: String,
    /// What was wrong and what was expected.
    pub message: String,
}

impl ImportError {
    pub(crate) fn new(
        file: &str,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> ImportError {
        ImportError {
            file: file.to_string(),
            location: location.into(),
            message: message.into(),
        }
    }

    /// The error for JSON text serde_json could not parse, located by line and column.
    pub(crate) fn json_syntax(file: &str, e: &serde_json::Error) -> ImportError {
        ImportError::new(
            file,
            format!("line {}, column {}", e.line(), e.column()),
            format!("not valid JSON: {}", json_message(e)),
        )
    }
}

/// serde_json's message without its trailing ` at line L column C` (the location is given
/// separately, counted in the whole file).
pub(crate) fn json_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// One input file: its name (a path relative to the folder or zip it came from, or just the
/// file name) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    /// e.g. `infotabs/data/maindata/infotabs_dev.tsv`.
    pub name: String,
    /// The file's content.
    pub bytes: Vec<u8>,
}

impl InputFile {
    /// A file from its name and content.
    pub fn new(name: impl Into<String>, bytes: impl Into<Vec<u8>>) -> InputFile {
        InputFile {
            name: name.into(),
            bytes: bytes.into(),
        }
    }

    /// The last path component, e.g. `infotabs_dev.tsv`.
    pub fn base_name(&self) -> &str {
        base_name(&self.name)
    }
}

/// The last component of a `/`- or `\`-separated path.
pub fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The base name without its last extension: `T1264.json` → `T1264`,
/// `2-1859269-1.html.csv` → `2-1859269-1.html`.
pub fn stem(path: &str) -> &str {
    let base = base_name(path);
    match base.rfind('.') {
        Some(i) if i > 0 => &base[..i],
        _ => base,
    }
}

/// Size limits applied before anything is read whole (docs/limits.md#data-files: big files are refused with a
/// message, never half-loaded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest single file (and largest single zip entry, uncompressed), in bytes.
    pub max_file_bytes: u64,
    /// Largest total of all files together (zip entries counted uncompressed), in bytes.
    pub max_total_bytes: u64,
    /// Most entries a zip may hold (folders included).
    pub max_zip_entries: usize,
}

/// 100 MiB per file: the browser holds the text, the parsed values and the typed dataset at once.
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;
/// 300 MiB for everything imported at once (INFOTABS in full is about 13 MB).
pub const MAX_TOTAL_BYTES: u64 = 300 * 1024 * 1024;
/// 50,000 zip entries (INFOTABS has 2,540 table files; TabFact 16,573 CSV tables).
pub const MAX_ZIP_ENTRIES: usize = 50_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: MAX_FILE_BYTES,
            max_total_bytes: MAX_TOTAL_BYTES,
            max_zip_entries: MAX_ZIP_ENTRIES,
        }
    }
}

/// The error for a file over `limit` bytes.
pub fn too_large(file: &str, size: u64, limit: u64) -> ImportError {
    ImportError::new(
        file,
        "size",
        format!(
            "the file is {}; the limit is {} per file. Split it, or convert it with `tabprobe convert` on the command line",
            crate::display::bytes(size),
            crate::display::bytes(limit)
        ),
    )
}

/// Decodes UTF-8 text (a leading byte-order mark is dropped); invalid bytes are reported with
/// their line.
pub fn decode_text<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, ImportError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        ImportError::new(
            file,
            format!("line {line}"),
            format!(
                "not UTF-8 text (invalid byte at offset {}); expected a UTF-8 text file",
                e.valid_up_to()
            ),
        )
    })
}

/// Splits text into `(1-based line number, line)` pairs without the line ending (`\n` or
/// `\r\n`), the way every TSV/CSV/JSONL reader here counts lines.
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
}
