//! Truncation as `transformers` cuts it, on long natural pairs, for every family (issue 43,
//! item 4): premises that are real INFOTABS tables linearized as tabprobe linearizes them,
//! far past (and a few tokens past) each fixture's `model_max_length` of 96, through each
//! family's own tokenizer type (WordPiece, SentencePiece Unigram, byte-level BPE; for
//! DeBERTa-v3 also a tokenizer converted from a `sentencepiece` model) as
//! `tokenizer_config.json` has `transformers` build it. Token ids, type ids and the count of
//! premise tokens cut must equal `transformers`' `truncation="only_first"` (`only_second` for
//! hypothesis-first pairs) exactly, and logits be within 1e-4, single and batched
//! (`golden/make_golden_truncation.py` wrote the references; the checkpoints are those of
//! `families/`).

mod common;

use common::max_abs_diff;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::{Device, NliModel};

const TOL: f32 = 1e-4;

#[derive(Deserialize)]
struct Golden {
    pairs: Vec<Text>,
    hypothesis_first: Vec<usize>,
    families: BTreeMap<String, FamilyGolden>,
}

#[derive(Deserialize)]
struct Text {
    table: String,
    rows: usize,
    linearization: String,
    premise: String,
    hypothesis: String,
}

#[derive(Deserialize)]
struct FamilyGolden {
    /// The network's folder in `families/`.
    dir: String,
    /// The tokenizer's folder (tokenizer.json, tokenizer_config.json) in `families/`.
    tokenizer_dir: String,
    max_length: usize,
    weights_sha256: String,
    premise_first: Vec<Encoding>,
    logits: Vec<Vec<f32>>,
    hypothesis_first: Vec<Encoding>,
    hypothesis_first_logits: Vec<Vec<f32>>,
}

#[derive(Deserialize)]
struct Encoding {
    input_ids: Vec<u32>,
    /// `None` where `transformers`' tokenizer returns none (DistilBERT, BART).
    token_type_ids: Option<Vec<u32>>,
    truncated: bool,
    premise_tokens_dropped: usize,
}

fn families_dir() -> PathBuf {
    common::golden_dir().join("families")
}

fn golden() -> Golden {
    let path = families_dir().join("truncation/golden.json");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).expect("families/truncation/golden.json")
}

fn read(dir: &str, file: &str) -> Vec<u8> {
    common::read(&format!("families/{dir}/{file}"))
}

/// The family's folder as a user loads it: with its `tokenizer_config.json`.
fn load(f: &FamilyGolden) -> NliModel {
    load_with(f, true)
}

fn load_with(f: &FamilyGolden, with_tokenizer_config: bool) -> NliModel {
    let (config, weights) = (
        read(&f.dir, "config.json"),
        read(&f.dir, "model.safetensors"),
    );
    let (tokenizer, tokenizer_config) = (
        read(&f.tokenizer_dir, "tokenizer.json"),
        read(&f.tokenizer_dir, "tokenizer_config.json"),
    );
    common::load_files(
        &f.dir,
        &config,
        &weights,
        &tokenizer,
        with_tokenizer_config.then_some(tokenizer_config.as_slice()),
        &Device::flex(),
    )
}

fn pairs(g: &Golden, order: PairOrder) -> Vec<Pair> {
    let all: Vec<usize> = (0..g.pairs.len()).collect();
    let indices = match order {
        PairOrder::PremiseFirst => &all,
        PairOrder::HypothesisFirst => &g.hypothesis_first,
    };
    indices
        .iter()
        .map(|&i| Pair {
            premise: g.pairs[i].premise.clone(),
            hypothesis: g.pairs[i].hypothesis.clone(),
            order,
        })
        .collect()
}

/// Ids, type ids and truncation of every pair in both orders; the number of pairs whose ids
/// differ from `transformers`'.
fn token_mismatches(name: &str, g: &Golden, f: &FamilyGolden, model: &NliModel) -> usize {
    let mut mismatches = Vec::new();
    for (order, want) in [
        (PairOrder::PremiseFirst, &f.premise_first),
        (PairOrder::HypothesisFirst, &f.hypothesis_first),
    ] {
        for (i, (pair, w)) in pairs(g, order).iter().zip(want).enumerate() {
            let e = model.encode_pair(pair).unwrap();
            let types: Vec<u32> = (0..e.ids.len())
                .map(|t| e.type_ids.get(t).copied().unwrap_or(0))
                .collect();
            let got = (
                &e.ids,
                e.truncated,
                e.premise_tokens_dropped,
                w.token_type_ids.as_ref().map(|_| &types),
            );
            let expected = (
                &w.input_ids,
                w.truncated,
                w.premise_tokens_dropped,
                w.token_type_ids.as_ref(),
            );
            if got != expected {
                mismatches.push(format!(
                    "{order:?} pair {i} ({} rows of {}): {} ids, {} cut; transformers {} ids, {} cut",
                    g.pairs[i].rows,
                    g.pairs[i].table,
                    e.ids.len(),
                    e.premise_tokens_dropped,
                    w.input_ids.len(),
                    w.premise_tokens_dropped
                ));
            }
        }
    }
    for m in &mismatches {
        eprintln!("{name}: {m}");
    }
    mismatches.len()
}

fn check_family(name: &str) {
    let g = golden();
    let f = &g.families[name];
    let mut model = load(f);
    assert_eq!(model.id().weights_sha256, f.weights_sha256, "{name}");
    assert_eq!(model.shape().max_tokens, f.max_length, "{name}: max tokens");
    let cut = f.premise_first.iter().filter(|e| e.truncated).count();
    assert!(cut >= 25, "{name}: only {cut} pairs are cut");
    let mismatches = token_mismatches(name, &g, f, &model);
    let mut worst = 0.0f32;
    for batch in [1, 16] {
        model.set_batch_size(batch);
        for (order, want) in [
            (PairOrder::PremiseFirst, &f.logits),
            (PairOrder::HypothesisFirst, &f.hypothesis_first_logits),
        ] {
            let scores = model.score_blocking(&pairs(&g, order)).expect("scoring");
            let got: Vec<Vec<f32>> = scores.iter().map(|s| s.logits.clone()).collect();
            worst = worst.max(max_abs_diff(&got, want));
        }
    }
    eprintln!("{name}: {mismatches} id mismatches, max |Δlogit| = {worst:.3e}");
    assert_eq!(mismatches, 0, "{name}: pairs cut unlike transformers");
    assert!(worst <= TOL, "{name}: max |Δlogit| {worst:e} > {TOL:e}");
}

#[test]
fn bert_truncates_as_transformers() {
    check_family("bert");
}

#[test]
fn distilbert_truncates_as_transformers() {
    check_family("distilbert");
}

#[test]
fn electra_truncates_as_transformers() {
    check_family("electra");
}

#[test]
fn xlm_roberta_truncates_as_transformers() {
    check_family("xlm-roberta");
}

#[test]
fn deberta_v3_truncates_as_transformers() {
    check_family("deberta-v3");
}

/// DeBERTa-v3 as its checkpoints ship it: the tokenizer converted from a `sentencepiece` model.
#[test]
fn deberta_v3_sentencepiece_truncates_as_transformers() {
    check_family("deberta-v3-spm");
}

/// DeBERTa-v3 with the `tokenizer.json` most Hub checkpoints carry (transformers 4's
/// conversion, SentencePiece's nmt_nfkc map in its normalizer): `transformers` 5 builds
/// `DebertaV2Tokenizer`'s own pipeline over it, and so does tabprobe.
#[test]
fn deberta_v3_hub_tokenizer_truncates_as_transformers() {
    check_family("deberta-v3-hub");
}

/// The Hub-style fixture can tell the two pipelines apart: read as it is (no
/// `tokenizer_config.json`, so no class to rebuild it; the network's 96 positions still cut),
/// its `tokenizer.json` gives other ids than `transformers` on the pairs chosen for that.
#[test]
fn the_hub_tokenizer_json_read_as_it_is_would_not_match() {
    let g = golden();
    let f = &g.families["deberta-v3-hub"];
    let model = load_with(f, false);
    assert_eq!(model.shape().max_tokens, f.max_length);
    let n = token_mismatches(
        "deberta-v3-hub without tokenizer_config.json",
        &g,
        f,
        &model,
    );
    assert!(n >= 4, "only {n} pairs differ");
}

#[test]
fn deberta_v2_truncates_as_transformers() {
    check_family("deberta-v2");
}

#[test]
fn bart_truncates_as_transformers() {
    check_family("bart");
}

/// The fixture's premises are what tabprobe's linearizers write for those INFOTABS tables
/// (checked when `../shared/data` is beside the checkout; the fixture alone needs no data).
#[test]
fn premises_are_tabprobes_linearizations() {
    use tabprobe_core::data::import::infotabs::parse_table;
    use tabprobe_core::data::table::Table;
    use tabprobe_core::linearize::{infotabs_compat_paragraph, paragraph};
    let tables = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/infotabs/data/tables/json");
    if !tables.is_dir() {
        eprintln!("SKIP: premises_are_tabprobes_linearizations: ../shared/data (the real INFOTABS files) is absent");
        return;
    }
    let g = golden();
    for p in &g.pairs {
        let file = tables.join(format!("{}.json", p.table));
        let text = std::fs::read_to_string(&file).unwrap();
        let mut table = parse_table(&p.table, &p.table, &text).unwrap();
        table.rows.truncate(p.rows);
        let premise = match p.linearization.as_str() {
            "infotabs_compat" => infotabs_compat_paragraph(&table).unwrap(),
            "paragraph" => paragraph(&Table::KeyValue(table)),
            other => panic!("{other}"),
        };
        assert_eq!(premise, p.premise, "{} ({} rows)", p.table, p.rows);
    }
}
