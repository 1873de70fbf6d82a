//! Hand-made probe items (docs/probes-and-metrics.md#certain-heuristic-and-review, #counterfactual-tables): an edited table or a rewritten hypothesis, with the
//! label the user asserts, appended to the loaded dataset as a new example whose
//! `derived_from` names the original — the same shape as the counterfactuals a dataset ships,
//! so the probe runner treats both alike.

use crate::data::dataset::{Dataset, Example};
use crate::data::label::Label;
use crate::data::table::Table;
use crate::edit::draft::table_problems;
use crate::probe_kind::ProbeKind;

/// How a hand-made item was made; becomes the example's `operation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandMadeOperation {
    /// Typed in the table editor (usually a label-flipping counterfactual, §4.6).
    EditTable,
    /// Typed in the hypothesis rewriter.
    RewriteHypothesis,
    /// A generated §4.4 suggestion the user saved as a new example (perhaps after editing
    /// it). Accepting a suggestion as generated is a review of the generated item instead
    /// ([`crate::edit::review_suggestion`]): saving it here too would score it twice, the
    /// second time as a shipped counterfactual.
    Suggestion(ProbeKind),
}

impl HandMadeOperation {
    /// The `operation` string stored in the dataset.
    pub fn as_str(self) -> &'static str {
        match self {
            HandMadeOperation::EditTable => "hand_edit_table",
            HandMadeOperation::RewriteHypothesis => "hand_rewrite_hypothesis",
            HandMadeOperation::Suggestion(kind) => kind.as_str(),
        }
    }
}

/// One item to append.
#[derive(Debug, Clone, PartialEq)]
pub struct HandMadeItem {
    /// The example it derives from (its split is copied; it becomes `derived_from`).
    pub derived_from: Option<String>,
    /// The premise table as edited; `None` for a plain-text premise.
    pub table: Option<Table>,
    /// The plain-text premise when there is no table.
    pub premise: Option<String>,
    /// The hypothesis.
    pub hypothesis: String,
    /// The label the user asserts.
    pub label: Label,
    /// Rows marked relevant in the editor (indices into `table`).
    pub relevant_rows: Option<Vec<usize>>,
    /// How it was made.
    pub operation: HandMadeOperation,
}

/// What was appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedItem {
    /// The new example's id.
    pub example_id: String,
    /// The table it refers to (new when the table was edited, the original's otherwise).
    pub table_id: Option<String>,
    /// Whether a new table was appended.
    pub new_table: bool,
}

/// Why an item cannot join the dataset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandMadeError {
    /// The hypothesis is empty.
    #[error("the hypothesis is empty: type the statement to judge")]
    EmptyHypothesis,
    /// The label is not one the dataset uses.
    #[error("the dataset's labels do not include {0} (a two-way dataset has no NEUTRAL)")]
    LabelNotAllowed(Label),
    /// The edited table would break the dataset.
    #[error("the table cannot be saved: {}", .0.join("; "))]
    BadTable(Vec<String>),
    /// A relevant row index past the table.
    #[error("relevant row {row} is past the table's {rows} rows")]
    BadRowIndex {
        /// 0-based index.
        row: usize,
        /// Rows in the table.
        rows: usize,
    },
    /// Neither a table nor a premise.
    #[error("the item has no premise (neither a table nor text)")]
    NoPremise,
}

/// `base~<tag><k>` with the smallest `k ≥ 1` for which `taken` is false.
fn fresh_id(base: &str, tag: &str, taken: impl Fn(&str) -> bool) -> String {
    // Editing an edit gives `T1~edit2`, not `T1~edit1~edit1`.
    let base = base.split('~').next().unwrap_or(base);
    (1..)
        .map(|k| format!("{base}~{tag}{k}"))
        .find(|id| !taken(id))
        .unwrap_or_else(|| format!("{base}~{tag}"))
}

/// Appends `item` to `dataset`: the edited table under a fresh id `<orig>~edit<k>` (unless
/// it equals a table the dataset holds), and an example `<orig example>~hand<k>` with
/// `derived_from`, `operation`, the asserted label and the original's split.
pub fn add_hand_made(
    dataset: &mut Dataset,
    item: HandMadeItem,
) -> Result<AddedItem, HandMadeError> {
    if item.hypothesis.trim().is_empty() {
        return Err(HandMadeError::EmptyHypothesis);
    }
    if !dataset.label_set.labels().contains(&item.label) {
        return Err(HandMadeError::LabelNotAllowed(item.label));
    }
    let original = item.derived_from.as_deref().and_then(|id| {
        dataset
            .examples
            .iter()
            .find(|e| e.id.as_deref() == Some(id))
    });
    let split = original.and_then(|e| e.split.clone());
    let (table_id, new_table) = match &item.table {
        Some(table) => {
            let problems = table_problems(table);
            if !problems.is_empty() {
                return Err(HandMadeError::BadTable(problems));
            }
            if let Some(&row) = item
                .relevant_rows
                .iter()
                .flatten()
                .find(|&&r| r >= table.row_count())
            {
                return Err(HandMadeError::BadRowIndex {
                    row,
                    rows: table.row_count(),
                });
            }
            if dataset.table(table.id()) == Some(table) {
                (Some(table.id().to_string()), false)
            } else {
                let id = fresh_id(table.id(), "edit", |id| dataset.table(id).is_some());
                let mut t = table.clone();
                match &mut t {
                    Table::KeyValue(kv) => kv.id = id.clone(),
                    Table::Relational(r) => r.id = id.clone(),
                }
                dataset.tables.push(t);
                (Some(id), true)
            }
        }
        None if item.premise.is_some() => (None, false),
        None => return Err(HandMadeError::NoPremise),
    };
    let base = item
        .derived_from
        .clone()
        .unwrap_or_else(|| "hand".to_string());
    let example_id = fresh_id(&base, "hand", |id| {
        dataset.examples.iter().any(|e| e.id.as_deref() == Some(id))
    });
    dataset.examples.push(Example {
        id: Some(example_id.clone()),
        table: table_id.clone(),
        premise: if table_id.is_some() {
            None
        } else {
            item.premise
        },
        hypothesis: item.hypothesis,
        label: item.label,
        split,
        relevant_rows: item.relevant_rows.filter(|r| !r.is_empty()),
        relevance_votes: None,
        categories: Vec::new(),
        annotator: None,
        derived_from: item.derived_from,
        operation: Some(item.operation.as_str().to_string()),
    });
    Ok(AddedItem {
        example_id,
        table_id,
        new_table,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::label::LabelSet;
    use crate::data::table::{KeyValueRow, KeyValueTable};

    fn demo() -> Dataset {
        let mut d = Dataset::new("demo");
        d.tables.push(Table::KeyValue(KeyValueTable {
            id: "T1264".into(),
            title: "Breakfast in America".into(),
            rows: vec![KeyValueRow {
                key: "Length".into(),
                values: vec!["46:06".into()],
            }],
        }));
        d.examples.push(Example {
            id: Some("H1".into()),
            table: Some("T1264".into()),
            premise: None,
            hypothesis: "Breakfast in America is less than an hour long.".into(),
            label: Label::Entail,
            split: Some("paper".into()),
            relevant_rows: Some(vec![0]),
            relevance_votes: None,
            categories: vec![],
            annotator: None,
            derived_from: None,
            operation: None,
        });
        d
    }

    fn edited(value: &str) -> Table {
        let Some(Table::KeyValue(mut t)) = demo().tables.first().cloned() else {
            panic!()
        };
        t.rows[0].values = vec![value.into()];
        Table::KeyValue(t)
    }

    fn item(table: Table, label: Label) -> HandMadeItem {
        HandMadeItem {
            derived_from: Some("H1".into()),
            table: Some(table),
            premise: None,
            hypothesis: "Breakfast in America is less than an hour long.".into(),
            label,
            relevant_rows: Some(vec![0]),
            operation: HandMadeOperation::EditTable,
        }
    }

    #[test]
    fn an_edited_table_becomes_a_new_table_and_a_derived_example() {
        let mut d = demo();
        let added = add_hand_made(&mut d, item(edited("76:06"), Label::Contradict)).unwrap();
        assert_eq!(
            added,
            AddedItem {
                example_id: "H1~hand1".into(),
                table_id: Some("T1264~edit1".into()),
                new_table: true
            }
        );
        let e = d.examples.last().unwrap();
        assert_eq!(e.derived_from.as_deref(), Some("H1"));
        assert_eq!(e.operation.as_deref(), Some("hand_edit_table"));
        assert_eq!(e.label, Label::Contradict);
        assert_eq!(e.split.as_deref(), Some("paper"));
        assert_eq!(e.relevant_rows, Some(vec![0]));
        assert_eq!(
            d.table("T1264~edit1").map(|t| t.title()),
            Some("Breakfast in America")
        );
        // A second edit gets the next ids, also when made from the first edit's table.
        let mut second = item(edited("86:06"), Label::Contradict);
        if let Some(Table::KeyValue(t)) = &mut second.table {
            t.id = "T1264~edit1".into();
        }
        let added = add_hand_made(&mut d, second).unwrap();
        assert_eq!(added.example_id, "H1~hand2");
        assert_eq!(added.table_id.as_deref(), Some("T1264~edit2"));
        // The whole dataset still validates.
        let json = d.to_json_pretty().unwrap();
        let back = crate::data::validate::parse_dataset("edited.json", &json).unwrap();
        assert_eq!(back.examples.len(), 3);
    }

    #[test]
    fn an_unchanged_table_is_reused() {
        let mut d = demo();
        let mut it = item(demo().tables[0].clone(), Label::Contradict);
        it.hypothesis = "Breakfast in America is more than an hour long.".into();
        it.operation = HandMadeOperation::Suggestion(ProbeKind::MonotoneNumber);
        let added = add_hand_made(&mut d, it).unwrap();
        assert_eq!(added.table_id.as_deref(), Some("T1264"));
        assert!(!added.new_table);
        assert_eq!(d.tables.len(), 1);
        assert_eq!(d.examples[1].operation.as_deref(), Some("monotone_number"));
    }

    #[test]
    fn bad_items_are_refused_and_the_dataset_is_untouched() {
        let mut d = demo();
        let mut it = item(edited("x"), Label::Entail);
        it.hypothesis = "  ".into();
        assert_eq!(
            add_hand_made(&mut d, it),
            Err(HandMadeError::EmptyHypothesis)
        );
        let mut it = item(edited("x"), Label::Entail);
        it.relevant_rows = Some(vec![3]);
        assert_eq!(
            add_hand_made(&mut d, it),
            Err(HandMadeError::BadRowIndex { row: 3, rows: 1 })
        );
        let mut bad = edited("x");
        if let Table::KeyValue(t) = &mut bad {
            t.rows[0].key = String::new();
        }
        assert_eq!(
            add_hand_made(&mut d, item(bad, Label::Entail)),
            Err(HandMadeError::BadTable(vec!["row 1 has no key".into()]))
        );
        d.label_set = LabelSet::TwoWay;
        assert_eq!(
            add_hand_made(&mut d, item(edited("x"), Label::Neutral)),
            Err(HandMadeError::LabelNotAllowed(Label::Neutral))
        );
        assert_eq!(d, {
            let mut x = demo();
            x.label_set = LabelSet::TwoWay;
            x
        });
    }
}
