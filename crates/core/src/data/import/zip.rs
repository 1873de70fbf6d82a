//! Reading a zip archive into named files, with the limits checked before anything is
//! inflated: entry count, each entry's size and the total (declared sizes first, then the
//! bytes actually inflated, so a header that lies cannot blow memory up).

use std::io::{Cursor, Read};

use super::{too_large, ImportError, InputFile, Limits};

/// The files inside `bytes` (a zip named `name`), each named `<name>/<path in the zip>`.
/// Folders, hidden files and nested zips' contents are passed over (nested zips are returned
/// as files; the caller decides). `already` is the total size of the other inputs, counted
/// against [`Limits::max_total_bytes`].
pub fn expand(
    name: &str,
    bytes: &[u8],
    limits: &Limits,
    already: u64,
) -> Result<Vec<InputFile>, ImportError> {
    let bad = |message: String| ImportError::new(name, "zip", message);
    let mut archive = ::zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| bad(format!("not a readable zip archive: {e}")))?;
    if archive.len() > limits.max_zip_entries {
        return Err(bad(format!(
            "the archive has {} entries; the limit is {}",
            archive.len(),
            limits.max_zip_entries
        )));
    }
    let mut total = already;
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| bad(format!("entry {i}: cannot be read: {e}")))?;
        if entry.is_dir() {
            continue;
        }
        let inner = entry
            .name()
            .map_err(|e| bad(format!("entry {i}: its name cannot be read: {e}")))?
            .to_string();
        let full = format!("{name}/{inner}");
        let declared = entry.size();
        if declared > limits.max_file_bytes {
            return Err(too_large(&full, declared, limits.max_file_bytes));
        }
        if total.saturating_add(declared) > limits.max_total_bytes {
            return Err(bad(format!(
                "the files inflate to more than {} in total (the limit)",
                crate::display::bytes(limits.max_total_bytes)
            )));
        }
        let mut data = Vec::new();
        (&mut entry)
            .take(limits.max_file_bytes + 1)
            .read_to_end(&mut data)
            .map_err(|e| ImportError::new(&full, "zip", format!("cannot be inflated: {e}")))?;
        let size = data.len() as u64;
        if size > limits.max_file_bytes {
            return Err(too_large(&full, size, limits.max_file_bytes));
        }
        total += size;
        if total > limits.max_total_bytes {
            return Err(bad(format!(
                "the files inflate to more than {} in total (the limit)",
                crate::display::bytes(limits.max_total_bytes)
            )));
        }
        out.push(InputFile::new(full, data));
    }
    Ok(out)
}
