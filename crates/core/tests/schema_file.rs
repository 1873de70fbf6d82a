//! The JSON Schema the site serves (`public/schema/dataset-v1.json`) must be the one the types
//! generate, and must accept the bundled demo dataset's shape.

use std::path::PathBuf;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn committed_schema_is_current() {
    let generated = tabprobe_core::data::schema::dataset_schema_json().unwrap();
    let path = repo_root().join("public/schema/dataset-v1.json");
    let committed =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        committed == generated,
        "{} is out of date: run `cargo run -p tabprobe-cli -- schema --out public/schema/dataset-v1.json`",
        path.display()
    );
    // The schema names the parts a reader looks for.
    for needle in [
        "\"key_value\"",
        "\"relational\"",
        "\"ENTAIL\"",
        "relevant_rows",
        "two_way",
    ] {
        assert!(generated.contains(needle), "schema lacks {needle}");
    }
}

#[test]
fn bundled_demo_dataset_validates() {
    let path = repo_root().join("public/demo/dataset.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let d = tabprobe_core::parse_dataset("dataset.json", &text)
        .unwrap_or_else(|e| panic!("{}", e.report()));
    assert!(
        (32..=52).contains(&d.tables.len()),
        "demo has {} tables",
        d.tables.len()
    );
    for id in ["T1264", "T996"] {
        assert!(
            d.table(id).is_some(),
            "demo lacks the paper's running example {id}"
        );
    }
}
