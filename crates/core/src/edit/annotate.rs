//! Relevance annotation by hand (docs/probes-and-metrics.md#table-probes-with-relevance): rows marked in the table editor become an
//! example's `relevant_rows`, so the relevance probes can run on data that lacked them.

use crate::data::dataset::Dataset;

/// Why an annotation could not be stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnnotateError {
    /// No example has this id.
    #[error("the dataset has no example {0:?}")]
    UnknownExample(String),
    /// The example's premise is plain text.
    #[error("example {0:?} has no table, so it has no rows to mark")]
    NoTable(String),
    /// A row index past the table.
    #[error("row {row} is past the {rows} rows of table {table}")]
    BadRowIndex {
        /// 0-based index.
        row: usize,
        /// Rows in the table.
        rows: usize,
        /// The table's id.
        table: String,
    },
}

/// Stores `rows` (sorted, deduplicated) as the relevant rows of example `example_id`; an
/// empty set records "annotated, nothing relevant" (`[]`), which is not the same as unknown.
pub fn annotate_relevant_rows(
    dataset: &mut Dataset,
    example_id: &str,
    rows: &[usize],
) -> Result<Vec<usize>, AnnotateError> {
    let index = dataset
        .examples
        .iter()
        .position(|e| e.id.as_deref() == Some(example_id))
        .ok_or_else(|| AnnotateError::UnknownExample(example_id.to_string()))?;
    let table_id = dataset.examples[index]
        .table
        .clone()
        .ok_or_else(|| AnnotateError::NoTable(example_id.to_string()))?;
    let count = dataset.table(&table_id).map(|t| t.row_count()).unwrap_or(0);
    let mut rows = rows.to_vec();
    rows.sort_unstable();
    rows.dedup();
    if let Some(&row) = rows.iter().find(|&&r| r >= count) {
        return Err(AnnotateError::BadRowIndex {
            row,
            rows: count,
            table: table_id,
        });
    }
    dataset.examples[index].relevant_rows = Some(rows.clone());
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::dataset::Example;
    use crate::data::label::Label;
    use crate::data::table::{KeyValueRow, KeyValueTable, Table};

    fn demo() -> Dataset {
        let mut d = Dataset::new("demo");
        d.tables.push(Table::KeyValue(KeyValueTable {
            id: "T1264".into(),
            title: "Breakfast in America".into(),
            rows: ["Released", "Genre", "Length"]
                .iter()
                .map(|k| KeyValueRow {
                    key: k.to_string(),
                    values: vec!["v".into()],
                })
                .collect(),
        }));
        let ex = |id: &str, table: Option<&str>| Example {
            id: Some(id.into()),
            table: table.map(String::from),
            premise: table.is_none().then(|| "text".to_string()),
            hypothesis: "h".into(),
            label: Label::Entail,
            split: None,
            relevant_rows: None,
            relevance_votes: None,
            categories: vec![],
            annotator: None,
            derived_from: None,
            operation: None,
        };
        d.examples.push(ex("H1", Some("T1264")));
        d.examples.push(ex("m1", None));
        d
    }

    #[test]
    fn marks_become_sorted_relevant_rows() {
        let mut d = demo();
        assert_eq!(
            annotate_relevant_rows(&mut d, "H1", &[2, 1, 2]),
            Ok(vec![1, 2])
        );
        assert_eq!(d.examples[0].relevant_rows, Some(vec![1, 2]));
        assert_eq!(annotate_relevant_rows(&mut d, "H1", &[]), Ok(vec![]));
        assert_eq!(d.examples[0].relevant_rows, Some(vec![]));
    }

    #[test]
    fn bad_annotations_are_refused() {
        let mut d = demo();
        assert_eq!(
            annotate_relevant_rows(&mut d, "H1", &[3]),
            Err(AnnotateError::BadRowIndex {
                row: 3,
                rows: 3,
                table: "T1264".into()
            })
        );
        assert_eq!(
            annotate_relevant_rows(&mut d, "nope", &[0]),
            Err(AnnotateError::UnknownExample("nope".into()))
        );
        assert_eq!(
            annotate_relevant_rows(&mut d, "m1", &[0]),
            Err(AnnotateError::NoTable("m1".into()))
        );
        assert_eq!(d, demo());
    }
}
