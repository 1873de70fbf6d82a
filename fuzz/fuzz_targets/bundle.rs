//! The whole import: the input is cut into files at 0xFF bytes, each `name\0content`,
//! detected, parsed and assembled; the result, when there is one, must be a valid dataset.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::{import_files, ImportOptions, InputFile, Limits};

fuzz_target!(|data: &[u8]| {
    let files: Vec<InputFile> = data
        .split(|b| *b == 0xFF)
        .filter_map(|part| {
            let i = part.iter().position(|b| *b == 0)?;
            let name = String::from_utf8_lossy(&part[..i]).into_owned();
            Some(InputFile::new(name, part[i + 1..].to_vec()))
        })
        .take(16)
        .collect();
    if files.is_empty() {
        return;
    }
    let options = ImportOptions {
        limits: Limits {
            max_file_bytes: 1 << 20,
            max_total_bytes: 4 << 20,
            max_zip_entries: 1000,
        },
        ..ImportOptions::default()
    };
    if let Ok((dataset, _report)) = import_files(files, &options) {
        let json = dataset.to_json_pretty().expect("serialisable");
        if let Err(e) = tabprobe_core::parse_dataset("roundtrip.json", &json) {
            panic!("an import produced an invalid dataset: {}", e.report());
        }
    }
});
