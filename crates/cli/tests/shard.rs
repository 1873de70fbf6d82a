//! `tabprobe probe --shard` / `tabprobe merge` / `--resume` end to end with the tiny random
//! checkpoint of the model crate (issue 14): shards merged are byte-identical to the single
//! run (n = 1, 3, 7); the shard comes from Slurm's or Kubernetes' variables when `--shard` is
//! absent; merge refuses shards of another run and missing ones; a run killed mid-way and
//! resumed writes the same bytes as an uninterrupted one.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tabprobe_core::run::parse_run;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("shard-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// `tabprobe probe` on the fixture with the tiny model (seed 5 unless `extra` gives one);
/// `extra` adds options, `env` sets
/// variables (the scheduler's), with every shard variable of the calling environment removed.
fn probe_command(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tabprobe"));
    c.args(["probe", "--dataset"])
        .arg(manifest().join("tests/fixtures/small.json"))
        .arg("--model")
        .arg(manifest().join("../model/tests/golden/tiny-f32"))
        .args([
            "--probes",
            "table",
            "--cap-per-example",
            "3",
            "--hypothesis-only",
        ])
        .args(["--out", &s(out)])
        .args(extra);
    if !extra.contains(&"--seed") {
        c.args(["--seed", "5"]);
    }
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "JOB_COMPLETION_INDEX",
    ] {
        c.env_remove(v);
    }
    c.envs(env.iter().copied());
    c
}

fn succeed(mut c: Command) -> String {
    let o: Output = c.output().unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "{c:?} failed:\n{err}");
    err
}

fn fail(mut c: Command) -> String {
    let o = c.output().unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{c:?}:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn merge(files: &[PathBuf], out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tabprobe"));
    c.arg("merge").args(files).arg("-o").arg(out);
    c
}

fn single(dir: &Path) -> PathBuf {
    let out = dir.join("single.json");
    succeed(probe_command(&out, &[], &[]));
    out
}

#[test]
fn merged_shards_are_byte_identical_to_the_single_run() {
    let dir = scratch("merge");
    let single = std::fs::read(single(&dir)).unwrap();
    for n in [1usize, 3, 7] {
        let files: Vec<PathBuf> = (1..=n)
            .map(|i| {
                let f = dir.join(format!("n{n}-{i}.json"));
                // Another batch size too: a pair's scores must not depend on its batch.
                let shard = format!("{i}/{n}");
                succeed(probe_command(
                    &f,
                    &["--shard", &shard, "--batch-size", "3"],
                    &[],
                ));
                f
            })
            .collect();
        let text = std::fs::read_to_string(&files[0]).unwrap();
        let shard = parse_run("shard", &text).unwrap().shard.expect("stamped");
        assert_eq!((shard.index, shard.count), (1, n));
        assert!(shard.tool.starts_with("tabprobe "), "{}", shard.tool);
        assert_eq!(shard.probe_set.seed, 5);
        let out = dir.join(format!("merged-{n}.json"));
        let mut reversed = files.clone();
        reversed.reverse();
        let log = succeed(merge(&reversed, &out));
        assert!(log.contains(&format!("merged {n} shards")), "{log}");
        assert!(
            std::fs::read(&out).unwrap() == single,
            "n = {n}: merged file differs"
        );
    }
}

#[test]
fn schedulers_choose_the_shard_zero_based() {
    let dir = scratch("env");
    let slurm = dir.join("slurm.json");
    let log = succeed(probe_command(
        &slurm,
        &[],
        &[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ],
    ));
    assert!(log.contains("shard 3/3 (from SLURM_ARRAY_TASK_ID"), "{log}");
    let by_flag = dir.join("flag.json");
    succeed(probe_command(&by_flag, &["--shard", "3/3"], &[]));
    assert_eq!(
        std::fs::read(&slurm).unwrap(),
        std::fs::read(&by_flag).unwrap()
    );

    let k8s = dir.join("k8s.json");
    let log = succeed(probe_command(
        &k8s,
        &["--shards", "3"],
        &[("JOB_COMPLETION_INDEX", "2")],
    ));
    assert!(
        log.contains("shard 3/3 (from JOB_COMPLETION_INDEX"),
        "{log}"
    );
    assert_eq!(
        std::fs::read(&k8s).unwrap(),
        std::fs::read(&by_flag).unwrap()
    );

    let err = fail(probe_command(&k8s, &[], &[("JOB_COMPLETION_INDEX", "2")]));
    assert!(err.contains("--shards"), "{err}");
    let err = fail(probe_command(&k8s, &["--shard", "4/3"], &[]));
    assert!(err.contains("outside 1..=3"), "{err}");
}

#[test]
fn merge_refuses_other_runs_and_missing_shards() {
    let dir = scratch("refuse");
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    let c = dir.join("c.json");
    succeed(probe_command(&a, &["--shard", "1/2"], &[]));
    succeed(probe_command(&b, &["--shard", "2/2"], &[]));
    // The same shard 2 with another seed: a different probe set.
    succeed(probe_command(&c, &["--shard", "2/2", "--seed", "6"], &[]));
    let out = dir.join("run.json");
    let err = fail(merge(&[a.clone(), c.clone()], &out));
    assert!(
        err.contains("$.shard.probe_set.seed") && err.contains("(5 vs 6)"),
        "{err}"
    );
    let err = fail(merge(std::slice::from_ref(&a), &out));
    assert!(err.contains("missing shard(s) 2 of 2: got 1"), "{err}");
    let err = fail(merge(&[a.clone(), b.clone(), a.clone()], &out));
    assert!(err.contains("shard 1/2 given twice"), "{err}");
    // The same shard 2 at f16-mixed: its run file says so, and it does not merge with f32.
    let half = dir.join("half.json");
    succeed(probe_command(
        &half,
        &["--shard", "2/2", "--precision", "f16-mixed"],
        &[],
    ));
    let text = std::fs::read_to_string(&half).unwrap();
    assert_eq!(
        parse_run("half", &text).unwrap().model.precision.as_str(),
        "f16-mixed"
    );
    let err = fail(merge(&[a.clone(), half], &out));
    assert!(
        err.contains("$.model.precision") && err.contains("f16-mixed"),
        "{err}"
    );
    let unsharded = single(&dir);
    let err = fail(merge(&[a.clone(), unsharded], &out));
    assert!(err.contains("single.json: not a shard"), "{err}");
    assert!(!out.exists(), "a refused merge wrote a file");
    // A shard cannot resume into another shard's file.
    let err = fail(probe_command(&a, &["--shard", "2/2", "--resume"], &[]));
    assert!(err.contains("cannot resume: $.shard is shard 1/2"), "{err}");
}

#[test]
fn a_killed_run_resumes_to_the_same_bytes() {
    let dir = scratch("resume");
    let whole = std::fs::read(single(&dir)).unwrap();
    let out = dir.join("killed.json");
    let args = ["--checkpoint-every", "0", "--batch-size", "4"];
    let mut child = probe_command(&out, &args, &[]).spawn().unwrap();
    // Wait for a partial file (written after every batch), then kill the run.
    let started = Instant::now();
    let partial = loop {
        if let Ok(text) = std::fs::read_to_string(&out) {
            let run = parse_run("partial", &text).expect("a partial file always parses");
            if run.pairs.len() >= 8 {
                break run;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no partial file"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let progress = partial.cancelled_at.expect("killed before the end");
    assert!(progress.done < progress.total, "{progress:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    let at_kill = parse_run("killed", &text).unwrap();
    let kept = at_kill.pairs.len();
    assert!(
        at_kill.cancelled_at.is_some() && kept >= 8 && kept.is_multiple_of(4),
        "{kept}"
    );
    let mut resume = probe_command(&out, &args, &[]);
    resume.arg("--resume");
    let log = succeed(resume);
    assert!(
        log.contains(&format!(
            "resume: {kept} of {} pairs already scored",
            progress.total
        )),
        "{log}"
    );
    assert!(std::fs::read(&out).unwrap() == whole, "resumed run differs");
    // Resuming a finished run scores nothing and keeps its bytes.
    let mut again = probe_command(&out, &args, &[]);
    again.arg("--resume");
    let log = succeed(again);
    assert!(log.contains("scoring the other 0"), "{log}");
    assert!(std::fs::read(&out).unwrap() == whole);
}

#[test]
fn a_pairs_scores_do_not_depend_on_its_batch() {
    // Shards put other pairs beside each pair; only scores independent of the batch make the
    // merged file the single run's. One pair per batch against 32.
    let dir = scratch("batch");
    let one = dir.join("one.json");
    let many = dir.join("many.json");
    succeed(probe_command(&one, &["--batch-size", "1"], &[]));
    succeed(probe_command(&many, &["--batch-size", "32"], &[]));
    assert!(std::fs::read(&one).unwrap() == std::fs::read(&many).unwrap());
}

#[test]
fn run_files_past_the_import_limit_are_read() {
    // A merged cluster run can exceed the 100 MiB import limit; a regular run file is read up
    // to 4 GiB (a stream still stops at 100 MiB: tests/hostile_input.rs). 101 MiB of spaces
    // around a shard file: read in full, then parsed.
    let dir = scratch("large");
    let shard = dir.join("shard.json");
    succeed(probe_command(&shard, &["--shard", "1/1"], &[]));
    let mut text = std::fs::read_to_string(&shard).unwrap();
    text.push_str(&" ".repeat(101 << 20));
    let big = dir.join("big.json");
    std::fs::write(&big, text).unwrap();
    let out = dir.join("run.json");
    let log = succeed(merge(&[big], &out));
    assert!(log.contains("merged 1 shards"), "{log}");
}
