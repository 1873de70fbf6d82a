//! The trainer (feature `train`) on the tiny golden configuration: the loss falls, one seed
//! gives bit-identical weights, the written `model.safetensors` is the checkpoint itself
//! (loader ∘ writer is the identity, logits unchanged), and the project's tokenizer trainer
//! gives RoBERTa's special-token layout. Runs in a few seconds.
#![cfg(feature = "train")]

mod common;

use common::{golden, read};
use safetensors::SafeTensors;
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::train::{
    initial_weights, to_safetensors, train, train_tokenizer, Event, LabelledPair, Params,
    TrainOptions,
};
use tabprobe_model::{Device, ModelFiles, NliModel, PairTokenizer, RobertaConfig, TokenizerFiles};

fn tiny_config() -> RobertaConfig {
    RobertaConfig::from_json_bytes(&read("tiny-f32/config.json")).unwrap()
}

/// The golden hypotheses alone (empty premise: short sequences keep the unoptimised test
/// build fast), with labels that depend on the hypothesis (its length mod 3), so that a few
/// steps can fit them.
fn tiny_pairs() -> Vec<LabelledPair> {
    let config = tiny_config();
    let tok = PairTokenizer::from_json_bytes(&read("tiny-f32/tokenizer.json"), config.max_tokens())
        .unwrap();
    golden()
        .pairs
        .iter()
        .take(16)
        .map(|p| LabelledPair {
            ids: tok
                .encode_ordered("", &p.hypothesis, PairOrder::PremiseFirst)
                .unwrap()
                .ids,
            label: p.hypothesis.len() % 3,
        })
        .collect()
}

fn options(seed: u64) -> TrainOptions {
    TrainOptions {
        epochs: 20,
        batch_size: 8,
        learning_rate: 1e-2,
        warmup_fraction: 0.0,
        weight_decay: 0.01,
        max_grad_norm: 1.0,
        evals_per_epoch: 1,
        patience: 100,
        seed,
        max_steps: Some(24),
        log_every: 6,
    }
}

#[test]
fn training_lowers_the_loss_and_one_seed_gives_identical_weights() {
    let config = tiny_config();
    let pairs = tiny_pairs();
    let device = Device::flex();
    let run = |seed: u64| {
        let init = initial_weights(&config, seed).unwrap();
        let mut losses = Vec::new();
        let outcome = train(
            &config,
            &init,
            &pairs,
            &pairs,
            &options(seed),
            &device,
            &mut |e| {
                if let Event::Step { loss, .. } = e {
                    losses.push(*loss)
                }
            },
        )
        .unwrap();
        (outcome, losses)
    };
    let (a, losses) = run(5);
    assert_eq!(a.steps, 24);
    assert_eq!(losses.len(), 4, "one event per 6 steps");
    // Three balanced-ish classes start near ln 3 ≈ 1.10; fitting 16 pairs must go well below.
    assert!((losses[0] - 3f64.ln()).abs() < 0.2, "{losses:?}");
    assert!(losses[3] < losses[0] - 0.1, "loss did not fall: {losses:?}");
    assert!(
        a.best_accuracy > 0.5,
        "train-set accuracy {}",
        a.best_accuracy
    );

    let (b, _) = run(5);
    assert_eq!(a.weights, b.weights, "same seed, different weights");
    assert_eq!(a.evals, b.evals);
    let (c, _) = run(6);
    assert_ne!(a.weights, c.weights, "another seed gave the same weights");
}

#[test]
fn initial_weights_follow_the_seed_and_zero_the_padding_rows() {
    let config = tiny_config();
    let a = initial_weights(&config, 1).unwrap();
    assert_eq!(a, initial_weights(&config, 1).unwrap());
    assert_ne!(a, initial_weights(&config, 2).unwrap());
    let st = SafeTensors::deserialize(&a).unwrap();
    let word = st
        .tensor("roberta.embeddings.word_embeddings.weight")
        .unwrap();
    let h = config.hidden_size;
    let row = |r: usize| &word.data()[r * h * 4..(r + 1) * h * 4];
    assert!(row(config.pad_token_id).iter().all(|&b| b == 0));
    assert!(row(0).iter().any(|&b| b != 0));
    let gain = st.tensor("roberta.embeddings.LayerNorm.weight").unwrap();
    assert!(gain
        .data()
        .chunks_exact(4)
        .all(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) == 1.0));
}

#[test]
fn writer_gives_back_the_checkpoint_it_loaded_with_the_same_logits() {
    let config = tiny_config();
    let device = Device::flex();
    let original = read("tiny-f32/model.safetensors");
    let params = Params::load(&config, &original, &device).unwrap();
    let written = to_safetensors(&params).unwrap();

    // Every tensor of the golden file, under the same name, with the same bytes.
    let (a, b) = (
        SafeTensors::deserialize(&original).unwrap(),
        SafeTensors::deserialize(&written).unwrap(),
    );
    let mut names_b: Vec<String> = b.names().into_iter().map(String::from).collect();
    names_b.sort();
    let mut names_a: Vec<String> = a
        .names()
        .into_iter()
        .filter(|n| !n.ends_with("position_ids") && !n.contains("pooler"))
        .map(String::from)
        .collect();
    names_a.sort();
    assert_eq!(names_a, names_b);
    for name in &names_b {
        let (x, y) = (a.tensor(name).unwrap(), b.tensor(name).unwrap());
        assert_eq!(x.shape(), y.shape(), "{name}");
        assert_eq!(x.data(), y.data(), "{name}");
    }

    // And the product scores the written file exactly like the original.
    let load = |weights: &[u8]| {
        NliModel::load(
            "tiny",
            ModelFiles {
                config_json: &read("tiny-f32/config.json"),
                weights,
                tokenizer: TokenizerFiles::Json(&read("tiny-f32/tokenizer.json")),
                tokenizer_config: None,
            },
            &device,
        )
        .unwrap()
    };
    let pairs = golden().pairs();
    let x = load(&original).score_blocking(&pairs).unwrap();
    let y = load(&written).score_blocking(&pairs).unwrap();
    for (p, q) in x.iter().zip(&y) {
        assert_eq!(p.logits, q.logits);
    }
}

#[test]
fn trained_tokenizer_has_robertas_special_token_layout() {
    let texts: Vec<String> = golden()
        .pairs
        .iter()
        .flat_map(|p| [p.premise.clone(), p.hypothesis.clone()])
        .collect();
    let json = train_tokenizer(&texts, 400, 2).unwrap();
    assert_eq!(
        json,
        train_tokenizer(&texts, 400, 2).unwrap(),
        "not deterministic"
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let added: Vec<(u64, &str)> = value["added_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].as_u64().unwrap(), t["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        added,
        vec![
            (0, "<s>"),
            (1, "<pad>"),
            (2, "</s>"),
            (3, "<unk>"),
            (4, "<mask>")
        ]
    );
    assert_eq!(value["post_processor"]["type"], "RobertaProcessing");
    assert_eq!(value["pre_tokenizer"]["type"], "ByteLevel");

    let tok = PairTokenizer::from_json_bytes(json.as_bytes(), 64).unwrap();
    assert!(tok.vocab_size() <= 400);
    let pair = Pair {
        premise: "The Genre of X is Pop.".into(),
        hypothesis: "X is a pop album.".into(),
        order: PairOrder::PremiseFirst,
    };
    let ids = tok
        .encode_ordered(&pair.premise, &pair.hypothesis, pair.order)
        .unwrap()
        .ids;
    // <s> P </s></s> H </s>
    assert_eq!(ids[0], 0);
    assert_eq!(*ids.last().unwrap(), 2);
    let seps: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] == 2).collect();
    assert_eq!(seps.len(), 3, "{ids:?}");
    assert_eq!(seps[1], seps[0] + 1, "{ids:?}");
    assert!(
        ids.iter().all(|&i| i != 1 && i != 3),
        "no padding or unknown: {ids:?}"
    );
}
