//! Zip expansion under small limits: no panic, and never more memory than the limits allow
//! (libFuzzer's -malloc_limit_mb catches a single allocation past them).
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::{zip, Limits};

const LIMITS: Limits = Limits {
    max_file_bytes: 1 << 20,
    max_total_bytes: 4 << 20,
    max_zip_entries: 1000,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(files) = zip::expand("fuzz.zip", data, &LIMITS, 0) {
        let total: usize = files.iter().map(|f| f.bytes.len()).sum();
        assert!(total as u64 <= LIMITS.max_total_bytes);
        assert!(files.len() <= LIMITS.max_zip_entries);
    }
});
