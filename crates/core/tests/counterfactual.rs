//! Counterfactual tables (§4.6, Figures 5–6), the tabprobe TSV, and Tables 7–8.

mod common;

use std::path::PathBuf;

use common::*;
use tabprobe_core::data::import::counterfactual::{
    counterfactual_dataset, parse_counterfactual_tsv,
};
use tabprobe_core::data::import::infotabs::parse_table;
use tabprobe_core::data::label::Label::{self, Contradict as C, Entail as E, Neutral as N};
use tabprobe_core::data::table::Table;
use tabprobe_core::metrics::{
    paired_table, perturbation_scores, CounterfactualClass, PairedError, SampleOptions, ScoreView,
};
use tabprobe_core::probe::review::ReviewState;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, Certainty, Edit, Expectation, Premise, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::ProbeRun;

#[test]
fn figure5_row_swap_moves_h5_onto_breakfast_in_america() {
    let mut d = running_example();
    d.tables.truncate(2); // Breakfast in America and Bridesmaids only
    let set = build_probe_set(
        &d,
        &ProbeSettings::new(vec![ProbeKind::RowSwap], 3),
        &RuleSet::default(),
    )
    .unwrap();
    let h5 = set.items.iter().find(|i| i.id.starts_with("H5/")).unwrap();
    assert_eq!(
        h5.perturbed.hypothesis,
        "Breakfast in America has a running time of over 3 hrs."
    );
    let Premise::Table(Table::KeyValue(t)) = &h5.perturbed.premise else {
        panic!()
    };
    assert_eq!(t.title, "Breakfast in America");
    let len = t.rows.iter().find(|r| r.key == "Length").unwrap();
    assert_eq!(len.values, ["125 minutes"]);
    assert_eq!(
        t.rows.iter().find(|r| r.key == "Label").unwrap().values,
        ["A&M"]
    );
    assert_eq!(h5.expectation, Expectation::Label { labels: vec![C] });
    assert_eq!(h5.certainty, Certainty::Certain);
    // H1's relevant keys (Genre and Length) are not both in Bridesmaids: no swap for H1.
    assert!(!set.items.iter().any(|i| i.id.starts_with("H1/")));
}

#[test]
fn figure6_title_swap_keeps_all_labels() {
    let mut d = running_example();
    d.tables.truncate(2);
    let set = build_probe_set(
        &d,
        &ProbeSettings::new(vec![ProbeKind::TitleSwap], 3),
        &RuleSet::default(),
    )
    .unwrap();
    let want = [("H1", E), ("H2", C), ("H3", N), ("H5", C)];
    assert_eq!(set.items.len(), 4);
    for (id, label) in want {
        let it = set
            .items
            .iter()
            .find(|i| i.id.starts_with(&format!("{id}/")))
            .unwrap();
        assert_eq!(
            it.expectation,
            Expectation::Label {
                labels: vec![label]
            }
        );
    }
    let h1 = set.items.iter().find(|i| i.id.starts_with("H1/")).unwrap();
    assert_eq!(
        h1.perturbed.hypothesis,
        "Bridesmaids is a pop album with a length of 46 minutes."
    );
    let Premise::Table(t) = &h1.perturbed.premise else {
        panic!()
    };
    assert_eq!(t.title(), "Bridesmaids");
    assert_eq!(t.row_count(), 7);
    assert!(
        matches!(&h1.edit, Edit::TitleSwapped { before, after, .. } if before == "Breakfast in America" && after == "Bridesmaids")
    );
}

const TSV: &str = "s.no\tworker_id\toriginal_tableid\toriginal_hypothesis\toriginal_label\tmodified_tableid\tmodified_hypothesis\tmodified_label\n\
0\tIA0\tT1264\tBreakfast in America is a pop album with a length of 46 minutes.\tE\tT1264_mod_1\tBreakfast in America is a pop album with a length of 46 minutes.\tC\n";

#[test]
fn label_flip_pairs_and_tables_7_and_8() {
    let pairs = parse_counterfactual_tsv("cf.tsv", TSV).unwrap();
    assert_eq!(pairs.len(), 1);
    assert_eq!(
        (
            pairs[0].original_label,
            pairs[0].modified_label,
            pairs[0].line
        ),
        (E, C, 2)
    );
    let mut modified = breakfast();
    if let Table::KeyValue(t) = &mut modified {
        t.id = "T1264_mod_1".into();
        t.rows[4].values = vec!["36:06".into()]; // the annotator shortened the album
    }
    let d = counterfactual_dataset("cf", &pairs, &[breakfast(), modified]).unwrap();
    assert_eq!(d.examples.len(), 2);
    let mut s = ProbeSettings::new(vec![ProbeKind::Counterfactual], 1);
    s.hypothesis_only = true;
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    assert_eq!(set.items.len(), 1);
    assert_eq!(
        set.items[0].expectation,
        Expectation::Label { labels: vec![C] }
    );
    // The evidence fake reads "46:06" for H1, so on the edited table it says NEUTRAL (wrong:
    // C expected); it is right on the original; the hypothesis-only fake says E (right).
    let mut fake = EvidenceFake::new();
    let mut run = ProbeRun::new(set.clone(), 4);
    run.run(&mut fake, |_| {}, || false).unwrap();
    let r = run
        .finish(tabprobe_core::scoring::PairScorer::model_id(&fake))
        .unwrap();
    let t7 = perturbation_scores(
        &r,
        &[ProbeKind::Counterfactual],
        &SampleOptions::default(),
        ScoreView::PremiseAndHypothesis,
        None,
    );
    assert_eq!(t7.original.unwrap().mean, 100.0);
    assert_eq!(t7.label_flipped.unwrap().mean, 0.0);
    assert!(t7.label_preserved.is_none());
    // H1-cf asserts CONTRADICT against H1's ENTAIL: a label-flipping counterfactual.
    let t8 = paired_table(&r, CounterfactualClass::LabelFlipping, None)
        .unwrap()
        .rows;
    // The evidence fake with an empty premise says NEUTRAL for H1, so O-Hypo is wrong:
    // ✗ C-THP, ✓ O-THP, ✗ O-Hypo — the paper's second row — 100%.
    assert_eq!(
        (t8[1].c_thp, t8[1].o_thp, t8[1].o_hypo, t8[1].percent),
        (false, true, false, 100.0)
    );
    assert!(t8[..4].iter().all(|r| r.in_paper));
    assert_eq!(t8.iter().map(|r| r.count).sum::<usize>(), 1);
    // Without hypothesis-only scores Table 8 says so.
    let mut s2 = s.clone();
    s2.hypothesis_only = false;
    let mut run = ProbeRun::new(build_probe_set(&d, &s2, &RuleSet::default()).unwrap(), 4);
    run.run(&mut EvidenceFake::new(), |_| {}, || false).unwrap();
    let r = run
        .finish(tabprobe_core::scoring::PairScorer::model_id(&fake))
        .unwrap();
    assert_eq!(
        paired_table(&r, CounterfactualClass::LabelFlipping, None),
        Err(PairedError::NoHypothesisOnly)
    );
}

#[test]
fn real_tabprobe_counterfactual_file_loads() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/tabprobe");
    if !dir.is_dir() {
        eprintln!("SKIP: /work/shared/data/tabprobe not found");
        return;
    }
    let text = std::fs::read_to_string(
        dir.join("data/counterfactuals/training/cf_training_anonymized.tsv"),
    )
    .unwrap();
    let pairs = parse_counterfactual_tsv("cf_training_anonymized.tsv", &text).unwrap();
    assert_eq!(pairs.len(), 1109);
    // Hypothesis unchanged, label flipped E↔C, in every pair (data/README.md).
    let flips = pairs
        .iter()
        .filter(|p| p.original_label != p.modified_label)
        .count();
    assert!(flips as f64 / pairs.len() as f64 > 0.95, "{flips}");
    let mut tables = Vec::new();
    for p in pairs.iter().take(40) {
        for (sub, id) in [
            ("tables_json", &p.original_table),
            ("tables_mod_json", &p.modified_table),
        ] {
            if tables.iter().any(|t: &Table| t.id() == id) {
                continue;
            }
            let text = std::fs::read_to_string(
                dir.join("data/counterfactuals/training")
                    .join(sub)
                    .join(format!("{id}.json")),
            )
            .unwrap();
            tables.push(Table::KeyValue(parse_table(id, id, &text).unwrap()));
        }
    }
    let d = counterfactual_dataset("cf", &pairs[..40], &tables).unwrap();
    let set = build_probe_set(
        &d,
        &ProbeSettings::new(vec![ProbeKind::Counterfactual], 1),
        &RuleSet::default(),
    )
    .unwrap();
    assert_eq!(set.items.len(), 40);
    let _: Vec<Label> = set
        .items
        .iter()
        .map(|i| match &i.expectation {
            Expectation::Label { labels } => labels[0],
            _ => panic!(),
        })
        .collect();
}

/// Issue 11 §6: a shipped counterfactual (`derived_from` set) is reached through the
/// counterfactual probe only, never row-deleted as if it were an original.
#[test]
fn shipped_counterfactual_is_not_probed_as_an_original() {
    let mut d = running_example();
    let mut cf = breakfast();
    if let Table::KeyValue(t) = &mut cf {
        t.id = "T1264_cf".into();
        t.rows[4].values = vec!["36:06".into()];
    }
    d.tables.push(cf);
    let mut h1cf = d.examples[0].clone();
    h1cf.id = Some("H1-cf".into());
    h1cf.table = Some("T1264_cf".into());
    h1cf.label = C;
    h1cf.derived_from = Some("H1".into());
    d.examples.push(h1cf);
    let s = ProbeSettings::new(vec![ProbeKind::RowDeletion, ProbeKind::Counterfactual], 1);
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    // The originals H1, H2, H3, H5 only; H1-cf is not one of them.
    let ids: Vec<&str> = set.examples.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["H1", "H2", "H3", "H5"]);
    // Row deletion: 7 + 7 + 7 rows of Breakfast in America, 4 of Bridesmaids = 25 items (the
    // old code also deleted each of H1-cf's 7 rows: 32).
    let per = set.counts().per_probe;
    assert_eq!(per[&ProbeKind::RowDeletion], 25);
    // The counterfactual probe pairs H1-cf with H1, once.
    assert_eq!(per[&ProbeKind::Counterfactual], 1);
    let cf_item = set
        .items
        .iter()
        .find(|it| it.probe == ProbeKind::Counterfactual)
        .unwrap();
    assert_eq!(set.examples[cf_item.example].id, "H1");
    assert_eq!(
        cf_item.edit,
        Edit::Counterfactual {
            example: "H1-cf".into()
        }
    );
    assert!(set.skipped.is_empty(), "{:?}", set.skipped);
    // Without the counterfactual probe H1-cf is absent, and the run says why.
    let s = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    let set = build_probe_set(&d, &s, &RuleSet::default()).unwrap();
    assert_eq!(set.examples.len(), 4);
    assert_eq!(set.skipped.len(), 1);
    assert_eq!(set.skipped[0].example, "H1-cf");
    assert!(set.skipped[0].reason.contains("derived from \"H1\""));
}

/// Issue 11 §6, paper §6: Table 8 leaves NEUTRAL out and keeps label-flipping counterfactuals
/// apart from label-preserving ones. The running example with three shipped counterfactuals —
/// H1-cf (Length 36:06, E→C: flipping), H2-cf (the Label changed, still C: preserving), H3-cf
/// (from the NEUTRAL H3: left out) — and title swaps of H1, H2, H3, H5 (preserving; H3's is
/// NEUTRAL: left out). The evidence fake is right on every original; with an empty premise it
/// says NEUTRAL, so O-Hypo is wrong for H1, H2, H5 and right for H3. It reads H1-cf as
/// NEUTRAL (✗), H2-cf as C (✓), and every title-swapped hypothesis (unknown to it) as NEUTRAL.
///   flipping:   H1-cf ✗✓✗ → 1 item, 100% on the paper's second row; 1 NEUTRAL left out.
///   preserving: H2-cf ✓✓✗, swaps of H1, H2, H5 ✗✓✗ → 75% / 25%; 1 NEUTRAL left out.
/// The old single Table 8 pooled all 7 items: ✗✓✗ 4/7 = 57.14%.
#[test]
fn table8_leaves_neutral_out_and_splits_flipping_from_preserving() {
    let mut d = running_example();
    let edit = |id: &str, row: usize, value: &str| {
        let mut t = breakfast();
        if let Table::KeyValue(t) = &mut t {
            t.id = id.into();
            t.rows[row].values = vec![value.into()];
        }
        t
    };
    d.tables.push(edit("T1264_cf1", 4, "36:06"));
    d.tables.push(edit("T1264_cf2", 5, "Columbia"));
    let derived = |id: &str, table: &str, from: usize, label: Label| {
        let mut e = d.examples[from].clone();
        e.id = Some(id.into());
        e.table = Some(table.into());
        e.label = label;
        e.derived_from = d.examples[from].id.clone();
        e
    };
    let cfs = [
        derived("H1-cf", "T1264_cf1", 0, C),
        derived("H2-cf", "T1264_cf2", 1, C),
        derived("H3-cf", "T1264_cf2", 2, E),
    ];
    d.examples.extend(cfs);
    let mut s = ProbeSettings::new(vec![ProbeKind::Counterfactual, ProbeKind::TitleSwap], 4);
    s.hypothesis_only = true;
    let mut run = ProbeRun::new(build_probe_set(&d, &s, &RuleSet::default()).unwrap(), 4);
    let mut fake = EvidenceFake::new();
    run.run(&mut fake, |_| {}, || false).unwrap();
    let r = run
        .finish(tabprobe_core::scoring::PairScorer::model_id(&fake))
        .unwrap();
    assert_eq!(r.items.len(), 7);
    let sections = tabprobe_core::report::sections(&r);
    let get = |file: &str| sections.iter().find(|s| s.file() == file);
    let flip = get("table8_paired_label_flipping").expect("a label-flipping Table 8");
    // Rows in the paper's order: ✓✗✗, ✗✓✗, ✓✗✓, ✗✓✓, then the other four.
    assert_eq!(
        flip.rows[1].cells,
        ["all", "wrong", "right", "wrong", "1", "100.00", "yes"]
    );
    assert!(flip.rows[..8]
        .iter()
        .all(|r| r.cells[4] == "0" || r.cells[2] == "right"));
    assert!(
        flip.notes
            .iter()
            .any(|n| n.starts_with("1 NEUTRAL item(s) left out")),
        "{:?}",
        flip.notes
    );
    let keep = get("table8_paired_label_preserving").expect("a label-preserving Table 8");
    assert_eq!(
        keep.rows[1].cells,
        ["all", "wrong", "right", "wrong", "3", "75.00", "yes"]
    );
    let row = keep.rows[..8]
        .iter()
        .find(|r| r.cells[1..4] == ["right", "right", "wrong"])
        .unwrap();
    assert_eq!(row.cells[4..6], ["1", "25.00"]);
    assert!(get("table8_paired").is_none());
    // The same through the API.
    use tabprobe_core::metrics::paired_checks;
    let t = paired_table(&r, CounterfactualClass::LabelFlipping, None).unwrap();
    assert_eq!((t.items, t.neutral_left_out), (1, 1));
    let t = paired_table(&r, CounterfactualClass::LabelPreserving, None).unwrap();
    assert_eq!((t.items, t.neutral_left_out), (4, 1));
    let counted = r
        .items
        .iter()
        .filter(|it| paired_checks(&r, it).is_some())
        .count();
    assert_eq!(counted, 5);
    // Both classes together leave NEUTRAL out as well: 5 items, ✗✓✗ 4 of them.
    let both = CounterfactualClass::ALL.map(|c| paired_table(&r, c, None).unwrap());
    let count =
        |t: &tabprobe_core::metrics::PairedTable| t.rows.iter().map(|r| r.count).sum::<usize>();
    assert_eq!(both.iter().map(count).sum::<usize>(), 5);
    assert_eq!(both.iter().map(|t| t.rows[1].count).sum::<usize>(), 4);
    // A heuristic item (its expected label unreviewed) is left out and counted: with H2-cf
    // heuristic, the label-preserving table holds the three swaps, all ✗✓✗.
    let mut r = r;
    for it in &mut r.items {
        if it.edit
            == (Edit::Counterfactual {
                example: "H2-cf".into(),
            })
        {
            it.certainty = Certainty::Heuristic;
            it.review = ReviewState::HeuristicUnreviewed;
        }
    }
    let t = paired_table(&r, CounterfactualClass::LabelPreserving, None).unwrap();
    assert_eq!(
        (t.items, t.heuristic_left_out, t.neutral_left_out),
        (3, 1, 1)
    );
    assert_eq!((t.rows[1].count, t.rows[1].percent), (3, 100.0));
    // On request the report counts the unreviewed heuristic item too, and says so; the
    // label-preserving counterfactual set's invalid table grows by the same item.
    let with = tabprobe_core::report::sections_with(
        &r,
        &tabprobe_core::report::ReportOptions {
            include_heuristic: true,
            ..Default::default()
        },
    );
    let keep = with
        .iter()
        .find(|s| s.file() == "table8_paired_label_preserving")
        .expect("the label-preserving Table 8");
    let all_count: usize = keep
        .rows
        .iter()
        .filter(|row| row.cells[0] == "all")
        .map(|row| row.cells[4].parse::<usize>().unwrap())
        .sum();
    assert_eq!(all_count, 4);
    assert!(
        keep.notes
            .iter()
            .any(|n| n.starts_with("1 heuristic item(s) nobody has reviewed are INCLUDED")),
        "{:?}",
        keep.notes
    );
    let default = tabprobe_core::report::sections(&r);
    let graph_items = |secs: &[tabprobe_core::report::Section]| -> usize {
        secs.iter()
            .find(|s| s.file() == "graph_label_preserving_counterfactual")
            .map(|s| {
                s.rows
                    .iter()
                    .filter(|row| row.cells[0] == "pooled")
                    .map(|row| row.cells[3].parse::<usize>().unwrap())
                    .sum()
            })
            .unwrap_or(0)
    };
    assert_eq!(graph_items(&with), graph_items(&default) + 1);
    // Review state decides (issue 11 §4): the heuristic H2-cf accepted by a reviewer with its
    // label (CONTRADICT, H2's gold) counts again; a rejected certain swap leaves the table.
    let h2 = |it: &tabprobe_core::probe::ProbeItem| {
        it.edit
            == Edit::Counterfactual {
                example: "H2-cf".into(),
            }
    };
    for it in r.items.iter_mut().filter(|it| h2(it)) {
        it.review = ReviewState::Accepted { label: C };
    }
    let t = paired_table(&r, CounterfactualClass::LabelPreserving, None).unwrap();
    assert_eq!((t.items, t.heuristic_left_out), (4, 0));
    let swap = r
        .items
        .iter()
        .position(|it| it.probe == ProbeKind::TitleSwap && paired_checks(&r, it).is_some())
        .expect("a counted title swap");
    r.items[swap].review = ReviewState::Rejected;
    let t = paired_table(&r, CounterfactualClass::LabelPreserving, None).unwrap();
    assert_eq!((t.items, t.heuristic_left_out), (3, 0));
    // The same item accepted as NEUTRAL: the reviewer's label is the one scored, so it is no
    // longer label-preserving and is left out with the NEUTRAL items.
    r.items[swap].review = ReviewState::Accepted { label: N };
    let t = paired_table(&r, CounterfactualClass::LabelPreserving, None).unwrap();
    assert_eq!(t.items, 3);
    let t = paired_table(&r, CounterfactualClass::LabelFlipping, None).unwrap();
    assert_eq!((t.items, t.neutral_left_out), (1, 2));
}

/// A derived example on the original's own table (a hand-rewritten hypothesis, `derived_from`
/// set, table unchanged) is a hypothesis edit: judged with the label-preserving hypothesis
/// edits, in no Table 8 (no counterfactual table was made).
#[test]
fn derived_hypothesis_rewrite_is_a_hypothesis_edit_not_a_counterfactual() {
    use tabprobe_core::metrics::TransitionSet;
    let mut d = running_example();
    let mut rw = d.examples[0].clone();
    rw.id = Some("H1~hand1".into());
    rw.hypothesis = "Breakfast in America is a pop album.".into();
    rw.derived_from = Some("H1".into());
    rw.operation = Some("hand_rewrite_hypothesis".into());
    d.examples.push(rw);
    let mut s = ProbeSettings::new(vec![ProbeKind::Counterfactual], 1);
    s.hypothesis_only = true;
    let mut run = ProbeRun::new(build_probe_set(&d, &s, &RuleSet::default()).unwrap(), 4);
    let mut fake = EvidenceFake::new();
    run.run(&mut fake, |_| {}, || false).unwrap();
    let r = run
        .finish(tabprobe_core::scoring::PairScorer::model_id(&fake))
        .unwrap();
    assert_eq!(r.items.len(), 1);
    let it = &r.items[0];
    assert!(TransitionSet::LabelPreservingHypothesis.contains(&r, it));
    assert!(!TransitionSet::LabelPreservingCounterfactual.contains(&r, it));
    assert_eq!(CounterfactualClass::of(&r, it), None);
    assert_eq!(
        paired_table(&r, CounterfactualClass::LabelPreserving, None),
        Err(PairedError::NoItems)
    );
    let files: Vec<String> = tabprobe_core::report::sections(&r)
        .into_iter()
        .map(|s| s.file())
        .collect();
    assert!(files.contains(&"invalid_label_preserving_hypothesis".to_string()));
    assert!(!files.iter().any(|f| f.starts_with("table8")), "{files:?}");
}
