//! Table-BERT TSV, and the relevant-row votes CSV.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::{relevance_csv, tablebert};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tablebert::parse("dev.tsv", text);
        let _ = relevance_csv::parse("votes.csv", text);
    }
});
