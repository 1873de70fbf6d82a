//! File helpers shared by the subcommands: every error names the file and what went wrong,
//! so a message alone tells the user what to fix.

use std::path::Path;

use tabprobe_core::Dataset;

/// Reads a whole text file.
pub fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
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
    tabprobe_core::json::parse_json_at(&path.display().to_string(), text)
}

/// Writes `text`, creating the parent folder if needed.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create folder: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
