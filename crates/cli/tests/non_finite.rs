//! Non-finite model outputs are refused where the model scores (issue 36, item 1): `predict`,
//! `probe` and `bench` on a checkpoint whose weights make NaN logits (the hostile `nan-model`
//! fixture) or whose embeddings hold an infinity (made here from the tiny checkpoint) end with
//! one error naming the model, the pair and what it belongs to, exit 1 and write no `null`; a
//! run file holding `null` scores (what older builds wrote) is refused by `report`, `probe
//! --resume` and `merge` with the reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("non-finite-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tabprobe(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .args(args)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SLURM_ARRAY_TASK_COUNT")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "tabprobe {args:?} panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `tabprobe args`, which must fail with status 1; returns its stderr.
fn fails(args: &[&str]) -> String {
    let out = tabprobe(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "tabprobe {args:?}: {err}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("null"),
        "tabprobe {args:?} printed null: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn nan_model() -> PathBuf {
    manifest().join("../../tests/fixtures/hostile/nan-model")
}

fn tiny() -> PathBuf {
    manifest().join("../model/tests/golden/tiny-f32")
}

/// The tiny checkpoint with every value of its word-embedding table set to +∞ (the layer norm
/// after the embeddings turns that into NaN).
fn inf_embeddings_model(dir: &Path) -> PathBuf {
    let out = dir.join("inf-embeddings");
    std::fs::create_dir_all(&out).unwrap();
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(tiny().join(f), out.join(f)).unwrap();
    }
    let mut bytes = std::fs::read(tiny().join("model.safetensors")).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let (name, entry) = header
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.ends_with("word_embeddings.weight"))
        .expect("a word-embedding table");
    assert_eq!(entry["dtype"], "F32", "{name}");
    let start = 8 + n + entry["data_offsets"][0].as_u64().unwrap() as usize;
    let end = 8 + n + entry["data_offsets"][1].as_u64().unwrap() as usize;
    for v in bytes[start..end].chunks_exact_mut(4) {
        v.copy_from_slice(&f32::INFINITY.to_le_bytes());
    }
    std::fs::write(out.join("model.safetensors"), bytes).unwrap();
    out
}

#[test]
fn predict_refuses_nan_and_infinite_outputs_naming_model_pair_and_line() {
    let dir = scratch("predict");
    let input = dir.join("pairs.jsonl");
    std::fs::write(
        &input,
        "{\"id\": \"a\", \"premise\": \"The sky is blue.\", \"hypothesis\": \"The sky has a colour.\"}\n",
    )
    .unwrap();
    let inf = inf_embeddings_model(&dir);
    for (model, name) in [(nan_model(), "nan-model"), (inf, "inf-embeddings")] {
        let err = fails(&["predict", "--model", s(&model), "--input", s(&input)]);
        let expected = format!(
            "model \"{name}\" gave non-finite outputs (logits [NaN, NaN, NaN]) on pair 1 ({} line 1, id \"a\", hypothesis \"The sky has a colour.\")",
            input.display()
        );
        assert!(err.contains(&expected), "{err}");
    }
}

#[test]
fn probe_refuses_them_and_writes_no_run_file() {
    let dir = scratch("probe");
    let out = dir.join("run.json");
    let err = fails(&[
        "probe",
        "--dataset",
        s(&manifest().join("tests/fixtures/small.json")),
        "--model",
        s(&nan_model()),
        "--probes",
        "row_deletion",
        "--out",
        s(&out),
    ]);
    assert!(
        err.contains("model \"nan-model\" gave non-finite outputs (logits [NaN, NaN, NaN]) on pair 1 (example "),
        "{err}"
    );
    assert!(!out.exists(), "a run file was written");
}

#[test]
fn bench_refuses_them() {
    let err = fails(&[
        "bench",
        "--model",
        s(&nan_model()),
        "--backends",
        "flex",
        "--batch-sizes",
        "1",
        "--seq-lens",
        "16",
        "--repeats",
        "1",
    ]);
    assert!(
        err.contains("model \"nan-model\" gave non-finite outputs"),
        "{err}"
    );
}

#[test]
fn run_files_with_null_scores_are_refused_by_report_resume_and_merge() {
    let dir = scratch("files");
    let run = dir.join("run.json");
    let probe = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "probe",
            "--dataset",
            s(&manifest().join("tests/fixtures/small.json")),
            "--model",
            s(&tiny()),
            "--probes",
            "row_deletion",
            "--cap-per-example",
            "2",
            "--seed",
            "3",
            "--out",
            s(out),
        ]
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>();
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        tabprobe(&args)
    };
    assert!(probe(&run, &[]).status.success());
    // What an unchecked NaN became in files written before outputs were checked.
    let poison = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["pairs"][1]["score"]["probs"][0] = serde_json::Value::Null;
        v.to_string()
    };
    let bad = dir.join("bad.json");
    std::fs::write(&bad, poison(&std::fs::read_to_string(&run).unwrap())).unwrap();
    let reason = "a score is null where a number belongs: the model gave NaN or infinite outputs";
    let err = fails(&["report", s(&bad)]);
    assert!(
        err.contains("at pairs[1].score.probs[0]") && err.contains(reason),
        "{err}"
    );
    let resumed = probe(&bad, &["--resume"]);
    let err = String::from_utf8_lossy(&resumed.stderr).to_string();
    assert_eq!(resumed.status.code(), Some(1), "resume: {err}");
    assert!(err.contains(reason), "resume: {err}");
    // Shards of the same run, one of them poisoned.
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| dir.join(format!("shard-{k}.json")))
        .collect();
    for (k, shard) in shards.iter().enumerate() {
        let spec = format!("{}/2", k + 1);
        assert!(probe(shard, &["--shard", &spec]).status.success());
    }
    std::fs::write(
        &shards[1],
        poison(&std::fs::read_to_string(&shards[1]).unwrap()),
    )
    .unwrap();
    let merged = dir.join("merged.json");
    let err = fails(&["merge", s(&shards[0]), s(&shards[1]), "-o", s(&merged)]);
    assert!(
        err.contains(reason) && err.contains("shard-2.json"),
        "merge: {err}"
    );
    assert!(!merged.exists());
}
