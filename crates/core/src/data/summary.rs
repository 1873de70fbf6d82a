//! Counts a person reads before anything else: examples per label and split, per table, and a
//! title search. Shared by the site's dataset browser and the CLI.

use std::collections::BTreeMap;

use crate::data::dataset::Dataset;
use crate::data::label::Label;

/// Number of examples per label, in canonical label order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LabelCounts {
    /// ENTAIL examples.
    pub entail: usize,
    /// NEUTRAL examples.
    pub neutral: usize,
    /// CONTRADICT examples.
    pub contradict: usize,
}

impl LabelCounts {
    /// Counts one more example with `label`.
    pub fn add(&mut self, label: Label) {
        match label {
            Label::Entail => self.entail += 1,
            Label::Neutral => self.neutral += 1,
            Label::Contradict => self.contradict += 1,
        }
    }

    /// The count for `label`.
    pub fn get(&self, label: Label) -> usize {
        match label {
            Label::Entail => self.entail,
            Label::Neutral => self.neutral,
            Label::Contradict => self.contradict,
        }
    }

    /// All examples counted.
    pub fn total(&self) -> usize {
        self.entail + self.neutral + self.contradict
    }
}

/// What the dataset browser lists for one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    /// Index into `Dataset::tables`.
    pub index: usize,
    /// The table id.
    pub id: String,
    /// Title or caption.
    pub title: String,
    /// Labels of the examples on this table.
    pub labels: LabelCounts,
    /// The distinct splits of those examples, sorted (`None`, for examples without a split,
    /// first).
    pub splits: Vec<Option<String>>,
}

/// Whole-dataset counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetSummary {
    /// One entry per table, in dataset order.
    pub tables: Vec<TableSummary>,
    /// Label counts per split (`None` for examples without a split, first), sorted by split
    /// name.
    pub by_split: BTreeMap<Option<String>, LabelCounts>,
    /// Examples with a plain-text premise (no table).
    pub text_premise_examples: usize,
}

/// How the dataset's lists name a split: its name, or `(none)` for examples without one.
pub fn split_name(split: Option<&str>) -> &str {
    split.unwrap_or("(none)")
}

impl DatasetSummary {
    /// Summarises a validated dataset.
    pub fn of(dataset: &Dataset) -> DatasetSummary {
        let mut tables: Vec<TableSummary> = dataset
            .tables
            .iter()
            .enumerate()
            .map(|(index, t)| TableSummary {
                index,
                id: t.id().to_string(),
                title: t.title().to_string(),
                labels: LabelCounts::default(),
                splits: Vec::new(),
            })
            .collect();
        let position: std::collections::HashMap<&str, usize> = dataset
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id(), i))
            .collect();
        let mut by_split: BTreeMap<Option<String>, LabelCounts> = BTreeMap::new();
        let mut text_premise_examples = 0;
        for ex in &dataset.examples {
            let split = ex.split.clone();
            by_split.entry(split.clone()).or_default().add(ex.label);
            match ex.table.as_deref().and_then(|id| position.get(id)) {
                Some(&i) => {
                    tables[i].labels.add(ex.label);
                    if !tables[i].splits.contains(&split) {
                        tables[i].splits.push(split);
                    }
                }
                None => text_premise_examples += 1,
            }
        }
        for t in &mut tables {
            t.splits.sort();
        }
        DatasetSummary {
            tables,
            by_split,
            text_premise_examples,
        }
    }

    /// Tables whose title or id contains `query`, case-insensitively; all tables for an empty query.
    pub fn search(&self, query: &str) -> Vec<&TableSummary> {
        let q = query.trim().to_lowercase();
        self.tables
            .iter()
            .filter(|t| {
                q.is_empty()
                    || t.title.to_lowercase().contains(&q)
                    || t.id.to_lowercase().contains(&q)
            })
            .collect()
    }

    /// Label counts over every split.
    pub fn totals(&self) -> LabelCounts {
        let mut all = LabelCounts::default();
        for c in self.by_split.values() {
            all.entail += c.entail;
            all.neutral += c.neutral;
            all.contradict += c.contradict;
        }
        all
    }
}
