//! Inoculation (docs/inoculation.md#what-is-computed): the challenge set, nested samples and held-out items planned from
//! a real run of the paper's running example, and the before/after tables and outcome worked
//! by hand on a small result.

mod common;

use common::*;
use tabprobe_core::data::label::Label::{self, Contradict as C, Entail as E, Neutral as N};
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::inoculation::tables::{render_csv, render_text};
use tabprobe_core::inoculation::{
    outcome, Cell, Column, EvaluatedItem, InoculationError, InoculationPlan, InoculationResult,
    InoculationSettings, ItemClass, ModelEvaluation, INOCULATION_FORMAT,
};
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::ModelId;

fn running_run() -> RunResult {
    let settings = ProbeSettings::new(
        vec![ProbeKind::RowDeletion, ProbeKind::RelevantRowDeletion],
        7,
    );
    let set = build_probe_set(&running_example(), &settings, &RuleSet::default()).unwrap();
    let mut fake = EvidenceFake::new();
    let mut run = ProbeRun::new(set, 8);
    run.run(&mut fake, |_| {}, || false).unwrap();
    run.finish(fake_id()).unwrap()
}

fn fake_id() -> ModelId {
    ModelId {
        name: "fake".into(),
        weights_sha256: String::new(),
        label_set: LabelSet::ThreeWay,
        precision: Default::default(),
        label_only: false,
        scores_file: false,
    }
}

fn settings(sizes: Vec<usize>, seed: u64) -> InoculationSettings {
    InoculationSettings {
        probes: vec![ProbeKind::RowDeletion, ProbeKind::RelevantRowDeletion],
        sizes,
        seed,
        ..InoculationSettings::default()
    }
}

#[test]
fn the_challenge_set_trains_only_on_single_label_items() {
    let run = running_run();
    let plan = InoculationPlan::new(&run, &settings(vec![4, 8], 3)).unwrap();
    // Row deletion from H3 (NEUTRAL → {NEUTRAL}: 7 rows of Breakfast in America) and every
    // relevant-row deletion (→ {NEUTRAL}: H1 2 rows, H2, H3 and H5 one each) have one expected
    // label; row deletion from H1 (E → {E, N}), H2 and H5 (C → {C, N}) has two.
    let trainable: Vec<_> = plan
        .challenge
        .iter()
        .filter(|c| c.train_label().is_some())
        .collect();
    assert_eq!(trainable.len(), 7 + 5);
    for c in &plan.challenge {
        let item = &run.items[c.item];
        let gold = run.examples[item.example].gold;
        match (item.probe, gold) {
            (ProbeKind::RelevantRowDeletion, _) | (ProbeKind::RowDeletion, N) => {
                assert_eq!(c.expected, vec![N], "{}", item.id)
            }
            (ProbeKind::RowDeletion, E) => assert_eq!(c.expected, vec![E, N]),
            (ProbeKind::RowDeletion, C) => assert_eq!(c.expected, vec![N, C]),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(plan.evaluate_only(), plan.challenge.len() - 12);
    // Nested: the 4 are the first 4 of the 8; all trainable; the rest is held out.
    assert_eq!(plan.samples[0].items, plan.samples[1].items[..4].to_vec());
    let sampled = &plan.samples[1].items;
    assert!(sampled.iter().all(|i| plan
        .challenge
        .iter()
        .any(|c| c.item == *i && c.train_label().is_some())));
    assert_eq!(plan.held_out.len(), plan.challenge.len() - 8);
    assert!(plan
        .held_out
        .iter()
        .all(|&c| !sampled.contains(&plan.challenge[c].item)));
    // No `dev` split in the running example: every original example stops early.
    assert_eq!(plan.dev_split, None);
    assert_eq!(plan.dev, vec![0, 1, 2, 3]);
    let train = plan.training_pairs(&run, 4);
    assert_eq!(train.len(), 4);
    assert!(train.iter().all(|(_, l)| *l == N));
    // Same seed, same samples; the evaluation pairs are the originals then the held-out items.
    let again = InoculationPlan::new(&run, &settings(vec![4, 8], 3)).unwrap();
    assert_eq!(again.samples, plan.samples);
    let pairs = InoculationResult::evaluation_pairs(&run, &plan);
    assert_eq!(pairs.len(), 4 + plan.held_out.len());
}

#[test]
fn impossible_plans_say_what_is_missing() {
    let run = running_run();
    let err = InoculationPlan::new(&run, &settings(vec![13], 1))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("n = 13 needs 13") && err.contains("has 12 of"),
        "{err}"
    );
    let mut s = settings(vec![4], 1);
    s.probes = vec![ProbeKind::Negation];
    let err = InoculationPlan::new(&run, &s).unwrap_err().to_string();
    assert!(
        err.contains("no certain or accepted items of negation"),
        "{err}"
    );
    let mut s = settings(vec![4], 1);
    s.dev_split = Some("dev".into());
    let err = InoculationPlan::new(&run, &s).unwrap_err();
    assert_eq!(err, InoculationError::NoDev("dev".into()));
    assert!(err.to_string().contains("dev split \"dev\""), "{err}");
}

#[test]
fn a_result_assembles_from_the_run_in_evaluation_order() {
    let run = running_run();
    let plan = InoculationPlan::new(&run, &settings(vec![4], 5)).unwrap();
    let pairs = InoculationResult::evaluation_pairs(&run, &plan);
    let before: Vec<Label> = pairs
        .iter()
        .map(|&p| run.pairs[p].score.predicted())
        .collect();
    let after = vec![N; pairs.len()];
    let models = vec![model(0), model(4)];
    let result = InoculationResult::assemble(
        &run,
        &plan,
        fake_id(),
        vec![],
        models,
        &[before, after],
        1.0,
    )
    .unwrap();
    assert_eq!(result.items.len(), pairs.len());
    assert_eq!(result.format, INOCULATION_FORMAT);
    // The originals first (their gold is their only expected label), then the held-out items.
    assert!(result.items[..4]
        .iter()
        .all(|i| i.class == ItemClass::Original));
    assert!(result.items[4..]
        .iter()
        .all(|i| i.class != ItemClass::Original));
    let held: usize = result.items.iter().map(|i| i.held_out_items).sum();
    assert_eq!(held, plan.held_out.len());
    // "Always NEUTRAL" is right exactly on the items that expect NEUTRAL.
    let all = Cell {
        model: 1,
        split: None,
        column: Column::ChallengeAll,
    };
    let expect_n = result.items[4..]
        .iter()
        .filter(|i| i.expected.contains(&N))
        .count();
    assert_eq!(all.tally(&result), (expect_n, plan.held_out.len()));
    // A file round trip keeps everything; a wrong prediction count is refused.
    let text = serde_json::to_string(&result).unwrap();
    assert_eq!(InoculationResult::parse("r.json", &text).unwrap(), result);
    let err = InoculationResult::assemble(
        &run,
        &plan,
        fake_id(),
        vec![],
        vec![model(0)],
        &[vec![]],
        0.0,
    )
    .unwrap_err();
    assert!(
        matches!(err, InoculationError::PredictionCount { got: 0, .. }),
        "{err}"
    );
}

fn model(size: usize) -> ModelEvaluation {
    ModelEvaluation {
        size,
        learning_rate: (size > 0).then_some(1e-5),
        dev_accuracy: 0.5,
        weights_sha256: String::new(),
    }
}

fn item(
    id: &str,
    class: ItemClass,
    split: &str,
    gold: Label,
    expected: &[Label],
    predicted: [Label; 2],
    held: usize,
) -> EvaluatedItem {
    EvaluatedItem {
        id: id.into(),
        class,
        probe: (class != ItemClass::Original).then_some(ProbeKind::RowDeletion),
        split: split.into(),
        gold,
        expected: expected.to_vec(),
        predicted: predicted.to_vec(),
        held_out_items: held,
        example: 0,
        item: None,
    }
}

/// Three originals and four held-out items, two models; every figure worked by hand below.
fn hand_made() -> InoculationResult {
    use ItemClass::*;
    InoculationResult {
        format: INOCULATION_FORMAT.into(),
        version: 1,
        model: fake_id(),
        run_model: fake_id(),
        settings: settings(vec![100], 1),
        dev_split: None,
        challenge_items: 4,
        evaluate_only: 1,
        left_out: [0, 0, 0],
        grid: vec![],
        models: vec![model(0), model(100)],
        items: vec![
            item("o1", Original, "a1", E, &[E], [E, C], 0),
            item("o2", Original, "a1", C, &[C], [C, C], 1),
            item("o3", Original, "a2", N, &[N], [E, N], 2),
            item("c1", Preserved, "a1", C, &[C], [N, C], 0),
            item("c2", Flipped, "a2", E, &[N], [E, N], 0),
            item("c3", Several, "a2", E, &[E, N], [C, E], 0),
            item("c4", Flipped, "a2", C, &[N], [N, N], 0),
        ],
        seconds: 0.0,
    }
}

#[test]
fn tables_and_outcome_worked_by_hand() {
    let r = hand_made();
    let pct = |model, split: Option<&str>, column| {
        Cell {
            model,
            split: split.map(str::to_string),
            column,
        }
        .percent(&r)
    };
    // Original test sets: a1 before o1 ✓ o2 ✓ = 100, after o1 ✗ o2 ✓ = 50; a2 0 → 100.
    assert_eq!(pct(0, Some("a1"), Column::OriginalTest), Some(100.0));
    assert_eq!(pct(1, Some("a1"), Column::OriginalTest), Some(50.0));
    assert_eq!(pct(0, Some("a2"), Column::OriginalTest), Some(0.0));
    assert_eq!(pct(1, Some("a2"), Column::OriginalTest), Some(100.0));
    // Challenge "Original" reads only originals with held-out items: a1 is o2 alone.
    assert_eq!(pct(0, Some("a1"), Column::ChallengeOriginal), Some(100.0));
    assert_eq!(pct(0, Some("a2"), Column::ChallengeOriginal), Some(0.0));
    // Flipped on a2: c2 ✗ c4 ✓ = 50 before, 100 after; several: c3 C ∉ {E, N} ✗, then E ✓.
    assert_eq!(
        pct(0, Some("a2"), Column::Challenge(ItemClass::Flipped)),
        Some(50.0)
    );
    assert_eq!(
        pct(1, Some("a2"), Column::Challenge(ItemClass::Flipped)),
        Some(100.0)
    );
    assert_eq!(
        pct(0, Some("a2"), Column::Challenge(ItemClass::Several)),
        Some(0.0)
    );
    assert_eq!(
        pct(0, Some("a1"), Column::Challenge(ItemClass::Flipped)),
        None
    );
    // Pooled: original 2/3 → 2/3 (Δ 0), challenge 1/4 → 4/4 (Δ +75): Outcome 1.
    assert_eq!(pct(0, None, Column::ChallengeAll), Some(25.0));
    let o = outcome::of_model(&r, 1);
    assert_eq!(o.number(), Some(1));
    assert_eq!(o.deltas(), (0.0, 75.0));
    let text = render_text(&r);
    assert!(text.contains("0 (before)\t–\t100.00\t0.00"), "{text}");
    assert!(text.contains("100\t1e-5\t50.00\t100.00"), "{text}");
    assert!(
        text.contains("a2 set\n0 (before)\t0.00 (n=1)\t– (n=0)\t50.00 (n=2)\t0.00 (n=1)"),
        "{text}"
    );
    assert!(text.contains("n = 100: Outcome 1"), "{text}");
    let csv = render_csv(&r);
    assert!(
        csv.contains("original,a1,100,1e-5,Original test set,1,2,50.0000\n"),
        "{csv}"
    );
    assert!(
        csv.contains("challenge,a2,0,,Label flipped,1,2,50.0000\n"),
        "{csv}"
    );
}
