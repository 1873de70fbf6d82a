//! Which items a figure of the report counts. The report builds an [`ItemSelector`] beside
//! each figure from the predicates the metric counts with — a transition set's membership
//! and [`split_of`], the score tables' [`score_use`], Table 8's [`paired_checks`], the
//! examples evidence selection compares, the word-order [`ExampleSet`]s and [`bleu_bin`] —
//! and the site lists [`ItemSelector::select`] when the figure is opened, so a figure and its
//! items cannot disagree. `tests/report_selectors.rs` checks, section by section, that each
//! figure's count is the count of its selection.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::data::label::Label;
use crate::metrics::scores::{score_use, ScoreUse};
use crate::metrics::transition_report::split_of;
use crate::metrics::word_order::{bleu_bin, permutation_bleu, permuted_examples, BLEU_EDGES};
use crate::metrics::{
    evidence_selection, paired_checks, CounterfactualClass, ExampleSet, Group, PermutedExample,
    SplitColumn, TransitionSet,
};
use crate::probe::review::ReviewState;
use crate::probe::ProbeItem;
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;

/// The items behind one figure of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ItemSelector {
    /// Items of transition set `set` predicted `from` on the original and `to` after the edit
    /// (an edge of a transition graph).
    Edge {
        /// The transition set (its rule judges the items).
        set: TransitionSet,
        /// The split (`None` = pooled).
        split: Option<SplitColumn>,
        /// Restrict to a reasoning category.
        category: Option<String>,
        /// Before.
        from: Label,
        /// After.
        to: Label,
        /// Whether the figure counted heuristic items nobody reviewed (the label-preserving
        /// sets leave them out unless asked).
        include_heuristic: bool,
    },
    /// Items of transition set `set` whose after-label the rule forbids (a row or cell of an
    /// invalid-transition table).
    Invalid {
        /// The transition set.
        set: TransitionSet,
        /// The split (`None` = every split).
        split: Option<SplitColumn>,
        /// Restrict to a reasoning category.
        category: Option<String>,
        /// The label predicted before (`None` = any: the Average row).
        before: Option<Label>,
        /// Whether the table counted heuristic items nobody reviewed.
        include_heuristic: bool,
    },
    /// Items of `probes` that a row of Tables 4 / 7 counts (not NEUTRAL; certain or accepted,
    /// and heuristic-unreviewed ones when the table includes them).
    Scored {
        /// The row's probes (several for a pooled row).
        probes: Vec<ProbeKind>,
        /// Restrict to a split or category (`None` = the rows "all").
        group: Option<Group>,
        /// Whether the table counted heuristic items nobody reviewed.
        include_heuristic: bool,
        /// A hypothesis-only row: only items scored on their hypothesis alone count.
        hypothesis_only: bool,
    },
    /// Counterfactual items with one combination of Table 8's three checks.
    Paired {
        /// Which Table 8.
        class: CounterfactualClass,
        /// Restrict to a split or category (`None` = the rows "all").
        group: Option<Group>,
        /// Whether the table counted heuristic items nobody reviewed.
        include_heuristic: bool,
        /// Right on the counterfactual.
        c_thp: bool,
        /// Right on the original.
        o_thp: bool,
        /// Hypothesis-only right on the original.
        o_hypo: bool,
    },
    /// Row-deletion items of the examples evidence selection compares (§5.3).
    EvidenceCompared {
        /// Restrict to a split or category (`None` = the row "all").
        group: Option<Group>,
    },
    /// Row-deletion items of one example (a row of the per-example evidence table).
    EvidenceExample {
        /// The example's id.
        example: String,
    },
    /// Word-order items of the examples a word-order figure is computed over.
    WordOrder {
        /// Restrict to a split or category (`None` = the row "all").
        group: Option<Group>,
        /// Which examples.
        set: ExampleSet,
    },
    /// Word-order items of the examples Ω_x counts: more than a share `x` of their
    /// permutations get the gold label.
    Omega {
        /// Restrict to a split or category (`None` = the row "all").
        group: Option<Group>,
        /// The threshold.
        x: f64,
    },
    /// Word-order permutations in one BLEU-2 bin (an index into the bins of [`BLEU_EDGES`]).
    BleuBin {
        /// Restrict to a split or category (`None` = the row "all").
        group: Option<Group>,
        /// The bin.
        bin: usize,
    },
    /// Every item of the run.
    All,
    /// Items whose original or perturbed premise was truncated to fit the model.
    Truncated,
}

/// The positions of the permuted examples of `group` that pass `keep`.
fn permuted_where(
    run: &RunResult,
    group: &Option<Group>,
    keep: impl Fn(&PermutedExample) -> bool,
) -> BTreeSet<usize> {
    let (examples, _) = permuted_examples(run, group.as_ref());
    examples
        .into_iter()
        .filter(|(_, e)| keep(e))
        .map(|(p, _)| p)
        .collect()
}

impl ItemSelector {
    /// The indices (into `run.items`) of the items behind the figure, in run order.
    pub fn select(&self, run: &RunResult) -> Vec<usize> {
        let in_group = |it: &ProbeItem, g: &Option<Group>| {
            run.example_of(it)
                .is_some_and(|e| g.as_ref().is_none_or(|g| g.contains(e)))
        };
        let in_split_and_category =
            |it: &ProbeItem, split: &Option<SplitColumn>, cat: &Option<String>| {
                split.as_ref().is_none_or(|s| s.holds(split_of(run, it)))
                    && cat.as_ref().is_none_or(|c| {
                        run.example_of(it)
                            .is_some_and(|e| e.categories.iter().any(|x| x == c))
                    })
            };
        let keep = |f: &dyn Fn(&ProbeItem) -> bool| -> Vec<usize> {
            run.items
                .iter()
                .enumerate()
                .filter(|(_, it)| f(it))
                .map(|(i, _)| i)
                .collect()
        };
        let of_examples = |probe: ProbeKind, examples: &BTreeSet<usize>| {
            keep(&|it| it.probe == probe && examples.contains(&it.example))
        };
        match self {
            ItemSelector::Edge {
                set,
                split,
                category,
                from,
                to,
                include_heuristic,
            } => keep(&|it| {
                let t = run.transition(it);
                set.contains(run, &as_counted(it, *include_heuristic))
                    && in_split_and_category(it, split, category)
                    && t.before == *from
                    && t.after == *to
            }),
            ItemSelector::Invalid {
                set,
                split,
                category,
                before,
                include_heuristic,
            } => keep(&|it| {
                let t = run.transition(it);
                set.contains(run, &as_counted(it, *include_heuristic))
                    && in_split_and_category(it, split, category)
                    && before.is_none_or(|b| t.before == b)
                    && run.rules.is_valid(set.operation(), t.before, t.after) == Some(false)
            }),
            ItemSelector::Scored {
                probes,
                group,
                include_heuristic,
                hypothesis_only,
            } => keep(&|it| {
                probes.contains(&it.probe)
                    && (!hypothesis_only || it.hypothesis_only_pair.is_some())
                    && matches!(
                        score_use(run, it, *include_heuristic),
                        ScoreUse::Counted { .. }
                    )
                    && in_group(it, group)
            }),
            ItemSelector::Paired {
                class,
                group,
                include_heuristic,
                c_thp,
                o_thp,
                o_hypo,
            } => keep(&|it| {
                paired_checks(run, &as_counted(it, *include_heuristic)).is_some_and(|c| {
                    c.class == *class
                        && c.c_thp == *c_thp
                        && c.o_thp == *o_thp
                        && c.o_hypo == *o_hypo
                }) && in_group(it, group)
            }),
            ItemSelector::EvidenceCompared { group } => {
                let ids: BTreeSet<String> = evidence_selection(run, group.as_ref())
                    .map(|s| s.per_example.into_iter().map(|e| e.example).collect())
                    .unwrap_or_default();
                of_examples(ProbeKind::RowDeletion, &example_positions(run, &ids))
            }
            ItemSelector::EvidenceExample { example } => {
                let ids = BTreeSet::from([example.clone()]);
                of_examples(ProbeKind::RowDeletion, &example_positions(run, &ids))
            }
            ItemSelector::WordOrder { group, set } => {
                let labels = run.model.label_set.labels().len();
                let picked = permuted_where(run, group, |e| set.contains(e, labels));
                of_examples(ProbeKind::WordOrder, &picked)
            }
            ItemSelector::Omega { group, x } => {
                let picked = permuted_where(run, group, |e| e.share_accepted() > *x);
                of_examples(ProbeKind::WordOrder, &picked)
            }
            ItemSelector::BleuBin { group, bin } => keep(&|it| {
                it.probe == ProbeKind::WordOrder
                    && in_group(it, group)
                    && bleu_bin(permutation_bleu(it)) == *bin
            }),
            ItemSelector::All => (0..run.items.len()).collect(),
            ItemSelector::Truncated => keep(&|it| {
                [it.original_pair, it.perturbed_pair]
                    .iter()
                    .any(|&p| run.pairs.get(p).is_some_and(|p| p.score.truncated))
            }),
        }
    }

    /// A heading for the list of `selected` (what [`ItemSelector::select`] gave), completing
    /// "<count> …".
    pub fn describe(&self, run: &RunResult, selected: &[usize]) -> String {
        let examples = selected
            .iter()
            .filter_map(|&i| run.items.get(i).map(|it| it.example))
            .collect::<BTreeSet<usize>>()
            .len();
        let split = |s: &Option<SplitColumn>| {
            s.as_ref()
                .map_or_else(|| "all splits".to_string(), SplitColumn::to_string)
        };
        let cat = |c: &Option<String>| {
            c.as_ref()
                .map(|c| format!(", category {c}"))
                .unwrap_or_default()
        };
        let grp = |g: &Option<Group>| {
            g.as_ref()
                .map(|g| format!(" ({})", g.label()))
                .unwrap_or_default()
        };
        let words = |k: &ProbeKind| k.display_name();
        match self {
            ItemSelector::Edge {
                set,
                split: s,
                category,
                from,
                to,
                ..
            } => format!(
                "{} items predicted {from} before and {to} after ({}{})",
                set.title(),
                split(s),
                cat(category)
            ),
            ItemSelector::Invalid {
                set,
                split: s,
                category,
                before,
                ..
            } => format!(
                "{} items with an invalid transition{} ({}{})",
                set.title(),
                before.map(|b| format!(" from {b}")).unwrap_or_default(),
                split(s),
                cat(category)
            ),
            ItemSelector::Scored {
                probes,
                group,
                include_heuristic,
                hypothesis_only,
            } => format!(
                "{} items counted{}{}{}",
                probes.iter().map(words).collect::<Vec<_>>().join(" + "),
                if *hypothesis_only {
                    " on the hypothesis alone"
                } else {
                    ""
                },
                if *include_heuristic {
                    " (unreviewed heuristic items included)"
                } else {
                    ""
                },
                grp(group)
            ),
            ItemSelector::Paired {
                class,
                group,
                c_thp,
                o_thp,
                o_hypo,
                ..
            } => {
                let rw = |b: &bool| if *b { "right" } else { "wrong" };
                format!(
                    "{} counterfactual items with C-THP {}, O-THP {}, O-Hypo {}{}",
                    class.as_str().replace('_', "-"),
                    rw(c_thp),
                    rw(o_thp),
                    rw(o_hypo),
                    grp(group)
                )
            }
            ItemSelector::EvidenceCompared { group } => format!(
                "row deletion items of the {examples} examples compared for evidence selection{}",
                grp(group)
            ),
            ItemSelector::EvidenceExample { example } => {
                format!("row deletion items of example {example}")
            }
            ItemSelector::WordOrder { group, set } => format!(
                "word order items of the {examples} examples {}{}",
                set.description(),
                grp(group)
            ),
            ItemSelector::Omega { group, x } => format!(
                "word order items of the {examples} examples counted in Ω_{x:.2} (more than {x:.2} of their permutations get the gold label){}",
                grp(group)
            ),
            ItemSelector::BleuBin { group, bin } => {
                let lo = BLEU_EDGES.get(*bin).copied().unwrap_or(0.0);
                let hi = BLEU_EDGES.get(bin + 1).copied().unwrap_or(1.0);
                format!(
                    "word-order permutations with BLEU-2 from {lo:.2} to {hi:.2}{}",
                    grp(group)
                )
            }
            ItemSelector::All => "items of the run".into(),
            ItemSelector::Truncated => {
                "items whose original or perturbed premise was truncated to fit the model".into()
            }
        }
    }
}

/// `item` as a figure counted it: with `include_heuristic`, a heuristic item nobody reviewed
/// is judged as if certain (what [`super::heuristic_counted`] does to a whole run before the
/// label-preserving sets and Table 8 are computed on request).
fn as_counted(item: &ProbeItem, include_heuristic: bool) -> Cow<'_, ProbeItem> {
    if include_heuristic && item.review == ReviewState::HeuristicUnreviewed {
        let mut counted = item.clone();
        counted.review = ReviewState::Certain;
        Cow::Owned(counted)
    } else {
        Cow::Borrowed(item)
    }
}

/// The positions in `run.examples` of the examples with these ids.
fn example_positions(run: &RunResult, ids: &BTreeSet<String>) -> BTreeSet<usize> {
    run.examples
        .iter()
        .enumerate()
        .filter(|(_, e)| ids.contains(&e.id))
        .map(|(p, _)| p)
        .collect()
}
