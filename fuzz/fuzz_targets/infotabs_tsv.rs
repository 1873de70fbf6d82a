//! The TSV readers of INFOTABS (split, reasoning, validation), the probing paper's
//! counterfactual pairs and TabPert's hypotheses; the first byte picks one.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::data::import::{infotabs, tabpert};

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    match which % 5 {
        0 => {
            let _ = infotabs::parse_split_tsv("infotabs_dev.tsv", "dev", text);
        }
        1 => {
            let _ = infotabs::parse_reasoning_tsv("reasoning.tsv", text);
        }
        2 => {
            let _ = infotabs::parse_validation_tsv("valid.tsv", text);
        }
        3 => {
            let _ = tabprobe_core::data::import::counterfactual::parse_counterfactual_tsv("cf.tsv", text);
        }
        _ => {
            let _ = tabpert::parse_hypotheses("tabpert.tsv", text);
        }
    }
});
