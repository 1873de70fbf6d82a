//! The JSON Schemas of the pairs file and the scores file (`public/schema/pairs-v1.json`,
//! `scores-v1.json`; issue 44 item 6), each describing one line of its JSONL file. They are
//! written by hand (core's line types carry no schemars derive), so this test holds them to
//! core: their keys, id pattern, orders and label lists are core's, every line `tabprobe pairs`
//! writes satisfies the pairs schema (three-way and two-way, both orders, no premise), the
//! transformers scorer's lines (the round-trip fixture) satisfy the scores schema, and a line
//! the scores schema refuses on its own is one `tabprobe probe --scores` refuses too.
//! `scorers/tests/test_file_schemas.py` checks the lines both scorers write against them.
//!
//! The validator below knows the keywords the schemas use and panics on any other, so a
//! keyword added to a schema cannot be silently ignored.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_core::run::pairs_file::{pair_id, PairLine, PAIR_ID_HEX};
use tabprobe_core::run::scores_file::read_scores;
use tabprobe_core::scoring::{Pair, PairOrder};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema(name: &str) -> Value {
    let path = repo().join("public/schema").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `^[0-9a-f]{N}$`, the one pattern the schemas use, as N.
fn hex_pattern_len(pattern: &str) -> usize {
    pattern
        .strip_prefix("^[0-9a-f]{")
        .and_then(|r| r.strip_suffix("}$"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the test's validator knows no pattern {pattern:?}"))
}

/// Why `value` does not satisfy `schema` (empty when it does).
fn errors(schema: &Value, value: &Value, at: &str) -> Vec<String> {
    const KNOWN: [&str; 16] = [
        "$schema",
        "title",
        "description",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "anyOf",
        "enum",
        "pattern",
        "items",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
    ];
    let s = schema.as_object().expect("a schema is an object");
    if let Some(k) = s.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        panic!("the test's validator does not know {k:?} (at {at})");
    }
    let mut out = Vec::new();
    if let Some(t) = s.get("type").and_then(Value::as_str) {
        let fits = match t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "number" => value.is_number(),
            _ => panic!("the test's validator knows no type {t:?}"),
        };
        if !fits {
            return vec![format!("{at}: not of type {t}")];
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(value) {
            out.push(format!("{at}: {value} not in the enum"));
        }
    }
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        let n = hex_pattern_len(p);
        let v = value.as_str().unwrap_or_default();
        if v.len() != n
            || !v
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            out.push(format!("{at}: {value} does not match {p}"));
        }
    }
    if let Some(x) = value.as_f64() {
        if s.get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|m| x < m)
        {
            out.push(format!("{at}: {x} below the minimum"));
        }
        if s.get("maximum")
            .and_then(Value::as_f64)
            .is_some_and(|m| x > m)
        {
            out.push(format!("{at}: {x} above the maximum"));
        }
    }
    if let (Some(items), Some(a)) = (s.get("items"), value.as_array()) {
        for (i, v) in a.iter().enumerate() {
            out.extend(errors(items, v, &format!("{at}/{i}")));
        }
    }
    if let Some(o) = value.as_object() {
        let n = o.len() as u64;
        if s.get("minProperties")
            .and_then(Value::as_u64)
            .is_some_and(|m| n < m)
            || s.get("maxProperties")
                .and_then(Value::as_u64)
                .is_some_and(|m| n > m)
        {
            out.push(format!("{at}: {n} properties"));
        }
        for key in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !o.contains_key(key.as_str().unwrap()) {
                out.push(format!("{at}: no {key}"));
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (key, v) in o {
            if let Some(names) = s.get("propertyNames") {
                out.extend(errors(names, &json!(key), &format!("{at}/{key} (name)")));
            }
            match (
                props.and_then(|p| p.get(key)),
                s.get("additionalProperties"),
            ) {
                (Some(p), _) => out.extend(errors(p, v, &format!("{at}/{key}"))),
                (None, Some(Value::Bool(false))) => out.push(format!("{at}: {key:?} not allowed")),
                (None, Some(extra)) if extra.is_object() => {
                    out.extend(errors(extra, v, &format!("{at}/{key}")))
                }
                _ => {}
            }
        }
    }
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        if any.iter().all(|a| !errors(a, value, at).is_empty()) {
            out.push(format!("{at}: matches none of anyOf"));
        }
    }
    out
}

fn valid(schema: &Value, value: &Value) -> bool {
    errors(schema, value, "").is_empty()
}

/// Every non-blank line of `path` satisfies `schema`; returns the lines.
fn check_lines(schema: &Value, path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (k, line) in lines.iter().enumerate() {
        let e = errors(schema, line, "");
        assert!(e.is_empty(), "{}, line {}: {e:?}", path.display(), k + 1);
    }
    lines
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn names(labels: &[Label]) -> Vec<String> {
    labels.iter().map(|l| l.as_str().to_string()).collect()
}

#[test]
fn the_schemas_say_what_core_writes_and_reads() {
    let (pairs, scores) = (schema("pairs-v1.json"), schema("scores-v1.json"));
    let id_pattern = format!("^[0-9a-f]{{{PAIR_ID_HEX}}}$");
    assert_eq!(pairs["properties"]["id"]["pattern"], id_pattern.as_str());
    assert_eq!(scores["properties"]["id"]["pattern"], id_pattern.as_str());

    // The pairs schema's keys, all required, are the keys of core's line, both orders.
    for order in [PairOrder::PremiseFirst, PairOrder::HypothesisFirst] {
        let pair = Pair {
            premise: "Running time is 125 minutes.".into(),
            hypothesis: "Bridesmaids runs over two hours.".into(),
            order,
        };
        let line = serde_json::to_value(PairLine {
            id: pair_id(&pair),
            premise: pair.premise.clone(),
            hypothesis: pair.hypothesis.clone(),
            order,
            linearization: "infotabs_compat".into(),
            labels: LabelSet::ThreeWay.labels().to_vec(),
        })
        .unwrap();
        let mut keys: Vec<&String> = line.as_object().unwrap().keys().collect();
        let mut props: Vec<&String> = pairs["properties"].as_object().unwrap().keys().collect();
        let mut required = strings(&pairs["required"]);
        keys.sort();
        props.sort();
        required.sort();
        assert_eq!(keys, props);
        assert_eq!(
            required,
            keys.iter().map(|k| k.to_string()).collect::<Vec<_>>()
        );
        assert!(
            strings(&pairs["properties"]["order"]["enum"])
                .contains(&line["order"].as_str().unwrap().to_string()),
            "{line}"
        );
        assert!(valid(&pairs, &line), "{:?}", errors(&pairs, &line, ""));
    }
    assert_eq!(
        pairs["properties"]["order"]["enum"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        pairs["properties"]["labels"]["enum"],
        json!([
            names(LabelSet::ThreeWay.labels()),
            names(LabelSet::TwoWay.labels())
        ])
    );
    // The scores schema: core's three fields, its labels, nothing else.
    let mut props: Vec<&String> = scores["properties"].as_object().unwrap().keys().collect();
    props.sort();
    assert_eq!(props, ["id", "label", "probs"]);
    assert_eq!(scores["additionalProperties"], false);
    assert_eq!(
        strings(&scores["properties"]["label"]["enum"]),
        names(&Label::ALL)
    );
    assert_eq!(
        strings(&scores["properties"]["probs"]["propertyNames"]["enum"]),
        names(&Label::ALL)
    );
}

#[test]
fn a_scores_line_the_schema_refuses_alone_tabprobe_refuses() {
    // Each line below is refused by the schema and, as the one line of a scores file for a
    // one-pair probe set, by core's reader; the good lines pass both.
    let scores = schema("scores-v1.json");
    let pair = Pair {
        premise: "P".into(),
        hypothesis: "H".into(),
        order: PairOrder::PremiseFirst,
    };
    let id = pair_id(&pair);
    let p = json!({"ENTAIL": 0.2, "NEUTRAL": 0.5, "CONTRADICT": 0.3});
    let core_reads = |line: &Value| {
        read_scores(
            "scores.jsonl",
            line.to_string().as_bytes(),
            std::slice::from_ref(&pair),
            LabelSet::ThreeWay,
        )
        .is_ok()
    };
    for good in [
        json!({"id": id, "probs": p}),
        json!({"id": id, "probs": p, "label": "NEUTRAL"}),
        json!({"id": id, "label": "CONTRADICT"}),
    ] {
        assert!(valid(&scores, &good), "{good}");
        assert!(core_reads(&good), "{good}");
    }
    let bad = [
        json!({"id": id}),
        json!({"id": id, "label": "NEUTRAL", "score": 1}),
        json!({"id": id.to_uppercase(), "label": "NEUTRAL"}),
        json!({"id": &id[..15], "label": "NEUTRAL"}),
        json!({"id": 7, "label": "NEUTRAL"}),
        json!({"id": id, "label": "entailment"}),
        json!({"id": id, "label": null, "probs": null}),
        json!({"id": id, "probs": {"ENTAIL": -0.1, "NEUTRAL": 0.8, "CONTRADICT": 0.3}}),
        json!({"id": id, "probs": {"ENTAIL": "0.2", "NEUTRAL": 0.5, "CONTRADICT": 0.3}}),
        json!({"id": id, "probs": {"entailment": 0.2, "NEUTRAL": 0.5, "CONTRADICT": 0.3}}),
        json!({"id": id, "probs": {"ENTAIL": 1.0}}),
        json!({"id": id, "probs": [0.2, 0.5, 0.3]}),
        json!([id, "NEUTRAL"]),
    ];
    for line in &bad {
        assert!(!valid(&scores, line), "the schema takes {line}");
        assert!(!core_reads(line), "core takes {line}");
    }
}

fn tabprobe_pairs(dataset: &Path, extra: &[&str], out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .args(["pairs", "--dataset", dataset.to_str().unwrap()])
        .args(["--probes", "all", "--seed", "7", "--word-order-q", "3"])
        .args(["--hypothesis-only", "--out", out.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn every_line_tabprobe_and_the_transformers_scorer_write_satisfies_its_schema() {
    let (pairs, scores) = (schema("pairs-v1.json"), schema("scores-v1.json"));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-file-schemas");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let small = repo().join("crates/cli/tests/fixtures/small.json");
    // The fixture made two-way (TabFact-style): NEUTRAL examples dropped.
    let mut two_way: Value =
        serde_json::from_str(&std::fs::read_to_string(&small).unwrap()).unwrap();
    two_way["label_set"] = json!("two_way");
    two_way["examples"]
        .as_array_mut()
        .unwrap()
        .retain(|e| e["label"] != "NEUTRAL");
    let two_way_path = dir.join("two-way.json");
    std::fs::write(&two_way_path, two_way.to_string()).unwrap();

    let mut seen = std::collections::BTreeSet::new();
    for (dataset, extra) in [
        (&small, &[][..]),
        (&small, &["--order", "hypothesis_first"][..]),
        (&small, &["--linearization", "none"][..]),
        (&small, &["--linearization", "paragraph"][..]),
        (&two_way_path, &[][..]),
    ] {
        let out = dir.join("pairs.jsonl");
        tabprobe_pairs(dataset, extra, &out);
        let lines = check_lines(&pairs, &out);
        assert!(lines.len() > 10, "{extra:?}: {} lines", lines.len());
        for l in &lines {
            seen.insert((l["order"].to_string(), l["labels"].to_string()));
        }
    }
    assert_eq!(seen.len(), 3, "both orders and both label sets: {seen:?}");

    // hf_transformers.py's lines (scorers/tests/make_roundtrip_fixture.sh).
    let fixture = repo().join("crates/cli/tests/fixtures/scores-tiny-f32.jsonl");
    assert_eq!(check_lines(&scores, &fixture).len(), 151);
}
