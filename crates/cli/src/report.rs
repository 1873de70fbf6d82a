//! `tabprobe report`: prints the paper-style report of a run file (`tabprobe_core::report`)
//! as text, and optionally writes each section as CSV.

use std::io::Write;
use std::path::Path;

use tabprobe_core::report::{render_csv, render_text, sections_with, ReportOptions};
use tabprobe_core::run::{parse_run, RunResult};

/// Reads and checks a run file (see [`parse_run`]); a regular file may hold up to
/// [`crate::io::MAX_RUN_FILE_BYTES`].
pub fn read_run(path: &Path) -> Result<RunResult, String> {
    let text = crate::io::read_run_text(path)?;
    parse_run(&path.display().to_string(), &text)
}

/// Runs `tabprobe report`; `include_heuristic` counts unreviewed heuristic items in Tables 4,
/// 7 and 8 and the label-preserving transition sets (see [`ReportOptions`]).
pub fn run(path: &Path, csv: Option<&Path>, include_heuristic: bool) -> Result<(), String> {
    let run = read_run(path)?;
    let sections = sections_with(&run, &ReportOptions { include_heuristic });
    // CSV first, so piping the text into `head` (which closes stdout early) still writes them.
    if let Some(dir) = csv {
        for s in &sections {
            crate::io::write(&dir.join(format!("{}.csv", s.file)), &render_csv(s))?;
        }
        eprintln!("wrote {} CSV files to {}", sections.len(), dir.display());
    }
    let text: Vec<String> = sections.iter().map(render_text).collect();
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{}", text.join("\n")) {
        // A reader that stopped reading is not an error of ours.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}"))
        }
        _ => Ok(()),
    }
}
