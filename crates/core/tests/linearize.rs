//! Linearization tests: hand-worked text for the paper's running example (Figure 1,
//! *Breakfast in America*) in every strategy, and the INFOTABS-compatible paragraph against
//! the committed output of an independent Python re-implementation on real INFOTABS tables.

use std::path::PathBuf;

use tabprobe_core::data::import::infotabs::parse_table;
use tabprobe_core::data::table::{KeyValueRow, KeyValueTable, RelationalTable, Table};
use tabprobe_core::linearize::{
    linearize, linearize_units, Linearization, LinearizeError, LinearizeSettings,
};
use tabprobe_core::scoring::PairOrder;

fn breakfast() -> KeyValueTable {
    let row = |k: &str, v: &[&str]| KeyValueRow {
        key: k.to_string(),
        values: v.iter().map(|s| s.to_string()).collect(),
    };
    KeyValueTable {
        id: "T1264".into(),
        title: "Breakfast in America".into(),
        rows: vec![
            row("Released", &["29 March 1979"]),
            row("Genre", &["pop", "art rock", "soft rock"]),
            row("Length", &["46:06"]),
            row("Label", &["A&M"]),
        ],
    }
}

fn data_dir() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    p.is_dir().then_some(p)
}

#[test]
fn paragraph_of_breakfast_in_america() {
    let t = Table::KeyValue(breakfast());
    assert_eq!(
        linearize(&t, Linearization::Paragraph).unwrap(),
        "The Released of Breakfast in America is 29 March 1979. \
         The Genre of Breakfast in America are pop, art rock, and soft rock. \
         The Length of Breakfast in America is 46:06. \
         The Label of Breakfast in America is A&M."
    );
}

#[test]
fn paragraph_iso_date_and_two_values() {
    let mut t = breakfast();
    t.rows = vec![
        KeyValueRow {
            key: "Release date".into(),
            values: vec![" May 13, 2011 (2011-05-13) ".into()],
        },
        KeyValueRow {
            key: "Written by".into(),
            values: vec!["Annie Mumolo".into(), "Kristen Wiig".into()],
        },
    ];
    assert_eq!(
        linearize(&Table::KeyValue(t), Linearization::Paragraph).unwrap(),
        "Breakfast in America was Release date on May 13, 2011 (2011-05-13). \
         The Written by of Breakfast in America are Annie Mumolo and Kristen Wiig."
    );
}

#[test]
fn infotabs_compat_keeps_every_quirk() {
    let mut t = breakfast();
    t.rows.push(KeyValueRow {
        key: "Written by".into(),
        values: vec!["A ".into(), "B".into()],
    });
    t.rows.push(KeyValueRow {
        key: "Released".into(),
        values: vec!["1999-".into(), "01-02 x".into()],
    });
    assert_eq!(
        linearize(&Table::KeyValue(t), Linearization::InfotabsCompat).unwrap(),
        // `are` even for one value, trailing ". " after the last sentence, untrimmed "A ",
        // "a, and b", and a date found only in the concatenation "1999-01-02 x".
        "The Released of Breakfast in America are 29 March 1979. \
         The Genre of Breakfast in America are pop, art rock, and soft rock. \
         The Length of Breakfast in America are 46:06. \
         The Label of Breakfast in America are A&M. \
         The Written by of Breakfast in America are A , and B. \
         Breakfast in America was Released on 1999-, and 01-02 x. "
    );
}

#[test]
fn infotabs_compat_empty_key_takes_is_and_errors_are_reported() {
    let mut t = breakfast();
    t.rows = vec![KeyValueRow {
        key: "".into(),
        values: vec!["x".into()],
    }];
    assert_eq!(
        linearize(&Table::KeyValue(t.clone()), Linearization::InfotabsCompat).unwrap(),
        "The  of Breakfast in America is x. "
    );
    t.rows = vec![KeyValueRow {
        key: "Born".into(),
        values: vec![],
    }];
    assert!(matches!(
        linearize(&Table::KeyValue(t.clone()), Linearization::InfotabsCompat),
        Err(LinearizeError::EmptyRow { .. })
    ));
    t.rows = vec![KeyValueRow {
        key: "Born".into(),
        values: vec!["2011-02-30".into()],
    }];
    assert!(matches!(
        linearize(&Table::KeyValue(t), Linearization::InfotabsCompat),
        Err(LinearizeError::InvalidIsoDate { .. })
    ));
}

#[test]
fn templates_of_breakfast_in_america() {
    let t = Table::KeyValue(breakfast());
    assert_eq!(
        linearize(&t, Linearization::HorizontalTemplate).unwrap(),
        "title is : Breakfast in America . row 1 is : Released is 29 March 1979 . \
         row 2 is : Genre is pop, art rock, soft rock . row 3 is : Length is 46:06 . \
         row 4 is : Label is A&M ."
    );
    assert_eq!(
        linearize(&t, Linearization::VerticalTemplate).unwrap(),
        "title is : Breakfast in America . Released is : row 1 is 29 March 1979 . \
         Genre is : row 2 is pop, art rock, soft rock . Length is : row 3 is 46:06 . \
         Label is : row 4 is A&M ."
    );
    assert_eq!(
        linearize(&t, Linearization::Concatenation).unwrap(),
        "Breakfast in America | Released | 29 March 1979 | Genre | pop, art rock, soft rock | \
         Length | 46:06 | Label | A&M"
    );
}

#[test]
fn relational_table_in_every_strategy() {
    let t = Table::Relational(RelationalTable {
        id: "r1".into(),
        caption: "1947 kentucky derby".into(),
        header: vec!["horse".into(), "finish".into()],
        rows: vec![
            vec!["jet pilot".into(), "1".into()],
            vec!["phalanx".into(), "2".into()],
        ],
    });
    assert_eq!(
        linearize(&t, Linearization::HorizontalTemplate).unwrap(),
        "title is : 1947 kentucky derby . row 1 is : horse is jet pilot ; finish is 1 . \
         row 2 is : horse is phalanx ; finish is 2 ."
    );
    assert_eq!(
        linearize(&t, Linearization::VerticalTemplate).unwrap(),
        "title is : 1947 kentucky derby . horse is : row 1 is jet pilot ; row 2 is phalanx . \
         finish is : row 1 is 1 ; row 2 is 2 ."
    );
    assert_eq!(
        linearize(&t, Linearization::Concatenation).unwrap(),
        "1947 kentucky derby | horse | finish | jet pilot | 1 | phalanx | 2"
    );
    assert_eq!(
        linearize(&t, Linearization::Paragraph).unwrap(),
        "In row 1 of 1947 kentucky derby, the horse is jet pilot and the finish is 1. \
         In row 2 of 1947 kentucky derby, the horse is phalanx and the finish is 2."
    );
    assert!(matches!(
        linearize(&t, Linearization::InfotabsCompat),
        Err(LinearizeError::KeyValueOnly { .. })
    ));
}

#[test]
fn statement_first_order() {
    let s = LinearizeSettings {
        strategy: Linearization::Paragraph,
        order: PairOrder::HypothesisFirst,
        ..LinearizeSettings::default()
    };
    // The texts stay in their fields (the model truncates `premise` only); the order says
    // which one the model reads first.
    let p = s.table_pair(&Table::KeyValue(breakfast()), "H1").unwrap();
    assert_eq!(p.hypothesis, "H1");
    assert!(p
        .premise
        .starts_with("The Released of Breakfast in America is"));
    assert_eq!(p.order, PairOrder::HypothesisFirst);
}

#[test]
fn infotabs_compat_matches_python_reimplementation_on_real_tables() {
    let Some(data) = data_dir() else {
        eprintln!("SKIP: /work/shared/data not found; cannot check real INFOTABS tables");
        return;
    };
    let golden = include_str!("golden/infotabs_para_golden.jsonl");
    let json_dir = data.join("infotabs/data/tables/json");
    let mut checked = 0;
    for line in golden.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = v["table_id"].as_str().unwrap();
        let want = v["premise"].as_str().unwrap();
        let text = std::fs::read_to_string(json_dir.join(format!("{id}.json"))).unwrap();
        let table = parse_table(id, id, &text).unwrap();
        let got = linearize(&Table::KeyValue(table), Linearization::InfotabsCompat).unwrap();
        assert_eq!(got, want, "table {id}");
        checked += 1;
    }
    assert!(checked >= 270, "only {checked} golden tables");
}

#[test]
fn every_real_infotabs_table_linearizes_in_every_strategy() {
    let Some(data) = data_dir() else {
        eprintln!("SKIP: /work/shared/data not found");
        return;
    };
    let dir = data.join("infotabs/data/tables/json");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let id = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let t = Table::KeyValue(parse_table(&id, &id, &text).unwrap());
        for s in Linearization::ALL {
            let p = linearize(&t, s).unwrap_or_else(|e| panic!("{id} {s:?}: {e}"));
            assert!(!p.is_empty(), "{id} {s:?}");
            let u = linearize_units(&t, s).unwrap();
            assert_eq!(u.text, p, "{id} {s:?}");
            // Units in order, not overlapping, and only whitespace between them.
            let mut at = 0;
            for r in &u.spans {
                assert!(at <= r.start && r.start < r.end, "{id} {s:?} {r:?}");
                assert!(p[at..r.start].trim().is_empty(), "{id} {s:?} {r:?}");
                at = r.end;
            }
            assert!(p[at..].trim().is_empty(), "{id} {s:?}");
        }
        n += 1;
    }
    assert!(n > 2700, "{n} tables");
}

/// `json_to_para.py` reads `title = data["title"][0]`: with several title entries only the
/// first names the table in every sentence.
#[test]
fn infotabs_compat_uses_the_first_title_entry() {
    let json = r#"{"title": ["Breakfast in America", "Supertramp album"], "Genre": ["pop", "art rock"], "Length": ["46:06"]}"#;
    let t = parse_table("T1264.json", "T1264", json).unwrap();
    assert_eq!(
        linearize(&Table::KeyValue(t), Linearization::InfotabsCompat).unwrap(),
        "The Genre of Breakfast in America are pop, and art rock. \
         The Length of Breakfast in America are 46:06. "
    );
}

/// The premise as units: each row's sentence (paragraphs), the title's and each row's or
/// column's sentence (templates), the whole text (concatenation); the text is `linearize`'s.
#[test]
fn sentence_units_of_breakfast_in_america() {
    let t = Table::KeyValue(breakfast());
    let units = |s: Linearization| {
        let u = linearize_units(&t, s).unwrap();
        assert_eq!(u.text, linearize(&t, s).unwrap(), "{s:?}");
        u.units().iter().map(|x| x.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(
        units(Linearization::InfotabsCompat),
        [
            "The Released of Breakfast in America are 29 March 1979.",
            "The Genre of Breakfast in America are pop, art rock, and soft rock.",
            "The Length of Breakfast in America are 46:06.",
            "The Label of Breakfast in America are A&M.",
        ]
    );
    assert_eq!(
        units(Linearization::Paragraph),
        [
            "The Released of Breakfast in America is 29 March 1979.",
            "The Genre of Breakfast in America are pop, art rock, and soft rock.",
            "The Length of Breakfast in America is 46:06.",
            "The Label of Breakfast in America is A&M.",
        ]
    );
    assert_eq!(
        units(Linearization::HorizontalTemplate),
        [
            "title is : Breakfast in America .",
            "row 1 is : Released is 29 March 1979 .",
            "row 2 is : Genre is pop, art rock, soft rock .",
            "row 3 is : Length is 46:06 .",
            "row 4 is : Label is A&M .",
        ]
    );
    assert_eq!(units(Linearization::VerticalTemplate).len(), 5);
    assert_eq!(
        units(Linearization::Concatenation),
        [linearize(&t, Linearization::Concatenation).unwrap()]
    );
    // A title holding "Jr." and a value ending in it do not cut a sentence.
    let mut mlk = breakfast();
    mlk.title = "Martin Luther King Jr. Day".into();
    mlk.rows[1].values = vec!["Martin Luther King Jr.".into(), "St. Louis".into()];
    let u = linearize_units(&Table::KeyValue(mlk), Linearization::InfotabsCompat).unwrap();
    assert_eq!(
        u.units()[1],
        "The Genre of Martin Luther King Jr. Day are Martin Luther King Jr., and St. Louis."
    );
    assert_eq!(u.units().len(), 4);
}
