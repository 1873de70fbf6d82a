//! Every importer on small hand-written fixtures (`tests/fixtures/import/`): what is found,
//! counted and skipped, and one located error per malformation.

#[path = "common/import_files.rs"]
#[allow(dead_code)]
mod files;

use tabprobe_core::data::import::{
    import_files, Format, ImportError, ImportOptions, InputFile, Limits,
};
use tabprobe_core::{Dataset, Label, LabelSet, Table};

fn import(
    paths: &[&str],
) -> Result<(Dataset, tabprobe_core::data::import::ImportReport), ImportError> {
    import_files(
        files::read(&files::fixtures(), paths),
        &ImportOptions::default(),
    )
}

fn example<'a>(d: &'a Dataset, id: &str) -> &'a tabprobe_core::Example {
    d.examples
        .iter()
        .find(|e| e.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no example {id}"))
}

#[test]
fn infotabs_folder_with_reasoning_and_validation() {
    let (d, r) = import(&["infotabs"]).unwrap();
    assert_eq!(d.tables.len(), 3);
    assert_eq!(d.examples.len(), 7);
    assert_eq!(r.per_split["dev"], [2, 1, 2]);
    assert_eq!(r.per_split["alpha1"], [1, 0, 1]);
    assert_eq!(d.label_set, LabelSet::ThreeWay);
    assert_eq!(
        example(&d, "dev-1").categories,
        vec!["numerical", "simplelookup"]
    );
    let formats: Vec<Format> = r.files.iter().map(|f| f.format).collect();
    assert!(formats.contains(&Format::InfotabsReasoningTsv));
    assert!(formats.contains(&Format::InfotabsValidationTsv));
    assert_eq!(
        formats
            .iter()
            .filter(|f| **f == Format::InfotabsTable)
            .count(),
        3
    );
    assert!(
        r.notes.iter().any(|n| n.contains(
            "reasoning categories put on 1 examples (2 rows read, 1 of them match no example)"
        )),
        "{:?}",
        r.notes
    );
    assert!(
        r.notes.iter().any(|n| n.contains(
            "2 of 2 rows match an example; the validators' majority equals the gold label on 1"
        )),
        "{:?}",
        r.notes
    );
    // The result is a valid product dataset.
    let json = d.to_json_pretty().unwrap();
    assert_eq!(tabprobe_core::parse_dataset("out.json", &json).unwrap(), d);
}

#[test]
fn tabfact_statements_tables_and_split_lists() {
    let (d, r) = import(&[
        "tabfact/all_csv",
        "tabfact/collected_data",
        "tabfact/train_id.json",
        "tabfact/test_id.json",
    ])
    .unwrap();
    assert_eq!(d.label_set, LabelSet::TwoWay);
    assert_eq!(d.tables.len(), 2);
    assert_eq!(d.examples.len(), 5);
    assert_eq!(r.per_split["train"], [2, 0, 1]);
    assert_eq!(r.per_split["test"], [1, 0, 1]);
    assert_eq!(r.unmatched_table_ids.len(), 1);
    assert_eq!(r.unmatched_table_ids["2-99999999-1.html.csv"], 1);
    let Some(Table::Relational(t)) = d.table("2-17933602-1.html.csv") else {
        panic!("relational table missing")
    };
    assert_eq!(t.caption, "2003 - 04 primeira liga");
    assert_eq!(t.header, vec!["club", "city", "head coach"]);
    assert_eq!(t.rows.len(), 3);
    assert_eq!(t.rows[2], vec!["braga", "braga", "jesualdo ferreira"]);
    let e = example(&d, "2-17933602-1.html.csv-3");
    assert_eq!(e.label, Label::Contradict);
    assert_eq!(e.split.as_deref(), Some("train"));
}

#[test]
fn tabfact_split_option_keeps_one_split_and_its_tables() {
    let options = ImportOptions {
        splits: vec!["test".into()],
        ..ImportOptions::default()
    };
    let (d, r) = import_files(
        files::read(
            &files::fixtures(),
            &[
                "tabfact/all_csv",
                "tabfact/collected_data",
                "tabfact/train_id.json",
                "tabfact/test_id.json",
            ],
        ),
        &options,
    )
    .unwrap();
    assert_eq!(d.examples.len(), 2);
    assert_eq!(d.tables.len(), 1);
    assert_eq!(d.tables[0].id(), "2-10814487-4.html.csv");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("4 examples of other splits left out")),
        "{:?}",
        r.notes
    );
}

#[test]
fn tabfact_tokenized_variant_loses_its_entity_links() {
    let (d, _) = import(&["tabfact/all_csv", "tabfact/tokenized_data"]).unwrap();
    let e = example(&d, "2-17933602-1.html.csv-1");
    assert_eq!(e.hypothesis, "porto be the city of club porto");
    assert_eq!(e.split.as_deref(), Some("val_examples"));
}

#[test]
fn table_bert_uses_the_table_when_given_else_its_linearization() {
    let (d, r) = import(&["tabfact/all_csv", "tabfact/tablebert"]).unwrap();
    assert_eq!(d.examples.len(), 3);
    assert_eq!(d.label_set, LabelSet::TwoWay);
    let on_table = example(&d, "dev-1");
    assert_eq!(on_table.table.as_deref(), Some("2-17933602-1.html.csv"));
    let on_text = example(&d, "dev-3");
    assert_eq!(
        on_text.premise.as_deref(),
        Some("row 1 is : club is braga .")
    );
    assert_eq!(on_text.label, Label::Contradict);
    assert!(
        r.notes
            .iter()
            .any(|n| n.starts_with("2 Table-BERT statements")),
        "{:?}",
        r.notes
    );
}

#[test]
fn nli_jsonl_skips_and_counts_dash_labels() {
    let (d, r) = import(&["nli"]).unwrap();
    assert_eq!(d.examples.len(), 3);
    assert_eq!(d.tables.len(), 0);
    assert_eq!(r.per_split["multinli_dev_matched"], [1, 1, 1]);
    assert_eq!(r.skipped.len(), 1);
    assert_eq!(r.skipped[0].count, 1);
    assert_eq!(
        r.skipped[0].locations,
        vec!["nli/multinli_dev_matched.jsonl:line 2"]
    );
    let e = example(&d, "63735n");
    assert_eq!(e.premise.as_deref(), Some("The new rights are nice enough"));
    assert_eq!(e.label, Label::Neutral);
}

#[test]
fn tabprobe_counterfactual_pairs_with_their_tables() {
    let (d, r) = import(&["tabprobe"]).unwrap();
    assert_eq!(d.tables.len(), 3);
    assert_eq!(d.examples.len(), 4);
    assert_eq!(r.per_split["counterfactual"], [2, 0, 2]);
    let cf = example(&d, "cf2");
    assert_eq!(cf.table.as_deref(), Some("T80_mod_1"));
    assert_eq!(cf.derived_from.as_deref(), Some("cf2-orig"));
    assert_eq!(cf.operation.as_deref(), Some("label_flip"));
    assert_eq!(cf.label, Label::Entail);
}

#[test]
fn tabpert_relevant_rows_and_skips() {
    let (d, r) = import(&["tabpert"]).unwrap();
    let Some(Table::KeyValue(t)) = d.table("T2A") else {
        panic!()
    };
    let keys: Vec<&str> = t.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["Died", "Born", "Known for"]);
    assert_eq!(t.rows[1].values, ["10 December 1815", "Vienna, Austria"]);
    assert_eq!(d.examples.len(), 4);
    assert_eq!(d.examples[0].relevant_rows, Some(vec![0, 1]));
    assert_eq!(
        d.examples[1].hypothesis,
        "Ada Lovelace, the \"Enchantress of Numbers\", lived past one hundred."
    );
    assert_eq!(d.examples[2].relevant_rows, Some(vec![1]));
    assert_eq!(d.examples[3].relevant_rows, None);
    let reasons: Vec<(&str, usize, &str)> = r
        .skipped
        .iter()
        .map(|g| (g.reason.as_str(), g.count, g.locations[0].as_str()))
        .collect();
    let hyp = "tabpert/hypotheses/counterfactual_hypotheses.tsv";
    assert!(
        reasons.contains(&(
            "same table, hypothesis and label as an earlier TabPert row",
            1,
            &format!("{hyp}:line 5")
        )),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&("empty label cell (TabPert)", 1, &format!("{hyp}:line 6"))),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&(
            "relevant row key not in the table (relevant rows left out)",
            1,
            &format!("{hyp}:line 7")
        )),
        "{reasons:?}"
    );
}

#[test]
fn tabpert_unreadable_table_rows_keep_the_example_without_rows() {
    let (d, r) = import(&["tabpert/tables", "bad/tabpert_table_rows.tsv"]).unwrap();
    assert_eq!(d.examples.len(), 1);
    assert_eq!(d.examples[0].relevant_rows, None);
    assert_eq!(
        r.skipped[0].reason,
        "table_rows is not a list like ['Died', 'Born'] (relevant rows left out)"
    );
    assert_eq!(
        r.skipped[0].locations,
        ["bad/tabpert_table_rows.tsv:line 2"]
    );
}

#[test]
fn relevance_votes_by_majority() {
    let (d, r) = import(&["infotabs/tables", "infotabs/maindata", "relevance"]).unwrap();
    // T2 rows Born, Died, Known for; votes 110, 010, 011: only Died has a majority.
    assert_eq!(example(&d, "dev-4").relevant_rows, Some(vec![1]));
    // T1, two annotators 010 and 011: Genre 2 of 2, Label 1 of 2 (a tie is no majority).
    assert_eq!(example(&d, "dev-2").relevant_rows, Some(vec![1]));
    assert_eq!(example(&d, "dev-1").relevant_rows, None);
    assert!(r
        .skipped
        .iter()
        .any(|g| g.reason == "votes for a hypothesis no example has"));
}

#[test]
fn zip_of_a_folder() {
    let (d, r) = import(&["infotabs-small.zip"]).unwrap();
    assert_eq!(d.tables.len(), 3);
    assert_eq!(d.examples.len(), 7);
    assert_eq!(r.files[0].format, Format::Zip);
    assert_eq!(r.files[0].detail, "7 files");
    assert!(r
        .skipped
        .iter()
        .any(|g| g.reason == "documentation, not data"
            && g.locations == ["infotabs-small.zip/infotabs-small/README.md"]));
}

fn bad(paths: &[&str]) -> ImportError {
    match import(paths) {
        Ok((d, _)) => panic!("{paths:?} imported {} examples", d.examples.len()),
        Err(e) => e,
    }
}

fn assert_err(e: &ImportError, file: &str, location: &str, message: &str) {
    assert_eq!(e.file, file, "{e}");
    assert_eq!(e.location, location, "{e}");
    assert!(e.message.contains(message), "{e}");
}

#[test]
fn every_malformation_is_located() {
    let b = "bad/";
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (
            &["bad/syntax.json"],
            "syntax.json",
            "line 3, column 0",
            "not valid JSON",
        ),
        (
            &["bad/table_wrong_schema.json"],
            "table_wrong_schema.json",
            "$[\"Max. depth\"]",
            "expected a list of strings",
        ),
        (
            &["infotabs/tables", "bad/infotabs_unknown_label.tsv"],
            "infotabs_unknown_label.tsv",
            "line 3",
            "unknown label \"X\"; expected E, N or C",
        ),
        (
            &["infotabs/tables", "bad/infotabs_empty_hypothesis.tsv"],
            "infotabs_empty_hypothesis.tsv",
            "line 2",
            "empty hypothesis",
        ),
        (
            &["bad/infotabs_columns.tsv"],
            "infotabs_columns.tsv",
            "line 2",
            "expected 4 tab-separated columns, found 3",
        ),
        (
            &["bad/tabfact_label.json"],
            "tabfact_label.json",
            "$[\"2-17933602-1.html.csv\"][1][1]",
            "expected 1 (ENTAILED) or 0 (REFUTED)",
        ),
        (
            &["bad/tabfact_lengths.json"],
            "tabfact_lengths.json",
            "$[\"2-17933602-1.html.csv\"]",
            "found 2 statements and 1 labels",
        ),
        (
            &["bad/tabfact_row.html.csv"],
            "tabfact_row.html.csv",
            "line 3",
            "expected 3 `#`-separated cells",
        ),
        (
            &["bad/tablebert_label.tsv"],
            "tablebert_label.tsv",
            "line 3",
            "unknown label \"yes\"",
        ),
        (
            &["bad/nli_unknown_label.jsonl"],
            "nli_unknown_label.jsonl",
            "line 2, $.gold_label",
            "unknown label \"maybe\"",
        ),
        (
            &["bad/nli_missing_field.jsonl"],
            "nli_missing_field.jsonl",
            "line 1, $.sentence2",
            "expected \"sentence2\" (a string)",
        ),
        (
            &["bad/nli_syntax.jsonl"],
            "nli_syntax.jsonl",
            "line 2, column 54",
            "not valid JSON",
        ),
        (
            &["bad/votes_bad_vote.csv"],
            "votes_bad_vote.csv",
            "line 2",
            "vote '2': expected one 0 or 1 per table row",
        ),
        (
            &[
                "infotabs/tables",
                "infotabs/maindata",
                "bad/votes_length.csv",
            ],
            "votes_length.csv",
            "line 2",
            "2 votes; expected one 0/1 per row of table T2 (3 rows)",
        ),
        (
            &["bad/product_unknown_label.json"],
            "product_unknown_label.json",
            "$.examples[0].label",
            "unknown label \"MAYBE\"",
        ),
        (
            &["bad/cf_unknown_label.tsv"],
            "cf_unknown_label.tsv",
            "line 2",
            "unknown label \"Q\"",
        ),
        (
            &["bad/validation_label.tsv"],
            "validation_label.tsv",
            "line 2",
            "majoritylabel \"7\": expected 0 (E), 1 (N) or 2 (C)",
        ),
        (
            &["bad/not_utf8.tsv"],
            "not_utf8.tsv",
            "line 2",
            "not UTF-8 text",
        ),
        (
            &["bad/not_a_zip.zip"],
            "not_a_zip.zip",
            "zip",
            "not a readable zip archive",
        ),
        (
            &["bad/readme.md"],
            "readme.md",
            "line 1",
            "not a format tabprobe reads; expected",
        ),
        (
            &["bad/infotabs_unknown_table.tsv"],
            "infotabs_unknown_table.tsv",
            "all files",
            "every example names a table none of the files holds (e.g. T404)",
        ),
    ];
    for (paths, file, location, message) in cases {
        let e = bad(paths);
        assert_err(&e, &format!("{b}{file}"), location, message);
    }
}

#[test]
fn limits_refuse_before_reading_whole() {
    let small = |limits: Limits, paths: &[&str]| {
        import_files(
            files::read(&files::fixtures(), paths),
            &ImportOptions {
                limits,
                ..ImportOptions::default()
            },
        )
        .unwrap_err()
    };
    let e = small(
        Limits {
            max_file_bytes: 100,
            ..Limits::default()
        },
        &["infotabs/maindata/infotabs_dev.tsv"],
    );
    assert_err(
        &e,
        "infotabs/maindata/infotabs_dev.tsv",
        "size",
        "the file is 287 bytes; the limit is 100 bytes per file",
    );
    let e = small(
        Limits {
            max_zip_entries: 3,
            ..Limits::default()
        },
        &["infotabs-small.zip"],
    );
    assert_err(
        &e,
        "infotabs-small.zip",
        "zip",
        "the archive has 8 entries; the limit is 3",
    );
    let e = small(
        Limits {
            max_total_bytes: 500,
            ..Limits::default()
        },
        &["infotabs-small.zip"],
    );
    assert_err(&e, "infotabs-small.zip", "zip", "inflate to more than");
    // 1 MB of spaces deflates to about 1 kB: refused from the entry's declared size.
    let e = small(
        Limits {
            max_file_bytes: 100_000,
            ..Limits::default()
        },
        &["bad/inflates.zip"],
    );
    assert_err(
        &e,
        "bad/inflates.zip/big.tsv",
        "size",
        "the file is 1.0 MB; the limit is 100.0 kB per file",
    );
}

#[test]
fn one_bad_file_fails_the_whole_import() {
    let e = bad(&["infotabs", "bad/tabfact_label.json"]);
    assert_eq!(e.file, "bad/tabfact_label.json");
}

#[test]
fn infotabs_tsv_export_reads_back() {
    let (d, _) = import(&["infotabs/tables", "infotabs/maindata"]).unwrap();
    let tsv = tabprobe_core::data::export::to_infotabs_tsv(&d.examples);
    assert_eq!(tsv.written, 7);
    assert_eq!(tsv.without_table, 0);
    assert!(tsv.text.starts_with("annotater_id\ttable_id\thypothesis\tlabel\nGW1\tT1\tBreakfast in America was released in the 1970s.\tE\n"));
    let mut inputs = files::read(&files::fixtures(), &["infotabs/tables"]);
    inputs.push(InputFile::new("infotabs_dev.tsv", tsv.text.into_bytes()));
    let (back, _) = import_files(inputs, &ImportOptions::default()).unwrap();
    let key = |d: &Dataset| -> Vec<(Option<String>, String, Label)> {
        d.examples
            .iter()
            .map(|e| (e.table.clone(), e.hypothesis.clone(), e.label))
            .collect()
    };
    assert_eq!(key(&back), key(&d));
    // A text-premise example cannot go into INFOTABS TSV and is counted.
    let (nli, _) = import(&["nli"]).unwrap();
    let tsv = tabprobe_core::data::export::to_infotabs_tsv(&nli.examples);
    assert_eq!((tsv.written, tsv.without_table), (0, 3));
}

#[test]
fn table_exports_in_published_shapes() {
    let (d, _) = import(&[
        "infotabs/tables/T3.json",
        "tabfact/all_csv/2-10814487-4.html.csv",
    ])
    .unwrap();
    let Some(Table::KeyValue(kv)) = d.table("T3") else {
        panic!()
    };
    assert_eq!(
        tabprobe_core::data::export::key_value_table_json(kv),
        r#"{"title":["Lake Tahoe"],"Location":["Sierra Nevada"],"Max. depth":["1,645 ft"]}"#
    );
    let Some(Table::Relational(rel)) = d.table("2-10814487-4.html.csv") else {
        panic!()
    };
    assert_eq!(
        tabprobe_core::data::export::relational_table_csv(rel),
        "date#score#competition\n11 / 2 / 2007#18 - 14#super league xii\n30 / 03 / 07#24 - 16#rugby league challenge cup\n"
    );
}

#[test]
fn merge_appends_new_and_refuses_clashes() {
    let (infotabs, _) = import(&["infotabs"]).unwrap();
    let (nli, _) = import(&["nli"]).unwrap();
    let merged = tabprobe_core::data::import::merge(&infotabs, nli.clone(), "nli").unwrap();
    assert_eq!(merged.examples.len(), 7 + 3);
    assert_eq!(merged.tables.len(), 3);
    // Merging the same examples again clashes on their ids and names the first.
    let e = tabprobe_core::data::import::merge(&merged, nli, "nli again").unwrap_err();
    assert_eq!(e.location, "example 63735n");
    // A table with the same id and other content is refused.
    let (mut other, _) = import(&["infotabs/tables/T3.json"]).unwrap();
    if let Table::KeyValue(t) = &mut other.tables[0] {
        t.title = "Lake Geneva".into();
    }
    let e = tabprobe_core::data::import::merge(&infotabs, other, "T3.json").unwrap_err();
    assert_eq!(e.location, "table T3");
}

/// Issue 11 §5: relevant rows outside the table they will be probed with are an import error
/// with its place. The product file is valid on its own (its T3 has 3 rows, row 2 exists), but
/// INFOTABS' T3.json came first with 2 rows and is the T3 kept: row 2 is past it. Before the
/// fix the import succeeded and the example kept `relevant_rows: [2]` on a 2-row table.
#[test]
fn relevant_row_past_the_kept_table_is_located() {
    let mut inputs = files::read(&files::fixtures(), &["infotabs/tables/T3.json"]);
    let product = r#"{"format": "tabprobe-dataset", "version": 1, "name": "d",
      "tables": [{"kind": "key_value", "id": "T3", "title": "Lake Geneva",
                  "rows": [{"key": "Location", "values": ["Switzerland"]},
                           {"key": "Max. depth", "values": ["310 m"]},
                           {"key": "Area", "values": ["580 km2"]}]}],
      "examples": [{"id": "g1", "table": "T3", "hypothesis": "Lake Geneva covers 580 km2.",
                    "label": "ENTAIL", "relevant_rows": [0, 2]}]}"#;
    inputs.push(InputFile::new("d.json", product));
    let e = import_files(inputs, &ImportOptions::default()).unwrap_err();
    assert_eq!(e.file, "d.json");
    assert_eq!(e.location, "$.examples[0].relevant_rows[1]");
    assert!(
        e.message
            .starts_with("relevant row 2 is past the 2 rows of table T3"),
        "{}",
        e.message
    );
}

/// Issue 47 item 5: a tabprobe dataset JSON given alone is taken whole — its name, description
/// and reviews — as the page's own loader (`parse_dataset`) takes it: the page has the worker
/// import one over 512 KiB, and assembling renamed it after the file and dropped its reviews.
/// With a split asked for, or beside other files, it is assembled as before.
#[test]
fn a_dataset_json_alone_is_taken_whole() {
    let product = r#"{"format": "tabprobe-dataset", "version": 1, "name": "Reviewed set",
      "description": "kept", "label_set": "three_way",
      "tables": [{"kind": "key_value", "id": "T3", "title": "Lake Geneva",
                  "rows": [{"key": "Area", "values": ["580 km2"]}]}],
      "examples": [{"id": "g1", "table": "T3", "hypothesis": "Lake Geneva covers 580 km2.",
                    "label": "ENTAIL", "split": "dev"}],
      "reviews": [{"item": "g1/plain_number/0", "decision": "reject"}]}"#;
    let strict = tabprobe_core::parse_dataset("d.json", product).unwrap();
    let alone = |options: &ImportOptions| {
        import_files(vec![InputFile::new("d.json", product)], options).unwrap()
    };
    let named = ImportOptions {
        name: Some("d.json".into()),
        ..ImportOptions::default()
    };
    let (d, report) = alone(&named);
    assert_eq!(d, strict);
    assert_eq!((d.name.as_str(), d.reviews.len()), ("Reviewed set", 1));
    assert_eq!((report.tables, report.examples), (1, 1));
    // Asked for a split, it is assembled, and named as asked.
    let split = ImportOptions {
        splits: vec!["dev".into()],
        ..named
    };
    assert_eq!(alone(&split).0.name, "d.json");
}
