//! The `tabprobe` binary end to end: `linearize`, `probe` with the tiny random checkpoint of
//! the model crate, and `report`, whose every figure must equal the one recomputed from the
//! run file through `tabprobe_core`. The model is random, so these tests check structure,
//! counts and consistency, never model quality. Bad input must fail with a message naming the
//! file and the place, a non-zero exit, and no panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};
use tabprobe_core::linearize::{linearize, Linearization};
use tabprobe_core::metrics::invalid::InvalidTransitionTable;
use tabprobe_core::metrics::{
    evidence_selection, groups, paired_checks, paired_table, perturbation_scores,
    run_word_order_metrics, set_graph, set_invalid_table, CounterfactualClass, Group, MeanSd,
    SampleOptions, ScoreView, SplitColumn, TransitionSet,
};
use tabprobe_core::probe::build_probe_set;
use tabprobe_core::probe::rules::Operation;
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::RunResult;
use tabprobe_core::Label;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture() -> PathBuf {
    manifest().join("tests/fixtures/small.json")
}

fn tiny() -> PathBuf {
    manifest().join("../model/tests/golden/tiny-f32")
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tabprobe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabprobe"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> (String, String) {
    let o = tabprobe(args);
    let (out, err) = (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    );
    assert!(o.status.success(), "tabprobe {args:?} failed:\n{err}");
    (out, err)
}

/// Runs a command that must fail cleanly; returns its stderr.
fn fails(args: &[&str]) -> String {
    let o = tabprobe(args);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(!o.status.success(), "tabprobe {args:?} succeeded");
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        !err.contains("panicked"),
        "tabprobe {args:?} panicked:\n{err}"
    );
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `tabprobe probe` on the fixture with every probe; returns the run file's path.
fn probe_all(dir: &Path, seed: &str) -> PathBuf {
    let out = dir.join("run.json");
    let (_, err) = ok(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&tiny()),
        "--probes",
        "all",
        "--seed",
        seed,
        "--word-order-q",
        "3",
        "--hypothesis-only",
        "--batch-size",
        "16",
        "--out",
        s(&out),
    ]);
    // 6 examples, one of them a shipped counterfactual reached only through the counterfactual probe.
    assert!(err.contains("probe set: 5 examples"), "{err}");
    assert!(err.contains("scored"), "no progress on stderr:\n{err}");
    out
}

fn read_run(path: &Path) -> RunResult {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn csv(dir: &Path, file: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(format!("{file}.csv")))
        .unwrap_or_else(|e| panic!("{file}.csv: {e}"));
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn rows<'a>(t: &'a [Vec<String>], group: &str) -> Vec<&'a Vec<String>> {
    t.iter().filter(|r| r[0] == group).collect()
}

fn n2(x: f64) -> String {
    format!("{x:.2}")
}
fn n4(x: f64) -> String {
    format!("{x:.4}")
}
fn o2(x: Option<f64>) -> String {
    x.map(n2).unwrap_or_default()
}
fn o4(x: Option<f64>) -> String {
    x.map(n4).unwrap_or_default()
}
/// A share as the report gives it: a percentage with two decimals.
fn p2(x: f64) -> String {
    n2(100.0 * x)
}
fn op2(x: Option<f64>) -> String {
    x.map(p2).unwrap_or_default()
}
fn msd(m: &Option<MeanSd>) -> Vec<String> {
    match m {
        Some(m) => vec![m.n.to_string(), n2(m.mean), n2(m.sd)],
        None => vec![String::new(); 3],
    }
}

#[test]
fn linearize_prints_one_json_line_per_table() {
    let (out, _) = ok(&[
        "linearize",
        "--dataset",
        s(&fixture()),
        "--strategy",
        "paragraph",
    ]);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l["table_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["T1264", "T996", "T7", "T1264_cf"]);
    // Figure 1 as a paragraph, by hand: multi-valued Genre takes "are … , and …".
    let p = lines[0]["premise"].as_str().unwrap();
    assert!(p.starts_with("The Released of Breakfast in America is 29 March 1979. "));
    assert!(p.contains("The Genre of Breakfast in America are pop, art rock, and soft rock."));
    // And it is exactly core's linearization, for every strategy.
    let d =
        tabprobe_core::parse_dataset("small.json", &std::fs::read_to_string(fixture()).unwrap())
            .unwrap();
    for strategy in Linearization::ALL {
        let (out, _) = ok(&[
            "linearize",
            "--dataset",
            s(&fixture()),
            "--strategy",
            strategy.as_str(),
        ]);
        for (line, t) in out.lines().zip(&d.tables) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["premise"], linearize(t, strategy).unwrap().as_str());
        }
    }
}

#[test]
fn probe_then_report_end_to_end() {
    let dir = scratch("e2e");
    let run_path = probe_all(&dir, "3");
    let run = read_run(&run_path);

    // Settings and model identity as given on the command line.
    assert_eq!(run.settings.seed, 3);
    assert_eq!(run.settings.probes, ProbeKind::all());
    assert_eq!(run.settings.word_order.q, 3);
    assert_eq!(run.model.name, "tiny-f32");
    let weights = std::fs::read(tiny().join("model.safetensors")).unwrap();
    assert_eq!(
        run.model.weights_sha256,
        format!("{:x}", Sha256::digest(&weights))
    );

    // Counts by hand (fixture: Breakfast in America 7 rows, Bridesmaids 4, Kind of Blue 4,
    // the counterfactual copy of Breakfast in America 7; six examples, of which H1-cf is a
    // shipped counterfactual of H1: reached through the counterfactual probe only, so the run
    // holds five originals).
    assert_eq!(run.examples.len(), 5);
    let count = |k: ProbeKind| run.items.iter().filter(|i| i.probe == k).count();
    // One deletion per row: H1, H2, H3 on 7 rows, H5 and K1 on 4.
    assert_eq!(count(ProbeKind::RowDeletion), 3 * 7 + 2 * 4);
    assert_eq!(count(ProbeKind::PremiseRemoval), 5);
    // Relevant rows: H1 2, H2 1, H3 1, H5 1, K1 2; H1-cf has none annotated (skipped).
    assert_eq!(count(ProbeKind::RelevantRowDeletion), 7);
    // All at once only where there are at least two (H1, K1): one row would repeat the above.
    assert_eq!(count(ProbeKind::AllRelevantRowsDeletion), 2);
    assert_eq!(count(ProbeKind::IrrelevantRowDeletion), 5 + 6 + 6 + 3 + 2);
    // k = 5 permutations per table.
    assert_eq!(count(ProbeKind::RowPermutation), 5 * 5);
    // H1-cf is H1's only shipped counterfactual.
    assert_eq!(count(ProbeKind::Counterfactual), 1);
    assert!(run.examples.iter().all(|e| e.id != "H1-cf"));
    // Every example has its hypothesis-only pair; every pair is scored with probabilities.
    assert_eq!(run.hypothesis_only_pairs.len(), 5);
    for p in &run.pairs {
        let sum: f32 = p.score.probs.iter().sum();
        assert!((sum - 1.0).abs() < 1e-4, "{:?}", p.score.probs);
        assert_eq!(p.score.logits.len(), 3);
    }
    // The file alone rebuilds the same items and pairs through core.
    let d =
        tabprobe_core::parse_dataset("small.json", &std::fs::read_to_string(fixture()).unwrap())
            .unwrap();
    let set = build_probe_set(&d, &run.settings, &run.rules).unwrap();
    assert_eq!(set.items, run.items);
    assert_eq!(set.examples, run.examples);
    let texts: Vec<_> = run.pairs.iter().map(|p| p.pair.clone()).collect();
    assert_eq!(set.pairs, texts);

    // The report, as text and CSV.
    let csv_dir = dir.join("csv");
    let (text, _) = ok(&["report", s(&run_path), "--csv", s(&csv_dir)]);
    for title in [
        "Table 4",
        "Table 7",
        "Table 5",
        "Table 6",
        "Table 13",
        "Table 14",
        "Table 15",
        "Table 16",
        "Table 17",
        "Transition graph — row_deletion",
        "Evidence selection",
        "Word order",
        "Table 8",
    ] {
        assert!(text.contains(title), "report lacks {title}:\n{text}");
    }
    check_report_equals_core(&run, &csv_dir);
}

/// Every CSV cell equals the figure core computes from the run file.
fn check_report_equals_core(run: &RunResult, dir: &Path) {
    // Invalid-transition tables (all examples, then per category) and graphs.
    // One table and graph per transition set (Table 6's single and all-relevant-rows
    // deletions apart; the label-preserving rule's hypothesis and counterfactual sets).
    for set in TransitionSet::ALL {
        let name = set.as_str();
        let Some(t) = set_invalid_table(run, set, None) else {
            assert!(!dir.join(format!("invalid_{name}.csv")).exists());
            continue;
        };
        let table = csv(dir, &format!("invalid_{name}"));
        let check = |group: &str, t: &InvalidTransitionTable, splits: &[SplitColumn]| {
            let got = rows(&table, group);
            assert_eq!(got.len(), t.rows.len() + 1, "{name} {group}");
            let cell = |per: &[Option<f64>], sp: &SplitColumn| {
                t.splits
                    .iter()
                    .position(|x| x == sp)
                    .map(|i| o2(per[i]))
                    .unwrap_or_default()
            };
            for (r, row) in t.rows.iter().zip(&got) {
                let mut want = vec![group.to_string(), r.label.to_string()];
                want.extend(splits.iter().map(|sp| cell(&r.per_split, sp)));
                want.push(o2(r.mean));
                assert_eq!(**row, want, "{name} {group}");
            }
            let mut avg = vec![group.to_string(), "Average".to_string()];
            avg.extend(splits.iter().map(|sp| cell(&t.average, sp)));
            avg.push(o2(t.mean_average));
            assert_eq!(*got[t.rows.len()], avg, "{name} {group}");
        };
        check("all", &t, &t.splits);
        let cats: Vec<(String, InvalidTransitionTable)> = groups(run)
            .into_iter()
            .filter_map(|g| {
                let Group::Category(c) = &g else { return None };
                Some((c.clone(), set_invalid_table(run, set, Some(&g))?))
            })
            .collect();
        assert!(!cats.is_empty(), "{name}: the fixture has categories");
        for (c, ct) in &cats {
            check(&format!("category:{c}"), ct, &t.splits);
        }

        let g = set_graph(run, set, None).unwrap();
        let graph = csv(dir, &format!("graph_{name}"));
        let mut want: Vec<Vec<String>> = Vec::new();
        for (split, edges) in g
            .splits
            .iter()
            .map(|(s, e)| (s.name(), e))
            .chain([("pooled", &g.pooled)])
        {
            for e in edges {
                want.push(vec![
                    split.to_string(),
                    e.from.to_string(),
                    e.to.to_string(),
                    e.count.to_string(),
                    n2(e.percent),
                    if e.valid { "valid" } else { "INVALID" }.to_string(),
                ]);
            }
        }
        assert_eq!(graph, want, "graph {name}");
        // Out of each node the printed percentages add up to 100 (up to rounding).
        for from in Label::ALL {
            let sum: f64 = graph
                .iter()
                .filter(|r| r[0] == "pooled" && r[1] == from.as_str())
                .map(|r| r[4].parse::<f64>().unwrap())
                .sum();
            assert!(
                sum == 0.0 || (sum - 100.0).abs() < 0.02,
                "{name} {from}: {sum}"
            );
        }
    }

    // Tables 4 and 7: each probe (Table 4 then all of them pooled; Table 7 the swaps, their
    // pooled label-preserving row, then the label-flipping counterfactuals), overall then per
    // group, first the full model, then (the run has --hypothesis-only) the hypothesis alone;
    // the last three columns count the items left out (heuristic, rejected, NEUTRAL).
    let opts = SampleOptions {
        seed: run.settings.seed,
        ..SampleOptions::default()
    };
    let present = |kinds: &[ProbeKind]| -> Vec<ProbeKind> {
        kinds
            .iter()
            .copied()
            .filter(|k| run.items.iter().any(|i| i.probe == *k))
            .collect()
    };
    let t4 = present(&ProbeKind::HYPOTHESIS);
    let mut t4_rows: Vec<(String, Vec<ProbeKind>)> = t4
        .iter()
        .map(|k| (k.as_str().to_string(), vec![*k]))
        .collect();
    if t4.len() > 1 {
        t4_rows.push(("all".to_string(), t4.clone()));
    }
    let swaps = present(&[ProbeKind::RowSwap, ProbeKind::TitleSwap]);
    let mut t7_rows: Vec<(String, Vec<ProbeKind>)> = swaps
        .iter()
        .map(|k| (k.as_str().to_string(), vec![*k]))
        .collect();
    if swaps.len() > 1 {
        t7_rows.push(("label_preserving".to_string(), swaps.clone()));
    }
    for k in present(&[ProbeKind::Counterfactual]) {
        t7_rows.push((k.as_str().to_string(), vec![k]));
    }
    assert!(!run.hypothesis_only_pairs.is_empty());
    for (file, specs) in [("table4_scores", t4_rows), ("table7_scores", t7_rows)] {
        let table = csv(dir, file);
        assert!(!specs.is_empty(), "{file}");
        let mut want: Vec<Vec<String>> = Vec::new();
        for (name, ks) in &specs {
            for (view, model) in [
                (ScoreView::PremiseAndHypothesis, "prem+hypo"),
                (ScoreView::HypothesisOnly, "hypo-only view"),
            ] {
                // Table 7 samples every counterfactual item (§6), Table 4 one per example (§4).
                let opts = SampleOptions {
                    one_per_example: file == "table4_scores",
                    ..opts
                };
                let sc = perturbation_scores(run, ks, &opts, view, None);
                let mut groups = vec![("all".to_string(), sc)];
                // The score tables list their groups by name.
                let mut by_label = tabprobe_core::metrics::groups(run);
                by_label.sort_by_key(Group::label);
                groups.extend(by_label.iter().map(|g| {
                    (
                        g.label(),
                        perturbation_scores(run, ks, &opts, view, Some(g)),
                    )
                }));
                for (g, sc) in groups {
                    let mut row = vec![g, name.clone(), model.to_string()];
                    for m in [&sc.original, &sc.label_preserved, &sc.label_flipped] {
                        row.extend(msd(m));
                    }
                    let l = sc.left_out;
                    row.extend(
                        [l.heuristic_unreviewed, l.rejected, l.neutral].map(|n| n.to_string()),
                    );
                    want.push(row);
                }
            }
        }
        assert_eq!(table, want, "{file}");
    }

    // Table 1: per split then all, accuracy on the originals, the hypothesis-only accuracy and
    // the majority baseline, recomputed by hand from the run file.
    let t1 = csv(dir, "table1_accuracy");
    let mut splits: Vec<Option<String>> = run
        .examples
        .iter()
        .filter_map(|e| e.split.clone())
        .map(Some)
        .collect();
    splits.sort();
    splits.dedup();
    // One split holding every example is named once, not again as `all`.
    let single = splits.len() == 1 && run.examples.iter().all(|e| e.split.is_some());
    if !single {
        splits.push(None);
    }
    let want: Vec<Vec<String>> = splits
        .iter()
        .map(|sp| {
            let ix: Vec<usize> = (0..run.examples.len())
                .filter(|&i| sp.is_none() || run.examples[i].split == *sp)
                .collect();
            let n = ix.len() as f64;
            let right = |pair: &dyn Fn(usize) -> usize| {
                ix.iter()
                    .filter(|&&i| run.predicted(pair(i)) == run.examples[i].gold)
                    .count() as f64
            };
            let counts =
                Label::ALL.map(|l| ix.iter().filter(|&&i| run.examples[i].gold == l).count());
            let best = (0..3).fold(0, |b, i| if counts[i] > counts[b] { i } else { b });
            vec![
                sp.clone().unwrap_or_else(|| "all".to_string()),
                run.model.name.clone(),
                ix.len().to_string(),
                n2(100.0 * right(&|i| run.examples[i].pair) / n),
                n2(100.0 * right(&|i| run.hypothesis_only_pairs[i]) / n),
                Label::ALL[best].to_string(),
                n2(100.0 * counts[best] as f64 / n),
            ]
        })
        .collect();
    assert_eq!(t1, want);

    // Evidence selection, overall and per group.
    let ev = csv(dir, "evidence");
    let all = evidence_selection(run, None).unwrap();
    let mut groups = vec![("all".to_string(), all.clone())];
    groups.extend(
        tabprobe_core::metrics::groups(run)
            .into_iter()
            .filter_map(|g| Some((g.label(), evidence_selection(run, Some(&g))?))),
    );
    let want: Vec<Vec<String>> = groups
        .iter()
        .map(|(g, e)| {
            vec![
                g.clone(),
                e.examples.to_string(),
                e.incomplete.len().to_string(),
                n2(e.precision),
                n2(e.recall),
                n2(e.all),
                n2(e.some),
                n2(e.none),
                o2(e.ignores_premise_within_none),
                n2(e.ignores_premise),
                n2(e.correct_all),
                n2(e.correct_some),
                n2(e.correct_none),
            ]
        })
        .collect();
    assert_eq!(ev, want);
    // H1, H2, H5, K1 qualify (H3 is NEUTRAL; H1-cf has no relevant rows).
    assert_eq!(all.examples, 4);
    assert_eq!(csv(dir, "evidence_examples").len(), 4);

    // Word order, overall and per group.
    let wo = csv(dir, "word_order");
    let mut groups = vec![("all".to_string(), run_word_order_metrics(run, &[], None))];
    groups.extend(
        tabprobe_core::metrics::groups(run)
            .into_iter()
            .map(|g| (g.label(), run_word_order_metrics(run, &[], Some(&g))))
            .filter(|(_, m)| m.examples > 0 || m.skipped > 0),
    );
    let want: Vec<Vec<String>> = groups
        .iter()
        .map(|(g, m)| {
            vec![
                g.clone(),
                m.examples.to_string(),
                m.skipped.to_string(),
                p2(m.accuracy),
                p2(m.omega_max),
                p2(m.omega_rand),
                op2(m.p_c),
                op2(m.p_c_accepted_only),
                op2(m.p_f),
                o4(m.mean_entropy_accepted),
                o4(m.mean_entropy_c),
                o4(m.mean_entropy_f),
            ]
        })
        .collect();
    assert_eq!(wo, want);
    let bins = csv(dir, "word_order_bleu");
    assert_eq!(bins.len(), groups.len() * 6);
    for (g, m) in &groups {
        let got = rows(&bins, g);
        for (b, row) in m.bleu_bins.iter().zip(got) {
            assert_eq!(row[3], b.total.to_string());
            assert_eq!(row[4], b.accepted.to_string());
            assert_eq!(row[5], op2(b.rate));
        }
    }

    // Table 8, one per class of counterfactual (label-flipping, label-preserving), overall
    // then per group; NEUTRAL and heuristic items left out.
    let mark = |b: bool| if b { "right" } else { "wrong" }.to_string();
    let mut counted = 0;
    for class in CounterfactualClass::ALL {
        let file = format!("table8_paired_{}", class.as_str());
        let Ok(t) = paired_table(run, class, None) else {
            assert!(!dir.join(format!("{file}.csv")).exists(), "{file}");
            continue;
        };
        let t8 = csv(dir, &file);
        let mut groups = vec![("all".to_string(), t.rows.clone())];
        groups.extend(
            tabprobe_core::metrics::groups(run)
                .into_iter()
                .filter_map(|g| Some((g.label(), paired_table(run, class, Some(&g)).ok()?.rows))),
        );
        let want: Vec<Vec<String>> = groups
            .iter()
            .flat_map(|(g, rs)| {
                rs.iter().map(move |r| {
                    vec![
                        g.clone(),
                        mark(r.c_thp),
                        mark(r.o_thp),
                        mark(r.o_hypo),
                        r.count.to_string(),
                        n2(r.percent),
                        if r.in_paper { "yes" } else { "no" }.to_string(),
                    ]
                })
            })
            .collect();
        assert_eq!(t8, want, "{file}");
        let total: usize = t.rows.iter().map(|r| r.count).sum();
        assert_eq!(total, t.items, "{file}");
        counted += total;
    }
    // Every counted item is a counterfactual item with its three checks, and no other.
    let checked = run
        .items
        .iter()
        .filter(|i| paired_checks(run, i).is_some())
        .count();
    assert_eq!(counted, checked);
    assert!(counted > 0, "the fixture has counted counterfactual items");
}

#[test]
fn same_seed_same_run_file_different_seed_different_items() {
    let a = std::fs::read(probe_all(&scratch("seed-a"), "11")).unwrap();
    let b = std::fs::read(probe_all(&scratch("seed-b"), "11")).unwrap();
    assert!(a == b, "two runs with seed 11 differ");
    let c = read_run(&probe_all(&scratch("seed-c"), "12"));
    let a: RunResult = serde_json::from_slice(&a).unwrap();
    assert_ne!(a.items, c.items);
}

#[test]
fn rules_file_overrides_one_rule_and_is_recorded() {
    let dir = scratch("rules");
    let rules = dir.join("rules.json");
    std::fs::write(
        &rules,
        r#"{"rules": [{"operation": "row_permutation", "valid": {"ENTAIL": ["ENTAIL", "NEUTRAL"], "NEUTRAL": ["NEUTRAL"], "CONTRADICT": ["CONTRADICT", "NEUTRAL"]}, "source": "user"}]}"#,
    )
    .unwrap();
    let out = dir.join("run.json");
    ok(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&tiny()),
        "--probes",
        "row_permutation,row_deletion",
        "--rules",
        s(&rules),
        "--out",
        s(&out),
    ]);
    let run = read_run(&out);
    let r = run.rules.get(Operation::RowPermutation).unwrap();
    assert_eq!(r.source, "user");
    assert!(r.is_valid(Label::Entail, Label::Neutral));
    // The other rules stay the defaults.
    assert_eq!(run.rules.rules.len(), Operation::ALL.len());
    assert_eq!(
        run.rules.get(Operation::RowDeletion).unwrap().source,
        "§5.1, Fig. 3, Table 5"
    );
    // Only the chosen probes ran; the report has no Table 4 and no Table 8.
    assert_eq!(
        run.settings.probes,
        [ProbeKind::RowPermutation, ProbeKind::RowDeletion]
    );
    let (text, _) = ok(&["report", s(&out)]);
    assert!(text.contains("Table 15") && text.contains("Table 5"));
    assert!(!text.contains("Table 4") && !text.contains("Table 8"));
    assert!(
        text.contains("CONTRADICT→{CONTRADICT,NEUTRAL} (user)"),
        "{text}"
    );
}

#[test]
fn missing_model_file_is_named() {
    let dir = scratch("missing-model");
    let model = dir.join("tiny");
    std::fs::create_dir_all(&model).unwrap();
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(tiny().join(f), model.join(f)).unwrap();
    }
    let err = fails(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&model),
        "--probes",
        "negation",
        "--out",
        s(&dir.join("run.json")),
    ]);
    assert!(
        err.contains(&format!(
            "{}: not a complete checkpoint folder: missing model.safetensors (or pytorch_model.bin)",
            s(&model)
        )),
        "{err}"
    );
    assert!(!dir.join("run.json").exists());
    // A folder that does not exist at all.
    let err = fails(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&dir.join("nowhere")),
        "--probes",
        "negation",
        "--out",
        s(&dir.join("run.json")),
    ]);
    assert!(
        err.contains("nowhere") && err.contains("not a folder"),
        "{err}"
    );
    // Broken weights: the model crate's error, prefixed with the folder.
    std::fs::write(model.join("model.safetensors"), b"not safetensors").unwrap();
    let err = fails(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&model),
        "--probes",
        "negation",
        "--out",
        s(&dir.join("run.json")),
    ]);
    assert!(
        err.contains(s(&model)) && err.contains("model.safetensors could not be read"),
        "{err}"
    );
}

#[test]
fn unknown_probe_name_lists_the_known_ones() {
    let dir = scratch("unknown-probe");
    let err = fails(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&tiny()),
        "--probes",
        "row_deletion,row_shuffle",
        "--out",
        s(&dir.join("run.json")),
    ]);
    assert!(
        err.contains("--probes") && err.contains("\"row_shuffle\""),
        "{err}"
    );
    assert!(
        err.contains("word_order") && err.contains("title_swap"),
        "{err}"
    );
    let err = fails(&[
        "linearize",
        "--dataset",
        s(&fixture()),
        "--strategy",
        "markdown",
    ]);
    assert!(
        err.contains("--strategy") && err.contains("\"markdown\""),
        "{err}"
    );
}

#[test]
fn bad_dataset_names_file_and_place() {
    let dir = scratch("bad-dataset");
    let mut d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    d["examples"][1]["label"] = "MAYBE".into();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, serde_json::to_string_pretty(&d).unwrap()).unwrap();
    for args in [
        vec!["linearize", "--dataset", s(&bad)],
        vec![
            "probe",
            "--dataset",
            s(&bad),
            "--model",
            s(&tiny()),
            "--probes",
            "negation",
            "--out",
            s(&dir.join("run.json")),
        ],
    ] {
        let err = fails(&args);
        assert!(err.contains(s(&bad)), "{err}");
        assert!(err.contains("$.examples[1].label"), "{err}");
    }
    // Not JSON at all: line and column.
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\n  \"format\": \"tabprobe-dataset\",\n  oops\n}").unwrap();
    let err = fails(&["linearize", "--dataset", s(&broken)]);
    assert!(err.contains(s(&broken)) && err.contains("line 3"), "{err}");
    // A file that is not there.
    let err = fails(&["linearize", "--dataset", s(&dir.join("absent.json"))]);
    assert!(
        err.contains("absent.json") && err.contains("cannot read"),
        "{err}"
    );
}

#[test]
fn bad_rules_and_run_files_name_file_and_place() {
    let dir = scratch("bad-files");
    let rules = dir.join("rules.json");
    std::fs::write(
        &rules,
        r#"{"rules": [{"operation": "row_permutation", "valid": {"ENTAIL": ["YES"]}}]}"#,
    )
    .unwrap();
    let err = fails(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&tiny()),
        "--probes",
        "row_permutation",
        "--rules",
        s(&rules),
        "--out",
        s(&dir.join("run.json")),
    ]);
    assert!(
        err.contains(s(&rules)) && err.contains("rules[0].valid.ENTAIL"),
        "{err}"
    );

    // A dataset is not a run file.
    let err = fails(&["report", s(&fixture())]);
    assert!(
        err.contains("$.format") && err.contains("tabprobe-run"),
        "{err}"
    );
    // A run whose item points past the pairs.
    let run_path = dir.join("run.json");
    ok(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&tiny()),
        "--probes",
        "premise_removal",
        "--out",
        s(&run_path),
    ]);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run_path).unwrap()).unwrap();
    v["items"][2]["perturbed_pair"] = 999.into();
    let dangling = dir.join("dangling.json");
    std::fs::write(&dangling, v.to_string()).unwrap();
    let err = fails(&["report", s(&dangling)]);
    assert!(
        err.contains(s(&dangling)) && err.contains("$.items[2].perturbed_pair is 999"),
        "{err}"
    );
    // A wrong type deep inside: the JSON path says where.
    v["items"][2]["perturbed_pair"] = "three".into();
    std::fs::write(&dangling, v.to_string()).unwrap();
    let err = fails(&["report", s(&dangling)]);
    assert!(err.contains("items[2].perturbed_pair"), "{err}");
}

/// Parses `tabprobe predict`'s JSON lines.
fn predictions(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn logits(v: &serde_json::Value) -> Vec<f64> {
    v["logits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn predict_reproduces_the_golden_logits_of_the_tiny_model() {
    let dir = scratch("predict-golden");
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(manifest().join("../model/tests/golden/golden.json")).unwrap(),
    )
    .unwrap();
    let pairs = golden["pairs"].as_array().unwrap();
    // A blank line in the middle: skipped, and output lines still name input lines.
    let mut input = String::new();
    for (i, p) in pairs.iter().enumerate() {
        if i == 5 {
            input.push('\n');
        }
        let line = serde_json::json!({
            "id": format!("g{i}"), "premise": p["premise"], "hypothesis": p["hypothesis"]
        });
        input.push_str(&format!("{line}\n"));
    }
    let in_path = dir.join("pairs.jsonl");
    let out_path = dir.join("out/predictions.jsonl");
    std::fs::write(&in_path, input).unwrap();
    let (_, err) = ok(&[
        "predict",
        "--model",
        s(&tiny()),
        "--input",
        s(&in_path),
        "--out",
        s(&out_path),
        "--batch-size",
        "5",
    ]);
    assert!(err.contains("pairs had their premise truncated"), "{err}");
    let out = predictions(&std::fs::read_to_string(&out_path).unwrap());
    let want = golden["variants"]["f32"]["logits"].as_array().unwrap();
    assert_eq!(out.len(), pairs.len());
    let mut max_diff: f64 = 0.0;
    for (i, ((o, p), w)) in out.iter().zip(pairs).zip(want).enumerate() {
        assert_eq!(o["id"], format!("g{i}").as_str());
        assert_eq!(o["line"], if i < 5 { i + 1 } else { i + 2 });
        assert_eq!(o["truncated"], p["truncated"], "pair {i}");
        assert_eq!(
            o["premise_tokens_dropped"], p["premise_tokens_dropped"],
            "pair {i}"
        );
        let w: Vec<f64> = w
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        for (a, b) in logits(o).iter().zip(&w) {
            max_diff = max_diff.max((a - b).abs());
        }
        let probs: Vec<f64> = o["probs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(probs.len(), 3);
        assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-5);
        let best = (0..3)
            .reduce(|b, k| if probs[k] > probs[b] { k } else { b })
            .unwrap();
        assert_eq!(o["label"], Label::ALL[best].as_str());
    }
    eprintln!("predict through the CLI: max |Δlogit| vs transformers = {max_diff:.3e}");
    assert!(max_diff <= 1e-4, "max |Δlogit| {max_diff:e}");
}

/// Every other family's tiny checkpoint (`crates/model/tests/golden/families/`) through
/// `tabprobe predict`: its golden logits within 1e-4, and the architecture and parameter count
/// on stderr. `bert-bin` holds only `pytorch_model.bin`, read through the CLI's conversion.
#[test]
fn predict_reproduces_the_golden_logits_of_every_family() {
    let families = manifest().join("../model/tests/golden/families");
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(families.join("golden.json")).unwrap())
            .unwrap();
    let pairs = golden["pairs"].as_array().unwrap();
    let dir = scratch("predict-families");
    let mut input = String::new();
    for p in pairs {
        let line = serde_json::json!({"premise": p["premise"], "hypothesis": p["hypothesis"]});
        input.push_str(&format!("{line}\n"));
    }
    let in_path = dir.join("pairs.jsonl");
    std::fs::write(&in_path, input).unwrap();
    let mut runs: Vec<(String, &str)> = golden["families"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| (k.clone(), k.as_str()))
        .collect();
    runs.push(("bert-bin".to_string(), "bert"));
    for (folder, family) in &runs {
        let f = &golden["families"][*family];
        let out_path = dir.join(format!("{folder}.jsonl"));
        let (_, err) = ok(&[
            "predict",
            "--model",
            s(&families.join(folder)),
            "--input",
            s(&in_path),
            "--out",
            s(&out_path),
        ]);
        let class = f["architecture"].as_str().unwrap();
        let params = f["parameter_count"].as_u64().unwrap();
        assert!(
            err.contains(&format!("({class}), {params} parameters")),
            "{folder}: {err}"
        );
        let out = predictions(&std::fs::read_to_string(&out_path).unwrap());
        let want = f["logits"].as_array().unwrap();
        assert_eq!(out.len(), want.len(), "{folder}");
        let mut max_diff: f64 = 0.0;
        for (o, w) in out.iter().zip(want) {
            for (a, b) in logits(o).iter().zip(w.as_array().unwrap()) {
                max_diff = max_diff.max((a - b.as_f64().unwrap()).abs());
            }
        }
        eprintln!("predict {folder}: max |Δlogit| vs transformers = {max_diff:.3e}");
        assert!(max_diff <= 1e-4, "{folder}: max |Δlogit| {max_diff:e}");
    }
}

#[test]
fn predict_table_lines_equal_the_same_pairs_given_as_text() {
    let dir = scratch("predict-table");
    let d =
        tabprobe_core::parse_dataset("small.json", &std::fs::read_to_string(fixture()).unwrap())
            .unwrap();
    let hyp = "Breakfast in America was released in 1979.";
    let by_table: String = ["T1264", "T996"]
        .iter()
        .map(|t| format!("{}\n", serde_json::json!({"table": t, "hypothesis": hyp})))
        .collect();
    let by_text: String = ["T1264", "T996"]
        .iter()
        .map(|t| {
            let premise = linearize(d.table(t).unwrap(), Linearization::Paragraph).unwrap();
            format!(
                "{}\n",
                serde_json::json!({"premise": premise, "hypothesis": hyp})
            )
        })
        .collect();
    let (a, b) = (dir.join("tables.jsonl"), dir.join("texts.jsonl"));
    std::fs::write(&a, by_table).unwrap();
    std::fs::write(&b, by_text).unwrap();
    let (model, dataset_path) = (tiny(), fixture());
    for order in ["premise_first", "hypothesis_first"] {
        let run = |input: &Path, dataset: bool| {
            let mut args = vec![
                "predict",
                "--model",
                s(&model),
                "--input",
                s(input),
                "--linearization",
                "paragraph",
                "--order",
                order,
            ];
            if dataset {
                args.extend(["--dataset", s(&dataset_path)]);
            }
            predictions(&ok(&args).0)
        };
        let (from_tables, from_texts) = (run(&a, true), run(&b, false));
        assert_eq!(from_tables.len(), 2);
        assert_eq!(from_tables, from_texts, "{order}");
    }
    // `--linearization none` is core's hypothesis-only premise mode: the tables are not read,
    // so both lines score the hypothesis alone, as a line with an empty premise does.
    let empty = dir.join("empty.jsonl");
    std::fs::write(
        &empty,
        format!(
            "{}\n",
            serde_json::json!({"premise": "", "hypothesis": hyp})
        ),
    )
    .unwrap();
    let none = |input: &Path| {
        predictions(
            &ok(&[
                "predict",
                "--model",
                s(&model),
                "--input",
                s(input),
                "--linearization",
                "none",
                "--dataset",
                s(&dataset_path),
            ])
            .0,
        )
    };
    let (tables, alone) = (none(&a), none(&empty));
    assert_eq!(tables.len(), 2);
    for t in &tables {
        assert_eq!(logits(t), logits(&alone[0]));
    }
    let with_premise = predictions(
        &ok(&[
            "predict",
            "--model",
            s(&model),
            "--input",
            s(&a),
            "--dataset",
            s(&dataset_path),
        ])
        .0,
    );
    assert_ne!(logits(&with_premise[0]), logits(&alone[0]));
}

#[test]
fn predict_bad_lines_name_the_file_and_the_line() {
    let dir = scratch("predict-bad");
    let input = dir.join("bad.jsonl");
    std::fs::write(
        &input,
        concat!(
            "{\"premise\": \"fine\", \"hypothesis\": \"fine\"}\n",
            "{\"premise\": 3, \"hypothesis\": \"x\"}\n",
            "[1, 2]\n",
            "{\"hypothesis\": \"h\"}\n",
            "not json\n",
            "{\"premise\": \"a\", \"table\": \"T7\", \"hypothesis\": \"c\"}\n",
            "{\"table\": \"T7\", \"hypothesis\": \"h\"}\n",
            "{\"premise\": \"a\"}\n",
        ),
    )
    .unwrap();
    let err = fails(&["predict", "--model", s(&tiny()), "--input", s(&input)]);
    let f = s(&input);
    assert!(err.contains(&format!("{f}: 7 bad line(s)")), "{err}");
    for (line, what) in [
        (
            2,
            "at premise: invalid type: integer `3`, expected a string",
        ),
        (3, "not a JSON object"),
        (4, "has neither \"premise\" nor \"table\""),
        (5, "not JSON (column 2"),
        (6, "has both \"premise\" and \"table\""),
        (7, "names table \"T7\" but no --dataset was given"),
        (8, "missing field `hypothesis`"),
    ] {
        assert!(
            err.contains(&format!("{f}: line {line}: {what}")),
            "line {line}: {err}"
        );
    }
    assert!(!err.contains(&format!("{f}: line 1:")), "{err}");
    // With the dataset: an unknown table is named.
    std::fs::write(&input, "{\"table\": \"T404\", \"hypothesis\": \"h\"}\n").unwrap();
    let err = fails(&[
        "predict",
        "--model",
        s(&tiny()),
        "--input",
        s(&input),
        "--dataset",
        s(&fixture()),
    ]);
    assert!(
        err.contains(&format!(
            "{f}: line 1: table \"T404\" is not in the dataset"
        )),
        "{err}"
    );
    // A missing input file and an empty one.
    let err = fails(&[
        "predict",
        "--model",
        s(&tiny()),
        "--input",
        s(&dir.join("absent.jsonl")),
    ]);
    assert!(err.contains("absent.jsonl: cannot read"), "{err}");
    std::fs::write(&input, "\n\n").unwrap();
    let err = fails(&["predict", "--model", s(&tiny()), "--input", f]);
    assert!(err.contains("no pairs to score"), "{err}");
}

/// `tabprobe bench` once on the tiny RoBERTa and the tiny DeBERTa-v3 (every family runs
/// through it): the shape of the table only, never the speed (a benchmark, not a timed test).
#[test]
fn bench_prints_one_row_per_configuration() {
    let deberta = manifest().join("../model/tests/golden/families/deberta-v3");
    let models = format!("{},{}", s(&tiny()), s(&deberta));
    let (out, err) = ok(&[
        "bench",
        "--model",
        &models,
        "--backends",
        "flex",
        "--batch-sizes",
        "1,3",
        "--seq-lens",
        "16,500,96",
        "--repeats",
        "1",
    ]);
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        lines[0],
        [
            "model",
            "architecture",
            "backend",
            "seq_len",
            "batch_size",
            "examples_per_s_median_of_1",
            "best",
            "precision"
        ]
    );
    let rows: Vec<[&str; 5]> = lines[1..]
        .iter()
        .map(|r| [r[0], r[1], r[2], r[3], r[4]])
        .collect();
    // 500 tokens is capped at the tiny models' 96, and said so; 96 is then not run twice.
    let mut want = Vec::new();
    for (name, arch) in [("tiny-f32", "RoBERTa"), ("deberta-v3", "DeBERTa-v2/v3")] {
        for (seq, batch) in [("16", "1"), ("16", "3"), ("96", "1"), ("96", "3")] {
            want.push([name, arch, "flex", seq, batch]);
        }
    }
    assert_eq!(rows, want);
    assert!(err.contains("measuring 96 instead"), "{err}");
    for r in &lines[1..] {
        assert_eq!(r.len(), 8);
        assert!(r[5].parse::<f64>().unwrap() > 0.0 && r[6].parse::<f64>().unwrap() > 0.0);
        assert_eq!(r[7], "f32");
    }
    // A usage error (clap's exit status 2), naming the choices.
    let o = tabprobe(&["bench", "--model", s(&tiny()), "--precision", "f16"]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("expected f32, f16-mixed or int8"), "{err}");
    let err = fails(&["bench", "--model", s(&tiny()), "--backends", "cuda"]);
    assert!(err.contains("unknown backend \"cuda\""), "{err}");
}

/// `tabprobe inoculate` on a row-deletion run of the fixture writes the result and one
/// Hugging Face folder per size; `tabprobe report` prints the tables and outcomes from the
/// file and writes them as CSV; sizes beyond the trainable items are refused with the counts.
#[test]
fn inoculate_writes_checkpoints_and_report_prints_the_tables() {
    let dir = scratch("inoculate");
    let run = dir.join("run.json");
    ok(&[
        "probe",
        "--dataset",
        s(&fixture()),
        "--model",
        s(&tiny()),
        "--probes",
        "row_deletion,irrelevant_row_deletion",
        "--out",
        s(&run),
    ]);
    let result = read_run(&run);
    let out = dir.join("out");
    let (stdout, stderr) = ok(&[
        "inoculate",
        "--model",
        s(&tiny()),
        "--run",
        s(&run),
        "--dataset",
        s(&fixture()),
        "--sizes",
        "2,4",
        "--lrs",
        "1e-3",
        "--epochs",
        "2",
        "--out",
        s(&out),
    ]);
    assert!(stderr.contains("challenge set:"), "{stderr}");
    for size in ["n2", "n4"] {
        for file in ["config.json", "model.safetensors", "tokenizer.json"] {
            assert!(out.join(size).join(file).is_file(), "{size}/{file} missing");
        }
    }
    assert!(
        stdout.contains("Original test sets (as Tables 9 and 11)"),
        "{stdout}"
    );
    assert!(stdout.contains("n = 4: "), "{stdout}");
    let file = out.join("inoculation.json");
    let parsed = tabprobe_core::inoculation::InoculationResult::parse(
        "inoculation.json",
        &std::fs::read_to_string(&file).unwrap(),
    )
    .unwrap();
    assert_eq!(parsed.models.len(), 3);
    assert_eq!(parsed.run_model, result.model);
    // The kept checkpoint on disk is the one the result names.
    let weights = std::fs::read(out.join("n4/model.safetensors")).unwrap();
    let sha: String = {
        use sha2::Digest;
        sha2::Sha256::digest(&weights)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(parsed.models[2].weights_sha256, sha);
    // `tabprobe report` reads the result file: the same text, and the CSV.
    let csv_dir = dir.join("csv");
    let (report, _) = ok(&["report", s(&file), "--csv", s(&csv_dir)]);
    assert_eq!(
        report.trim_end(),
        tabprobe_core::inoculation::tables::render_text(&parsed).trim_end()
    );
    let csv = std::fs::read_to_string(csv_dir.join("inoculation.csv")).unwrap();
    assert!(csv.starts_with("table,split,samples,learning_rate,column,correct,total,accuracy\n"));
    // Too large a sample: refused, naming the counts.
    let err = fails(&[
        "inoculate",
        "--model",
        s(&tiny()),
        "--run",
        s(&run),
        "--sizes",
        "1000",
        "--out",
        s(&dir.join("none")),
    ]);
    assert!(err.contains("n = 1000 needs 1000 items"), "{err}");
}

#[test]
fn pairs_are_the_pairs_a_probe_run_scores() {
    // issue 44 item 1: `tabprobe pairs` with `probe`'s options writes, in the run's order,
    // exactly the pairs the run scores (hypothesis-only and word-order pairs included), each
    // with the digest of what the model reads as its id.
    let dir = scratch("pairs");
    let run = read_run(&probe_all(&dir, "7"));
    let out = dir.join("pairs.jsonl");
    let (_, err) = ok(&[
        "pairs",
        "--dataset",
        s(&fixture()),
        "--probes",
        "all",
        "--seed",
        "7",
        "--word-order-q",
        "3",
        "--hypothesis-only",
        "--out",
        s(&out),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(err.contains(&format!("{} pairs", lines.len())), "{err}");
    assert_eq!(lines.len(), run.pairs.len());
    assert!(
        run.pairs.iter().any(|p| p.pair.premise.is_empty()),
        "hypothesis-only pairs are in the run"
    );
    let mut ids = std::collections::HashSet::new();
    for (line, scored) in lines.iter().zip(&run.pairs) {
        assert_eq!(line["premise"], scored.pair.premise.as_str());
        assert_eq!(line["hypothesis"], scored.pair.hypothesis.as_str());
        assert_eq!(line["order"], "premise_first");
        assert_eq!(line["linearization"], "infotabs_compat");
        assert_eq!(
            line["labels"],
            serde_json::json!(["ENTAIL", "NEUTRAL", "CONTRADICT"])
        );
        // The id, recomputed from its definition (docs/scoring-elsewhere.md).
        let p = &scored.pair.premise;
        let h = &scored.pair.hypothesis;
        let text = format!(
            "tabprobe-pair-v1\npremise_first\n{}\n{p}\n{}\n{h}",
            p.len(),
            h.len()
        );
        let digest = Sha256::digest(text.as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        assert_eq!(line["id"], hex.as_str());
        assert!(ids.insert(hex), "distinct pairs have distinct ids");
    }
}

#[test]
fn a_scores_file_stands_in_for_the_model() {
    // issue 44 items 2 and 3 on the command line: the tiny model's own scores, written as a
    // scores file (in another order), run as `probe --scores`, give the run the model gave —
    // same items, same pairs, same probabilities — under the scores file's identity; a bad
    // scores file is refused naming the file, the count and the first line.
    let dir = scratch("scores");
    let run = read_run(&probe_all(&dir, "7"));
    let pairs = dir.join("pairs.jsonl");
    ok(&[
        "pairs",
        "--dataset",
        s(&fixture()),
        "--probes",
        "all",
        "--seed",
        "7",
        "--word-order-q",
        "3",
        "--hypothesis-only",
        "--out",
        s(&pairs),
    ]);
    let ids: Vec<String> = std::fs::read_to_string(&pairs)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let mut lines: Vec<String> = ids
        .iter()
        .zip(&run.pairs)
        .map(|(id, p)| {
            let [e, n, c] = p.score.probs;
            serde_json::json!({"id": id, "probs": {"ENTAIL": e, "NEUTRAL": n, "CONTRADICT": c}})
                .to_string()
        })
        .collect();
    lines.reverse();
    let scores = dir.join("tiny-elsewhere.jsonl");
    std::fs::write(&scores, lines.join("\n") + "\n").unwrap();
    let out = dir.join("imported.json");
    let probe_args = |scores: &Path, out: &Path| -> Vec<String> {
        [
            "probe",
            "--dataset",
            s(&fixture()),
            "--probes",
            "all",
            "--seed",
            "7",
            "--word-order-q",
            "3",
            "--hypothesis-only",
            "--scores",
            s(scores),
            "--out",
            s(out),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let args = probe_args(&scores, &out);
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let imported = read_run(&out);
    assert_eq!(imported.items, run.items);
    assert_eq!(imported.pairs.len(), run.pairs.len());
    for (a, b) in imported.pairs.iter().zip(&run.pairs) {
        assert_eq!(a.pair, b.pair);
        assert_eq!(a.score.probs, b.score.probs);
        assert!(a.score.logits.is_empty());
    }
    assert_eq!(imported.model.name, "tiny-elsewhere");
    assert!(
        imported.model.scores_file,
        "the run file says the scores were imported"
    );
    let digest: String = Sha256::digest(std::fs::read(&scores).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(imported.model.weights_sha256, digest);

    // One line missing, one probability off: each refused by name, nothing written.
    lines.pop();
    let short = dir.join("short.jsonl");
    std::fs::write(&short, lines.join("\n")).unwrap();
    let args = probe_args(&short, &dir.join("never.json"));
    let err = fails(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        err.contains(&format!(
            "short.jsonl: 1 of the probe set's {} pairs have no score",
            run.pairs.len()
        )),
        "{err}"
    );
    lines[0] = lines[0].replace("\"ENTAIL\":", "\"ENTAIL\":1.5,\"x\":");
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let args = probe_args(&bad, &dir.join("never.json"));
    let err = fails(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        err.contains("bad.jsonl: 1 line(s) give probabilities that are not the dataset's labels"),
        "{err}"
    );
    assert!(!dir.join("never.json").exists());

    // Labels alone: every figure but the ones that need probabilities (word order's
    // entropies: n/a, with the reason in the table's note).
    let labels: Vec<String> = ids
        .iter()
        .zip(&run.pairs)
        .map(|(id, p)| {
            serde_json::json!({"id": id, "label": p.score.predicted().as_str()}).to_string()
        })
        .collect();
    let labels_file = dir.join("labels.jsonl");
    std::fs::write(&labels_file, labels.join("\n")).unwrap();
    let label_run = dir.join("labels.json");
    let args = probe_args(&labels_file, &label_run);
    let (_, err) = ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        err.contains(&format!(
            "note: {0} of {0} pairs have a label without probabilities",
            run.pairs.len()
        )),
        "{err}"
    );
    let label_only = read_run(&label_run);
    assert!(label_only.model.label_only);
    assert_eq!(label_only.items, run.items);
    let csv_dir = dir.join("labels-csv");
    let (printed, _) = ok(&["report", s(&label_run), "--csv", s(&csv_dir)]);
    assert!(
        printed.contains(
            "entropy: n/a — the model's scores file gives some pairs a label without probabilities"
        ),
        "{printed}"
    );
    let word_order = csv(&csv_dir, "word_order");
    let all = rows(&word_order, "all")[0];
    assert_eq!(&all[9..12], ["", "", ""], "entropies n/a: {all:?}");
    assert!(!all[3].is_empty(), "accuracy is still computed: {all:?}");
}
