//! Model loading from arbitrary files (issue #12 §2 "Model files that lie", §5): the bytes of a
//! `config.json`, a `model.safetensors` and optionally a tokenizer go through
//! `NliModel::load` on burn's CPU (`flex`) device — the in-memory path the worker takes — and,
//! when they load, through one warm-up pair in each order, as the worker does. Either an error
//! or scores, never a panic, an abort or an allocation the files do not pay for.
//!
//! Input layout (the seeds in `fuzz/seeds/model_load` are the tiny golden checkpoints in it):
//!
//! ```text
//! mode: u8            0 → golden tokenizer.json, 1 → tokenizer.json follows, 2 → vocab.json + merges.txt follow
//! len: u32 LE, config.json bytes
//! mode 1: len: u32 LE, tokenizer.json bytes
//! mode 2: len: u32 LE, vocab.json bytes; len: u32 LE, merges.txt bytes
//! the rest: model.safetensors bytes
//! ```
//!
//! A length past the end takes what is left. Inputs over `MAX_INPUT` are skipped, so one
//! execution stays bounded by the size of a tiny checkpoint.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::{Device, ModelFiles, NliModel, TokenizerFiles};

/// Largest input read (the tiny golden checkpoint with its tokenizer is about 320 KB).
const MAX_INPUT: usize = 512 * 1024;

/// The golden tokenizer, for inputs that fuzz only the config and the weights.
const GOLDEN_TOKENIZER: &[u8] =
    include_bytes!("../../crates/model/tests/golden/tiny-f32/tokenizer.json");

/// Splits off a little-endian u32 length and that many bytes (fewer at the end).
fn part<'a>(data: &mut &'a [u8]) -> &'a [u8] {
    let (len, rest) = match data.split_first_chunk::<4>() {
        Some((len, rest)) => (u32::from_le_bytes(*len) as usize, rest),
        None => (0, &[][..]),
    };
    let (head, tail) = rest.split_at(len.min(rest.len()));
    *data = tail;
    head
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some((&mode, mut rest)) = data.split_first() else {
        return;
    };
    let config_json = part(&mut rest);
    let tokenizer = match mode % 3 {
        0 => TokenizerFiles::Json(GOLDEN_TOKENIZER),
        1 => TokenizerFiles::Json(part(&mut rest)),
        _ => {
            let vocab_json = part(&mut rest);
            let merges_txt = part(&mut rest);
            TokenizerFiles::VocabMerges {
                vocab_json,
                merges_txt,
            }
        }
    };
    let files = ModelFiles {
        config_json,
        weights: rest,
        tokenizer,
        tokenizer_config: None,
    };
    let Ok(model) = NliModel::load("fuzz", files, &Device::flex()) else {
        return;
    };
    for order in [PairOrder::PremiseFirst, PairOrder::HypothesisFirst] {
        let pair = Pair {
            premise: "The sky is blue.".into(),
            hypothesis: "The sky has a colour.".into(),
            order,
        };
        let _ = model.score_blocking(std::slice::from_ref(&pair));
    }
});
