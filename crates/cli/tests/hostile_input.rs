//! Every command that reads a user file reads at most the import limit (issue 12 §4):
//! `/dev/zero` is an endless file, a named pipe with no writer blocks `open(2)` forever.
//! Each must end within a deadline with a message naming the file, exit status 1, no panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Long enough for a slow machine to read 100 MiB of zeros and wait out the 5 s pipe timeout.
const DEADLINE: Duration = Duration::from_secs(60);

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `tabprobe args`, killed at [`DEADLINE`]; returns stderr of a run that failed cleanly.
fn fails_in_time(args: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tabprobe {args:?} still running after {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "tabprobe {args:?}: {err}");
    assert!(
        !err.contains("panicked"),
        "tabprobe {args:?} panicked: {err}"
    );
    err
}

/// Each command with `file` where it reads a user file.
fn commands<'a>(file: &'a str, out: &'a str, tiny: &'a str) -> Vec<Vec<&'a str>> {
    vec![
        vec!["validate", file],
        vec!["linearize", "--dataset", file],
        vec!["report", file],
        vec!["convert", file, "--out", out],
        vec!["predict", "--model", tiny, "--input", file],
        vec![
            "probe",
            "--dataset",
            file,
            "--model",
            tiny,
            "--probes",
            "row_deletion",
            "--out",
            out,
        ],
    ]
}

fn tiny() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/golden/tiny-f32")
        .display()
        .to_string()
}

#[test]
fn dev_zero_is_read_up_to_the_limit_and_refused() {
    let dir = scratch("zero");
    let out = dir.join("out.json").display().to_string();
    let tiny = tiny();
    for args in commands("/dev/zero", &out, &tiny) {
        let err = fails_in_time(&args);
        assert!(
            err.contains("/dev/zero") && err.contains("larger than 104.9 MB"),
            "tabprobe {args:?}: {err}"
        );
    }
}

#[test]
fn a_pipe_with_no_writer_is_refused_after_a_timeout() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let fifo = fifo.display().to_string();
    let out = dir.join("out.json").display().to_string();
    let tiny = tiny();
    for args in commands(&fifo, &out, &tiny) {
        let err = fails_in_time(&args);
        assert!(
            err.contains(&fifo) && err.contains("named pipe"),
            "tabprobe {args:?}: {err}"
        );
    }
}

/// A pipe that is written to is read as a file (`tabprobe validate <(cat dataset.json)`).
#[test]
fn a_pipe_with_a_writer_is_read() {
    let dir = scratch("fifo-writer");
    let fifo = dir.join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let dataset = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/small.json");
    let writer = {
        let (fifo, dataset) = (fifo.clone(), dataset.clone());
        std::thread::spawn(move || std::fs::write(&fifo, std::fs::read(dataset).unwrap()))
    };
    let o = Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .args(["validate", &fifo.display().to_string()])
        .output()
        .unwrap();
    writer.join().unwrap().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(": ok ("), "{out}");
}

/// A checkpoint folder of tiny-f32's files with `name` replaced by a sparse file of `size`
/// bytes (nothing is written: the size alone must refuse it).
fn checkpoint_with_large(dir: &Path, name: &str, size: u64) {
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(Path::new(&tiny()).join(f), dir.join(f)).unwrap();
    }
    std::fs::File::create(dir.join(name))
        .unwrap()
        .set_len(size)
        .unwrap();
}

/// Issue 47 item 3: each checkpoint file has its kind's ceiling, checked before reading: a
/// config.json or tokenizer.json far past it is refused at once, naming the file, the ceiling
/// and its size.
#[test]
fn checkpoint_files_past_their_kinds_ceilings_are_refused_before_reading() {
    let dataset = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/small.json");
    let dataset = dataset.display().to_string();
    for (name, size, ceiling) in [
        (
            "config.json",
            3_200_000_000,
            "a config.json is at most 1.0 MB",
        ),
        (
            "tokenizer.json",
            70_000_000,
            "a tokenizer.json is at most 67.1 MB",
        ),
    ] {
        let dir = scratch(&format!("large-{name}"));
        let model = dir.join("model");
        std::fs::create_dir_all(&model).unwrap();
        checkpoint_with_large(&model, name, size);
        let out = dir.join("out.json").display().to_string();
        let model = model.display().to_string();
        let started = Instant::now();
        let err = fails_in_time(&[
            "probe",
            "--dataset",
            &dataset,
            "--model",
            &model,
            "--probes",
            "row_deletion",
            "--out",
            &out,
        ]);
        let path = format!("{model}/{name}");
        assert!(
            err.contains(&format!("{path} holds ")) && err.contains(ceiling),
            "{name}: {err}"
        );
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: slow");
    }
}

/// A tokenizer given as a stream that never ends (`/dev/zero`) is read up to a
/// tokenizer.json's ceiling and one byte, then refused.
#[test]
fn an_endless_tokenizer_stops_at_its_ceiling() {
    let dir = scratch("endless-tokenizer");
    let out = dir.join("model").display().to_string();
    let err = fails_in_time(&["train", "--tokenizer", "/dev/zero", "--out", &out]);
    assert!(
        err.contains(
            "/dev/zero: stopped after reading 67.1 MB: a tokenizer.json is at most 67.1 MB"
        ),
        "{err}"
    );
}
