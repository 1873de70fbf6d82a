//! The transition graphs as edge rows: per split, then every split pooled, one section per
//! [`TransitionSet`] (the site draws the same figures, [`crate::report::set_figures`]).

use super::invalid::{set_notes, NOT_APPLICABLE_CELL};
use crate::metrics::invalid::NOT_APPLICABLE_TWO_WAY;
use crate::metrics::TransitionSet;
use crate::report::{num, set_figures, Marked, Row, Section, SectionId};
use crate::run::RunResult;

/// The transition graph of a [`TransitionSet`] as edge rows (per split, then pooled); an
/// edge out of a label a two-way model cannot meet the rule from reads `n/a`, not `INVALID`.
/// `include_heuristic` as for [`invalid_section`](super::invalid::invalid_section).
pub(crate) fn graph_section(
    run: &RunResult,
    set: TransitionSet,
    include_heuristic: bool,
) -> Option<Section> {
    let f = set_figures(run, set, None, include_heuristic);
    let pooled = f.pooled.as_ref().filter(|g| !g.edges.is_empty())?;
    let name = set.as_str();
    let mut s = Section::new(
        SectionId::Graph(set),
        &format!(
            "Transition graph — {name} ({}): edge % of its source node (invalid edges marked)",
            set.describe()
        ),
        &["split", "from", "to", "count", "percent", "valid"],
    );
    s.notes.extend(f.rule.clone());
    s.notes.extend(set_notes(run, set));
    if !f.not_applicable.is_empty() {
        let from: Vec<&str> = f.not_applicable.iter().map(|l| l.as_str()).collect();
        s.notes.push(format!(
            "edges out of {} are {NOT_APPLICABLE_TWO_WAY} (n/a): the rule's only valid target is NEUTRAL, which it never predicts",
            from.join(", ")
        ));
    }
    for g in f.splits.iter().chain([pooled]) {
        for Marked { value: e, items } in &g.edges {
            let cells = vec![
                g.caption().to_string(),
                e.from.to_string(),
                e.to.to_string(),
                e.count.to_string(),
                num(e.percent),
                if e.not_applicable {
                    NOT_APPLICABLE_CELL
                } else if e.valid {
                    "valid"
                } else {
                    "INVALID"
                }
                .to_string(),
            ];
            s.rows.push(Row::new(cells).counting(items.clone()));
        }
    }
    Some(s)
}
