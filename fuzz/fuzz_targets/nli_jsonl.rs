//! MNLI/SNLI JSON lines.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::nli_jsonl;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = nli_jsonl::parse("dev.jsonl", "dev", text);
    }
});
