//! Agreement of relevant-row annotations (issue 11 §8, paper §5.2): each annotator's votes are
//! kept at import, and Fleiss' κ and the "≥ 3 annotators marked the same rows" share are
//! computed from them, by hand on the votes fixture.

#[path = "common/import_files.rs"]
#[allow(dead_code)]
mod files;

use tabprobe_core::data::dataset::RelevanceBallot;
use tabprobe_core::data::import::{import_files, ImportOptions};
use tabprobe_core::data::validate::ProblemKind;
use tabprobe_core::metrics::relevance_agreement;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::report::sections;
use tabprobe_core::run::ProbeRun;
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};
use tabprobe_core::{Dataset, LabelSet};

fn imported() -> Dataset {
    let inputs = files::read(
        &files::fixtures(),
        &["infotabs/tables", "infotabs/maindata", "relevance"],
    );
    import_files(inputs, &ImportOptions::default()).unwrap().0
}

fn ballots(d: &Dataset, id: &str) -> Vec<(String, Vec<usize>)> {
    d.examples
        .iter()
        .find(|e| e.id.as_deref() == Some(id))
        .and_then(|e| e.relevance_votes.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|b| (b.annotator, b.rows))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// The fixture: dev-4 (T2, 3 rows) with A1 110, A2 010, A3 011; dev-2 (T1, 3 rows) with A1
/// 010, A2 011.
///   dev-4 rows: 1 of 3, 3 of 3, 1 of 3 relevant → P_i 1/3, 1, 1/3, P̄ = 5/9; shares 5/9, 4/9
///     → P̄e = 41/81; κ = (5/9 − 41/81) / (1 − 41/81) = 4/40 = 0.1.
///   dev-2 rows: 0 of 2, 2 of 2, 1 of 2 → P_i 1, 1, 0, P̄ = 2/3; shares 1/2 → P̄e = 1/2;
///     κ = (2/3 − 1/2) / (1/2) = 1/3.
///   pooled over the 6 (example, row) items: P̄ = 11/18; 8 of 15 votes relevant → P̄e =
///     113/225; κ = (11/18 − 113/225) / (112/225) = 49/224 = 7/32 = 0.21875.
///   per-example κ: mean (0.1 + 1/3)/2 = 13/60, population sd 7/60.
///   ≥ 3 annotators: only dev-4, whose three ballots all differ → 0% marked the same rows.
#[test]
fn votes_are_kept_and_agreement_is_computed_by_hand() {
    let d = imported();
    assert_eq!(
        ballots(&d, "dev-4"),
        [
            ("A1".to_string(), vec![0, 1]),
            ("A2".to_string(), vec![1]),
            ("A3".to_string(), vec![1, 2]),
        ]
    );
    assert_eq!(ballots(&d, "dev-2").len(), 2);
    // The votes travel into the run, where agreement is computed.
    let s = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    let mut run = ProbeRun::new(set, 16);
    run.run(&mut AlwaysEntail, |_| {}, || false).unwrap();
    let r = run.finish(AlwaysEntail.model_id()).unwrap();
    let a = relevance_agreement(&r, None).unwrap();
    assert_eq!((a.examples, a.items), (2, 6));
    assert_eq!(
        a.annotators.into_iter().collect::<Vec<_>>(),
        [(2, 1), (3, 1)]
    );
    assert!(close(a.kappa.unwrap(), 7.0 / 32.0), "{:?}", a.kappa);
    assert!(close(a.kappa_per_example_mean.unwrap(), 13.0 / 60.0));
    assert!(close(a.kappa_per_example_sd.unwrap(), 7.0 / 60.0));
    assert_eq!(a.kappa_per_example_n, 2);
    assert_eq!(
        (a.examples_three_or_more, a.same_rows_three),
        (1, Some(0.0))
    );

    // The report shows the section.
    let sec = sections(&r)
        .into_iter()
        .find(|s| s.file() == "agreement")
        .unwrap();
    assert_eq!(
        sec.rows[0].cells,
        [
            "all",
            "2",
            "2×1 3×1",
            "6",
            "0.2188",
            "0.2167",
            "0.1167",
            "2",
            "1",
            "0.00"
        ]
    );
}

/// A dataset file keeps the ballots, and a vote past the table is located.
#[test]
fn ballots_round_trip_and_bad_votes_are_located() {
    let mut d = imported();
    let text = d.to_json_pretty().unwrap();
    let back = tabprobe_core::parse_dataset("d.json", &text).unwrap();
    assert_eq!(back, d);
    let (i, e) = d
        .examples
        .iter_mut()
        .enumerate()
        .find(|(_, e)| e.relevance_votes.is_some())
        .unwrap();
    e.relevance_votes.as_mut().unwrap()[1] = RelevanceBallot {
        annotator: "A9".into(),
        rows: vec![1, 7],
    };
    let err = tabprobe_core::parse_dataset("d.json", &d.to_json_pretty().unwrap()).unwrap_err();
    assert_eq!(err.problems.len(), 1);
    assert_eq!(err.problems[0].kind, ProblemKind::BadRowIndex);
    assert_eq!(
        err.problems[0].path,
        format!("$.examples[{i}].relevance_votes[1].rows[1]")
    );
}

struct AlwaysEntail;

impl PairScorer for AlwaysEntail {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        Ok(pairs
            .iter()
            .map(|_| PairScore {
                probs: [0.8, 0.1, 0.1],
                logits: vec![],
                truncated: false,
                premise_tokens_dropped: 0,
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "always-entail".into(),
            weights_sha256: "5".repeat(64),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}
