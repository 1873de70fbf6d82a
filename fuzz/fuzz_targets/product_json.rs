//! The product's dataset JSON reader: any bytes give a dataset or located problems, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tabprobe_core::parse_dataset("fuzz.json", text);
    }
});
