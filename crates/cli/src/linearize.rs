//! `tabprobe linearize`: every table of a dataset as premise text, one JSON line per table
//! (`{"table_id": …, "premise": …}`), so linearizations can be diffed against other tools.

use std::io::Write;
use std::path::Path;

use tabprobe_core::linearize::{linearize, Linearization};

/// Prints one JSON line per table on stdout. Tables the strategy cannot linearize are
/// reported on stderr (each naming the table) and make the command fail after the others
/// are printed.
pub fn run(dataset: &Path, strategy: Linearization) -> Result<(), String> {
    let d = crate::io::read_dataset(dataset)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = 0;
    for t in &d.tables {
        match linearize(t, strategy) {
            Ok(premise) => {
                let line = serde_json::json!({ "table_id": t.id(), "premise": premise });
                match writeln!(out, "{line}") {
                    // The reader (e.g. `head`) has seen enough.
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                    Err(e) => return Err(format!("cannot write to stdout: {e}")),
                    Ok(()) => {}
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("{}: {e}", dataset.display());
            }
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(format!(
            "{}: {failed} of {} table(s) could not be linearized with {}",
            dataset.display(),
            d.tables.len(),
            strategy.as_str()
        ))
    }
}
