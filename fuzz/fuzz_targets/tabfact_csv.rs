//! TabFact `#`-delimited table CSV.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::tabfact;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tabfact::parse_csv_table("1-1.html.csv", "1-1.html.csv", text);
    }
});
