//! Non-finite model outputs never enter a run (issue 36, item 1): a scorer's NaN ends the run
//! with an error that names the pair by its place in the whole run and by its example or item;
//! a run file holding `null` (what serde writes for NaN) or an infinity is refused on reading,
//! which is what `tabprobe report`, `probe --resume` and `merge` read through.

mod common;

use common::*;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::{parse_run, ProbeRun, RunCheckError, RunError, RunFileError};
use tabprobe_core::scoring::{ModelId, NonFinite, Pair, PairScore, PairScorer, ScoreError};

/// The running example's facts, with a NaN for the pair whose hypothesis is `poisoned`,
/// raised either by the scorer itself (as the model crate does) or only in its output.
struct Poisoned {
    inner: EvidenceFake,
    poisoned: usize,
    seen: usize,
    raise: bool,
}

impl PairScorer for Poisoned {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        let mut scores = self.inner.score(pairs)?;
        let start = self.seen;
        self.seen += pairs.len();
        if (start..self.seen).contains(&self.poisoned) {
            // The fake gives probabilities only; a model gives logits too.
            scores[self.poisoned - start].logits = vec![0.5, f32::NAN, -1.0];
            if self.raise {
                NonFinite::check("poisoned-model", Some(pairs), &scores)?;
            }
        }
        Ok(scores)
    }

    fn model_id(&self) -> ModelId {
        self.inner.model_id()
    }
}

fn run_with_nan_at(poisoned: usize, raise: bool) -> (ProbeRun, RunError) {
    let settings = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    let set = build_probe_set(&running_example(), &settings, &RuleSet::default()).unwrap();
    let mut run = ProbeRun::new(set, 3);
    let mut scorer = Poisoned {
        inner: EvidenceFake::new(),
        poisoned,
        seen: 0,
        raise,
    };
    let err = run.run(&mut scorer, |_| {}, || false).unwrap_err();
    (run, err)
}

#[test]
fn a_nan_from_the_scorer_is_placed_in_the_run_and_named_by_its_item() {
    // Pairs: the 4 originals (H1, H2, H3, H5), then H1's row deletions; pair 5 (0-based) is the
    // deletion of row 1 under H1. Batches of 3: it is the third pair of the second batch.
    let (run, err) = run_with_nan_at(5, true);
    let RunError::Score(ScoreError::NonFinite(nf)) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(nf.index, 5);
    assert_eq!(nf.model, "poisoned-model");
    assert_eq!(nf.owner.as_deref(), Some("item H1/row_deletion/1"));
    let text = err.to_string();
    assert!(
        text.starts_with(
            "model \"poisoned-model\" gave non-finite outputs (logits [0.5, NaN, -1.0])"
        ) && text.contains("on pair 6 (item H1/row_deletion/1, hypothesis \""),
        "{text}"
    );
    // Nothing past the last good batch was kept.
    assert_eq!(run.progress().done, 3);
}

#[test]
fn a_nan_the_scorer_let_through_is_refused_on_submit() {
    // Pair 1 is H2's original: the error names its example.
    let (run, err) = run_with_nan_at(1, false);
    let RunError::Score(ScoreError::NonFinite(nf)) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(nf.index, 1);
    assert_eq!(nf.owner.as_deref(), Some("example H2"));
    assert!(
        err.to_string().starts_with("the model gave non-finite"),
        "{err}"
    );
    assert_eq!(run.progress().done, 0);
}

fn finished_run_text() -> String {
    let settings = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    let set = build_probe_set(&running_example(), &settings, &RuleSet::default()).unwrap();
    let mut run = ProbeRun::new(set, 4);
    let mut fake = EvidenceFake::new();
    run.run(&mut fake, |_| {}, || false).unwrap();
    serde_json::to_string(&run.finish(fake.model_id()).unwrap()).unwrap()
}

#[test]
fn a_run_file_with_null_or_infinite_scores_is_refused_with_the_reason() {
    let text = finished_run_text();
    assert!(parse_run("run.json", &text).is_ok());
    // What an unchecked NaN became in older files: `null`.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["pairs"][2]["score"]["probs"][0] = serde_json::Value::Null;
    let typed = parse_run("run.json", &v.to_string()).unwrap_err();
    assert!(matches!(typed, RunFileError::NullScore(_)), "{typed:?}");
    let err = typed.to_string();
    assert!(
        err.starts_with("run.json: at pairs[2].score.probs[0]")
            && err.contains("the model gave NaN or infinite outputs")
            && err.contains("score it again"),
        "{err}"
    );
    // 1e39 is past f32's range: serde refuses it where it stands.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(v["pairs"][0]["score"]["probs"][0].is_number());
    v["pairs"][0]["score"]["probs"][0] = serde_json::json!(1e39);
    let err = parse_run("run.json", &v.to_string())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("run.json: at pairs[0].score.probs[0] (line 1, column")
            && err.contains("number out of range"),
        "{err}"
    );
    // A run built in memory with an infinity (never written) fails its own check.
    let mut run = parse_run("run.json", &text).unwrap();
    run.pairs[3].score.logits = vec![f32::INFINITY];
    let typed = run.check().unwrap_err();
    assert!(matches!(typed, RunCheckError::NotFinite { pair: 3, .. }));
    let err = typed.to_string();
    assert!(
        err.starts_with(
            "$.pairs[3].score holds a number that is not finite (logits [inf], probabilities ["
        ),
        "{err}"
    );
}
