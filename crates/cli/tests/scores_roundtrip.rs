//! The round trip of issue 44 (item 5): export the pairs of a probe set, score them elsewhere
//! with the transformers scorer, import the scores — and get the run tabprobe gives when it
//! scores the same checkpoint itself: the same items, the same label for every pair,
//! probabilities within 1e-4, and the same report tables (so the paper's figures from
//! imported scores are the in-browser ones).
//!
//! CI has no torch, so the scoring elsewhere is a committed fixture:
//! `tests/fixtures/scores-tiny-f32.jsonl`, what `scorers/hf_transformers.py` (transformers
//! 5.23, CPU, float32) gave to the pairs of the CLI tests' probe set by the tiny random
//! RoBERTa of the model crate's golden tests, made by `scorers/tests/make_roundtrip_fixture.sh`.
//! The same round trip runs live, scorer included, in `scorers/tests/test_hf_transformers.py`
//! wherever torch is installed.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use tabprobe_core::run::RunResult;

/// Probabilities of the two runs may differ by this much (the scorer pads batches to their
/// longest pair, tabprobe to a multiple of 8: float32 noise, ~1e-6).
const TOLERANCE: f32 = 1e-4;

const REGENERATE: &str =
    "PYTHON=.tools/interop-venv/bin/python scorers/tests/make_roundtrip_fixture.sh";

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn dataset() -> PathBuf {
    manifest().join("tests/fixtures/small.json")
}

fn checkpoint() -> PathBuf {
    manifest().join("../model/tests/golden/tiny-f32")
}

fn scores_fixture() -> PathBuf {
    manifest().join("tests/fixtures/scores-tiny-f32.jsonl")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The probe set: the CLI tests' `probe_all` (every probe, seed 7, q = 3, hypothesis-only).
fn probe_set() -> Vec<String> {
    [
        "--dataset",
        s(&dataset()),
        "--probes",
        "all",
        "--seed",
        "7",
        "--word-order-q",
        "3",
        "--hypothesis-only",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

fn ok(cmd: &str, args: &[String]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .arg(cmd)
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "tabprobe {cmd} {args:?} failed:\n{err}");
    err
}

fn read_run(path: &Path) -> RunResult {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn ids(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display()));
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Every CSV file `tabprobe report --csv` writes for `run`, by name.
fn report_csv(run: &Path, dir: &Path) -> BTreeMap<String, String> {
    let o = Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .args(["report", s(run), "--csv", s(dir)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

#[test]
fn scores_from_the_transformers_scorer_give_tabprobes_own_run() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-scores-roundtrip");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    // The pairs as the probe set has them now; the fixture must score exactly those.
    let pairs = dir.join("pairs.jsonl");
    let mut args = probe_set();
    args.extend(["--out".into(), s(&pairs).into()]);
    ok("pairs", &args);
    let pair_ids = ids(&pairs);
    let fixture_ids = ids(&scores_fixture());
    let wanted: HashSet<&String> = pair_ids.iter().collect();
    let have: HashSet<&String> = fixture_ids.iter().collect();
    let stale = fixture_ids.iter().filter(|i| !wanted.contains(i)).count();
    let unscored = pair_ids.iter().filter(|i| !have.contains(i)).count();
    assert!(
        stale == 0 && unscored == 0 && fixture_ids.len() == pair_ids.len(),
        "{} is stale: {stale} of its {} ids are not pairs of the probe set, {unscored} of the \
         set's {} pairs have no score. The probe set's pairs changed; regenerate it from the \
         repository root with\n    {REGENERATE}",
        scores_fixture().display(),
        fixture_ids.len(),
        pair_ids.len()
    );

    // tabprobe runs the checkpoint itself; then the scores stand in for it, under its name.
    let own = dir.join("own.json");
    let mut args = probe_set();
    args.extend(
        [
            "--model",
            s(&checkpoint()),
            "--batch-size",
            "16",
            "--out",
            s(&own),
        ]
        .map(String::from),
    );
    ok("probe", &args);
    let imported = dir.join("imported.json");
    let mut args = probe_set();
    args.extend(
        [
            "--scores",
            s(&scores_fixture()),
            "--scores-name",
            "tiny-f32",
            "--out",
            s(&imported),
        ]
        .map(String::from),
    );
    ok("probe", &args);

    let (a, b) = (read_run(&own), read_run(&imported));
    assert_eq!(a.items, b.items, "the same probe items");
    assert_eq!(a.hypothesis_only_pairs, b.hypothesis_only_pairs);
    assert_eq!(a.pairs.len(), b.pairs.len());
    assert_eq!(a.pairs.len(), pair_ids.len());
    let mut max_dp = 0f32;
    for (k, (x, y)) in a.pairs.iter().zip(&b.pairs).enumerate() {
        assert_eq!(x.pair, y.pair);
        assert_eq!(
            x.score.predicted(),
            y.score.predicted(),
            "pair {} ({}): tabprobe {:?}, the scorer {:?}",
            k,
            pair_ids[k],
            x.score.probs,
            y.score.probs
        );
        for (p, q) in x.score.probs.iter().zip(&y.score.probs) {
            max_dp = max_dp.max((p - q).abs());
        }
    }
    eprintln!(
        "round trip: {} pairs, same labels, max |Δp| = {max_dp:.2e} (tolerance {TOLERANCE:.0e})",
        a.pairs.len()
    );
    assert!(max_dp <= TOLERANCE, "max |Δp| = {max_dp}");

    // Every report table the CLI writes is the same. The run's own description differs in two
    // lines only: the model's weights hash (a scores file's is its SHA-256) and the count of
    // pairs whose premise was cut (a scores file does not say; the scorer cut the same 115).
    let (ta, tb) = (
        report_csv(&own, &dir.join("csv-own")),
        report_csv(&imported, &dir.join("csv-imported")),
    );
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    assert!(ta.len() > 20, "{} tables", ta.len());
    for name in [
        "table1_accuracy.csv",
        "table4_scores.csv",
        "table7_scores.csv",
        "table8_paired_label_flipping.csv",
        "table8_paired_label_preserving.csv",
        "word_order.csv",
        "evidence.csv",
    ] {
        assert!(ta.contains_key(name), "report writes {name}");
    }
    for (name, text) in &ta {
        if name == "run.csv" {
            let differing: Vec<(&str, &str)> = text
                .lines()
                .zip(tb[name].lines())
                .filter(|(x, y)| x != y)
                .collect();
            let keys: Vec<&str> = differing
                .iter()
                .map(|(x, _)| x.split(',').next().unwrap())
                .collect();
            assert_eq!(keys, ["weights_sha256", "truncated_pairs"], "{differing:?}");
            assert_eq!(
                differing[1],
                ("truncated_pairs,115", "truncated_pairs,0"),
                "{differing:?}"
            );
        } else {
            assert_eq!(text, &tb[name], "{name} differs");
        }
    }
}
