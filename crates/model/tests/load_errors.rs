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
        assert!(e.0.contains("hypothesis alone"), "{order:?}: {e}");
    }
}
