//! The report's drawn figures as typed data: transition graphs, invalid-transition tables, the
//! Ω_x curve and the BLEU-2 bars (docs/probes-and-metrics.md), one set per [`Group`] of
//! examples. Every mark carries the [`ItemSelector`] of the items it counts, built here from
//! the predicate the metric counts with, so the site draws figures and opens their items
//! without computing either. The report's sections lay out the same figures as rows
//! (`sections/graphs.rs`, `sections/invalid.rs`, `sections/word_order.rs`), so a drawn
//! mark, its table row and its item list cannot disagree; `tests/report_selectors.rs` checks
//! every mark against the items it selects.

use serde::{Deserialize, Serialize};

use super::{operation_name, ItemSelector};
use crate::data::label::Label;
use crate::metrics::invalid::{InvalidTransitionTable, SplitColumn};
use crate::metrics::transitions::TransitionEdge;
use crate::metrics::word_order::{
    omega_curve_x, permuted_examples, word_order_metrics, BleuBin, WordOrderMetrics,
};
use crate::metrics::{groups, set_graph, set_invalid_table, Group, TransitionSet};
use crate::probe::rules::Operation;
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;

/// The `split` cell of a graph's edge rows over every split.
pub const POOLED: &str = "pooled";

/// The rule's valid transitions in one line: `ENTAIL→{NEUTRAL} … (source)`.
pub(crate) fn rule_note(run: &RunResult, op: Operation) -> Option<String> {
    let rule = run.rules.get(op)?;
    let valid: Vec<String> = rule
        .valid
        .iter()
        .map(|(b, a)| {
            let a: Vec<&str> = a.iter().map(|l| l.as_str()).collect();
            format!("{b}→{{{}}}", a.join(","))
        })
        .collect();
    Some(format!(
        "valid ({} rule): {} ({})",
        operation_name(op),
        valid.join(" "),
        rule.source
    ))
}

/// One mark of a figure (an edge, a cell, a point, a bar) and the items it counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marked<T> {
    /// What the mark shows.
    pub value: T,
    /// The items it counts: what opening it lists.
    pub items: ItemSelector,
}

/// One transition graph: a split's, or every split's pooled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphFigure {
    /// The split (`None` = pooled over the splits).
    pub split: Option<SplitColumn>,
    /// Its edges, each with its items.
    pub edges: Vec<Marked<TransitionEdge>>,
}

impl GraphFigure {
    /// The caption: the split's name, or `pooled`.
    pub fn caption(&self) -> &str {
        self.split.as_ref().map_or(POOLED, SplitColumn::name)
    }
}

/// An invalid-transition table with the items of each of its cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvalidFigure {
    /// The table.
    pub table: InvalidTransitionTable,
    /// Per row of `table.rows`: the items of each split's cell, then of the mean column
    /// (every split); empty for a row not applicable to the model.
    pub rows: Vec<Vec<ItemSelector>>,
    /// The Average row's cells the same way (empty when the whole table is not applicable).
    pub average: Vec<ItemSelector>,
}

impl InvalidFigure {
    /// The items of a cell: row `row` (`None` = the Average row), column `column` (a split's
    /// index, or `table.splits.len()` for the mean column).
    pub fn cell_items(&self, row: Option<usize>, column: usize) -> Option<&ItemSelector> {
        match row {
            Some(r) => self.rows.get(r)?.get(column),
            None => self.average.get(column),
        }
    }

    /// The items of a whole row (its mean column): what the report's table row lists.
    pub fn row_items(&self, row: Option<usize>) -> Option<&ItemSelector> {
        self.cell_items(row, self.table.splits.len())
    }

    /// Whether the drawn table has the mean column: with one split, that split's column and
    /// the mean over splits are the same numbers, so the site draws them once (the report's
    /// CSV keeps both, so its columns are the same for every table).
    pub fn draws_mean(&self) -> bool {
        self.table.splits.len() > 1
    }

    /// The drawn table's value columns: one per split, then the mean when it is drawn.
    pub fn drawn_columns(&self) -> usize {
        self.table.splits.len() + usize::from(self.draws_mean())
    }
}

/// One [`TransitionSet`]'s figures in a group: its rule, one graph per split and the pooled
/// one, and its invalid-transition table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetFigures {
    /// The set.
    pub set: TransitionSet,
    /// The rule's valid transitions in one line (`None`: the run has no rule for the set).
    pub rule: Option<String>,
    /// One graph per split with items of the set.
    pub splits: Vec<GraphFigure>,
    /// Every split pooled (`None` without a rule).
    pub pooled: Option<GraphFigure>,
    /// Labels from which the model cannot meet the rule (a two-way model and a rule whose only
    /// valid target is NEUTRAL): their edges are drawn "not applicable".
    pub not_applicable: Vec<Label>,
    /// The invalid-transition table (`None` without a rule or items).
    pub table: Option<InvalidFigure>,
}

impl SetFigures {
    /// The graphs the site draws: each split's, then the pooled one when there are several
    /// splits (with one it would repeat that split's).
    pub fn drawn(&self) -> impl Iterator<Item = &GraphFigure> {
        let pooled = self.pooled.as_ref().filter(|_| self.splits.len() > 1);
        self.splits.iter().chain(pooled)
    }
}

/// A point of the Ω_x curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OmegaPoint {
    /// The threshold x.
    pub x: f64,
    /// Ω_x as a fraction of the group's permuted examples.
    pub omega: f64,
}

/// The word-order figures of a group: the Ω_x curve and acceptance by BLEU-2 bin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WordOrderFigures {
    /// Ω_x at x = 0, 0.05, …, 0.95, each point with the items of the examples it counts.
    pub omega: Vec<Marked<OmegaPoint>>,
    /// The BLEU-2 bins, each with its permutations.
    pub bleu: Vec<Marked<BleuBin>>,
}

impl WordOrderFigures {
    /// The figures of `metrics`, computed over `group` (`None` = every example) with Ω_x at
    /// the points of the curve.
    pub fn of(metrics: &WordOrderMetrics, group: Option<&Group>) -> WordOrderFigures {
        WordOrderFigures {
            omega: metrics
                .omega
                .iter()
                .map(|&(x, omega)| Marked {
                    value: OmegaPoint { x, omega },
                    items: ItemSelector::Omega {
                        group: group.cloned(),
                        x,
                    },
                })
                .collect(),
            bleu: metrics
                .bleu_bins
                .iter()
                .enumerate()
                .map(|(bin, b)| Marked {
                    value: b.clone(),
                    items: ItemSelector::BleuBin {
                        group: group.cloned(),
                        bin,
                    },
                })
                .collect(),
        }
    }
}

/// Every drawn figure of one model's run over one group of examples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// The group (`None` = every example).
    pub group: Option<Group>,
    /// Per transition set the run has items of (in [`TransitionSet::ALL`]'s order), its
    /// figures over the group (a set without items in the group has no graphs or table).
    pub sets: Vec<SetFigures>,
    /// The word-order figures, when the run has word-order items.
    pub word_order: Option<WordOrderFigures>,
}

impl Figures {
    /// The group's name as reports write it: `all`, `split:<name>`, `category:<name>`.
    pub fn group_label(&self) -> String {
        self.group
            .as_ref()
            .map_or_else(|| super::ALL.to_string(), Group::label)
    }

    /// The figures of `set`, if the run has items of it.
    pub fn set(&self, set: TransitionSet) -> Option<&SetFigures> {
        self.sets.iter().find(|s| s.set == set)
    }
}

/// The transition sets `run` has items of, in [`TransitionSet::ALL`]'s order.
pub fn transition_sets(run: &RunResult) -> Vec<TransitionSet> {
    TransitionSet::ALL
        .into_iter()
        .filter(|&t| run.items.iter().any(|it| t.contains(run, it)))
        .collect()
}

/// The figures of `set` over `group`, counting heuristic items nobody reviewed as `run` does
/// (`include_heuristic` only marks the selectors so that they select the same way).
pub fn set_figures(
    run: &RunResult,
    set: TransitionSet,
    group: Option<&Group>,
    include_heuristic: bool,
) -> SetFigures {
    let category = match group {
        Some(Group::Category(c)) => Some(c.clone()),
        _ => None,
    };
    // Pooled marks and the mean column select every split of the group: in a split's group,
    // that split alone.
    let all_splits = match group {
        Some(Group::Split(s)) => Some(SplitColumn::Named(s.clone())),
        _ => None,
    };
    let graph = set_graph(run, set, group);
    let figure = |split: Option<SplitColumn>, edges: &[TransitionEdge]| GraphFigure {
        edges: edges
            .iter()
            .map(|e| Marked {
                value: e.clone(),
                items: ItemSelector::Edge {
                    set,
                    split: split.clone().or_else(|| all_splits.clone()),
                    category: category.clone(),
                    from: e.from,
                    to: e.to,
                    include_heuristic,
                },
            })
            .collect(),
        split,
    };
    let splits = graph.as_ref().map_or_else(Vec::new, |g| {
        g.splits
            .iter()
            .map(|(s, edges)| figure(Some(s.clone()), edges))
            .collect()
    });
    let pooled = graph.as_ref().map(|g| figure(None, &g.pooled));
    let table = set_invalid_table(run, set, group).map(|table| {
        let cells = |before: Option<Label>| -> Vec<ItemSelector> {
            let splits = table.splits.iter().map(|s| Some(s.clone()));
            splits
                .chain([all_splits.clone()])
                .map(|split| ItemSelector::Invalid {
                    set,
                    split,
                    category: category.clone(),
                    before,
                    include_heuristic,
                })
                .collect()
        };
        InvalidFigure {
            rows: table
                .rows
                .iter()
                .map(|r| {
                    if r.not_applicable {
                        Vec::new()
                    } else {
                        cells(Some(r.label))
                    }
                })
                .collect(),
            average: if table.not_applicable {
                Vec::new()
            } else {
                cells(None)
            },
            table,
        }
    });
    SetFigures {
        set,
        rule: rule_note(run, set.operation()),
        splits,
        pooled,
        not_applicable: graph.map(|g| g.not_applicable).unwrap_or_default(),
        table,
    }
}

/// The word-order figures of `run` over `group`; `None` when the group has no permuted
/// example.
pub fn word_order_figures(run: &RunResult, group: Option<&Group>) -> Option<WordOrderFigures> {
    if !run.items.iter().any(|it| it.probe == ProbeKind::WordOrder) {
        return None;
    }
    let (examples, skipped) = permuted_examples(run, group);
    let examples: Vec<_> = examples.into_iter().map(|(_, e)| e).collect();
    if examples.is_empty() {
        return None;
    }
    let labels = run.model.label_set.labels().len();
    let metrics = word_order_metrics(&examples, skipped, labels, &omega_curve_x());
    Some(WordOrderFigures::of(&metrics, group))
}

/// Every figure of `run` over `group` (`None` = every example).
pub fn figures(run: &RunResult, group: Option<&Group>) -> Figures {
    Figures {
        group: group.cloned(),
        sets: transition_sets(run)
            .into_iter()
            .map(|set| set_figures(run, set, group, false))
            .collect(),
        word_order: word_order_figures(run, group),
    }
}

/// The figures of `run` over every example, then over each of its groups (splits, then
/// reasoning categories: [`groups`]) — what the site's "Examples" choice switches between.
pub fn figures_by_group(run: &RunResult) -> Vec<Figures> {
    std::iter::once(figures(run, None))
        .chain(groups(run).iter().map(|g| figures(run, Some(g))))
        .collect()
}
