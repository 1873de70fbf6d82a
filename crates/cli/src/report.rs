//! `tabprobe report`: prints the paper-style report of a run file (`tabprobe_core::report`)
//! as text, and optionally writes each section as CSV.

use std::io::Write;
use std::path::Path;

use tabprobe_core::inoculation::{tables, InoculationResult, INOCULATION_FORMAT};
use tabprobe_core::report::{render_csv, render_text, sections_with, ReportOptions};
use tabprobe_core::run::{parse_run, RunResult};

/// Reads and checks a run file (see [`parse_run`]); a regular file may hold up to
/// [`crate::io::MAX_RUN_FILE_BYTES`].
pub fn read_run(path: &Path) -> Result<RunResult, String> {
    let text = crate::io::read_run_text(path)?;
    parse_run(&path.display().to_string(), &text).map_err(|e| e.to_string())
}

/// Runs `tabprobe report` with the reader's [`ReportOptions`] (unreviewed heuristic items
/// counted or not, Tables 4 and 7 sampled per example or per column).
pub fn run(path: &Path, csv: Option<&Path>, opts: &ReportOptions) -> Result<(), String> {
    let text = crate::io::read_run_text(path)?;
    if is_inoculation(&text) {
        return inoculation(path, &text, csv);
    }
    let run = parse_run(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
    let sections = sections_with(&run, opts);
    // CSV first, so piping the text into `head` (which closes stdout early) still writes them.
    if let Some(dir) = csv {
        for s in &sections {
            crate::io::write(&dir.join(format!("{}.csv", s.file())), &render_csv(s))?;
        }
        eprintln!("wrote {} CSV files to {}", sections.len(), dir.display());
    }
    let text: Vec<String> = sections.iter().map(render_text).collect();
    print_out(&text.join("\n"))
}

/// Whether a file's `format` marker says it is an inoculation result.
fn is_inoculation(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Marker {
        format: Option<String>,
    }
    serde_json::from_str::<Marker>(text)
        .ok()
        .and_then(|m| m.format)
        .is_some_and(|f| f == INOCULATION_FORMAT)
}

/// `tabprobe report inoculation.json`: the before/after tables, the grid and the outcomes;
/// with `--csv DIR`, `DIR/inoculation.csv`.
fn inoculation(path: &Path, text: &str, csv: Option<&Path>) -> Result<(), String> {
    let result =
        InoculationResult::parse(&path.display().to_string(), text).map_err(|e| e.to_string())?;
    if let Some(dir) = csv {
        let file = dir.join("inoculation.csv");
        crate::io::write(&file, &tables::render_csv(&result))?;
        eprintln!("wrote {}", file.display());
    }
    print_out(tables::render_text(&result).trim_end())
}

fn print_out(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}") {
        // A reader that stopped reading is not an error of ours.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}"))
        }
        _ => Ok(()),
    }
}
