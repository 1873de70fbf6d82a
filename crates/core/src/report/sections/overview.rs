//! The report's first section, `Run`: the model, the settings and what the run holds (items
//! by review state, pairs, skips, truncated premises), each count listing its items where it
//! can.

use crate::report::{ItemSelector, Section, SectionId};
use crate::run::RunResult;

pub(crate) fn overview(run: &RunResult) -> Section {
    let mut s = Section::new(SectionId::Run, "Run", &["field", "value"]);
    let s_ = &run.settings;
    let probes: Vec<&str> = s_.probes.iter().map(|p| p.as_str()).collect();
    let kv = |s: &mut Section, k: &str, v: String| s.push(vec![k.to_string(), v]);
    kv(&mut s, "model", run.model.name.clone());
    kv(&mut s, "weights_sha256", run.model.weights_sha256.clone());
    kv(
        &mut s,
        "precision",
        run.model.precision.as_str().to_string(),
    );
    kv(&mut s, "model_labels", format!("{:?}", run.model.label_set));
    kv(&mut s, "dataset_labels", format!("{:?}", run.label_set));
    kv(&mut s, "seed", s_.seed.to_string());
    kv(&mut s, "probes", probes.join(" "));
    kv(
        &mut s,
        "linearization",
        s_.linearization.strategy.as_str().to_string(),
    );
    kv(
        &mut s,
        "pair_order",
        format!("{:?}", s_.linearization.order),
    );
    kv(&mut s, "examples", run.examples.len().to_string());
    kv(&mut s, "items", run.items.len().to_string());
    if let Some(r) = s.rows.last_mut() {
        r.items = Some(ItemSelector::All);
    }
    // Review states (issue 11 §4): how many items rest on a heuristic nobody checked.
    let state_count = |name: &str| {
        run.items
            .iter()
            .filter(|it| it.review.as_str() == name)
            .count()
    };
    for name in ["certain", "heuristic_unreviewed", "accepted", "rejected"] {
        kv(
            &mut s,
            &format!("items_{name}"),
            state_count(name).to_string(),
        );
    }
    kv(&mut s, "pairs", run.pairs.len().to_string());
    kv(&mut s, "skipped", run.skipped.len().to_string());
    if !run.unapplied_reviews.is_empty() {
        s.notes.push(format!(
            "{} review(s) of the dataset were not applied: the item they name is now a different perturbation ({})",
            run.unapplied_reviews.len(),
            run.unapplied_reviews.join(" ")
        ));
    }
    let truncated = run.pairs.iter().filter(|p| p.score.truncated).count();
    kv(&mut s, "truncated_pairs", truncated.to_string());
    if let Some(r) = s.rows.last_mut() {
        r.items = Some(ItemSelector::Truncated);
    }
    if truncated > 0 {
        s.notes.push(format!(
            "{truncated} pair(s) had their premise truncated: a probe that edits a part the model never saw is not evidence of anything"
        ));
    }
    s
}
