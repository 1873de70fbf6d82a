//! Every class of loading error a user can hit, each provoked by editing the golden
//! checkpoint in memory: the message must name what is wrong.

mod common;

use common::{golden, read};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::{Device, LoadError, ModelFiles, NliModel, TokenizerFiles};

/// The f32 checkpoint's tensors as (name, dtype, shape, bytes).
fn tensors() -> Vec<(String, Dtype, Vec<usize>, Vec<u8>)> {
    let bytes = read("tiny-f32/model.safetensors");
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let mut out: Vec<_> = st
        .tensors()
        .into_iter()
        .map(|(n, v)| (n, v.dtype(), v.shape().to_vec(), v.data().to_vec()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn serialize(tensors: &[(String, Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(n, d, s, b)| (n.clone(), TensorView::new(*d, s.clone(), b).unwrap()))
        .collect();
    safetensors::serialize(views, None).unwrap()
}

fn config_with(edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let mut c: serde_json::Value = serde_json::from_slice(&read("tiny-f32/config.json")).unwrap();
    edit(&mut c);
    serde_json::to_vec(&c).unwrap()
}

fn load(config: &[u8], weights: &[u8]) -> Result<NliModel, LoadError> {
    let tokenizer = read("tiny-f32/tokenizer.json");
    NliModel::load(
        "edited",
        ModelFiles {
            config_json: config,
            weights,
            tokenizer: TokenizerFiles::Json(&tokenizer),
            tokenizer_config: None,
        },
        &Device::flex(),
    )
}

fn load_weights(weights: &[u8]) -> Result<NliModel, LoadError> {
    load(&read("tiny-f32/config.json"), weights)
}

#[test]
fn missing_tensor_is_named() {
    let mut t = tensors();
    t.retain(|(n, ..)| n != "classifier.out_proj.bias");
    let e = load_weights(&serialize(&t)).unwrap_err();
    assert_eq!(
        e,
        LoadError::MissingTensor {
            name: "classifier.out_proj.bias".into()
        }
    );
    assert!(e.to_string().contains("classifier.out_proj.bias"));
}

#[test]
fn unexpected_tensor_is_named() {
    let mut t = tensors();
    t.push((
        "lm_head.dense.weight".into(),
        Dtype::F32,
        vec![2],
        vec![0; 8],
    ));
    let e = load_weights(&serialize(&t)).unwrap_err();
    assert_eq!(
        e,
        LoadError::UnexpectedTensor {
            name: "lm_head.dense.weight".into()
        }
    );
}

#[test]
fn known_buffers_and_pooler_are_ignored() {
    let mut t = tensors();
    t.push((
        "roberta.embeddings.position_ids".into(),
        Dtype::I64,
        vec![1, 2],
        vec![0; 16],
    ));
    t.push((
        "roberta.pooler.dense.bias".into(),
        Dtype::F32,
        vec![32],
        vec![0; 128],
    ));
    load_weights(&serialize(&t)).expect("buffers and pooler are not errors");
}

#[test]
fn shape_mismatch_names_tensor_and_both_shapes() {
    let mut t = tensors();
    let key = t
        .iter_mut()
        .find(|(n, ..)| n == "roberta.encoder.layer.1.attention.self.key.bias")
        .unwrap();
    key.2 = vec![31];
    key.3.truncate(31 * 4);
    let e = load_weights(&serialize(&t)).unwrap_err();
    assert_eq!(
        e,
        LoadError::ShapeMismatch {
            name: "roberta.encoder.layer.1.attention.self.key.bias".into(),
            expected: vec![32],
            found: vec![31],
        }
    );
}

#[test]
fn unsupported_dtype_is_named() {
    let mut t = tensors();
    let w = t
        .iter_mut()
        .find(|(n, ..)| n == "classifier.dense.bias")
        .unwrap();
    // f32 → f64, same values.
    let wide: Vec<u8> =
        w.3.chunks_exact(4)
            .flat_map(|b| (f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64).to_le_bytes())
            .collect();
    w.1 = Dtype::F64;
    w.3 = wide;
    let e = load_weights(&serialize(&t)).unwrap_err();
    assert_eq!(
        e,
        LoadError::UnsupportedDtype {
            name: "classifier.dense.bias".into(),
            dtype: "F64".into()
        }
    );
}

#[test]
fn config_and_weights_disagreeing_is_reported_as_such() {
    let weights = read("tiny-f32/model.safetensors");
    let cases: [(&str, serde_json::Value, usize, usize); 4] = [
        ("num_hidden_layers", 3.into(), 3, 2),
        ("hidden_size", 64.into(), 64, 32),
        ("intermediate_size", 128.into(), 128, 64),
        ("max_position_embeddings", 130.into(), 130, 98),
    ];
    for (key, value, config, found) in cases {
        let c = config_with(|c| c[key] = value);
        let e = load(&c, &weights).unwrap_err();
        assert_eq!(
            e,
            LoadError::ConfigWeightsMismatch {
                key: key.into(),
                config,
                weights: found
            },
            "{key}"
        );
    }
    // Two labels in the config, three outputs in the weights.
    let c = config_with(|c| {
        c["id2label"] = serde_json::json!({"0": "entailment", "1": "contradiction"});
        c["label2id"] = serde_json::json!({"entailment": 0, "contradiction": 1});
    });
    let e = load(&c, &weights).unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::ConfigWeightsMismatch {
                config: 2,
                weights: 3,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn labels_that_do_not_map_are_refused() {
    let c = config_with(|c| {
        c["id2label"] = serde_json::json!({"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"});
    });
    let e = load(&c, &read("tiny-f32/model.safetensors")).unwrap_err();
    assert!(
        matches!(&e, LoadError::UnmappedLabels { labels, .. } if labels[0] == "LABEL_0"),
        "{e}"
    );
    assert!(e.to_string().contains("ENTAIL/NEUTRAL/CONTRADICT"));
}

#[test]
fn unreadable_files_say_which_file() {
    let e = load_weights(b"not a safetensors file").unwrap_err();
    assert!(matches!(e, LoadError::WeightsParse(_)), "{e}");
    let e = load(b"{ not json", &read("tiny-f32/model.safetensors")).unwrap_err();
    assert!(matches!(e, LoadError::ConfigParse(_)), "{e}");
    let e = NliModel::load(
        "x",
        ModelFiles {
            config_json: &read("tiny-f32/config.json"),
            weights: &read("tiny-f32/model.safetensors"),
            tokenizer: TokenizerFiles::Json(b"{}"),
            tokenizer_config: None,
        },
        &Device::flex(),
    )
    .unwrap_err();
    assert!(matches!(e, LoadError::Tokenizer(_)), "{e}");
}

#[test]
fn tokenizer_larger_than_the_embedding_table_is_refused() {
    let c = config_with(|c| c["vocab_size"] = 100.into());
    let e = load(&c, &read("tiny-f32/model.safetensors")).unwrap_err();
    assert!(
        matches!(e, LoadError::TokenizerMismatch { model: 100, .. }),
        "{e}"
    );
}

#[test]
fn hypothesis_too_long_for_the_model_is_a_scoring_error() {
    let g = golden();
    let model = load_weights(&read("tiny-f32/model.safetensors")).unwrap();
    let long = "word ".repeat(g.max_length);
    // In either order: the premise may be cut, the hypothesis never.
    for order in [PairOrder::PremiseFirst, PairOrder::HypothesisFirst] {
        let e = model
            .score_blocking(&[Pair {
                premise: "p".into(),
                hypothesis: long.clone(),
                order,
            }])
            .unwrap_err();
        assert!(e.to_string().contains("hypothesis alone"), "{order:?}: {e}");
    }
}

// ---- Model files that lie (issue #12 §2): sizes past their limits, a config far larger than
// its weights, overflowing ids, tokenizer ids past the embedding table. Fixtures in
// tests/fixtures/hostile/model-*/ (see its README).

/// A file under the repository's `tests/fixtures/hostile/`.
fn hostile(rel: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hostile")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A valid safetensors file with no tensors (a few bytes).
fn empty_weights() -> Vec<u8> {
    serialize(&[])
}

fn assert_over_limit(e: &LoadError, key: &str, value: u64, limit: u64) {
    assert_eq!(
        e,
        &LoadError::ConfigOverLimit {
            key: key.into(),
            value,
            limit
        },
        "{key}: {e}"
    );
    let message = e.to_string();
    for part in [key.to_string(), value.to_string(), limit.to_string()] {
        assert!(message.contains(&part), "{message} lacks {part}");
    }
}

#[test]
fn config_sizes_past_their_limits_name_key_value_and_limit() {
    use tabprobe_model::families::limits::*;
    let weights = read("tiny-f32/model.safetensors");
    for (key, limit) in [
        ("hidden_size", MAX_HIDDEN_SIZE),
        ("num_hidden_layers", MAX_LAYERS),
        ("num_attention_heads", MAX_HEADS),
        ("intermediate_size", MAX_INTERMEDIATE_SIZE),
        ("vocab_size", MAX_VOCAB_SIZE),
        ("max_position_embeddings", MAX_POSITIONS),
        ("type_vocab_size", MAX_TYPE_VOCAB_SIZE),
        ("num_labels", MAX_LABELS),
    ] {
        let over = limit + 1;
        let c = config_with(|c| {
            c[key] = over.into();
            if key == "num_labels" {
                let o = c.as_object_mut().unwrap();
                o.remove("id2label");
                o.remove("label2id");
            }
        });
        for w in [&weights, &empty_weights()] {
            let e = load(&c, w).unwrap_err();
            assert_over_limit(&e, key, over as u64, limit as u64);
        }
    }
    // id2label with more entries than any classifier has.
    let c = config_with(|c| {
        c["id2label"] = (0..=MAX_LABELS)
            .map(|i| (i.to_string(), serde_json::Value::from("entailment")))
            .collect::<serde_json::Map<_, _>>()
            .into();
    });
    let e = load(&c, &weights).unwrap_err();
    assert_over_limit(&e, "id2label", MAX_LABELS as u64 + 1, MAX_LABELS as u64);
}

#[test]
fn a_million_layers_are_refused_before_any_shape_table_is_built() {
    let c = hostile("model-million-layers/config.json");
    // Beside the real weights, and beside an empty file (where no tensor name tells the
    // loader the real layer count, so only the limit stops a million layers' names).
    for w in [read("tiny-f32/model.safetensors"), empty_weights()] {
        let e = load(&c, &w).unwrap_err();
        assert_over_limit(&e, "num_hidden_layers", 1_000_000, 128);
    }
}

#[test]
fn a_trillion_labels_are_refused_before_their_names_are_made() {
    let c = hostile("model-trillion-labels/config.json");
    let e = load(&c, &read("tiny-f32/model.safetensors")).unwrap_err();
    assert_over_limit(&e, "num_labels", 1_000_000_000_000, 64);
}

#[test]
fn special_ids_past_the_vocabulary_are_refused_without_overflow() {
    // pad_token_id = 2^64 - 1: `pad_token_id + 1` used to overflow.
    let e = load(
        &hostile("model-pad-token-overflow/config.json"),
        &read("tiny-f32/model.safetensors"),
    )
    .unwrap_err();
    assert!(
        matches!(&e, LoadError::UnsupportedConfig { key, value, .. }
            if key == "pad_token_id" && value == "18446744073709551615"),
        "{e}"
    );
    for key in ["bos_token_id", "eos_token_id"] {
        let c = config_with(|c| c[key] = 1200.into());
        let e = load(&c, &read("tiny-f32/model.safetensors")).unwrap_err();
        assert!(
            matches!(&e, LoadError::UnsupportedConfig { key: k, value, why }
                if k == key && value == "1200" && why.contains("vocab_size = 1200")),
            "{key}: {e}"
        );
    }
}

#[test]
fn a_config_far_larger_than_its_weights_is_refused_by_size() {
    let c = hostile("model-larger-than-weights/config.json");
    // Beside the tiny weights the tensor shapes already name the key that disagrees.
    let e = load(&c, &read("tiny-f32/model.safetensors")).unwrap_err();
    assert!(
        matches!(&e, LoadError::ConfigWeightsMismatch { key, config: 1024, weights: 32 } if key == "hidden_size"),
        "{e}"
    );
    // Beside a file with no tensors nothing but the size can tell.
    let w = empty_weights();
    let e = load(&c, &w).unwrap_err();
    match &e {
        LoadError::WeightsTooSmall {
            parameters: Some(p),
            implied_bytes: Some(b),
            file_bytes,
        } => {
            // roberta-large's encoder and head: about 355 million parameters.
            assert!((350_000_000..360_000_000).contains(p), "{p}");
            assert_eq!(*b, 2 * p);
            assert_eq!(*file_bytes, w.len() as u64);
        }
        other => panic!("expected WeightsTooSmall, got {other}"),
    }
    assert!(e.to_string().contains("model.safetensors"), "{e}");
}

/// Loads the golden config and weights with the given tokenizer files.
fn load_tokenizer(tokenizer: TokenizerFiles<&[u8]>) -> Result<NliModel, LoadError> {
    NliModel::load(
        "edited",
        ModelFiles {
            config_json: &read("tiny-f32/config.json"),
            weights: &read("tiny-f32/model.safetensors"),
            tokenizer,
            tokenizer_config: None,
        },
        &Device::flex(),
    )
}

fn assert_id_out_of_range(e: &LoadError, file: &str, token: &str, id: u64) {
    assert_eq!(
        e,
        &LoadError::TokenizerIdOutOfRange {
            file: file.into(),
            token: token.into(),
            id,
            vocab_size: 1200
        }
    );
    let message = e.to_string();
    for part in [file, token, &id.to_string(), "1200"] {
        assert!(message.contains(part), "{message} lacks {part}");
    }
}

#[test]
fn a_token_id_past_the_embedding_table_is_refused_in_tokenizer_json() {
    // 1200 tokens, as many as the table has rows, but "The" has id 5000: the count matches,
    // the id does not (and "The" starts the warm-up pair).
    let t = hostile("model-token-id-past-vocab/tokenizer.json");
    let e = load_tokenizer(TokenizerFiles::Json(&t)).unwrap_err();
    assert_id_out_of_range(&e, "tokenizer.json", "The", 5000);
}

#[test]
fn a_token_id_past_the_embedding_table_is_refused_in_vocab_json() {
    let v = hostile("model-vocab-json-id-past-vocab/vocab.json");
    let m = read("tiny-f32/merges.txt");
    let e = load_tokenizer(TokenizerFiles::VocabMerges {
        vocab_json: &v,
        merges_txt: &m,
    })
    .unwrap_err();
    assert_id_out_of_range(&e, "vocab.json", "The", 5000);
}

#[test]
fn a_post_processor_special_id_past_the_embedding_table_is_refused() {
    // The vocabulary is fine; the RoBERTa post-processor inserts <s> as id 5000.
    let t = hostile("model-special-id-past-vocab/tokenizer.json");
    let e = load_tokenizer(TokenizerFiles::Json(&t)).unwrap_err();
    assert_id_out_of_range(&e, "tokenizer.json", "<s>", 5000);
}

/// The hostile NaN fixture (weights that make NaN logits) loads and warms up — the warm-up's
/// made-up pair is no place for the error — and the first real score is refused, naming the
/// model and the pair (issue 36, item 1; the page's worker loads models this way).
#[test]
fn nan_model_warms_up_and_its_first_score_is_refused() {
    use tabprobe_core::scoring::{PairScorer, ScoreError};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hostile/nan-model");
    let file = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let (config, weights, tokenizer) = (
        file("config.json"),
        file("model.safetensors"),
        file("tokenizer.json"),
    );
    let mut model = NliModel::load(
        "nan-model",
        ModelFiles {
            config_json: &config,
            weights: &weights,
            tokenizer: TokenizerFiles::Json(&tokenizer),
            tokenizer_config: None,
        },
        &Device::flex(),
    )
    .unwrap();
    common::block_on(model.warm_up()).expect("warm-up does not judge the outputs");
    let pair = Pair {
        premise: "The sky is blue.".into(),
        hypothesis: "The sky has a colour.".into(),
        order: PairOrder::PremiseFirst,
    };
    match model.score(&[pair]) {
        Err(ScoreError::NonFinite(nf)) => {
            let msg = nf.to_string();
            assert!(msg.contains("nan-model"), "{msg}");
            assert!(
                msg.contains("gave non-finite outputs (logits [NaN, NaN, NaN]) on pair 1"),
                "{msg}"
            );
        }
        other => panic!("expected a non-finite error, got {other:?}"),
    }
}
