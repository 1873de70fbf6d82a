//! The dataset format, version 1: round trips and every class of validation problem, each
//! located by JSON path (and line/column for syntax errors).

use tabprobe_core::{
    parse_dataset, Dataset, Example, KeyValueRow, KeyValueTable, Label, LabelSet, ProblemKind,
    RelationalTable, Table,
};

fn sample() -> Dataset {
    let mut d = Dataset::new("sample");
    d.tables.push(Table::KeyValue(KeyValueTable {
        id: "T1264".into(),
        title: "Breakfast in America".into(),
        rows: vec![
            KeyValueRow {
                key: "Released".into(),
                values: vec!["29 March 1979".into()],
            },
            KeyValueRow {
                key: "Genre".into(),
                values: vec!["pop".into(), "art rock".into(), "soft rock".into()],
            },
            KeyValueRow {
                key: "Length".into(),
                values: vec!["46:06".into()],
            },
        ],
    }));
    d.tables.push(Table::Relational(RelationalTable {
        id: "2-1.html.csv".into(),
        caption: "1979 albums".into(),
        header: vec!["album".into(), "length".into()],
        rows: vec![vec!["breakfast in america".into(), "46:06".into()]],
    }));
    d.examples.push(Example {
        id: Some("H1".into()),
        table: Some("T1264".into()),
        premise: None,
        hypothesis: "Breakfast in America is a pop album with a length of 46 minutes.".into(),
        label: Label::Entail,
        split: Some("paper".into()),
        relevant_rows: Some(vec![1, 2]),
        relevance_votes: None,
        categories: vec!["simplelookup".into()],
        annotator: None,
        derived_from: None,
        operation: None,
    });
    d.examples.push(Example {
        id: Some("mnli-1".into()),
        table: None,
        premise: Some("A man is playing a guitar on stage.".into()),
        hypothesis: "A man is performing music.".into(),
        label: Label::Entail,
        split: None,
        relevant_rows: None,
        relevance_votes: None,
        categories: vec![],
        annotator: None,
        derived_from: Some("H1".into()),
        operation: Some("hand-made".into()),
    });
    d
}

fn problems(text: &str) -> Vec<(ProblemKind, String)> {
    match parse_dataset("bad.json", text) {
        Ok(_) => panic!("expected problems in {text}"),
        Err(e) => {
            assert_eq!(e.file, "bad.json");
            e.problems.into_iter().map(|p| (p.kind, p.path)).collect()
        }
    }
}

/// The sample as a JSON value, to break in one place per test.
fn sample_value() -> serde_json::Value {
    serde_json::to_value(sample()).unwrap()
}

#[test]
fn round_trip_keeps_everything() {
    let d = sample();
    let text = d.to_json_pretty().unwrap();
    let back = parse_dataset("sample.json", &text).unwrap();
    assert_eq!(back, d);
    // Both table shapes are tagged by kind, and absent optionals are not written.
    assert!(text.contains("\"kind\": \"key_value\""));
    assert!(text.contains("\"kind\": \"relational\""));
    assert!(!text.contains("\"annotator\""));
}

#[test]
fn key_order_of_rows_is_kept() {
    let d = sample();
    let back = parse_dataset("s.json", &d.to_json_pretty().unwrap()).unwrap();
    let Table::KeyValue(t) = &back.tables[0] else {
        panic!("shape changed")
    };
    let keys: Vec<&str> = t.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["Released", "Genre", "Length"]);
}

#[test]
fn syntax_error_has_line_and_column() {
    let err = parse_dataset(
        "broken.json",
        "{\n  \"format\": \"tabprobe-dataset\",\n  \"version\": 1,,\n}",
    )
    .unwrap_err();
    assert_eq!(err.problems.len(), 1);
    let p = &err.problems[0];
    assert_eq!(p.kind, ProblemKind::Syntax);
    assert_eq!(p.line_column, Some((3, 16)));
    assert!(
        err.report()
            .starts_with("broken.json: line 3, column 16: not valid JSON"),
        "{}",
        err.report()
    );
}

#[test]
fn wrong_format_marker_and_version() {
    assert_eq!(
        problems(r#"{"format": "infotabs", "version": 1}"#),
        [(ProblemKind::WrongFormat, "$.format".into())]
    );
    assert_eq!(
        problems(r#"{"version": 1}"#),
        [(ProblemKind::WrongFormat, "$.format".into())]
    );
    assert_eq!(
        problems(r#"{"format": "tabprobe-dataset", "version": 2}"#),
        [(ProblemKind::WrongVersion, "$.version".into())]
    );
    assert_eq!(
        problems(r#"{"format": "tabprobe-dataset"}"#),
        [(ProblemKind::WrongVersion, "$.version".into())]
    );
    assert_eq!(problems("[1, 2]"), [(ProblemKind::WrongFormat, "$".into())]);
}

#[test]
fn wrong_types_are_located_inside_elements() {
    let mut v = sample_value();
    v["tables"][0]["rows"][1]["values"][2] = serde_json::json!(7);
    v["examples"][1]["hypothesis"] = serde_json::json!(["not", "a", "string"]);
    let got = problems(&v.to_string());
    assert_eq!(
        got,
        [
            (
                ProblemKind::Structure,
                "$.tables[0].rows[1].values[2]".into()
            ),
            (ProblemKind::Structure, "$.examples[1].hypothesis".into()),
        ]
    );
}

#[test]
fn missing_and_unknown_fields() {
    let mut v = sample_value();
    v["examples"][0].as_object_mut().unwrap().remove("label");
    v["examples"][1]["relevent_rows"] = serde_json::json!([0]);
    v["tables"][1]["kind"] = serde_json::json!("spreadsheet");
    let err = parse_dataset("bad.json", &v.to_string()).unwrap_err();
    let msgs: Vec<String> = err
        .problems
        .iter()
        .map(|p| format!("{} {}", p.path, p.message))
        .collect();
    assert_eq!(err.problems.len(), 3, "{msgs:?}");
    assert!(
        msgs[0].starts_with("$.tables[1]") && msgs[0].contains("spreadsheet"),
        "{msgs:?}"
    );
    assert!(
        msgs[1].starts_with("$.examples[0]") && msgs[1].contains("missing field `label`"),
        "{msgs:?}"
    );
    assert!(
        msgs[2].contains("unknown field `relevent_rows`"),
        "{msgs:?}"
    );
}

#[test]
fn every_semantic_problem_is_reported_at_once() {
    let mut v = sample_value();
    v["examples"][0]["label"] = serde_json::json!("entailment");
    v["examples"][1]["hypothesis"] = serde_json::json!("   ");
    let mut extra = v["examples"][0].clone();
    extra["label"] = serde_json::json!("NEUTRAL");
    extra["table"] = serde_json::json!("T9999");
    v["examples"].as_array_mut().unwrap().push(extra); // duplicate id H1 + unknown table
    let copy = v["tables"][0].clone();
    v["tables"].as_array_mut().unwrap().push(copy); // duplicate table id
    let got = problems(&v.to_string());
    assert_eq!(
        got,
        [
            (ProblemKind::UnknownLabel, "$.examples[0].label".into()),
            (ProblemKind::DuplicateId, "$.tables[2].id".into()),
            (
                ProblemKind::EmptyHypothesis,
                "$.examples[1].hypothesis".into()
            ),
            (ProblemKind::DuplicateId, "$.examples[2].id".into()),
            (ProblemKind::UnknownTable, "$.examples[2].table".into()),
        ]
    );
}

#[test]
fn unknown_label_message_says_what_was_expected() {
    let mut v = sample_value();
    v["examples"][0]["label"] = serde_json::json!("entailment");
    let err = parse_dataset("d.json", &v.to_string()).unwrap_err();
    assert_eq!(err.report(), "d.json: $.examples[0].label: unknown label \"entailment\"; expected one of ENTAIL, NEUTRAL, CONTRADICT (did you mean ENTAIL?)");
}

#[test]
fn neutral_is_not_a_two_way_label() {
    let mut d = sample();
    d.label_set = LabelSet::TwoWay;
    d.examples[0].label = Label::Neutral;
    let got = problems(&d.to_json_pretty().unwrap());
    assert_eq!(
        got,
        [(ProblemKind::UnknownLabel, "$.examples[0].label".into())]
    );
}

#[test]
fn premise_choice_row_indices_and_record_lengths() {
    let mut v = sample_value();
    v["examples"][0]["relevant_rows"] = serde_json::json!([1, 3]); // the table has 3 rows
    v["examples"][1]["table"] = serde_json::json!("T1264"); // and a premise too
    let mut no_premise = v["examples"][0].clone();
    no_premise["id"] = serde_json::json!("H9");
    no_premise.as_object_mut().unwrap().remove("table");
    no_premise.as_object_mut().unwrap().remove("relevant_rows");
    v["examples"].as_array_mut().unwrap().push(no_premise);
    v["tables"][1]["rows"][0] = serde_json::json!(["only one cell"]);
    let got = problems(&v.to_string());
    assert_eq!(
        got,
        [
            (ProblemKind::RowLength, "$.tables[1].rows[0]".into()),
            (
                ProblemKind::BadRowIndex,
                "$.examples[0].relevant_rows[1]".into()
            ),
            (ProblemKind::PremiseChoice, "$.examples[1]".into()),
            (ProblemKind::PremiseChoice, "$.examples[2]".into()),
        ]
    );
}

#[test]
fn tables_and_examples_must_be_arrays() {
    let got =
        problems(r#"{"format": "tabprobe-dataset", "version": 1, "tables": {}, "examples": "x"}"#);
    assert_eq!(
        got,
        [
            (ProblemKind::Structure, "$.tables".into()),
            (ProblemKind::Structure, "$.examples".into())
        ]
    );
}

#[test]
fn a_duplicate_table_does_not_replace_the_first() {
    // Examples refer to the first table with an id; its 3 rows make index 2 valid.
    let mut v = sample_value();
    let mut dup = v["tables"][0].clone();
    dup["rows"] = serde_json::json!([]);
    v["tables"].as_array_mut().unwrap().push(dup);
    let got = problems(&v.to_string());
    assert_eq!(got, [(ProblemKind::DuplicateId, "$.tables[2].id".into())]);
}
