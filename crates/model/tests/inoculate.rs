//! Inoculation (feature `train`) on the tiny golden model: the demo dataset's paper split,
//! row deletion, nested samples of 4 and 8, two learning rates, two epochs. One seed gives
//! identical checkpoints and an identical result; another seed samples other items; the
//! tables count what the plan says.
#![cfg(feature = "train")]

mod common;

use common::{load_variant, read};
use tabprobe_core::inoculation::{InoculationPlan, InoculationProgress, InoculationSettings};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::PairScorer;
use tabprobe_model::train::inoculate::{inoculate_blocking, InoculationOutput, Pace};
use tabprobe_model::{Device, ModelFiles, TokenizerFiles};

struct Quiet(usize);

impl Pace for Quiet {
    async fn progress(&mut self, _: &InoculationProgress) -> bool {
        self.0 += 1;
        true
    }
}

fn demo_run(device: &Device) -> RunResult {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/demo/dataset.json"),
    )
    .unwrap();
    let dataset = tabprobe_core::parse_dataset("dataset.json", &text).unwrap();
    let mut settings = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    settings.splits = Some(vec!["paper".into()]);
    let set = build_probe_set(&dataset, &settings, &RuleSet::default()).unwrap();
    let mut model = load_variant("tiny-f32", device);
    let mut run = ProbeRun::new(set, 8);
    run.run(&mut model, |_| {}, || false).unwrap();
    run.finish(model.model_id()).unwrap()
}

fn inoculate(run: &RunResult, device: &Device, seed: u64) -> (InoculationOutput, usize) {
    let settings = InoculationSettings {
        probes: vec![ProbeKind::RowDeletion],
        sizes: vec![4, 8],
        learning_rates: vec![1e-3, 1e-4],
        epochs: 2,
        seed,
        ..InoculationSettings::default()
    };
    let plan = InoculationPlan::new(run, &settings).unwrap();
    let (config, weights, tokenizer) = (
        read("tiny-f32/config.json"),
        read("tiny-f32/model.safetensors"),
        read("tiny-f32/tokenizer.json"),
    );
    let files = ModelFiles {
        config_json: &config,
        weights: &weights,
        tokenizer: TokenizerFiles::Json(&tokenizer),
        tokenizer_config: None,
    };
    let mut pace = Quiet(0);
    let out = inoculate_blocking("tiny-f32", files, device, run, &plan, &mut pace).unwrap();
    (out, pace.0)
}

#[test]
fn one_seed_gives_identical_checkpoints_and_results() {
    let device = Device::flex();
    let run = demo_run(&device);
    let (a, calls) = inoculate(&run, &device, 3);
    let (b, _) = inoculate(&run, &device, 3);
    assert_eq!(a.checkpoints.len(), 2);
    assert_eq!(a.checkpoints, b.checkpoints, "same seed, different weights");
    let strip = |o: &InoculationOutput| {
        let mut r = o.result.clone();
        r.seconds = 0.0;
        for g in &mut r.grid {
            g.seconds = 0.0;
        }
        r
    };
    assert_eq!(strip(&a), strip(&b));
    // Models: before, n = 4, n = 8; the grid: 2 sizes × 2 learning rates, one kept per size.
    let r = &a.result;
    assert_eq!(
        r.models.iter().map(|m| m.size).collect::<Vec<_>>(),
        [0, 4, 8]
    );
    assert_eq!(r.grid.len(), 4);
    for size in [4, 8] {
        assert_eq!(
            r.grid.iter().filter(|g| g.size == size && g.chosen).count(),
            1
        );
    }
    // Fine-tuning changed the weights; the kept checkpoint is the one the result names.
    assert_ne!(r.models[1].weights_sha256, r.models[0].weights_sha256);
    // Progress came after every step and scored chunk.
    assert!(calls > 4 * 2, "{calls} progress calls");
    // Another seed draws other training items, so other weights.
    let (c, _) = inoculate(&run, &device, 4);
    assert_ne!(c.checkpoints, a.checkpoints);
}

#[test]
fn before_predictions_are_the_runs_own() {
    // The model before inoculation is the one that scored the run: its predictions of the
    // evaluation pairs are the run's.
    let device = Device::flex();
    let run = demo_run(&device);
    let (out, _) = inoculate(&run, &device, 3);
    for it in &out.result.items {
        let pair = match it.item {
            Some(i) => run.items[i].perturbed_pair,
            None => run.examples[it.example].pair,
        };
        assert_eq!(
            it.predicted[0],
            run.pairs[pair].score.predicted(),
            "{}",
            it.id
        );
    }
}
