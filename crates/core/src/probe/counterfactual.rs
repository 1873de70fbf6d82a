//! Counterfactual tables made automatically (docs/probes-and-metrics.md#counterfactual-tables, paper §6): row swap (Figure 5) and
//! title swap (Figure 6). The table is changed so it no longer matches the real world, the
//! hypothesis follows it, and the label must not change. (Hand-made label-flipping pairs are
//! imported by [`crate::data::import::counterfactual`].)

use crate::data::label::Label;
use crate::data::table::{KeyValueTable, Table};
use crate::probe::{Basis, Certainty, Edit, Expectation, Perturbation, Premise, ProbeInput};
use crate::probe_kind::ProbeKind;
use crate::rng::Rng;

/// Replaces every occurrence of `from` in `h` with `to`; `None` when `h` never mentions it.
fn retitle(h: &str, from: &str, to: &str) -> Option<String> {
    let from = from.trim();
    (!from.is_empty() && h.contains(from)).then(|| h.replace(from, to.trim()))
}

fn preserving(
    probe: ProbeKind,
    edit: Edit,
    table: Table,
    hypothesis: String,
    gold: Label,
    certainty: Certainty,
) -> Perturbation {
    Perturbation {
        probe,
        edit,
        perturbed: ProbeInput {
            premise: Premise::Table(table),
            hypothesis,
        },
        expectation: Expectation::Label { labels: vec![gold] },
        certainty,
        basis: match (probe, certainty) {
            (ProbeKind::TitleSwap, _) => Basis::TitleMoved,
            (_, Certainty::Certain) => Basis::RelevantRowsMoved,
            (_, Certainty::Heuristic) => Basis::RowsGuessed,
        },
    }
}

/// Title swap: the table gets the title of another table (seeded choice among those with a
/// different title) and the hypothesis's title expression is rewritten. Needs the hypothesis
/// to mention the title. Label-preserving for every label, certain.
pub fn title_swap(
    table: &Table,
    hypothesis: &str,
    gold: Label,
    tables: &[Table],
    rng: &mut Rng,
) -> Vec<Perturbation> {
    let own = table.title().trim();
    let others: Vec<&Table> = tables
        .iter()
        .filter(|t| t.id() != table.id() && t.title().trim() != own && !t.title().trim().is_empty())
        .collect();
    if others.is_empty() {
        return Vec::new();
    }
    let other = others[rng.below(others.len())];
    let Some(h) = retitle(hypothesis, own, other.title()) else {
        return Vec::new();
    };
    let mut t = table.clone();
    match &mut t {
        Table::KeyValue(kv) => kv.title = other.title().trim().to_string(),
        Table::Relational(r) => r.caption = other.title().trim().to_string(),
    }
    let edit = Edit::TitleSwapped {
        before: own.to_string(),
        after: other.title().trim().to_string(),
        from_table: other.id().to_string(),
    };
    vec![preserving(
        ProbeKind::TitleSwap,
        edit,
        t,
        h,
        gold,
        Certainty::Certain,
    )]
}

/// The keys a row swap moves: the human-relevant rows' keys (certain), or else the keys whose
/// value the hypothesis mentions (heuristic).
fn swap_keys(
    t: &KeyValueTable,
    hypothesis: &str,
    relevant: Option<&[usize]>,
) -> Option<(Vec<String>, Certainty)> {
    if let Some(r) = relevant.filter(|r| !r.is_empty()) {
        let keys: Vec<String> = r
            .iter()
            .filter_map(|&i| t.rows.get(i).map(|row| row.key.clone()))
            .collect();
        return (!keys.is_empty()).then_some((keys, Certainty::Certain));
    }
    let h = hypothesis.to_lowercase();
    let keys: Vec<String> = t
        .rows
        .iter()
        .filter(|r| {
            r.values
                .iter()
                .any(|v| v.trim().len() >= 2 && h.contains(&v.trim().to_lowercase()))
        })
        .map(|r| r.key.clone())
        .collect();
    (!keys.is_empty()).then_some((keys, Certainty::Heuristic))
}

/// Row swap: another table that has the example's relevant keys receives this table's values
/// for them, and the hypothesis moves there with its title expression rewritten (Figure 5).
pub fn row_swap(
    table: &Table,
    hypothesis: &str,
    gold: Label,
    relevant: Option<&[usize]>,
    tables: &[Table],
    rng: &mut Rng,
) -> Vec<Perturbation> {
    let Table::KeyValue(a) = table else {
        return Vec::new();
    };
    let Some((keys, certainty)) = swap_keys(a, hypothesis, relevant) else {
        return Vec::new();
    };
    let targets: Vec<&KeyValueTable> = tables
        .iter()
        .filter_map(|t| match t {
            Table::KeyValue(b) if b.id != a.id && b.title.trim() != a.title.trim() => Some(b),
            _ => None,
        })
        .filter(|b| keys.iter().all(|k| b.rows.iter().any(|r| &r.key == k)))
        .filter(|b| {
            keys.iter().any(|k| {
                b.rows.iter().find(|r| &r.key == k).map(|r| &r.values)
                    != a.rows.iter().find(|r| &r.key == k).map(|r| &r.values)
            })
        })
        .collect();
    if targets.is_empty() {
        return Vec::new();
    }
    let b = targets[rng.below(targets.len())];
    let Some(h) = retitle(hypothesis, &a.title, &b.title) else {
        return Vec::new();
    };
    let mut swapped = b.clone();
    for row in &mut swapped.rows {
        if let Some(src) = a
            .rows
            .iter()
            .find(|r| r.key == row.key && keys.contains(&r.key))
        {
            row.values = src.values.clone();
        }
    }
    let edit = Edit::RowsSwapped {
        keys,
        other_table: b.id.clone(),
        title_before: a.title.trim().to_string(),
        title_after: b.title.trim().to_string(),
    };
    vec![preserving(
        ProbeKind::RowSwap,
        edit,
        Table::KeyValue(swapped),
        h,
        gold,
        certainty,
    )]
}
