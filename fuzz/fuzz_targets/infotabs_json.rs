//! INFOTABS and TabPert table JSON readers.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::{infotabs, tabpert};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = infotabs::parse_table("T1.json", "T1", text);
        if let Ok(v) = serde_json::from_str(text) {
            let _ = tabpert::parse_table("T1A.json", "T1A", &v);
        }
    }
});
