//! Share links (issue 6 item 7): hand-built links decode to the expected result, results
//! round-trip, damaged links give the right typed error, and a typical INFOTABS item's link
//! stays under 2,000 characters (measured on the bundled demo dataset).

mod common;

use base64::Engine;
use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_core::edit::TableDraft;
use tabprobe_core::linearize::LinearizeSettings;
use tabprobe_core::probe::rules::{Operation, RuleSet};
use tabprobe_core::probe::{Certainty, Expectation};
use tabprobe_core::scoring::ModelId;
use tabprobe_core::share::{
    decode, encode, from_file, to_file, ShareError, SharedInput, SharedPredictions, SharedResult,
    SharedScore, MAX_LINK_CHARS,
};
use tabprobe_core::Table;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The running example with Length edited (the §4.6 label-flipping counterfactual).
fn result() -> SharedResult {
    let mut d = TableDraft::new(common::breakfast(), &[4]);
    d.set_value(4, 0, "76:06");
    SharedResult {
        origin: "hand edit of H1".into(),
        example_id: Some("H1".into()),
        operation: "hand_edit_table".into(),
        before: SharedInput {
            table: Some(common::breakfast()),
            premise: None,
            hypothesis: "Breakfast in America is less than an hour long.".into(),
        },
        after: SharedInput {
            table: Some(d.table),
            premise: None,
            hypothesis: "Breakfast in America is less than an hour long.".into(),
        },
        gold: Some(Label::Entail),
        rule: RuleSet::default()
            .rules
            .into_iter()
            .find(|r| r.operation == Operation::LabelPreserving),
        expectation: Some(Expectation::Label {
            labels: vec![Label::Contradict],
        }),
        certainty: Some(Certainty::Certain),
        basis: None,
        model: Some(ModelId {
            name: "tiny-f32".into(),
            weights_sha256: "ab".repeat(32),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }),
        predictions: Some(SharedPredictions {
            before: SharedScore {
                probs: [0.8, 0.15, 0.05],
                truncated: false,
                premise_tokens_dropped: 0,
            },
            after: SharedScore {
                probs: [0.6, 0.1, 0.3],
                truncated: true,
                premise_tokens_dropped: 12,
            },
        }),
        other_models: Vec::new(),
        linearization: LinearizeSettings::default(),
    }
}

/// A link built by hand: header (length, CRC-32) + a *stored* deflate block (BFINAL=1,
/// BTYPE=00, LEN, NLEN, bytes) holding `json` uncompressed.
fn hand_built_link(json: &str) -> String {
    let data = json.as_bytes();
    let len = data.len() as u16;
    let mut body = vec![0x01];
    body.extend_from_slice(&len.to_le_bytes());
    body.extend_from_slice(&(!len).to_le_bytes());
    body.extend_from_slice(data);
    let mut bytes = (body.len() as u32).to_be_bytes().to_vec();
    bytes.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    bytes.extend_from_slice(&body);
    format!("v1.{}", B64.encode(bytes))
}

#[test]
fn crc32_is_the_standard_checksum() {
    // The CRC-32 check value of "123456789" (ISO-HDLC, as zlib and PNG use it).
    assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
}

#[test]
fn a_hand_built_link_decodes_to_the_result_it_spells() {
    let json = r#"{"origin":"o","operation":"negation","before":{"premise":"The sky is blue.","hypothesis":"The sky is blue."},"after":{"premise":"The sky is blue.","hypothesis":"The sky is not blue."},"gold":"ENTAIL","linearization":{"strategy":"paragraph","order":"premise_first"}}"#;
    let got = decode(&hand_built_link(json)).unwrap();
    assert_eq!(got.operation, "negation");
    assert_eq!(got.after.hypothesis, "The sky is not blue.");
    assert_eq!(got.before.premise.as_deref(), Some("The sky is blue."));
    assert_eq!(got.gold, Some(Label::Entail));
    assert_eq!(got.model, None);
    assert_eq!(got.predictions, None);
    // The header of an encoded link declares the body's length and CRC-32.
    let link = encode(&got).unwrap();
    let bytes = B64.decode(link.strip_prefix("v1.").unwrap()).unwrap();
    let len = u32::from_be_bytes(bytes[0..4].try_into().unwrap()) as usize;
    assert_eq!(len, bytes.len() - 8);
    let crc = u32::from_be_bytes(bytes[4..8].try_into().unwrap());
    assert_eq!(crc, crc32fast::hash(&bytes[8..]));
}

#[test]
fn results_round_trip_through_links_and_files() {
    let r = result();
    let link = encode(&r).unwrap();
    assert!(link.starts_with("v1."));
    assert!(link[3..]
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    assert_eq!(decode(&link).unwrap(), r);
    // A whole pasted URL works too.
    assert_eq!(
        decode(&format!("https://example.org/tabprobe/#/share/{link}")).unwrap(),
        r
    );
    let file = to_file(&r).unwrap();
    assert!(file.contains("\"format\": \"tabprobe-share\""));
    assert_eq!(from_file("result.json", &file).unwrap(), r);
    // compact() leaves out an unchanged table, and after_table() brings it back.
    let mut same = result();
    same.after.table = same.before.table.clone();
    let c = same.clone().compact();
    assert_eq!(c.after.table, None);
    assert_eq!(c.after_table(), same.before.table.as_ref());
    assert!(encode(&c).unwrap().len() < encode(&same).unwrap().len());
}

#[test]
fn markup_in_a_result_is_kept_as_text() {
    let mut r = result();
    r.origin = "<script>window.__pwned=1</script>".into();
    if let Some(Table::KeyValue(t)) = &mut r.after.table {
        t.title = "<img src=x onerror=alert(1)>".into();
        t.rows[0].values = vec!["<b>bold</b> & \"quoted\"".into()];
    }
    let back = decode(&encode(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn damaged_links_say_how_they_are_damaged() {
    let link = encode(&result()).unwrap();
    // Cut at every length: always "truncated" (never a panic, never a result).
    for cut in 3..link.len() {
        match decode(&link[..cut]) {
            Err(ShareError::Truncated { have, want }) => assert!(have < want, "cut {cut}"),
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    // One changed character in the body: the checksum catches it.
    let mut chars: Vec<char> = link.chars().collect();
    let i = link.len() - 20;
    chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
    let changed: String = chars.into_iter().collect();
    assert_eq!(decode(&changed), Err(ShareError::ChecksumMismatch));
    // A character no link contains.
    let bad = format!("{}<{}", &link[..10], &link[11..]);
    assert_eq!(
        decode(&bad),
        Err(ShareError::Corrupted(
            "character '<' at position 11 cannot occur in a link".into()
        ))
    );
    // Extra data after the declared body.
    let longer = format!("{link}AAAA");
    assert!(
        matches!(decode(&longer), Err(ShareError::Corrupted(m)) if m.contains("more than it declares"))
    );
    // Other versions and non-links.
    assert_eq!(
        decode(&link.replacen("v1.", "v2.", 1)),
        Err(ShareError::WrongVersion {
            found: "2".into(),
            supported: 1
        })
    );
    assert_eq!(decode("hello"), Err(ShareError::NotALink));
    assert_eq!(decode(""), Err(ShareError::NotALink));
    // A well-formed link whose JSON is not a result names the JSON path.
    let e = decode(&hand_built_link(r#"{"origin":"o","operation":7}"#)).unwrap_err();
    assert_eq!(
        e,
        ShareError::Corrupted(
            "its content is not a tabprobe result (at operation: invalid type: integer `7`, expected a string at line 1 column 27)".into()
        )
    );
    // Messages a person can act on.
    assert!(ShareError::ChecksumMismatch
        .to_string()
        .contains("copy the whole link again"));
    assert!(decode(&link[..link.len() / 2])
        .unwrap_err()
        .to_string()
        .starts_with("this link is truncated"));
}

#[test]
fn bad_result_files_name_file_and_path() {
    let e = from_file("r.json", r#"{"format":"x","version":1,"result":{}}"#).unwrap_err();
    assert_eq!(
        e.to_string(),
        "r.json: at format: expected \"tabprobe-share\", found \"x\""
    );
    let e = from_file(
        "r.json",
        r#"{"format":"tabprobe-share","version":1,"result":{"origin":"o"}}"#,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("r.json: at result: missing field `operation`"),
        "{e}"
    );
}

/// Every table example of the bundled demo (INFOTABS dev tables), shared as a table edit
/// (one value changed, so both tables travel) with a model and predictions.
#[test]
fn a_typical_infotabs_link_stays_under_2000_characters() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../public/demo/dataset.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let demo = tabprobe_core::parse_dataset("dataset.json", &text).unwrap();
    // The site's address comes before the fragment; allow 60 characters for it.
    let base = "https://example.github.io/tabprobe/#/share/".len() + 17;
    let mut lengths = Vec::new();
    for e in &demo.examples {
        let Some(table) = e.table.as_deref().and_then(|t| demo.table(t)) else {
            continue;
        };
        let mut d = TableDraft::new(table.clone(), &[]);
        d.set_value(0, 0, "edited value");
        let mut r = result();
        r.before.table = Some(table.clone());
        r.before.hypothesis = e.hypothesis.clone();
        r.after.table = Some(d.table);
        r.after.hypothesis = e.hypothesis.clone();
        r.example_id = e.id.clone();
        lengths.push(base + encode(&r).unwrap().len());
    }
    lengths.sort_unstable();
    let median = lengths[lengths.len() / 2];
    let max = *lengths.last().unwrap();
    let fit = lengths.iter().filter(|&&l| l <= MAX_LINK_CHARS).count();
    println!(
        "share link lengths over {} demo items: min {} · median {} · max {} characters; {} of {} fit in {}",
        lengths.len(),
        lengths[0],
        median,
        max,
        fit,
        lengths.len(),
        MAX_LINK_CHARS
    );
    assert!(median < 2000, "median link {median} characters");
    // Most items fit; the rest take the file fallback (the next test).
    assert!(
        fit * 10 >= lengths.len() * 9,
        "only {fit} of {} fit",
        lengths.len()
    );
}

#[test]
fn a_large_result_needs_the_file_fallback() {
    let mut r = result();
    if let Some(Table::KeyValue(t)) = &mut r.after.table {
        for i in 0..300 {
            t.rows.push(common::row(
                &format!("Key {i}"),
                &[&format!("value {} of {}", i * 7919 % 1013, i)],
            ));
        }
    }
    let link = encode(&r).unwrap();
    assert!(link.len() > MAX_LINK_CHARS, "{} characters", link.len());
    // The file carries it whole.
    let file = to_file(&r).unwrap();
    assert_eq!(from_file("big.json", &file).unwrap(), r);
    // ...and the link still decodes, for those whose tools accept long URLs.
    assert_eq!(decode(&link).unwrap(), r);
}
