//! Share links and result files through to the share page's view model (issue 12 §5): the
//! input is read as link text and as a result file; whatever decodes must build the page
//! model and the re-run pairs without panicking, with the diff's lines matching the tables.
//! A leading 0x00 byte makes the rest a `SharedResult` JSON packed into a well-formed link,
//! so the fuzzer reaches the checks past the CRC as well.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::share::view::{rerun_pairs, PremiseSection, SharePage};
use tabprobe_core::share::{decode, encode, from_file, SharedResult};

fn page(r: &SharedResult) {
    let page = SharePage::new(r);
    if let PremiseSection::Changed(c) = &page.premise {
        assert!(c.lines.len() >= c.edited.row_count(), "a diff line per edited row");
    }
    let _ = page.claim_status(None);
    let _ = rerun_pairs(r);
    // A result the page accepted re-encodes, and the link reads back the same.
    if let Ok(link) = encode(r) {
        assert_eq!(decode(&link).as_ref(), Ok(r), "round trip");
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(json) = data.strip_prefix(&[0u8]) {
        if let Ok(r) = serde_json::from_slice::<SharedResult>(json) {
            if let Ok(link) = encode(&r) {
                if let Ok(r) = decode(&link) {
                    page(&r);
                }
            }
        }
        return;
    }
    if let Ok(r) = decode(&text) {
        page(&r);
    }
    if let Ok(r) = from_file("fuzz.json", &text) {
        page(&r);
    }
});
