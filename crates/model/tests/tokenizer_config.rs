//! `tokenizer_config.json` read as `transformers` 5 reads it (issue 36, item 3): the tokenizer
//! class rebuilds the pipeline from the file's settings — lowercasing, accents, Chinese
//! characters, prefix space, punctuation splitting, the pair's special tokens (added to the
//! vocabulary when it lacks them), extra special tokens — and cuts the premise on
//! `truncation_side`. For BERT, DistilBERT, ELECTRA, BART, DeBERTa-v3 and XLM-R, every variant
//! of `families/tokenizer-config/` gives exactly the ids `transformers` gives for 36 pairs
//! (`golden/make_golden_tokenizer_config.py`), refusals included.

mod common;

use serde::Deserialize;
use std::collections::BTreeMap;
use tabprobe_core::checkpoint::TokenizerConfig;
use tabprobe_model::PairTokenizer;

#[derive(Deserialize)]
struct Golden {
    transformers: String,
    pairs: Vec<Text>,
    families: BTreeMap<String, Family>,
}

#[derive(Deserialize)]
struct Text {
    premise: String,
    hypothesis: String,
}

#[derive(Deserialize)]
struct Family {
    dir: String,
    variants: BTreeMap<String, Variant>,
}

#[derive(Deserialize)]
struct Variant {
    class: String,
    /// `None` where `transformers` refuses the pair (its hypothesis alone is too long).
    input_ids: Vec<Option<Vec<u32>>>,
}

fn read(path: std::path::PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_setting_tokenizes_as_transformers_does() {
    let families = common::golden_dir().join("families");
    let golden: Golden =
        serde_json::from_slice(&read(families.join("tokenizer-config/golden.json"))).unwrap();
    assert!(
        golden.transformers.starts_with("5."),
        "{}",
        golden.transformers
    );
    let mut checked = 0;
    let mut differing = 0;
    for (name, family) in &golden.families {
        let tokenizer = read(families.join(&family.dir).join("tokenizer.json"));
        let config: serde_json::Value =
            serde_json::from_slice(&read(families.join(&family.dir).join("config.json"))).unwrap();
        let model_type = config["model_type"].as_str();
        let as_saved = &family.variants["as-saved"].input_ids;
        for (variant, want) in &family.variants {
            let where_ = format!("{name}/{variant} ({})", want.class);
            let path = families.join("tokenizer-config").join(name).join(variant);
            let settings = TokenizerConfig::parse(&read(path.join("tokenizer_config.json")))
                .unwrap_or_else(|e| panic!("{where_}: {e}"));
            let max_tokens = settings.max_tokens(usize::MAX);
            assert_eq!(max_tokens, 24, "{where_}");
            let tok =
                PairTokenizer::from_json_bytes_with(&tokenizer, max_tokens, &settings, model_type)
                    .unwrap_or_else(|e| panic!("{where_}: {e}"));
            for (k, (pair, ids)) in golden.pairs.iter().zip(&want.input_ids).enumerate() {
                let got = tok.encode(&pair.premise, &pair.hypothesis);
                match ids {
                    Some(ids) => {
                        let got = got.unwrap_or_else(|e| panic!("{where_} pair {k}: {e}"));
                        assert_eq!(&got.ids, ids, "{where_} pair {k}: {:?}", pair.premise);
                    }
                    None => assert!(got.is_err(), "{where_} pair {k}: transformers refuses it"),
                }
                checked += 1;
                differing += usize::from(ids != &as_saved[k]);
            }
        }
    }
    // 6 families × 6–8 variants × 36 pairs, and the settings do change the ids.
    assert_eq!(checked, 42 * 36);
    assert!(
        differing > 400,
        "{differing} encodings differ from the saved settings'"
    );
}

#[test]
fn bad_settings_are_named() {
    let families = common::golden_dir().join("families");
    let tokenizer = read(families.join("bert/tokenizer.json"));
    for (config, want) in [
        (
            r#"{"do_lower_case": "yes"}"#,
            "tokenizer_config.json: do_lower_case is \"yes\"; expected true or false",
        ),
        (
            r#"{"truncation_side": "middle"}"#,
            "tokenizer_config.json: truncation_side is \"middle\"; expected \"left\" or \"right\"",
        ),
        (
            r#"{"cls_token": 7}"#,
            "tokenizer_config.json: cls_token is 7; expected a token",
        ),
        (
            r#"{"unk_token": "<nope>"}"#,
            "tokenizer_config.json: unk_token \"<nope>\" is not in tokenizer.json's vocabulary",
        ),
        (
            r#"{"sep_token": ""}"#,
            "tokenizer_config.json: sep_token is \"\"; expected a token of at least one character",
        ),
    ] {
        let settings = TokenizerConfig::parse(config.as_bytes()).unwrap();
        let e = PairTokenizer::from_json_bytes_with(&tokenizer, 24, &settings, Some("bert"))
            .unwrap_err();
        assert!(e.to_string().contains(want), "{config}: {e}");
    }
    // A file naming a million extra special tokens is refused before any is added.
    let many: Vec<String> = (0..1_000_000).map(|i| format!("<t{i}>")).collect();
    let config = serde_json::json!({ "extra_special_tokens": many }).to_string();
    let settings = TokenizerConfig::parse(config.as_bytes()).unwrap();
    let e =
        PairTokenizer::from_json_bytes_with(&tokenizer, 24, &settings, Some("bert")).unwrap_err();
    assert!(
        e.to_string()
            .contains("names 1000000 extra special tokens, more than the 10000"),
        "{e}"
    );
}
