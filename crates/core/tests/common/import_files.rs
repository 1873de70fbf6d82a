//! Test helper: reads files and folders (recursively, in sorted order) into `InputFile`s named
//! by their path relative to `base`, as the CLI and the site's folder picker name them.

use std::path::{Path, PathBuf};

use tabprobe_core::data::import::InputFile;

/// The repo's `tests/fixtures/import` folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/import")
}

/// `../shared/data` relative to the repo root, when it exists; prints a skip message otherwise.
pub fn shared_data(test: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "SKIP: {test}: ../shared/data (the real INFOTABS, tabprobe and TabPert files) is absent"
        );
        None
    }
}

/// Every file under each of `paths` (files are taken as they are), named relative to `base`.
pub fn read(base: &Path, paths: &[&str]) -> Vec<InputFile> {
    let mut out = Vec::new();
    for p in paths {
        walk(base, &base.join(p), &mut out);
    }
    out
}

fn walk(base: &Path, p: &Path, out: &mut Vec<InputFile>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            walk(base, &e, out);
        }
    } else {
        let name = p
            .strip_prefix(base)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/");
        out.push(InputFile::new(name, std::fs::read(p).unwrap()));
    }
}
