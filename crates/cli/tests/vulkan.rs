//! `--backend vulkan` end to end, in a build with the `vulkan` feature (scripts/test.sh builds
//! one: `cargo test -p tabprobe-cli --features vulkan --test vulkan`): SPIR-V kernels on the
//! first Vulkan adapter (Mesa's lavapipe on a machine without a GPU). `predict` reproduces
//! BART's `transformers` logits within 1e-4 and keeps f16-mixed within 1e-3 of f32 on them; `probe` shards are stamped `vulkan`, merge to the single run byte for byte and refuse
//! a CPU shard; `bench` measures it; and `wgpu`, which would run SPIR-V in this build, is refused.
//!
//! Without an adapter the tests say SKIPPED and pass, unless `TABPROBE_REQUIRE_GPU` is set
//! (scripts/test.sh sets it).
#![cfg(feature = "vulkan")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use tabprobe_core::run::parse_run;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn families() -> PathBuf {
    manifest().join("../model/tests/golden/families")
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("vulkan-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn tabprobe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> (String, String) {
    let o = tabprobe(args);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "tabprobe {args:?} failed:\n{err}");
    (String::from_utf8(o.stdout).unwrap(), err)
}

fn fails(args: &[&str]) -> String {
    let o = tabprobe(args);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "tabprobe {args:?}:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// Whether this machine has a Vulkan adapter that runs SPIR-V, asked once (in a child
/// process, so that this process never holds a GPU runtime).
fn has_vulkan(test: &str) -> bool {
    static ANSWER: OnceLock<Result<(), String>> = OnceLock::new();
    let answer = ANSWER.get_or_init(|| {
        let o = tabprobe(&[
            "bench",
            "--model",
            s(&families().join("bart")),
            "--backends",
            "vulkan",
            "--batch-sizes",
            "1",
            "--seq-lens",
            "8",
            "--repeats",
            "1",
        ]);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        match out.lines().nth(1) {
            // A measured row has 8 columns; "no adapter" rows have 4.
            Some(row) if row.split('\t').count() == 8 && o.status.success() => Ok(()),
            _ => Err(format!("{out}{}", String::from_utf8_lossy(&o.stderr))),
        }
    });
    match answer {
        Ok(()) => true,
        Err(why) if std::env::var_os("TABPROBE_REQUIRE_GPU").is_some() => {
            panic!("{test}: TABPROBE_REQUIRE_GPU is set but vulkan does not run:\n{why}")
        }
        Err(why) => {
            eprintln!("SKIPPED {test}: no Vulkan adapter with SPIR-V ({why})");
            false
        }
    }
}

/// The JSON lines `predict` wrote, as (logits, probs) per line.
fn predictions(path: &Path) -> Vec<(Vec<f64>, Vec<f64>, String)> {
    let numbers = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                numbers(&v["logits"]),
                numbers(&v["probs"]),
                v["label"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn max_diff<'a>(a: impl Iterator<Item = (&'a f64, &'a f64)>) -> f64 {
    a.map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// `tabprobe predict --backend vulkan` with BART's fixture at `precision`, `input` → `out`.
fn predict_bart_on_vulkan(input: &Path, out: &Path, precision: &str) {
    ok(&[
        "predict",
        "--backend",
        "vulkan",
        "--precision",
        precision,
        "--model",
        s(&families().join("bart")),
        "--input",
        s(input),
        "--out",
        s(out),
    ]);
}

#[test]
fn vulkan_predict_reproduces_transformers_logits_and_f16_mixed_stays_within_1e3() {
    if !has_vulkan("vulkan predict parity") {
        return;
    }
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(families().join("golden.json")).unwrap())
            .unwrap();
    let dir = scratch("predict");
    let input: String = golden["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let line = serde_json::json!({"premise": p["premise"], "hypothesis": p["hypothesis"]});
            format!("{line}\n")
        })
        .collect();
    let in_path = dir.join("pairs.jsonl");
    std::fs::write(&in_path, input).unwrap();
    // BART here (its f16-mixed run follows); every family runs on vulkan in the model crate's
    // families.rs in the same pass of scripts/test.sh, in process and faster.
    let full_path = dir.join("bart.jsonl");
    predict_bart_on_vulkan(&in_path, &full_path, "f32");
    let full = predictions(&full_path);
    let want = golden["families"]["bart"]["logits"].as_array().unwrap();
    assert_eq!(full.len(), want.len());
    let mut worst: f64 = 0.0;
    for ((logits, _, _), w) in full.iter().zip(want) {
        let w: Vec<f64> = w
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        worst = worst.max(max_diff(logits.iter().zip(&w)));
    }
    eprintln!("vulkan predict bart: max |Δlogit| vs transformers = {worst:.3e}");
    assert!(worst <= 1e-4, "max |Δlogit| {worst:e}");
    // f16-mixed on the same device: BART's fixture (unit-scale attention) keeps every label
    // and stays within 1e-3 in probability of f32 (crates/model/tests/precision.rs says why the
    // sharpened fixtures cannot).
    let half = dir.join("bart-f16.jsonl");
    predict_bart_on_vulkan(&in_path, &half, "f16-mixed");
    let half = predictions(&half);
    let mut worst: f64 = 0.0;
    for ((_, p32, l32), (_, p16, l16)) in full.iter().zip(&half) {
        assert_eq!(l32, l16);
        worst = worst.max(max_diff(p32.iter().zip(p16)));
    }
    eprintln!("vulkan predict bart f16-mixed vs f32: max |Δprob| = {worst:.3e}");
    assert!(worst <= 1e-3, "max |Δprob| {worst:e}");
}

/// `tabprobe probe` on the CLI's small fixture with the tiny RoBERTa, as shard.rs runs it.
fn probe(out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tabprobe"));
    c.args(["probe", "--dataset"])
        .arg(manifest().join("tests/fixtures/small.json"))
        .arg("--model")
        .arg(manifest().join("../model/tests/golden/tiny-f32"))
        .args(["--probes", "table", "--cap-per-example", "3", "--seed", "5"])
        .args(["--out", s(out)])
        .args(extra);
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "JOB_COMPLETION_INDEX",
    ] {
        c.env_remove(v);
    }
    c
}

fn run(mut c: Command) -> Output {
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "{c:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

#[test]
fn vulkan_shards_are_stamped_and_merge_to_the_single_run() {
    if !has_vulkan("vulkan shards") {
        return;
    }
    let dir = scratch("shards");
    let single = dir.join("single.json");
    run(probe(&single, &["--backend", "vulkan"]));
    let parts: Vec<PathBuf> = (1..=2)
        .map(|i| {
            let f = dir.join(format!("part-{i}.json"));
            run(probe(
                &f,
                &["--backend", "vulkan", "--shard", &format!("{i}/2")],
            ));
            f
        })
        .collect();
    let text = std::fs::read_to_string(&parts[0]).unwrap();
    let shard = parse_run("part-1", &text).unwrap().shard.expect("stamped");
    assert_eq!(shard.backend, "vulkan");
    let merged = dir.join("merged.json");
    ok(&["merge", s(&parts[0]), s(&parts[1]), "-o", s(&merged)]);
    assert!(
        std::fs::read(&merged).unwrap() == std::fs::read(&single).unwrap(),
        "the merged vulkan shards differ from the single vulkan run"
    );
    // The same shard 2 on the CPU does not merge with vulkan's shard 1.
    let cpu = dir.join("cpu-2.json");
    run(probe(&cpu, &["--backend", "flex", "--shard", "2/2"]));
    let err = fails(&["merge", s(&parts[0]), s(&cpu), "-o", s(&merged)]);
    assert!(
        err.contains("$.shard.backend") && err.contains("\"vulkan\""),
        "{err}"
    );
}

#[test]
fn vulkan_builds_refuse_wgpu_and_bench_measures_vulkan() {
    if !has_vulkan("vulkan bench") {
        return;
    }
    // In this build every Vulkan adapter runs SPIR-V, so the WGSL name would be a false stamp.
    let dir = scratch("refuse");
    let input = dir.join("pairs.jsonl");
    std::fs::write(&input, "{\"premise\": \"a\", \"hypothesis\": \"b\"}\n").unwrap();
    let err = fails(&[
        "predict",
        "--backend",
        "wgpu",
        "--model",
        s(&families().join("bart")),
        "--input",
        s(&input),
    ]);
    assert!(
        err.contains("--backend: ") && err.contains("say --backend vulkan"),
        "{err}"
    );
    let (out, _) = ok(&[
        "bench",
        "--model",
        s(&families().join("bert")),
        "--backends",
        "flex,vulkan",
        "--batch-sizes",
        "1,4",
        "--seq-lens",
        "32",
        "--repeats",
        "1",
        "--precision",
        "f16-mixed",
    ]);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let backends: Vec<(&str, &str)> = rows.iter().map(|r| (r[2], r[4])).collect();
    assert_eq!(
        backends,
        [
            ("flex", "1"),
            ("flex", "4"),
            ("vulkan", "1"),
            ("vulkan", "4")
        ]
    );
    for r in &rows {
        assert!(r[5].parse::<f64>().unwrap() > 0.0, "{r:?}");
        assert_eq!(r[7], "f16-mixed");
    }
}
