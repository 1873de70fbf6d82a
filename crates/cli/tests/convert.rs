//! `tabprobe convert` end to end: fixtures and (when present) the real INFOTABS folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn convert(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .arg("convert")
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("convert-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn converts_a_tabfact_folder_and_prints_the_summary() {
    let dir = scratch("tabfact");
    let out = dir.join("tabfact.json");
    let o = convert(&[
        "tests/fixtures/import/tabfact/all_csv",
        "tests/fixtures/import/tabfact/collected_data",
        "tests/fixtures/import/tabfact/train_id.json",
        "tests/fixtures/import/tabfact/test_id.json",
        "-o",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains(
            "collected_data/r1_training_all.json: TabFact statements JSON — 3 tables, 6 statements"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("TabFact table CSV: 2 file(s)"), "{stdout}");
    assert!(stdout.contains("train\t2\t0\t1\t3\n"), "{stdout}");
    assert!(stdout.contains("test\t1\t0\t1\t2\n"), "{stdout}");
    assert!(
        stdout.contains("unmatched table ids: 1 (1 examples dropped): 2-99999999-1.html.csv"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let d = tabprobe_core::parse_dataset("tabfact.json", &text).unwrap();
    assert_eq!((d.tables.len(), d.examples.len()), (2, 5));
    assert_eq!(d.label_set, tabprobe_core::LabelSet::TwoWay);
}

#[test]
fn split_option_and_tsv_output() {
    let dir = scratch("tsv");
    let out = dir.join("dev.tsv");
    let o = convert(&[
        "tests/fixtures/import/infotabs-small.zip",
        "--split",
        "alpha1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "annotater_id\ttable_id\thypothesis\tlabel\nGW4\tT3\tLake Tahoe is in the Sierra Nevada.\tE\nGW4\tT3\tLake Tahoe is a shallow lake.\tC\n"
    );
}

#[test]
fn a_bad_file_is_named_and_nothing_is_written() {
    let dir = scratch("bad");
    let out = dir.join("never.json");
    let o = convert(&[
        "tests/fixtures/import/infotabs",
        "tests/fixtures/import/bad/infotabs_unknown_label.tsv",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "error: infotabs_unknown_label.tsv:line 3: unknown label \"X\"; expected E, N or C"
        ),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn infotabs_as_published() {
    let data = repo().join("../shared/data/infotabs/data");
    if !data.is_dir() {
        eprintln!(
            "SKIP: infotabs_as_published: ../shared/data (the real INFOTABS files) is absent"
        );
        return;
    }
    let dir = scratch("infotabs");
    let out = dir.join("infotabs.json");
    let o = convert(&["../shared/data/infotabs/data", "-o", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("result: 2719 tables, 23738 examples"),
        "{stdout}"
    );
    assert!(
        stdout.contains("train\t5495\t5538\t5505\t16538"),
        "{stdout}"
    );
    print!("{stdout}");
}
