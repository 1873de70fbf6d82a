//! TabFact statements JSON and split id lists (after JSON parsing, as the bundle does).
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::tabfact;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        // Entity-link stripping takes any string.
        let _ = tabfact::strip_entity_links(text);
        return;
    };
    let _ = tabfact::parse_statements("r1.json", &v);
    let _ = tabfact::parse_split_ids("train_id.json", &v);
});
