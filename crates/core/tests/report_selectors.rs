//! Issue 15 §1: every figure of the report carries the items it counts. For each section
//! kind, on a run with every probe kind (the determinism fixture, scored by the hash fake,
//! with hypothesis-only scores), each row's (or cell's) [`ItemSelector`] is checked against
//! the figure: an edge's count, an invalid-transition percentage per split, Tables 4 / 7's
//! example counts, Table 8's combination counts, the examples evidence selection compares,
//! every word-order figure recomputed from the selected items alone, the Ω_x points and the
//! BLEU-2 bins. Both readings of the report are checked (heuristic items left out, and
//! included on request).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use tabprobe_core::data::label::Label;
use tabprobe_core::metrics::SplitColumn;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeItem};
use tabprobe_core::report::{
    num, pct, sections_with, ItemSelector, ReportOptions, Row, Section, SectionId,
};
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::PairScorer;

fn run() -> RunResult {
    hash_run(&every_probe_settings())
}

fn items<'r>(run: &'r RunResult, sel: &ItemSelector) -> Vec<&'r ProbeItem> {
    sel.select(run).into_iter().map(|i| &run.items[i]).collect()
}

fn examples(items: &[&ProbeItem]) -> BTreeSet<usize> {
    items.iter().map(|it| it.example).collect()
}

/// A count cell: empty reads 0.
fn count(cell: &str) -> usize {
    if cell.is_empty() {
        0
    } else {
        cell.parse()
            .unwrap_or_else(|_| panic!("not a count: {cell:?}"))
    }
}

fn cell<'a>(s: &Section, row: &'a Row, column: &str) -> &'a str {
    row.cell(
        s.column(column)
            .unwrap_or_else(|| panic!("{} has no {column}", s.file())),
    )
}

/// Whether the model's prediction on the item's perturbed pair is its example's gold label.
fn accepted(run: &RunResult, it: &ProbeItem) -> bool {
    run.example_of(it)
        .is_some_and(|e| run.predicted(it.perturbed_pair) == e.gold)
}

fn check_graph(run: &RunResult, s: &Section) -> usize {
    for row in &s.rows {
        let sel = row.items.as_ref().expect("every edge row has items");
        let listed = items(run, sel);
        assert_eq!(
            listed.len(),
            count(cell(s, row, "count")),
            "{} {:?}",
            s.file(),
            row.cells
        );
    }
    s.rows.len()
}

fn check_invalid(run: &RunResult, s: &Section) -> usize {
    let mut checked = 0;
    // A header names a split, or reads `all` for the examples without one.
    let splits: Vec<SplitColumn> = s.header[2..s.header.len() - 1]
        .iter()
        .map(|name| {
            SplitColumn::of(
                run.examples
                    .iter()
                    .find_map(|e| e.split.as_deref().filter(|s| s == name)),
            )
        })
        .collect();
    let mut label_rows: BTreeMap<String, usize> = BTreeMap::new();
    for row in &s.rows {
        let Some(ItemSelector::Invalid {
            set,
            split: None,
            category,
            before,
            include_heuristic,
        }) = &row.items
        else {
            assert!(
                row.cells.iter().any(|c| c == "n/a"),
                "{} {:?} has no items",
                s.file(),
                row.cells
            );
            continue;
        };
        let all = items(run, row.items.as_ref().unwrap()).len();
        match before {
            Some(before) => {
                *label_rows.entry(row.cells[0].clone()).or_default() += all;
                let mut per_split = 0;
                for (k, split) in splits.iter().enumerate() {
                    let at = |sel: ItemSelector| items(run, &sel).len();
                    let invalid = at(ItemSelector::Invalid {
                        set: *set,
                        split: Some(split.clone()),
                        category: category.clone(),
                        before: Some(*before),
                        include_heuristic: *include_heuristic,
                    });
                    // The cell's denominator: every item of the set, split and category
                    // predicted `before` first — the edges out of `before`.
                    let from_before: usize = Label::ALL
                        .iter()
                        .map(|&to| {
                            at(ItemSelector::Edge {
                                set: *set,
                                split: Some(split.clone()),
                                category: category.clone(),
                                from: *before,
                                to,
                                include_heuristic: *include_heuristic,
                            })
                        })
                        .sum();
                    let want = if from_before == 0 {
                        String::new()
                    } else {
                        num(100.0 * invalid as f64 / from_before as f64)
                    };
                    assert_eq!(
                        row.cell(2 + k),
                        want,
                        "{} {:?} split {split}",
                        s.file(),
                        row.cells
                    );
                    per_split += invalid;
                    checked += 1;
                }
                assert_eq!(all, per_split, "{} {:?}", s.file(), row.cells);
            }
            // The Average row lists every invalid item of its group: the label rows' together.
            None => assert_eq!(Some(&all), label_rows.get(&row.cells[0]), "{}", s.file()),
        }
    }
    checked
}

fn check_scores(run: &RunResult, s: &Section) -> usize {
    for row in &s.rows {
        let sel = row.items.as_ref().expect("every score row has items");
        let ItemSelector::Scored {
            hypothesis_only, ..
        } = sel
        else {
            panic!("{sel:?}")
        };
        let listed = items(run, sel);
        let kept = |preserving: bool| -> Vec<&ProbeItem> {
            listed
                .iter()
                .copied()
                .filter(|it| {
                    let gold = run.example_of(it).unwrap().gold;
                    it.scored_labels().unwrap().contains(&gold) == preserving
                })
                .collect()
        };
        let with = |preserving: bool| examples(&kept(preserving)).len();
        let what = format!("{} {:?}", s.file(), row.cells);
        let (p, f) = (
            count(cell(s, row, "preserved_n")),
            count(cell(s, row, "flipped_n")),
        );
        if s.id == SectionId::Table7 {
            // Table 7 samples every counted item (§6).
            assert_eq!((p, f), (kept(true).len(), kept(false).len()), "{what}");
        } else {
            // Table 4: one item per example (§4, issue 43): each example counts in exactly
            // one column, one where it has an item.
            assert_eq!(p + f, examples(&listed).len(), "{what}");
            assert!(p <= with(true) && f <= with(false), "{what}");
        }
        if !hypothesis_only {
            assert_eq!(
                examples(&listed).len(),
                count(cell(s, row, "original_n")),
                "{what}"
            );
        }
    }
    s.rows.len()
}

fn check_paired(run: &RunResult, s: &Section) -> usize {
    for row in &s.rows {
        let sel = row.items.as_ref().expect("every Table 8 row has items");
        assert_eq!(
            items(run, sel).len(),
            count(cell(s, row, "count")),
            "{:?}",
            row.cells
        );
    }
    s.rows.len()
}

fn check_evidence(run: &RunResult, s: &Section) -> usize {
    let mut checked = 0;
    for row in &s.rows {
        if let Some(sel) = &row.items {
            let listed = items(run, sel);
            assert_eq!(
                examples(&listed).len(),
                count(cell(s, row, "examples")),
                "{:?}",
                row.cells
            );
            checked += 1;
        } else {
            assert_eq!(
                cell(s, row, "examples"),
                "0",
                "{:?}: only an incomplete row has no items",
                row.cells
            );
        }
    }
    checked
}

fn check_evidence_examples(run: &RunResult, s: &Section) -> usize {
    for row in &s.rows {
        let sel = row.items.as_ref().expect("every example row has items");
        let listed = items(run, sel);
        assert_eq!(examples(&listed).len(), 1);
        // One row-deletion item per deleted row: `deleted/rows`.
        let deleted = cell(s, row, "rows_deleted").split('/').next().unwrap_or("");
        assert_eq!(listed.len(), count(deleted), "{:?}", row.cells);
        assert!(listed
            .iter()
            .all(|it| run.examples[it.example].id == row.cells[0]));
    }
    s.rows.len()
}

/// Per example of the selection: whether it was right unpermuted and its accepted share.
fn permuted(run: &RunResult, listed: &[&ProbeItem]) -> Vec<(bool, f64)> {
    let mut by: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for it in listed {
        let e = by.entry(it.example).or_default();
        e.0 += usize::from(accepted(run, it));
        e.1 += 1;
    }
    by.into_iter()
        .map(|(ex, (ok, n))| {
            let e = &run.examples[ex];
            (run.original_prediction(e) == e.gold, ok as f64 / n as f64)
        })
        .collect()
}

fn check_word_order(run: &RunResult, s: &Section) -> usize {
    let mut checked = 0;
    for row in &s.rows {
        let of = |column: &str| {
            let k = s.column(column).unwrap();
            let sel = row.cell_items.iter().find(|(c, _)| *c == k).map(|(_, s)| s);
            permuted(
                run,
                &items(run, sel.unwrap_or_else(|| panic!("{column} has no items"))),
            )
        };
        let n = of("examples").len();
        assert_eq!(n, count(cell(s, row, "examples")), "{:?}", row.cells);
        let share = |k: usize| pct(k as f64 / n as f64);
        let mean = |v: &[(bool, f64)]| {
            (!v.is_empty()).then(|| pct(v.iter().map(|e| e.1).sum::<f64>() / v.len() as f64))
        };
        let right = of("accuracy").iter().filter(|e| e.0).count();
        assert_eq!(share(right), cell(s, row, "accuracy"));
        let any = of("omega_max");
        assert!(any.iter().all(|e| e.1 > 0.0));
        assert_eq!(share(any.len()), cell(s, row, "omega_max"));
        let over = of("omega_rand");
        assert!(over.iter().all(|e| e.1 > 1.0 / 3.0));
        assert_eq!(share(over.len()), cell(s, row, "omega_rand"));
        let d_c = of("p_c");
        assert!(d_c.iter().all(|e| e.0));
        assert_eq!(mean(&d_c).unwrap_or_default(), cell(s, row, "p_c"));
        let d_c_acc = of("p_c_accepted_only");
        assert!(d_c_acc.iter().all(|e| e.0 && e.1 > 0.0));
        assert_eq!(
            mean(&d_c_acc).unwrap_or_default(),
            cell(s, row, "p_c_accepted_only")
        );
        let d_f = of("p_f");
        assert!(d_f.iter().all(|e| !e.0 && e.1 > 0.0));
        assert_eq!(mean(&d_f).unwrap_or_default(), cell(s, row, "p_f"));
        // The entropies average over the same sets as Ω_max, P^c (accepting) and P^f.
        for (column, set) in [
            ("entropy_accepted", &any),
            ("entropy_c", &d_c_acc),
            ("entropy_f", &d_f),
        ] {
            assert_eq!(of(column), *set, "{column}");
            assert_eq!(set.is_empty(), cell(s, row, column).is_empty(), "{column}");
        }
        checked += 10;
    }
    checked
}

fn check_omega(run: &RunResult, s: &Section, all: &BTreeMap<String, usize>) -> usize {
    for row in &s.rows {
        let listed = items(run, row.items.as_ref().expect("every Ω_x point has items"));
        let n = all[&row.cells[0]];
        assert_eq!(
            pct(examples(&listed).len() as f64 / n as f64),
            cell(s, row, "omega_x"),
            "{:?}",
            row.cells
        );
    }
    s.rows.len()
}

fn check_bleu(run: &RunResult, s: &Section) -> usize {
    for row in &s.rows {
        let listed = items(run, row.items.as_ref().expect("every bin has items"));
        assert_eq!(
            listed.len(),
            count(cell(s, row, "permutations")),
            "{:?}",
            row.cells
        );
        let ok = listed.iter().filter(|it| accepted(run, it)).count();
        assert_eq!(ok, count(cell(s, row, "accepted")), "{:?}", row.cells);
    }
    s.rows.len()
}

fn check_run(run: &RunResult, s: &Section) -> usize {
    let row = |k: &str| s.rows.iter().find(|r| r.cells[0] == k).unwrap();
    let all = items(run, row("items").items.as_ref().unwrap());
    assert_eq!(all.len(), count(&row("items").cells[1]));
    let truncated = items(run, row("truncated_pairs").items.as_ref().unwrap());
    let pairs: BTreeSet<usize> = truncated
        .iter()
        .flat_map(|it| [it.original_pair, it.perturbed_pair])
        .filter(|&p| run.pairs[p].score.truncated)
        .collect();
    assert!(pairs.len() <= count(&row("truncated_pairs").cells[1]));
    assert_eq!(truncated.is_empty(), pairs.is_empty());
    2
}

/// Every section of `run`'s report, each figure against its items; returns the figures
/// checked per kind of section.
fn check_all(run: &RunResult, opts: &ReportOptions) -> BTreeMap<&'static str, usize> {
    let secs = sections_with(run, opts);
    // Examples with permutations per group, for Ω_x (its denominator).
    let word_order_examples: BTreeMap<String, usize> = secs
        .iter()
        .filter(|s| s.id == SectionId::WordOrder)
        .flat_map(|s| {
            s.rows
                .iter()
                .map(|r| (r.cells[0].clone(), count(&r.cells[1])))
        })
        .collect();
    let mut checked: BTreeMap<&'static str, usize> = BTreeMap::new();
    for s in &secs {
        let (kind, n) = match s.id {
            SectionId::Graph(_) => ("graph", check_graph(run, s)),
            SectionId::Invalid(_) => ("invalid", check_invalid(run, s)),
            SectionId::Table4 | SectionId::Table7 => ("scores", check_scores(run, s)),
            SectionId::Table8(_) => ("table8", check_paired(run, s)),
            SectionId::Evidence => ("evidence", check_evidence(run, s)),
            SectionId::EvidenceExamples => ("evidence_examples", check_evidence_examples(run, s)),
            SectionId::WordOrder => ("word_order", check_word_order(run, s)),
            SectionId::WordOrderOmega => ("omega", check_omega(run, s, &word_order_examples)),
            SectionId::WordOrderBleu => ("bleu", check_bleu(run, s)),
            SectionId::Run => ("run", check_run(run, s)),
            // No items behind these: Table 1 counts examples, agreement counts ballots.
            SectionId::Table1 | SectionId::Agreement => {
                assert!(s
                    .rows
                    .iter()
                    .all(|r| r.items.is_none() && r.cell_items.is_empty()));
                continue;
            }
        };
        *checked.entry(kind).or_default() += n;
    }
    checked
}

#[test]
fn every_figure_lists_exactly_the_items_it_counts() {
    let run = run();
    for include_heuristic in [false, true] {
        let checked = check_all(
            &run,
            &ReportOptions {
                include_heuristic,
                ..ReportOptions::default()
            },
        );
        // Every kind of section was met, with figures to check.
        for kind in [
            "graph",
            "invalid",
            "scores",
            "table8",
            "evidence",
            "evidence_examples",
            "word_order",
            "omega",
            "bleu",
            "run",
        ] {
            assert!(
                checked.get(kind).is_some_and(|&n| n > 0),
                "no {kind} figure checked: {checked:?}"
            );
        }
    }
}

#[test]
fn a_selector_matches_a_figure_worked_by_hand() {
    // The running example's row deletion under the evidence fake: H1 loses ENTAIL when Genre
    // (row 3) or Length (row 4) goes, so of its 7 row deletions 2 go ENTAIL → NEUTRAL, and 5
    // stay ENTAIL → ENTAIL.
    use tabprobe_core::metrics::TransitionSet;
    use tabprobe_core::probe::ProbeSettings;
    use tabprobe_core::probe_kind::ProbeKind;
    let d = running_example();
    let set = build_probe_set(
        &d,
        &ProbeSettings::new(vec![ProbeKind::RowDeletion], 1),
        &RuleSet::default(),
    )
    .unwrap();
    let mut r = ProbeRun::new(set, 5);
    let mut fake = EvidenceFake::new();
    r.run(&mut fake, |_| {}, || false).unwrap();
    let run = r.finish(fake.model_id()).unwrap();
    let h1 = |from: Label, to: Label| {
        let sel = ItemSelector::Edge {
            set: TransitionSet::RowDeletion,
            split: Some(SplitColumn::Named("a1".into())),
            category: Some("numerical".into()),
            from,
            to,
            include_heuristic: false,
        };
        items(&run, &sel)
            .iter()
            .map(|it| it.id.clone())
            .collect::<Vec<_>>()
    };
    let to_neutral = h1(Label::Entail, Label::Neutral);
    assert_eq!(to_neutral.len(), 2, "{to_neutral:?}");
    assert!(to_neutral.iter().all(|id| id.starts_with("H1/")));
    assert_eq!(h1(Label::Entail, Label::Entail).len(), 5);
}

/// The page asks `has_score_tables` before it computes the sections (to lay out the report);
/// it must agree with the sections themselves, with and without score tables.
#[test]
fn has_score_tables_agrees_with_the_sections() {
    use tabprobe_core::probe_kind::ProbeKind;
    use tabprobe_core::report::{has_score_tables, sections};
    let full = run();
    assert!(has_score_tables(&full));
    assert!(sections(&full).iter().any(|s| s.id.is_score_table()));
    let mut settings = every_probe_settings();
    settings.probes = vec![ProbeKind::RowDeletion];
    let rows_only = hash_run(&settings);
    assert!(!has_score_tables(&rows_only));
    assert!(!sections(&rows_only).iter().any(|s| s.id.is_score_table()));
}

/// Issue 15 §2: the report the model worker builds and sends to the page holds the same
/// sections the report functions give, and survives its trip as JSON unchanged (the
/// selectors' thresholds to the bit: a drill-down compares them).
#[test]
fn the_full_report_is_the_sections_and_survives_json() {
    use tabprobe_core::report::{score_sections, sections, table8_sections, FullReport};
    let main = run();
    let opts = ReportOptions {
        include_heuristic: true,
        ..ReportOptions::default()
    };
    let report = FullReport::build(&[&main]);
    assert_eq!(report.sections, vec![sections(&main)]);
    // The reader's switch: the same score tables and Table 8 as the whole report counting
    // heuristic items.
    let with: Vec<Section> = sections_with(&main, &opts);
    let pick = |secs: &[Section], f: fn(SectionId) -> bool| -> Vec<Section> {
        secs.iter().filter(|s| f(s.id)).cloned().collect()
    };
    let is_t8 = |id: SectionId| matches!(id, SectionId::Table8(_));
    assert_eq!(
        report.scores_with_heuristic,
        vec![pick(&with, SectionId::is_score_table)]
    );
    assert!(!report.scores_with_heuristic[0].is_empty());
    assert_eq!(
        score_sections(&main, &opts),
        report.scores_with_heuristic[0]
    );
    let t8 = report.table8.clone().expect("one model has a Table 8");
    assert_eq!(t8.hypothesis_model, 0);
    assert_eq!(t8.default, pick(&sections(&main), is_t8));
    assert_eq!(t8.with_heuristic, pick(&with, is_t8));
    assert_eq!(t8.with_heuristic, table8_sections(&main, &opts));
    assert!(!t8.default.is_empty());
    let text = serde_json::to_string(&report).unwrap();
    let back: FullReport = serde_json::from_str(&text).unwrap();
    assert_eq!(back, report);
    // An Ω_x threshold comes back to the bit: serde_json's default reading gives
    // 0.9856906946328696 for this one (about one double in ten is read 1 ulp off without its
    // `float_roundtrip` feature; checked on 2,000,000 values, 2026-11-27).
    let omega = ItemSelector::Omega {
        group: None,
        x: 0.985_690_694_632_869_5,
    };
    let back: ItemSelector = serde_json::from_str(&serde_json::to_string(&omega).unwrap()).unwrap();
    assert_eq!(back, omega);

    // Two models: Table 8 takes O-Hypo from the second model's hypothesis-only scores.
    let second = run();
    let two = FullReport::build(&[&main, &second]);
    assert_eq!(two.sections.len(), 2);
    let combined = main.with_hypothesis_model(&second).unwrap();
    let t8 = two.table8.expect("same examples");
    assert_eq!(t8.hypothesis_model, 1);
    assert_eq!(t8.default, pick(&sections(&combined), is_t8));
    // A second run on other examples cannot lend its scores: said, not computed.
    let mut other = run();
    other.examples.pop();
    assert!(FullReport::build(&[&main, &other]).table8.is_err());
}

/// The run with its examples spread over two splits, so that figures have per-split graphs,
/// a pooled graph, a mean column and split groups.
fn run_in_two_splits() -> RunResult {
    let mut run = run();
    for (i, e) in run.examples.iter_mut().enumerate() {
        e.split = Some(if i % 2 == 0 { "a2" } else { "a3" }.to_string());
    }
    run
}

/// Checks one group's drawn figures against their selections; returns the marks checked by
/// kind.
fn check_figures(
    run: &RunResult,
    f: &tabprobe_core::report::Figures,
) -> BTreeMap<&'static str, usize> {
    let mut checked: BTreeMap<&'static str, usize> = BTreeMap::new();
    let in_group = |it: &ProbeItem| {
        f.group
            .as_ref()
            .is_none_or(|g| g.contains(&run.examples[it.example]))
    };
    let listed = |sel: &ItemSelector| {
        let l = items(run, sel);
        assert!(
            l.iter().all(|it| in_group(it)),
            "{sel:?} lists items outside {}",
            f.group_label()
        );
        l
    };
    for s in &f.sets {
        for g in s.splits.iter().chain(&s.pooled) {
            for e in &g.edges {
                assert_eq!(
                    listed(&e.items).len() as u64,
                    e.value.count,
                    "{} {} {:?}",
                    f.group_label(),
                    g.caption(),
                    e.value
                );
                *checked.entry("edge").or_default() += 1;
            }
        }
        let Some(t) = &s.table else { continue };
        // Each split's cell: its invalid items over the items of its graph out of `before`.
        let mut average = vec![0usize; t.table.splits.len() + 1];
        for (i, r) in t.table.rows.iter().enumerate() {
            if r.not_applicable {
                assert!(t.rows[i].is_empty());
                continue;
            }
            let mut per_split = 0;
            for (k, split) in t.table.splits.iter().enumerate() {
                let invalid = listed(t.cell_items(Some(i), k).expect("a cell's items")).len();
                let graph = s
                    .splits
                    .iter()
                    .find(|g| g.split.as_ref() == Some(split))
                    .expect("the split's graph");
                let from: u64 = graph
                    .edges
                    .iter()
                    .filter(|e| e.value.from == r.label)
                    .map(|e| e.value.count)
                    .sum();
                let want = (from > 0).then(|| num(100.0 * invalid as f64 / from as f64));
                assert_eq!(
                    r.per_split[k].map(num),
                    want,
                    "{} {:?} {split}",
                    f.group_label(),
                    r.label
                );
                per_split += invalid;
                average[k] += invalid;
                *checked.entry("invalid_cell").or_default() += 1;
            }
            // The mean column lists the row's invalid items in every split.
            assert_eq!(
                listed(t.row_items(Some(i)).expect("a row's items")).len(),
                per_split
            );
            average[t.table.splits.len()] += per_split;
        }
        if !t.table.not_applicable {
            for (k, want) in average.iter().enumerate() {
                assert_eq!(
                    listed(t.cell_items(None, k).expect("an Average cell")).len(),
                    *want
                );
            }
        }
    }
    if let Some(w) = &f.word_order {
        let permuted: BTreeSet<usize> = run
            .items
            .iter()
            .filter(|it| {
                it.probe == tabprobe_core::probe_kind::ProbeKind::WordOrder && in_group(it)
            })
            .map(|it| it.example)
            .collect();
        for p in &w.omega {
            let l = listed(&p.items);
            assert_eq!(
                pct(examples(&l).len() as f64 / permuted.len() as f64),
                pct(p.value.omega),
                "Ω at {}",
                p.value.x
            );
            *checked.entry("omega").or_default() += 1;
        }
        for b in &w.bleu {
            let l = listed(&b.items);
            assert_eq!(l.len(), b.value.total);
            assert_eq!(
                l.iter().filter(|it| accepted(run, it)).count(),
                b.value.accepted
            );
            *checked.entry("bleu").or_default() += 1;
        }
    }
    checked
}

#[test]
fn every_drawn_figure_lists_exactly_the_items_it_counts() {
    use tabprobe_core::metrics::Group;
    use tabprobe_core::report::FullReport;
    for run in [run(), run_in_two_splits()] {
        let report = FullReport::build(&[&run]);
        let per_group = &report.figures[0];
        // Every example first, then each split (when there are several) and category.
        assert_eq!(per_group[0].group, None);
        let groups: Vec<Option<Group>> = per_group.iter().map(|f| f.group.clone()).collect();
        assert!(
            groups.contains(&Some(Group::Category("numerical".into()))),
            "{groups:?}"
        );
        let mut total: BTreeMap<&'static str, usize> = BTreeMap::new();
        for f in per_group {
            for (k, n) in check_figures(&run, f) {
                *total.entry(k).or_default() += n;
            }
        }
        for kind in ["edge", "invalid_cell", "omega", "bleu"] {
            assert!(
                total.get(kind).is_some_and(|&n| n > 0),
                "no {kind} checked: {total:?}"
            );
        }
    }
    // In two splits: a pooled graph is drawn after each split's, and split groups exist.
    let two = run_in_two_splits();
    let figs = tabprobe_core::report::figures_by_group(&two);
    assert!(figs
        .iter()
        .any(|f| f.group == Some(Group::Split("a2".into()))));
    let drawn: Vec<&str> = figs[0].sets[0].drawn().map(|g| g.caption()).collect();
    assert_eq!(drawn, ["a2", "a3", "pooled"]);
    // A split's group draws that split alone, and its pooled marks select that split.
    let a3 = figs
        .iter()
        .find(|f| f.group == Some(Group::Split("a3".into())))
        .unwrap();
    let drawn: Vec<&str> = a3.sets[0].drawn().map(|g| g.caption()).collect();
    assert_eq!(drawn, ["a3"]);
}

#[test]
fn the_report_tables_are_laid_out_from_the_drawn_figures() {
    // The graph section's rows and the figure's marks: the same counts and the same items.
    use tabprobe_core::report::{sections, set_figures};
    let run = run_in_two_splits();
    let secs = sections(&run);
    for s in secs.iter().filter(|s| matches!(s.id, SectionId::Graph(_))) {
        let SectionId::Graph(set) = s.id else {
            unreachable!()
        };
        let f = set_figures(&run, set, None, false);
        let marks: Vec<(String, u64, ItemSelector)> = f
            .splits
            .iter()
            .chain(&f.pooled)
            .flat_map(|g| {
                g.edges
                    .iter()
                    .map(|e| (g.caption().to_string(), e.value.count, e.items.clone()))
            })
            .collect();
        let rows: Vec<(String, u64, ItemSelector)> = s
            .rows
            .iter()
            .map(|r| {
                (
                    r.cell(0).to_string(),
                    count(cell(s, r, "count")) as u64,
                    r.items.clone().unwrap(),
                )
            })
            .collect();
        assert_eq!(marks, rows, "{}", s.file());
    }
}
