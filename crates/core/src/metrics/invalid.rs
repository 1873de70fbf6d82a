//! The invalid-transition table (docs/probes-and-metrics.md#the-invalid-transition-table; the paper's Tables 5, 6, 13–17): for each label
//! predicted before the edit, the percentage of perturbed examples whose after-label the rule
//! forbids; one column per split, an "Average" row over the labels present, and a mean column.

use serde::{Deserialize, Serialize};

use crate::data::label::{Label, LabelSet};
use crate::metrics::transitions::TransitionMatrix;
use crate::probe::rules::ValidityRule;
use crate::run::Transition;

/// The split an item is counted in: a column of the invalid-transition tables, and a graph of
/// its own. Examples without a split are a column of their own, not a split named `all` (a
/// dataset may name a split `all`), and not "every example" (the report's `all` row); the
/// column is printed `all` ([`SplitColumn::name`]), as INFOTABS' unsplit files have always read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitColumn {
    /// Examples whose `split` is this name.
    Named(String),
    /// Examples without a split.
    Unsplit,
}

impl SplitColumn {
    /// The column of an example whose `split` is `split`.
    pub fn of(split: Option<&str>) -> SplitColumn {
        match split {
            Some(s) => SplitColumn::Named(s.to_string()),
            None => SplitColumn::Unsplit,
        }
    }

    /// Whether an example whose `split` is `split` is in this column.
    pub fn holds(&self, split: Option<&str>) -> bool {
        match (self, split) {
            (SplitColumn::Named(name), Some(s)) => name == s,
            (SplitColumn::Unsplit, None) => true,
            _ => false,
        }
    }

    /// The column's heading: the split's name, or `all` for examples without one.
    pub fn name(&self) -> &str {
        match self {
            SplitColumn::Named(name) => name,
            SplitColumn::Unsplit => "all",
        }
    }
}

impl std::fmt::Display for SplitColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One split's transitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitTransitions {
    /// The split.
    pub split: SplitColumn,
    /// Its transition counts.
    pub matrix: TransitionMatrix,
}

/// One label's row of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvalidRow {
    /// The label predicted before the edit.
    pub label: Label,
    /// Invalid percentage per split, `None` where the model never predicted `label` before.
    pub per_split: Vec<Option<f64>>,
    /// Mean over the splits that have a value (the paper's "Average" column).
    pub mean: Option<f64>,
    /// The rule cannot be met from this label by the model (a two-way model and a rule whose
    /// only valid target is NEUTRAL): no percentage is given (it would read 100% invalid), and
    /// the row is left out of the "Average" row.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_applicable: bool,
}

/// A paper-shaped invalid-transition table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvalidTransitionTable {
    /// The columns, one per split.
    pub splits: Vec<SplitColumn>,
    /// One row per label of the label set.
    pub rows: Vec<InvalidRow>,
    /// Per split: the mean over the labels present (the paper's "Average" row).
    pub average: Vec<Option<f64>>,
    /// Mean of `average` over splits.
    pub mean_average: Option<f64>,
    /// Said when a label has no row because the model cannot predict it (two-way models never
    /// predict NEUTRAL), when a label is absent from every split, or when a row is not
    /// applicable to the model.
    pub notes: Vec<String>,
    /// Every row is not applicable to the model: the whole table is "not applicable to a
    /// two-way model" rather than a table of invalid transitions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_applicable: bool,
}

/// The words every graph and table use for a rule a two-way model cannot meet.
pub const NOT_APPLICABLE_TWO_WAY: &str = "not applicable to a two-way model";

fn mean(xs: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = xs.into_iter().flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// `100 × invalid / total` for transitions out of `label`, `None` when there are none.
pub fn invalid_percent(m: &TransitionMatrix, label: Label, rule: &ValidityRule) -> Option<f64> {
    let total = m.total_from(label);
    (total > 0).then(|| 100.0 * m.invalid_from(label, rule) as f64 / total as f64)
}

impl InvalidTransitionTable {
    /// Builds the table from per-split transition matrices.
    pub fn new(splits: &[SplitTransitions], rule: &ValidityRule, label_set: LabelSet) -> Self {
        let mut notes = Vec::new();
        if label_set == LabelSet::TwoWay {
            notes.push(
                "two-way model: it never predicts NEUTRAL, so there is no NEUTRAL row".to_string(),
            );
        }
        let mut row_notes = Vec::new();
        let rows: Vec<InvalidRow> = label_set
            .labels()
            .iter()
            .map(|&label| {
                let not_applicable = !rule.applicable(label, label_set);
                let per_split: Vec<Option<f64>> = splits
                    .iter()
                    .map(|s| {
                        invalid_percent(&s.matrix, label, rule).filter(|_| !not_applicable)
                    })
                    .collect();
                if not_applicable {
                    let valid: Vec<&str> =
                        rule.valid_after(label).iter().map(|l| l.as_str()).collect();
                    row_notes.push(format!(
                        "{label}: {NOT_APPLICABLE_TWO_WAY} (the rule's only valid target after {label} is {}, which it never predicts)",
                        valid.join(", ")
                    ));
                } else if splits
                    .iter()
                    .all(|s| invalid_percent(&s.matrix, label, rule).is_none())
                {
                    notes.push(format!(
                        "the model never predicted {label} on an original example"
                    ));
                }
                let mean = mean(per_split.iter().copied());
                InvalidRow {
                    label,
                    per_split,
                    mean,
                    not_applicable,
                }
            })
            .collect();
        let not_applicable = rows.iter().all(|r| r.not_applicable);
        if not_applicable {
            notes.push(format!(
                "{NOT_APPLICABLE_TWO_WAY}: the rule's only valid target is NEUTRAL, which it never predicts"
            ));
        } else {
            notes.extend(row_notes);
        }
        let average: Vec<Option<f64>> = (0..splits.len())
            .map(|i| mean(rows.iter().map(|r| r.per_split[i])))
            .collect();
        let mean_average = mean(average.iter().copied());
        InvalidTransitionTable {
            splits: splits.iter().map(|s| s.split.clone()).collect(),
            rows,
            average,
            mean_average,
            notes,
            not_applicable,
        }
    }

    /// Builds per-split matrices from `(split, transition)` pairs (a split's name, or an
    /// `Option<&str>` with `None` for examples without one), splits in first-seen order.
    pub fn from_transitions<'a, I, S>(items: I, rule: &ValidityRule, label_set: LabelSet) -> Self
    where
        I: IntoIterator<Item = (S, Transition)>,
        S: Into<Option<&'a str>>,
    {
        Self::new(&group_by_split(items), rule, label_set)
    }
}

/// Groups transitions by split (`None`: the example has none), keeping first-seen order.
pub fn group_by_split<'a, I, S>(items: I) -> Vec<SplitTransitions>
where
    I: IntoIterator<Item = (S, Transition)>,
    S: Into<Option<&'a str>>,
{
    let mut out: Vec<SplitTransitions> = Vec::new();
    for (split, t) in items {
        let split = split.into();
        match out.iter_mut().find(|s| s.split.holds(split)) {
            Some(s) => s.matrix.add(t),
            None => {
                let mut matrix = TransitionMatrix::default();
                matrix.add(t);
                out.push(SplitTransitions {
                    split: SplitColumn::of(split),
                    matrix,
                });
            }
        }
    }
    out
}
