//! Table 1: per split (then every example), each model's accuracy on the original examples
//! beside its hypothesis-only accuracy and the split's majority baseline.

use crate::data::label::Label;
use crate::probe::ProbeExample;
use crate::report::{num, Section, SectionId, ALL};
use crate::run::RunResult;

/// Table 1: for each split (then all examples), each run's accuracy on the original
/// examples beside its hypothesis-only accuracy and the majority baseline (the share of the
/// split's most frequent gold label; ties go to the earlier canonical label). `runs` are
/// models run on the same probe set; the site passes every loaded model, `sections` one.
pub fn table1_section(runs: &[&RunResult]) -> Section {
    let mut s = Section::new(
        SectionId::Table1,
        "Table 1 — accuracy per split beside the hypothesis-only figure and the majority baseline (%)",
        &[
            "split",
            "model",
            "examples",
            "accuracy",
            "hypothesis_only",
            "majority_label",
            "majority_baseline",
        ],
    );
    s.notes.push(
        "accuracy: % of the original examples the model labels correctly; majority_baseline: % of the split's gold labels that are its most frequent label"
            .to_string(),
    );
    for r in runs {
        s.notes.push(
            match (&r.hypothesis_only_model, r.hypothesis_only_pairs.is_empty()) {
                (_, true) => format!(
                    "{}: no hypothesis-only scores (probe with --hypothesis-only)",
                    r.model.name
                ),
                (Some(m), false) => format!(
                    "{}: hypothesis_only is the second model {}",
                    r.model.name, m.name
                ),
                (None, false) => format!(
                    "{}: hypothesis_only is this model with an empty premise (docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view)",
                    r.model.name
                ),
            },
        );
    }
    let Some(first) = runs.first() else {
        return s;
    };
    let mut splits: Vec<&str> = first
        .examples
        .iter()
        .filter_map(|e| e.split.as_deref())
        .collect();
    splits.sort_unstable();
    splits.dedup();
    // One split holding every example is named once, by its name, not again as `all`.
    let single = splits.len() == 1
        && runs
            .iter()
            .all(|r| r.examples.iter().all(|e| e.split.is_some()));
    let all_row = (!single).then_some(None);
    let groups = splits.into_iter().map(Some).chain(all_row);
    for split in groups {
        for r in runs {
            s.push(table1_row(split, r));
        }
    }
    s
}

/// One row of Table 1: `r`'s figures over the examples of `split` (`None` = every example).
fn table1_row(split: Option<&str>, r: &RunResult) -> Vec<String> {
    let picked: Vec<(usize, &ProbeExample)> = r
        .examples
        .iter()
        .enumerate()
        .filter(|(_, e)| split.is_none_or(|sp| e.split.as_deref() == Some(sp)))
        .collect();
    let n = picked.len();
    // A model that reads the hypothesis alone says so.
    let model = if r.reads_hypothesis_only() {
        format!("{} (hypothesis only)", r.model.name_with_precision())
    } else {
        r.model.name_with_precision()
    };
    let name = split.unwrap_or(ALL).to_string();
    if n == 0 {
        let mut row = vec![name, model, "0".to_string()];
        row.resize(7, String::new());
        return row;
    }
    let pct = |k: usize| num(100.0 * k as f64 / n as f64);
    let right = picked
        .iter()
        .filter(|(_, e)| r.original_prediction(e) == e.gold)
        .count();
    let hypo = (r.hypothesis_only_pairs.len() == r.examples.len()).then(|| {
        picked
            .iter()
            .filter(|(i, e)| r.predicted(r.hypothesis_only_pairs[*i]) == e.gold)
            .count()
    });
    // The majority label; ties go to the earlier canonical label.
    let counts = Label::ALL.map(|l| picked.iter().filter(|(_, e)| e.gold == l).count());
    let mut best = 0;
    for i in 1..3 {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    vec![
        name,
        model,
        n.to_string(),
        pct(right),
        hypo.map(pct).unwrap_or_default(),
        Label::ALL[best].to_string(),
        pct(counts[best]),
    ]
}
