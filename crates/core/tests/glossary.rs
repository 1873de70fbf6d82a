//! The results' vocabulary (issue 18 §4): every column header and row name the report
//! produces is either explained in the glossary or a plain word, every share is in % (so one
//! unit reads everywhere), and the glossary in docs/probes-and-metrics.md carries each term's line under its anchor.

mod common;

use common::*;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::report::glossary::{term, unit, with_unit, Unit, GLOSSARY, PLAIN};
use tabprobe_core::report::{sections, Section};
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::PairScorer;

/// The running example under every table, hypothesis and other probe, with hypothesis-only
/// scores: the report's sections with rows.
fn full_run() -> RunResult {
    let d = running_example();
    let kinds: Vec<ProbeKind> = ProbeKind::TABLE
        .into_iter()
        .chain(ProbeKind::HYPOTHESIS)
        .chain(ProbeKind::OTHER)
        .collect();
    let mut s = ProbeSettings::new(kinds, 0);
    s.hypothesis_only = true;
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    let mut r = ProbeRun::new(set, 5);
    let mut fake = EvidenceFake::new();
    r.run(&mut fake, |_| {}, || false).unwrap();
    r.finish(fake.model_id()).unwrap()
}

/// Headers of the sections the running example cannot produce (Table 8 needs hand-made
/// counterfactual pairs, the agreement table annotators' ballots), as `report.rs` writes them.
const OTHER_HEADERS: &[&str] = &[
    "c_thp",
    "o_thp",
    "o_hypo",
    "in_paper",
    "annotators",
    "items",
    "fleiss_kappa",
    "kappa_per_example_mean",
    "kappa_per_example_sd",
    "kappa_per_example_n",
    "examples_3plus",
    "same_rows_3plus",
];

fn report() -> Vec<Section> {
    sections(&full_run())
}

#[test]
fn every_header_is_explained_or_plain() {
    let secs = report();
    for want in [
        "table4_scores",
        "evidence",
        "evidence_examples",
        "word_order",
        "word_order_omega",
    ] {
        assert!(
            secs.iter().any(|s| s.file() == want),
            "the fixture run has {want}"
        );
    }
    let mut missing = Vec::new();
    for s in &secs {
        // The invalid-transition tables' split columns are split names.
        let fixed = if s.file().starts_with("invalid_") {
            2
        } else {
            s.header.len()
        };
        for h in s
            .header
            .iter()
            .take(fixed)
            .chain(s.header.last().filter(|_| s.file().starts_with("invalid_")))
        {
            if term(h).is_none() && !PLAIN.contains(&h.as_str()) {
                missing.push(format!("{}: {h}", s.file()));
            }
        }
    }
    for h in OTHER_HEADERS {
        if term(h).is_none() && !PLAIN.contains(h) {
            missing.push(format!("table8/agreement: {h}"));
        }
    }
    assert!(
        missing.is_empty(),
        "headers without a glossary entry: {missing:?}"
    );
}

#[test]
fn the_shorthand_the_issue_names_is_explained() {
    for (key, name) in [
        ("c_thp", "C-THP"),
        ("o_thp", "O-THP"),
        ("o_hypo", "O-Hypo"),
        ("ignores_premise_within_none", "ignores premise within none"),
        ("omega_max", "Ω_max"),
        ("p_c", "P^c"),
        ("in_paper", "in paper"),
        ("pooled", "pooled"),
    ] {
        assert_eq!(term(key).map(|t| t.name), Some(name), "{key}");
    }
}

#[test]
fn terms_are_defined_once_with_distinct_anchors() {
    let mut keys: Vec<&str> = GLOSSARY
        .iter()
        .flat_map(|t| t.keys.iter().copied())
        .collect();
    let n = keys.len();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), n, "a key explained twice");
    let mut anchors: Vec<&str> = GLOSSARY.iter().map(|t| t.anchor).collect();
    anchors.sort_unstable();
    anchors.dedup();
    assert_eq!(anchors.len(), GLOSSARY.len());
    assert!(GLOSSARY.iter().all(|t| t.anchor.starts_with("glossary-")));
    assert!(
        keys.iter().all(|k| !PLAIN.contains(k)),
        "plain and explained at once"
    );
}

#[test]
fn the_readme_glossary_carries_every_line_under_its_anchor() {
    let readme = include_str!("../../../docs/probes-and-metrics.md");
    let section = readme
        .split("\n### Glossary")
        .nth(1)
        .expect("docs/probes-and-metrics.md has a '### Glossary' section");
    for t in GLOSSARY {
        let at = section
            .find(&format!("<a id=\"{}\"></a>", t.anchor))
            .unwrap_or_else(|| panic!("the docs' glossary lacks the anchor {}", t.anchor));
        let entry = &section[at..];
        let entry = &entry[..entry.find("\n\n").unwrap_or(entry.len())];
        assert!(
            entry.contains(t.line),
            "the docs' line for {} differs from the glossary's",
            t.name
        );
    }
}

#[test]
fn every_share_is_a_percentage() {
    let secs = report();
    // Word order (UNLI reports fractions) is given in % like every other share: the
    // accuracy cell of a run whose examples are all right or all wrong reads 0.00..=100.00.
    let wo = secs.iter().find(|s| s.file() == "word_order").unwrap();
    let acc = wo.header.iter().position(|h| h == "accuracy").unwrap();
    let v: f64 = wo.rows[0].cells[acc].parse().unwrap();
    assert!((0.0..=100.0).contains(&v));
    // The running example's permuted hypotheses: H1, H2, H5 are ENTAIL/CONTRADICT and the
    // fake gets them right on the originals, H3 (NEUTRAL) too: 𝒜 = 100%, not 1.0000.
    assert_eq!(wo.rows[0].cells[acc], "100.00");
    assert_eq!(unit("word_order", "omega_max"), Unit::Percent);
    assert_eq!(unit("word_order", "entropy_c"), Unit::Plain);
    assert_eq!(unit("agreement", "fleiss_kappa"), Unit::Plain);
    assert_eq!(unit("invalid_row_deletion", "paper"), Unit::Percent);
    assert_eq!(unit("invalid_row_deletion", "before"), Unit::Plain);
    assert_eq!(unit("evidence", "ignores_premise"), Unit::Percent);
    assert_eq!(unit("evidence_examples", "ignores_premise"), Unit::Plain);
    assert_eq!(with_unit("evidence", "precision", "62.50"), "62.50%");
    assert_eq!(with_unit("evidence", "precision", ""), "");
    assert_eq!(with_unit("evidence", "examples", "4"), "4");
}

#[test]
fn evidence_rows_are_named_by_key_and_counted_from_one() {
    let secs = report();
    let per = secs
        .iter()
        .find(|s| s.file() == "evidence_examples")
        .unwrap();
    let human = per.header.iter().position(|h| h == "human_rows").unwrap();
    // H5's evidence is T996's row 1 (0-based), "Length": shown as its key, row 2.
    let h5 = per.rows.iter().find(|r| r.cells[0] == "H5").unwrap();
    assert_eq!(h5.cells[human], "Length (row 2)");
}

#[test]
fn a_single_split_is_named_once() {
    let mut d = running_example();
    for e in &mut d.examples {
        e.split = Some("paper".into());
    }
    let kinds = [ProbeKind::RowDeletion]
        .into_iter()
        .chain(ProbeKind::HYPOTHESIS)
        .collect();
    let s = ProbeSettings::new(kinds, 0);
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    let mut r = ProbeRun::new(set, 5);
    let mut fake = EvidenceFake::new();
    r.run(&mut fake, |_| {}, || false).unwrap();
    let run = r.finish(fake.model_id()).unwrap();
    let secs = sections(&run);
    assert!(
        secs.iter().any(|s| s.file() == "table4_scores"),
        "Table 4 is checked too"
    );
    for s in secs {
        let first: Vec<&str> = s
            .rows
            .iter()
            .filter_map(|r| r.cells.first().map(String::as_str))
            .collect();
        assert!(!first.contains(&"split:paper"), "{}: {first:?}", s.file());
        if s.file() == "table1_accuracy" {
            assert_eq!(
                first,
                ["paper"],
                "Table 1 names the one split, not again as all"
            );
        }
    }
}
