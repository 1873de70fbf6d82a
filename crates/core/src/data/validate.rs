//! Reading a dataset file: JSON syntax, the format marker and version, the shape of every
//! table and example, and the cross-references between them. Every problem is reported, each
//! with the file name, a JSON path (`$.examples[3].label`) and what was expected, so a user can
//! fix the whole file in one pass.

use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::data::dataset::{Dataset, Example, FORMAT_MARKER, FORMAT_VERSION};
use crate::data::label::{LabelSet, UNKNOWN_LABEL_PREFIX};
use crate::data::table::Table;

/// What kind of problem a [`Problem`] is; tests and the UI group by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// The text is not JSON.
    Syntax,
    /// `format` is missing or is not `tabprobe-dataset`.
    WrongFormat,
    /// `version` is missing or is not a version this build reads.
    WrongVersion,
    /// A value has the wrong type, a required field is missing, or a field is unknown.
    Structure,
    /// A label is not one of the canonical names, or not allowed by the label set.
    UnknownLabel,
    /// An example names a table id that the dataset does not hold.
    UnknownTable,
    /// A hypothesis is empty or only whitespace.
    EmptyHypothesis,
    /// Two tables, or two examples, share an id.
    DuplicateId,
    /// An example has both or neither of `table` and `premise`.
    PremiseChoice,
    /// A relevant row index (or an annotator's vote) points past the table's rows, or is given
    /// without a table.
    BadRowIndex,
    /// A relational record does not have one cell per header column.
    RowLength,
    /// A review names no item of the dataset, or its decision and label disagree.
    BadReview,
}

impl ProblemKind {
    /// A short name a person reads, e.g. `unknown label`.
    pub fn describe(self) -> &'static str {
        match self {
            ProblemKind::Syntax => "syntax",
            ProblemKind::WrongFormat => "wrong format",
            ProblemKind::WrongVersion => "wrong version",
            ProblemKind::Structure => "structure",
            ProblemKind::UnknownLabel => "unknown label",
            ProblemKind::UnknownTable => "unknown table",
            ProblemKind::EmptyHypothesis => "empty hypothesis",
            ProblemKind::DuplicateId => "duplicate id",
            ProblemKind::PremiseChoice => "premise",
            ProblemKind::BadRowIndex => "row index",
            ProblemKind::RowLength => "row length",
            ProblemKind::BadReview => "review",
        }
    }
}

/// One located problem in a dataset file.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Which class of problem this is.
    pub kind: ProblemKind,
    /// JSON path of the offending value, `$` for the whole document.
    pub path: String,
    /// 1-based line and column, known for syntax errors.
    pub line_column: Option<(usize, usize)>,
    /// What is wrong and what was expected.
    pub message: String,
}

/// Every problem found in one file. Nothing is loaded when this is returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: {} problem(s); first: {}", problems.len(), problems.first().map(|p| p.to_string()).unwrap_or_default())]
pub struct DatasetError {
    /// The file name as the user gave it.
    pub file: String,
    /// All problems, in document order.
    pub problems: Vec<Problem>,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line_column {
            Some((line, column)) => write!(f, "line {line}, column {column}: {}", self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl DatasetError {
    /// One line per problem, each prefixed by the file name: what the CLI prints.
    pub fn report(&self) -> String {
        self.problems
            .iter()
            .map(|p| format!("{}: {p}", self.file))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Parses and validates a dataset file. `file` is only used to name the file in errors.
pub fn parse_dataset(file: &str, text: &str) -> Result<Dataset, DatasetError> {
    let fail = |problems: Vec<Problem>| DatasetError {
        file: file.to_string(),
        problems,
    };
    let root: Value = serde_json::from_str(text).map_err(|e| {
        fail(vec![Problem {
            kind: ProblemKind::Syntax,
            path: "$".into(),
            line_column: Some((e.line(), e.column())),
            message: format!("not valid JSON: {}", strip_position(&e.to_string())),
        }])
    })?;
    let mut v = Validator::default();
    let dataset = v.check(root);
    match dataset {
        Some(d) if v.problems.is_empty() => Ok(d),
        _ => Err(fail(v.problems)),
    }
}

/// A problem of one table by the rules a dataset file is checked with beyond its JSON shape;
/// `path` is relative to the table (`.rows[1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableProblem {
    /// Which rule.
    pub kind: ProblemKind,
    /// Where in the table, e.g. `.rows[1]`.
    pub path: String,
    /// What was expected and what was found.
    pub message: String,
}

/// The rules every table of a dataset file must meet beyond its JSON shape (today: a
/// relational row has one cell per header column). The one place they are written: the
/// dataset validator applies them to files, the editor to a table before it is saved into the
/// dataset ([`crate::edit::draft::table_problems`]), and a share link or result file to its
/// tables when it opens — so nothing enters a dataset that would not load back.
pub fn table_rule_problems(table: &Table) -> Vec<TableProblem> {
    let mut out = Vec::new();
    if let Table::Relational(t) = table {
        for (r, row) in t.rows.iter().enumerate() {
            if row.len() != t.header.len() {
                out.push(TableProblem {
                    kind: ProblemKind::RowLength,
                    path: format!(".rows[{r}]"),
                    message: format!(
                        "expected {} cells (one per header column), found {}",
                        t.header.len(),
                        row.len()
                    ),
                });
            }
        }
    }
    out
}

/// Whether `dataset`, written as a file, loads back: the validator run on the JSON that
/// saving it writes. The page calls it before any change enters the working dataset (a saved
/// item, a review, a merge), so the copy it keeps in the browser always reloads; the error is
/// the one loading that file would give, named `file`.
pub fn check_reloads(file: &str, dataset: &Dataset) -> Result<(), DatasetError> {
    let text = serde_json::to_string(dataset).map_err(|e| DatasetError {
        file: file.to_string(),
        problems: vec![Problem {
            kind: ProblemKind::Structure,
            path: "$".into(),
            line_column: None,
            message: format!("cannot be written as JSON: {e}"),
        }],
    })?;
    parse_dataset(file, &text).map(|_| ())
}

/// serde_json appends " at line L column C"; the position is reported separately.
fn strip_position(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

#[derive(Default)]
struct Validator {
    problems: Vec<Problem>,
}

impl Validator {
    fn push(&mut self, kind: ProblemKind, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            kind,
            path: path.into(),
            line_column: None,
            message: message.into(),
        });
    }

    fn check(&mut self, root: Value) -> Option<Dataset> {
        let Value::Object(mut map) = root else {
            self.push(
                ProblemKind::WrongFormat,
                "$",
                format!(
                    "expected a JSON object with \"format\": \"{FORMAT_MARKER}\", found {}",
                    kind_of(&root)
                ),
            );
            return None;
        };
        match map.get("format") {
            Some(Value::String(s)) if s == FORMAT_MARKER => {}
            Some(other) => self.push(ProblemKind::WrongFormat, "$.format", format!(
                "expected \"{FORMAT_MARKER}\", found {other}")),
            None => self.push(ProblemKind::WrongFormat, "$.format", format!(
                "missing; a tabprobe dataset starts with \"format\": \"{FORMAT_MARKER}\" (other formats need an importer)")),
        }
        match map.get("version") {
            Some(Value::Number(n)) if n.as_u64() == Some(u64::from(FORMAT_VERSION)) => {}
            Some(other) => self.push(
                ProblemKind::WrongVersion,
                "$.version",
                format!("expected {FORMAT_VERSION} (the version this site reads), found {other}"),
            ),
            None => self.push(
                ProblemKind::WrongVersion,
                "$.version",
                format!("missing; expected {FORMAT_VERSION}"),
            ),
        }
        if !self.problems.is_empty() {
            // Not our format (or not this version): reading further would only add noise.
            return None;
        }
        // Check every element on its own so one bad table does not hide the others. Ids are
        // read from the raw JSON so cross-references are checked even for broken elements.
        let table_values = self.array(map.remove("tables"), "$.tables");
        let example_values = self.array(map.remove("examples"), "$.examples");
        let raw_table_ids: Vec<Option<String>> = table_values.iter().map(raw_id).collect();
        let raw_example_ids: Vec<Option<String>> = example_values.iter().map(raw_id).collect();
        let tables: Vec<Option<Table>> = table_values
            .into_iter()
            .enumerate()
            .map(|(i, v)| self.table(v, &format!("$.tables[{i}]")))
            .collect();
        let examples: Vec<Option<Example>> = example_values
            .into_iter()
            .enumerate()
            .map(|(i, v)| self.element(v, &format!("$.examples[{i}]")))
            .collect();
        let header: Option<Dataset> = self.element(Value::Object(map), "$");
        // Cross-check even when the header is broken, with the default label set.
        let label_set = header.as_ref().map(|d| d.label_set).unwrap_or_default();
        self.cross_check(
            &label_set,
            &tables,
            &raw_table_ids,
            &examples,
            &raw_example_ids,
        );
        if let Some(d) = &header {
            self.check_reviews(d, &raw_example_ids);
        }
        let mut dataset = header?;
        dataset.tables = tables.into_iter().collect::<Option<_>>()?;
        dataset.examples = examples.into_iter().collect::<Option<_>>()?;
        Some(dataset)
    }

    fn array(&mut self, value: Option<Value>, path: &str) -> Vec<Value> {
        match value {
            None => Vec::new(),
            Some(Value::Array(items)) => items,
            Some(other) => {
                self.push(
                    ProblemKind::Structure,
                    path,
                    format!("expected an array, found {}", kind_of(&other)),
                );
                Vec::new()
            }
        }
    }

    /// Dispatches on `kind` by hand: serde's internally tagged enums buffer their content and
    /// would lose the path inside the table (`rows[1].values[2]`).
    fn table(&mut self, mut value: Value, path: &str) -> Option<Table> {
        let kind = value.as_object_mut().and_then(|m| m.remove("kind"));
        match kind.as_ref().and_then(Value::as_str) {
            Some("key_value") => self.element(value, path).map(Table::KeyValue),
            Some("relational") => self.element(value, path).map(Table::Relational),
            _ => {
                let found = kind.map_or("nothing".to_string(), |k| k.to_string());
                self.push(
                    ProblemKind::Structure,
                    format!("{path}.kind"),
                    format!("expected \"key_value\" or \"relational\", found {found}"),
                );
                None
            }
        }
    }

    fn element<T: DeserializeOwned>(&mut self, value: Value, path: &str) -> Option<T> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(t) => Some(t),
            Err(e) => {
                let inner = e.path().to_string();
                let full = if inner == "." || inner.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}.{inner}")
                };
                let message = e.into_inner().to_string();
                let kind = if message.starts_with(UNKNOWN_LABEL_PREFIX) {
                    ProblemKind::UnknownLabel
                } else {
                    ProblemKind::Structure
                };
                self.push(kind, full, message);
                None
            }
        }
    }

    /// Checks what no one value shows alone: unique ids, examples naming tables that exist,
    /// row indices within their table, and each table's own rules.
    fn cross_check(
        &mut self,
        label_set: &LabelSet,
        tables: &[Option<Table>],
        table_ids: &[Option<String>],
        examples: &[Option<Example>],
        example_ids: &[Option<String>],
    ) {
        let table_rows = self.check_tables(tables, table_ids);
        let mut seen_example_ids: HashMap<&str, usize> = HashMap::new();
        for (i, (example, id)) in examples.iter().zip(example_ids).enumerate() {
            let path = format!("$.examples[{i}]");
            if let Some(id) = id {
                if let Some(first) = seen_example_ids.insert(id, i) {
                    self.push(ProblemKind::DuplicateId, format!("{path}.id"), format!("example id {id:?} is already used by $.examples[{first}]; ids must be unique"));
                }
            }
            if let Some(ex) = example {
                self.check_example(label_set, &table_rows, &path, ex);
            }
        }
    }

    /// The tables' ids (non-empty, unique) and rules; returns each id's row count (`None` for
    /// a table that exists but did not parse). A duplicate never replaces the first table
    /// with its id: examples refer to that one.
    fn check_tables<'a>(
        &mut self,
        tables: &[Option<Table>],
        table_ids: &'a [Option<String>],
    ) -> HashMap<&'a str, Option<usize>> {
        let mut table_rows: HashMap<&str, Option<usize>> = HashMap::new();
        for (i, (table, id)) in tables.iter().zip(table_ids).enumerate() {
            let path = format!("$.tables[{i}]");
            let Some(id) = id else { continue };
            if id.trim().is_empty() {
                self.push(
                    ProblemKind::Structure,
                    format!("{path}.id"),
                    "expected a non-empty table id",
                );
            }
            if table_rows.contains_key(id.as_str()) {
                self.push(
                    ProblemKind::DuplicateId,
                    format!("{path}.id"),
                    format!("table id {id:?} is used by an earlier table; ids must be unique"),
                );
            } else {
                table_rows.insert(id, table.as_ref().map(Table::row_count));
            }
            if let Some(table) = table {
                for p in table_rule_problems(table) {
                    self.push(p.kind, format!("{path}{}", p.path), p.message);
                }
            }
        }
        table_rows
    }

    /// One example at `path`: a hypothesis, a label of the set, exactly one premise (a known
    /// table or a text), and row indices within its table.
    fn check_example(
        &mut self,
        label_set: &LabelSet,
        table_rows: &HashMap<&str, Option<usize>>,
        path: &str,
        ex: &Example,
    ) {
        if ex.hypothesis.trim().is_empty() {
            self.push(
                ProblemKind::EmptyHypothesis,
                format!("{path}.hypothesis"),
                "expected a non-empty hypothesis",
            );
        }
        if !label_set.labels().contains(&ex.label) {
            self.push(
                ProblemKind::UnknownLabel,
                format!("{path}.label"),
                format!(
                    "{} is not a label of a two-way dataset; expected ENTAIL or CONTRADICT",
                    ex.label
                ),
            );
        }
        let Some(n) = self.premise_rows(table_rows, path, ex) else {
            return;
        };
        let past =
            |r: usize| format!("row index {r} is past the table's {n} rows (indices are 0-based)");
        for (j, b) in ex.relevance_votes.iter().flatten().enumerate() {
            for (k, &r) in b.rows.iter().enumerate() {
                if r >= n {
                    self.push(
                        ProblemKind::BadRowIndex,
                        format!("{path}.relevance_votes[{j}].rows[{k}]"),
                        past(r),
                    );
                }
            }
        }
        for (k, &r) in ex.relevant_rows.iter().flatten().enumerate() {
            if r >= n {
                self.push(
                    ProblemKind::BadRowIndex,
                    format!("{path}.relevant_rows[{k}]"),
                    past(r),
                );
            }
        }
    }

    /// The row count of the table the example at `path` reads, when it reads exactly one
    /// table that exists and parsed; otherwise `None`, with the problem pushed (both or neither
    /// premise, an unknown table, row lists beside a text premise).
    fn premise_rows(
        &mut self,
        table_rows: &HashMap<&str, Option<usize>>,
        path: &str,
        ex: &Example,
    ) -> Option<usize> {
        match (&ex.table, &ex.premise) {
            (Some(_), Some(_)) => {
                self.push(
                    ProblemKind::PremiseChoice,
                    path.to_string(),
                    "has both \"table\" and \"premise\"; expected exactly one",
                );
                None
            }
            (None, None) => {
                self.push(
                    ProblemKind::PremiseChoice,
                    path.to_string(),
                    "has neither \"table\" nor \"premise\"; expected exactly one",
                );
                None
            }
            (Some(id), None) => match table_rows.get(id.as_str()) {
                Some(&n) => n,
                None => {
                    self.push(ProblemKind::UnknownTable, format!("{path}.table"), format!("unknown table id {id:?}; expected the id of one of the dataset's {} tables", table_rows.len()));
                    None
                }
            },
            (None, Some(_)) => {
                if ex.relevant_rows.is_some() {
                    self.push(
                        ProblemKind::BadRowIndex,
                        format!("{path}.relevant_rows"),
                        "relevant rows need a table premise; this example has a plain-text premise",
                    );
                }
                if ex.relevance_votes.is_some() {
                    self.push(ProblemKind::BadRowIndex, format!("{path}.relevance_votes"), "relevant-row votes need a table premise; this example has a plain-text premise");
                }
                None
            }
        }
    }
}

impl Validator {
    /// Each review names an item `<example id>/<probe>/<n>` of an example the dataset holds
    /// (its `id`, or `#<index>`), once; an accept carries an allowed label, a reject none.
    fn check_reviews(&mut self, d: &Dataset, example_ids: &[Option<String>]) {
        use crate::data::review::{parse_item_id, ReviewDecision};
        let known: std::collections::BTreeSet<String> = example_ids
            .iter()
            .enumerate()
            .map(|(i, id)| id.clone().unwrap_or_else(|| format!("#{i}")))
            .collect();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, r) in d.reviews.iter().enumerate() {
            let path = format!("$.reviews[{i}]");
            if let Some(first) = seen.insert(r.item.as_str(), i) {
                self.push(
                    ProblemKind::DuplicateId,
                    format!("{path}.item"),
                    format!("item {:?} is already reviewed by $.reviews[{first}]; one decision per item", r.item),
                );
            }
            match parse_item_id(&r.item) {
                None => self.push(
                    ProblemKind::BadReview,
                    format!("{path}.item"),
                    format!("{:?} is not an item id; expected <example id>/<probe>/<n>, e.g. H1/negation/0", r.item),
                ),
                Some((example, _, _)) if !known.contains(example) => self.push(
                    ProblemKind::BadReview,
                    format!("{path}.item"),
                    format!("the dataset has no example {example:?}"),
                ),
                Some(_) => {}
            }
            match (r.decision, r.label) {
                (ReviewDecision::Accept, None) => self.push(
                    ProblemKind::BadReview,
                    format!("{path}.label"),
                    "missing; an accept carries the label the reviewer asserts",
                ),
                (ReviewDecision::Reject, Some(_)) => self.push(
                    ProblemKind::BadReview,
                    format!("{path}.label"),
                    "a reject carries no label; remove it or make the decision accept",
                ),
                (ReviewDecision::Accept, Some(l)) if !d.label_set.labels().contains(&l) => {
                    let message = format!(
                        "{l} is not a label of a two-way dataset; expected ENTAIL or CONTRADICT"
                    );
                    self.push(ProblemKind::UnknownLabel, format!("{path}.label"), message)
                }
                _ => {}
            }
        }
    }
}

/// The `id` string of a raw table or example, if it has one.
fn raw_id(v: &Value) -> Option<String> {
    v.get("id").and_then(Value::as_str).map(str::to_string)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
