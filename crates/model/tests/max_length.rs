//! `tokenizer_config.json` read as `transformers` reads it (issue 36, item 3): a folder whose
//! `model_max_length` (64) is below its position table (96) is truncated at 64 — the same ids,
//! the same refusals and logits within 1e-4 of `transformers` (`golden/make_golden_max_length.py`)
//! — for BERT, DistilBERT, DeBERTa-v3 and BART; without the file the same folder keeps the
//! pairs between 64 and 96 tokens whole, as before.

mod common;

use common::max_abs_diff;

use serde::Deserialize;
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::{Device, NliModel};

#[derive(Deserialize)]
struct Golden {
    model_max_length: usize,
    families: std::collections::BTreeMap<String, Family>,
}

#[derive(Deserialize)]
struct Family {
    dir: String,
    positions: usize,
    /// `None` where `transformers` refuses the pair (its hypothesis alone is too long).
    encodings: Vec<Option<Encoding>>,
    logits: Vec<Option<Vec<f32>>>,
}

#[derive(Deserialize)]
struct Encoding {
    input_ids: Vec<u32>,
    truncated: bool,
    premise_tokens_dropped: usize,
}

#[derive(Deserialize)]
struct Text {
    premise: String,
    hypothesis: String,
}

fn read(path: std::path::PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load(dir: &str, with_tokenizer_config: bool) -> NliModel {
    let families = common::golden_dir().join("families");
    let config = read(families.join(dir).join("config.json"));
    let weights = read(families.join(dir).join("model.safetensors"));
    let tokenizer = read(families.join(dir).join("tokenizer.json"));
    let tokenizer_config = read(
        families
            .join("max-length")
            .join(dir)
            .join("tokenizer_config.json"),
    );
    common::load_files(
        dir,
        &config,
        &weights,
        &tokenizer,
        with_tokenizer_config.then_some(tokenizer_config.as_slice()),
        &Device::flex(),
    )
}

fn pairs() -> Vec<Pair> {
    #[derive(Deserialize)]
    struct Pairs {
        pairs: Vec<Text>,
    }
    let g: Pairs = serde_json::from_slice(&read(common::golden_dir().join("golden.json"))).unwrap();
    g.pairs
        .into_iter()
        .map(|t| Pair {
            premise: t.premise,
            hypothesis: t.hypothesis,
            order: PairOrder::PremiseFirst,
        })
        .collect()
}

#[test]
fn model_max_length_truncates_where_transformers_does() {
    let path = common::golden_dir().join("families/max-length/golden.json");
    let g: Golden = serde_json::from_slice(&read(path)).unwrap();
    let pairs = pairs();
    for (name, f) in &g.families {
        let mut model = load(&f.dir, true);
        assert_eq!(model.shape().max_tokens, g.model_max_length, "{name}");
        let mut kept = Vec::new();
        let mut want = Vec::new();
        for (i, (pair, e)) in pairs.iter().zip(&f.encodings).enumerate() {
            match (model.encode_pair(pair), e) {
                (Ok(got), Some(e)) => {
                    assert_eq!(got.ids, e.input_ids, "{name} pair {i}: ids");
                    assert_eq!(
                        (got.truncated, got.premise_tokens_dropped),
                        (e.truncated, e.premise_tokens_dropped),
                        "{name} pair {i}: truncation"
                    );
                    kept.push(pair.clone());
                    want.push(f.logits[i].clone().expect("logits with an encoding"));
                }
                (Err(err), None) => {
                    // "the hypothesis alone is … tokens", or the tokenizer's own truncation
                    // error (the same one transformers raises) where the premise is empty.
                    eprintln!("{name} pair {i}: refused as transformers refuses it: {err}");
                }
                (got, e) => panic!(
                    "{name} pair {i}: tabprobe {} where transformers {}",
                    if got.is_ok() { "encodes" } else { "refuses" },
                    if e.is_some() { "encodes" } else { "refuses" }
                ),
            }
        }
        for batch in [1, 8] {
            model.set_batch_size(batch);
            let scores = model.score_blocking(&kept).expect("scoring");
            let got: Vec<Vec<f32>> = scores.iter().map(|s| s.logits.clone()).collect();
            let d = max_abs_diff(&got, &want);
            eprintln!(
                "{name} batch {batch}: {} pairs, max |Δlogit| = {d:.3e}",
                kept.len()
            );
            assert!(d <= 1e-4, "{name} batch {batch}: max |Δlogit| {d:e}");
        }
        // Without the file the network's own limit stands: pairs between 64 and 96 tokens stay
        // whole, which is what scored differently from Python before this was read.
        let plain = load(&f.dir, false);
        assert_eq!(plain.shape().max_tokens, f.positions, "{name}");
        let longer = pairs
            .iter()
            .filter(|p| {
                plain
                    .encode_pair(p)
                    .is_ok_and(|e| e.ids.len() > g.model_max_length)
            })
            .count();
        assert!(
            longer >= 3,
            "{name}: {longer} pairs past {}",
            g.model_max_length
        );
    }
}
