//! The INFOTABS importer on real published files from `../shared/data/infotabs` (skipped, with
//! a message, when that folder is absent) and on small committed fixtures.

use std::path::PathBuf;

use tabprobe_core::data::import::infotabs::{parse_split_tsv, parse_table};
use tabprobe_core::Label;

fn infotabs_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/infotabs/data");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIP: {} is absent; real-data INFOTABS checks not run",
            dir.display()
        );
        None
    }
}

#[test]
fn fixture_table_keeps_key_order_and_title() {
    let text = r#"{"title": ["Breakfast in America"], "Released": ["29 March 1979"], "Genre": ["Pop", "art rock", "soft rock"], "Length": ["46:06"]}"#;
    let t = parse_table("T1264.json", "T1264", text).unwrap();
    assert_eq!(t.title, "Breakfast in America");
    let keys: Vec<&str> = t.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["Released", "Genre", "Length"]);
    assert_eq!(t.rows[1].values, ["Pop", "art rock", "soft rock"]);
}

#[test]
fn fixture_errors_are_located() {
    let e = parse_table("T1.json", "T1", r#"{"title": ["x"], "Born": "1970"}"#).unwrap_err();
    assert_eq!(
        e.to_string(),
        "T1.json:$[\"Born\"]: expected a list of strings"
    );
    let e = parse_table("T1.json", "T1", r#"{"Born": ["1970"]}"#).unwrap_err();
    assert_eq!(e.location, "$.title");
    let e = parse_table("T1.json", "T1", "{\n\"title\": [\"x\"],\n}").unwrap_err();
    assert!(e.location.starts_with("line 3, column 1"), "{e}");
    let tsv = "annotater_id\ttable_id\thypothesis\tlabel\nGW1\tT1\tok\tE\nGW1\tT1\tbad\tX\n";
    let e = parse_split_tsv("dev.tsv", "dev", tsv).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dev.tsv:line 3: unknown label \"X\"; expected E, N or C"
    );
    let e = parse_split_tsv("dev.tsv", "dev", "a\tb\nx\ty\n").unwrap_err();
    assert_eq!(e.location, "line 1");
    let e = parse_split_tsv(
        "dev.tsv",
        "dev",
        "annotater_id\ttable_id\thypothesis\tlabel\nGW1\tT1\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "dev.tsv:line 2: expected 4 tab-separated columns, found 2"
    );
}

#[test]
fn real_dev_split_counts() {
    let Some(dir) = infotabs_dir() else { return };
    let text = std::fs::read_to_string(dir.join("maindata/infotabs_dev.tsv")).unwrap();
    let ex = parse_split_tsv("infotabs_dev.tsv", "dev", &text).unwrap();
    assert_eq!(ex.len(), 1800);
    // INFOTABS is balanced: 600 of each label per evaluation split.
    for label in Label::ALL {
        assert_eq!(
            ex.iter().filter(|e| e.label == label).count(),
            600,
            "{label}"
        );
    }
    assert_eq!(
        ex[0]
            .annotator
            .as_deref()
            .map(|a| a.starts_with("GW") || !a.is_empty()),
        Some(true)
    );
}

#[test]
fn real_tables_parse_and_keep_file_order() {
    let Some(dir) = infotabs_dir() else { return };
    let mut parsed = 0;
    for entry in std::fs::read_dir(dir.join("tables/json")).unwrap() {
        let path = entry.unwrap().path();
        let id = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let t =
            parse_table(&path.display().to_string(), &id, &text).unwrap_or_else(|e| panic!("{e}"));
        assert!(!t.title.is_empty(), "{id}");
        parsed += 1;
    }
    assert!(parsed > 2500, "parsed {parsed} tables");
    let text = std::fs::read_to_string(dir.join("tables/json/T1264.json")).unwrap();
    let t = parse_table("T1264.json", "T1264", &text).unwrap();
    let keys: Vec<&str> = t.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(
        keys,
        ["Released", "Recorded", "Studio", "Genre", "Length", "Label", "Producer"]
    );
}
