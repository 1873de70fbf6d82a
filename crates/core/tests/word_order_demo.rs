//! A measurement, not a check (run with `--ignored --nocapture`): the word-order metrics of
//! the bundled demo dataset (`public/demo/dataset.json`), splits `paper` and `dev`, for
//! every linearization, scored by a deterministic hash-based fake model (no real model is
//! needed). Used to report the before → after figures of issue 11 §2.

mod common;

use std::path::PathBuf;

use common::{fnv, HashFake};

use tabprobe_core::linearize::Linearization;
use tabprobe_core::metrics::run_word_order_metrics;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSet, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::ProbeRun;
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};
use tabprobe_core::LabelSet;

/// UNLI's "Model A": NEUTRAL for every permuted pair (the hypothesis is not one of the
/// dataset's), the hash fake's answer for an original pair. Its accepted permutations are
/// exactly those of NEUTRAL-gold examples, so P^c (over all of D^c) and P^c among D^c
/// examples with an accepted permutation differ visibly.
struct ModelA {
    originals: Vec<String>,
}

impl PairScorer for ModelA {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        let mut out = HashFake.score(pairs)?;
        for (p, s) in pairs.iter().zip(&mut out) {
            if !self.originals.contains(&p.hypothesis) {
                let h = fnv(&p.hypothesis);
                let w = [
                    1 + (h & 0x3f),
                    256 + ((h >> 8) & 0xff),
                    1 + ((h >> 16) & 0x3f),
                ];
                let sum = (w[0] + w[1] + w[2]) as f32;
                s.probs = [w[0] as f32 / sum, w[1] as f32 / sum, w[2] as f32 / sum];
            }
        }
        Ok(out)
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "model-a".into(),
            weights_sha256: "4".repeat(64),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

/// The figures of `WordOrderMetrics` by field name (read from its JSON, so the same code
/// reads older and newer versions of the struct).
fn figures(m: &serde_json::Value) -> String {
    let f = |k: &str| match &m[k] {
        serde_json::Value::Number(n) => format!("{:.4}", n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::Null => "-".to_string(),
        _ => "n/a".to_string(),
    };
    format!(
        "examples {} skipped {} A {} Ωmax {} Ωrand {} P^c {} P^c_acc {} P^f {} H {} H_c {} H_f {}",
        m["examples"],
        m["skipped"],
        f("accuracy"),
        f("omega_max"),
        f("omega_rand"),
        f("p_c"),
        f("p_c_accepted_only"),
        f("p_f"),
        f("mean_entropy_accepted"),
        f("mean_entropy_c"),
        f("mean_entropy_f"),
    )
}

/// Runs `set` with `scorer` and prints its word-order figures.
fn measure(set: &ProbeSet, scorer: &mut impl PairScorer) {
    let id = scorer.model_id();
    let mut run = ProbeRun::new(set.clone(), 64);
    run.run(scorer, |_| {}, || false).unwrap();
    let run = run.finish(id.clone()).unwrap();
    let m = serde_json::to_value(run_word_order_metrics(&run, &[], None)).unwrap();
    eprintln!("    {:<9} {}", id.name, figures(&m));
}

#[test]
#[ignore]
fn measure_word_order_on_the_demo_dataset() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/demo/dataset.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let d = tabprobe_core::parse_dataset("dataset.json", &text).unwrap();
    let originals: Vec<String> = d.examples.iter().map(|e| e.hypothesis.clone()).collect();
    for split in ["paper", "dev"] {
        for strategy in Linearization::ALL {
            let mut s = ProbeSettings::new(vec![ProbeKind::WordOrder], 0);
            s.splits = Some(vec![split.to_string()]);
            s.linearization.strategy = strategy;
            let set = match build_probe_set(&d, &s, &RuleSet::default()) {
                Ok(set) => set,
                Err(e) => {
                    eprintln!("{split} {}: {e}", strategy.as_str());
                    continue;
                }
            };
            let skipped = set.skipped.len();
            let premise_skips = set
                .skipped
                .iter()
                .filter(|k| k.reason.contains("premise sentence"))
                .count();
            eprintln!(
                "{split} {}: {skipped} skipped ({premise_skips} for a short premise sentence)",
                strategy.as_str(),
            );
            if let Some(k) = set
                .skipped
                .iter()
                .find(|k| k.reason.contains("premise sentence"))
            {
                eprintln!("    e.g. {}: {}", k.example, k.reason);
            }
            measure(&set, &mut HashFake);
            measure(
                &set,
                &mut ModelA {
                    originals: originals.clone(),
                },
            );
        }
    }
}
