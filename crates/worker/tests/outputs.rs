//! The worker's output check (`outputs`): the NaN fixture model really gives non-finite logits,
//! such a score cannot cross the wire as JSON (why the check exists), and the check turns it
//! into an error naming the model and the pair. Also the panic fixture's test key.

use std::path::PathBuf;

use tabprobe_core::data::validate::parse_dataset;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::scoring::{Pair, PairOrder, PairScore, ScoreError};
use tabprobe_worker::outputs::{
    check_scores, first_non_finite, locate, pair_owner, test_panic_requested,
};
use tabprobe_worker::protocol::Response;

fn hostile(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hostile")
        .join(name)
}

fn read(name: &str, file: &str) -> Vec<u8> {
    std::fs::read(hostile(name).join(file)).unwrap()
}

fn pair(hypothesis: &str) -> Pair {
    Pair {
        premise: "Title : Breakfast in America".into(),
        hypothesis: hypothesis.into(),
        order: PairOrder::PremiseFirst,
    }
}

fn score(logits: Vec<f32>) -> PairScore {
    PairScore {
        probs: [0.2, 0.3, 0.5],
        logits,
        truncated: false,
        premise_tokens_dropped: 0,
    }
}

#[test]
fn nan_model_scores_are_caught_and_named() {
    use tabprobe_model::{Device, ModelFiles, NliModel, TokenizerFiles};
    let config = read("nan-model", "config.json");
    let weights = read("nan-model", "model.safetensors");
    let tokenizer = read("nan-model", "tokenizer.json");
    let files = ModelFiles {
        config_json: &config,
        weights: &weights,
        tokenizer: TokenizerFiles::Json(&tokenizer),
        tokenizer_config: None,
    };
    let model = NliModel::load("nan-model", files, &Device::flex()).unwrap();
    let pairs = vec![
        pair("The album was released in 1979."),
        pair("It sold well."),
    ];
    // The model refuses its own NaN where it scores, naming itself, the pair and its hypothesis.
    let err = model.score_blocking(&pairs).unwrap_err();
    let ScoreError::NonFinite(nf) = &err else {
        panic!("{err:?}")
    };
    // Batches run shortest first, so the first bad pair found is the shorter one (pair 2).
    assert_eq!(nf.index, 1);
    let text = err.to_string();
    assert!(text.contains("model \"nan-model\" gave non-finite outputs (logits [NaN, NaN, NaN]) on pair 2 (hypothesis \"It sold well.\")"), "{text}");
    // The encoded form (what helper pools run) says the same without the text.
    let encoded = model.encode(&pairs).unwrap();
    let err = model.score_encoded_blocking(&encoded).unwrap_err();
    assert!(matches!(err, ScoreError::NonFinite(_)), "{err:?}");
    // Unchecked, such a score would reach the page as `null` logits and never decode.
    let unchecked = vec![PairScore {
        logits: nf.logits.clone(),
        ..score(vec![0.0; 3])
    }];
    let reply = Response::Scores {
        job: 1,
        scores: unchecked.clone(),
        elapsed_ms: 1.0,
        workers: 1,
    };
    let wire = serde_json::to_string(&reply).unwrap();
    assert!(wire.contains("null"), "{wire}");
    assert!(serde_json::from_str::<Response>(&wire).is_err());
    // Placed in a job, it is numbered from the job's start.
    let ScoreError::NonFinite(encoded_nf) = &err else {
        panic!("{err:?}")
    };
    let at = 10 + encoded_nf.index + 1;
    let located = locate(err.clone(), 10, None);
    assert!(located.contains(&format!("on pair {at};")), "{located}");
    let err = check_scores(&model.id().name, 10, &pairs[..1], &unchecked, None).unwrap_err();
    // (pair 11 of the job: position 0 of a batch that starts at 10)
    assert!(err.contains("\"nan-model\""), "{err}");
    assert!(err.contains("pair 11"), "{err}");
    assert!(err.contains("The album was released in 1979."), "{err}");
    assert!(err.contains("non-finite"), "{err}");
}

#[test]
fn finite_scores_pass_and_infinities_do_not() {
    let pairs = vec![pair("a"), pair("b"), pair("c")];
    let good = vec![score(vec![0.1, -2.0, 3.0]); 3];
    assert_eq!(check_scores("m", 0, &pairs, &good, None), Ok(()));
    let mut bad = good.clone();
    bad[2].logits[1] = f32::INFINITY;
    assert_eq!(first_non_finite(&bad), Some(2));
    let err = check_scores("m", 0, &pairs, &bad, None).unwrap_err();
    assert!(err.contains("pair 3") && err.contains("\"c\""), "{err}");
    let mut bad_probs = good;
    bad_probs[0].probs[0] = f32::NAN;
    assert_eq!(first_non_finite(&bad_probs), Some(0));
}

#[test]
fn a_probe_runs_bad_pair_is_named_by_its_example_or_item() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/small-dataset.json"),
    )
    .unwrap();
    let dataset = parse_dataset("small-dataset.json", &text).unwrap();
    let settings = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    let set = build_probe_set(&dataset, &settings, &RuleSet::default()).unwrap();
    let first = &set.examples[0];
    assert_eq!(
        pair_owner(&set, first.pair),
        Some(format!("example {}", first.id))
    );
    let item = &set.items[0];
    assert_eq!(
        pair_owner(&set, item.perturbed_pair),
        Some(format!("item {}", item.id))
    );
    let mut scores = vec![score(vec![0.0; 3]); set.pairs.len()];
    scores[item.perturbed_pair].logits[0] = f32::NAN;
    let err = check_scores("m", 0, &set.pairs, &scores, Some(&set)).unwrap_err();
    assert!(err.contains(&format!("item {}", item.id)), "{err}");
}

#[test]
fn the_panic_fixture_asks_for_a_panic_and_real_configs_do_not() {
    assert!(test_panic_requested(&read("panic-model", "config.json")));
    assert!(!test_panic_requested(&read("nan-model", "config.json")));
    assert!(!test_panic_requested(b"not json"));
    assert!(!test_panic_requested(
        br#"{"tabprobe_test_panic": "never"}"#
    ));
}
