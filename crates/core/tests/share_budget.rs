//! The bounds of `share::budget` hold for the largest result the share limits allow (issue 47
//! item 5): written at its widest — two key-value tables at the row and cell limits, every
//! character of its million a control character (6 bytes of JSON each), every optional field
//! set, eight other models — its JSON, its count of values, its link and its result file each
//! fit their bound, and it decodes whole, a step at a time. Past the bounds, a link is refused
//! before decoding (too long), while inflating (expands too far) or before parsing (too many
//! values), each with a named error.

use std::collections::BTreeMap;
use std::io::Write;

use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_core::data::table::{KeyValueRow, KeyValueTable};
use tabprobe_core::linearize::{LinearizeSettings, PremiseMode};
use tabprobe_core::probe::rules::{Operation, ValidityRule};
use tabprobe_core::probe::{Basis, Certainty, Expectation};
use tabprobe_core::scoring::{ModelId, Precision};
use tabprobe_core::share::budget::{
    deflate_bound, JsonScan, MAX_FILE_JSON_VALUES, MAX_JSON_VALUES, MAX_LINK_JSON_BYTES,
    MAX_LINK_TEXT_CHARS, MAX_RESULT_FILE_BYTES,
};
use tabprobe_core::share::{
    decode, encode, from_file, to_file, Decoding, ShareError, SharedInput, SharedModelPredictions,
    SharedPredictions, SharedResult, SharedScore, MAX_SHARE_CELLS, MAX_SHARE_CHARS,
    MAX_SHARE_MODELS, MAX_SHARE_ROWS,
};
use tabprobe_core::Table;

/// Control characters: the widest a character is written in JSON (`\u0001`).
fn wide(n: usize) -> String {
    "\u{1}".repeat(n)
}

/// A key-value table at the row and cell limits whose cells hold `chars` characters each.
fn full_table(id: &str, chars: usize) -> Table {
    let values = MAX_SHARE_CELLS / MAX_SHARE_ROWS - 1;
    Table::KeyValue(KeyValueTable {
        id: id.into(),
        title: "t".into(),
        rows: (0..MAX_SHARE_ROWS)
            .map(|_| KeyValueRow {
                key: wide(chars),
                values: vec![wide(chars); values],
            })
            .collect(),
    })
}

/// The widest score: nine significant digits each, truncated, a 20-digit count.
fn score() -> SharedScore {
    SharedScore {
        probs: [0.333_333_34, 0.333_333_34, 0.333_333_3],
        truncated: true,
        premise_tokens_dropped: usize::MAX,
    }
}

fn model(name: &str) -> ModelId {
    ModelId {
        name: name.into(),
        weights_sha256: "ab".repeat(32),
        label_set: LabelSet::ThreeWay,
        precision: Precision::F16Mixed,
        label_only: false,
        scores_file: false,
    }
}

/// The largest result the share limits allow, every field set; `table_chars` characters in
/// each table cell.
fn largest(table_chars: usize) -> SharedResult {
    let predictions = || SharedPredictions {
        before: score(),
        after: score(),
    };
    let valid: BTreeMap<Label, Vec<Label>> = [Label::Entail, Label::Neutral, Label::Contradict]
        .into_iter()
        .map(|l| (l, vec![Label::Entail, Label::Neutral, Label::Contradict]))
        .collect();
    SharedResult {
        origin: wide(100),
        example_id: Some(wide(100)),
        operation: "irrelevant_row_deletion".into(),
        before: SharedInput {
            table: Some(full_table("A", table_chars)),
            premise: Some(wide(1000)),
            hypothesis: wide(1000),
        },
        after: SharedInput {
            table: Some(full_table("B", table_chars)),
            premise: Some(wide(1000)),
            hypothesis: wide(1000),
        },
        gold: Some(Label::Contradict),
        rule: Some(ValidityRule {
            operation: Operation::IrrelevantRowDeletion,
            valid,
            source: wide(100),
        }),
        expectation: Some(Expectation::Label {
            labels: vec![Label::Entail, Label::Neutral, Label::Contradict],
        }),
        certainty: Some(Certainty::Heuristic),
        basis: Some(Basis::RelevantRowsMoved),
        model: Some(model("main")),
        predictions: Some(predictions()),
        other_models: (0..MAX_SHARE_MODELS)
            .map(|i| SharedModelPredictions {
                model: model(&format!("other {i}")),
                predictions: predictions(),
            })
            .collect(),
        linearization: LinearizeSettings {
            premise: PremiseMode::HypothesisOnly,
            ..LinearizeSettings::default()
        },
    }
}

fn values(json: &[u8]) -> usize {
    let mut scan = JsonScan::default();
    scan.feed(json);
    scan.values()
}

/// 24 characters per cell of 40,000 fill 960,000 of the million; the other texts take
/// about 4,500 more.
const CELL_CHARS: usize = MAX_SHARE_CHARS / (2 * MAX_SHARE_CELLS) - 1;

#[test]
fn the_largest_result_fits_every_bound_and_decodes_step_by_step() {
    let r = largest(CELL_CHARS);
    tabprobe_core::share::limits::check(&r).expect("within the limits");
    let json = serde_json::to_vec(&r).unwrap();
    let n = values(&json);
    println!(
        "largest result: {} bytes of JSON (bound {MAX_LINK_JSON_BYTES}), {n} values (bound \
         {MAX_JSON_VALUES})",
        json.len()
    );
    assert!(json.len() <= MAX_LINK_JSON_BYTES);
    assert!(
        json.len() > MAX_LINK_JSON_BYTES * 3 / 4,
        "the bound is near"
    );
    assert!(n <= MAX_JSON_VALUES);
    // What the tables do not account for: 381, well inside its allowance (1,024).
    let mut bare = r.clone();
    bare.before.table = None;
    bare.after.table = None;
    let others = values(&serde_json::to_vec(&bare).unwrap());
    println!("values besides the tables: {others}");
    assert_eq!(others, 381);
    // Its link and file fit their bounds and decode to it, step by step too.
    let link = encode(&r).unwrap();
    assert!(link.len() <= MAX_LINK_TEXT_CHARS);
    let mut decoding = Decoding::link(&link).unwrap();
    let mut steps = 1;
    let decoded = loop {
        if let Some(result) = decoding.step() {
            break result;
        }
        steps += 1;
    };
    assert_eq!(decoded.as_ref(), Ok(&r));
    assert!(
        steps >= 8,
        "{steps} steps: inflating and scanning go a slice at a time"
    );
    let file = to_file(&r).unwrap();
    println!(
        "its link: {} characters (bound {MAX_LINK_TEXT_CHARS}); its file: {} bytes (bound \
         {MAX_RESULT_FILE_BYTES}), {} values (bound {MAX_FILE_JSON_VALUES})",
        link.len(),
        file.len(),
        values(file.as_bytes())
    );
    assert!(file.len() as u64 <= MAX_RESULT_FILE_BYTES);
    assert!(values(file.as_bytes()) <= MAX_FILE_JSON_VALUES);
    assert_eq!(from_file("largest.json", &file), Ok(r));
}

/// Deflate's worst case: random bytes at the JSON bound fit `deflate_bound`, so the longest
/// link follows.
#[test]
fn incompressible_data_fits_the_deflate_bound() {
    let mut x: u64 = 12345;
    let data: Vec<u8> = (0..MAX_LINK_JSON_BYTES)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect();
    let mut deflater = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    deflater.write_all(&data).unwrap();
    let body = deflater.finish().unwrap();
    println!(
        "{} random bytes deflate to {} (bound {})",
        data.len(),
        body.len(),
        deflate_bound(data.len())
    );
    assert!(body.len() <= deflate_bound(data.len()));
}

/// A link of `json` as the format documents it (deflated, the header, base64url).
fn link_of(json: &[u8], level: u32) -> String {
    use base64::Engine;
    let mut deflater =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
    deflater.write_all(json).unwrap();
    let body = deflater.finish().unwrap();
    let mut bytes = (body.len() as u32).to_be_bytes().to_vec();
    bytes.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    bytes.extend_from_slice(&body);
    format!(
        "v1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}

#[test]
fn links_past_the_bounds_are_refused_before_parsing_with_named_errors() {
    // Too long: refused before a character is decoded.
    let long = format!("v1.{}", "A".repeat(MAX_LINK_TEXT_CHARS));
    let e = Decoding::link(&long).err().expect("too long");
    assert_eq!(
        e,
        ShareError::TooLong {
            chars: MAX_LINK_TEXT_CHARS + 3,
            limit: MAX_LINK_TEXT_CHARS
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "this link is too long to open: {} characters, more than the {MAX_LINK_TEXT_CHARS} \
             any result within the share limits can need; it was not decoded",
            MAX_LINK_TEXT_CHARS + 3
        )
    );
    // Inflating past the JSON bound (whitespace compresses a thousandfold).
    let mut json = b"{\"origin\": \"".to_vec();
    json.resize(MAX_LINK_JSON_BYTES + 10, b' ');
    let e = decode(&link_of(&json, 9)).unwrap_err();
    assert_eq!(
        e,
        ShareError::Expands {
            limit: MAX_LINK_JSON_BYTES
        }
    );
    assert!(e
        .to_string()
        .starts_with("this result is too large to open: its data expands past 7.6 MB"));
    // Within the byte bound, but 250,000 tiny rows: refused by their count, before serde
    // builds any of them.
    let rows = vec![r#"{"key":"k","values":["v"]}"#; 250_000].join(",");
    let json = format!(
        r#"{{"origin":"o","operation":"x","before":{{"table":{{"kind":"key_value","id":"T","title":"t","rows":[{rows}]}},"hypothesis":"h"}},"after":{{"hypothesis":"h"}},"linearization":{{"strategy":"infotabs_compat","order":"premise_first"}}}}"#
    );
    assert!(json.len() < MAX_LINK_JSON_BYTES);
    match decode(&link_of(json.as_bytes(), 9)).unwrap_err() {
        ShareError::TooManyValues { found, limit } => {
            assert_eq!((found, limit), (6 * 250_000 + 29, MAX_JSON_VALUES));
        }
        e => panic!("{e:?}"),
    }
    // The same in a result file names the file.
    let file = format!(r#"{{"format":"tabprobe-share","version":1,"result":{json}}}"#);
    let e = from_file("many.json", &file).unwrap_err().to_string();
    assert!(
        e.starts_with("many.json: this result is too large to open: its JSON holds 1500035 values"),
        "{e}"
    );
    // A file past its bound is refused before it is scanned.
    let text = " ".repeat(MAX_RESULT_FILE_BYTES as usize + 1);
    let e = from_file("big.json", &text).unwrap_err().to_string();
    assert!(
        e.starts_with("big.json: the file holds 9.7 MB, more than the 9.7 MB a result"),
        "{e}"
    );
}

/// The tables' rows are parsed a slice at a time apart from the rest; a bad row is named by
/// its path, in a link and in a file.
#[test]
fn a_bad_row_is_named_by_its_path() {
    let json = r#"{"origin":"o","operation":"x","before":{"table":{"kind":"key_value","id":"T","title":"t","rows":[{"key":"a","values":["1"]},{"key":5,"values":[]}]},"hypothesis":"h"},"after":{"table":{"kind":"relational","id":"R","caption":"c","header":["x"],"rows":[["1"],[2]]},"hypothesis":"h"},"linearization":{"strategy":"infotabs_compat","order":"premise_first"}}"#;
    let e = decode(&link_of(json.as_bytes(), 9))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "this link is corrupted: its content is not a tabprobe result (at \
             before.table.rows[1].key: invalid type: integer `5`, expected a string"
        ),
        "{e}"
    );
    let fixed = json.replace(r#""key":5"#, r#""key":"b""#);
    let e = decode(&link_of(fixed.as_bytes(), 9))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(at after.table.rows[1][0]: invalid type: integer `2`"),
        "{e}"
    );
    let file = format!(r#"{{"format":"tabprobe-share","version":1,"result":{json}}}"#);
    let e = from_file("rows.json", &file).unwrap_err().to_string();
    assert!(
        e.starts_with("rows.json: at result.before.table.rows[1].key: invalid type"),
        "{e}"
    );
}
