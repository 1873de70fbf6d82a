//! A set of named files (several files, a folder, the entries of a zip) → one dataset and an
//! [`ImportReport`]. Each file's format is detected from its content; tables, examples and the
//! side files (reasoning categories, validation labels, split lists, relevant-row votes) are
//! then put together. Nothing is returned half-done: any located error aborts the import, so
//! the caller's current dataset stays as it was.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::detect::{self, Format};
use super::report::{FileReport, ImportReport};
use super::{
    decode_text, infotabs, nli_jsonl, relevance_csv, stem, tabfact, tablebert, tabpert, too_large,
    ImportError, InputFile, Limits,
};
use crate::data::dataset::{Dataset, Example, RelevanceBallot};
use crate::data::import::counterfactual::{
    pair_examples, parse_counterfactual_tsv, CounterfactualPair,
};
use crate::data::label::{Label, LabelSet};
use crate::data::table::Table;
use crate::data::validate::parse_dataset;

/// Choices for one import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The dataset's name (default: the first file's stem); a tabprobe dataset JSON given alone
    /// with no split asked for keeps its own.
    pub name: Option<String>,
    /// Keep only these splits (empty: all). Tables no kept example uses are then dropped.
    pub splits: Vec<String>,
    /// Size limits.
    pub limits: Limits,
}

/// What one file yielded, before the pieces are put together.
enum Piece {
    Product(Dataset),
    Table(Table),
    Examples(Vec<Example>),
    Statements(Vec<tabfact::TableStatements>),
    SplitIds(String, Vec<String>),
    TableBert(String, Vec<tablebert::TableBertRow>),
    Reasoning(Vec<infotabs::ReasoningRow>),
    Validation(Vec<infotabs::ValidationRow>),
    Counterfactual(Vec<CounterfactualPair>),
    Tabpert(Vec<tabpert::TabpertRow>),
    Votes(Vec<relevance_csv::RelevanceVote>),
}

/// Imports `files`; see the module documentation.
pub fn import_files(
    files: Vec<InputFile>,
    options: &ImportOptions,
) -> Result<(Dataset, ImportReport), ImportError> {
    let limits = &options.limits;
    let mut report = ImportReport::default();
    let first_name = files.first().map(|f| f.name.clone()).unwrap_or_default();
    // Zips first: their entries join the list in place of the archive.
    let mut total: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
    let mut flat = Vec::with_capacity(files.len());
    for f in files {
        let size = f.bytes.len() as u64;
        if size > limits.max_file_bytes {
            return Err(too_large(&f.name, size, limits.max_file_bytes));
        }
        if detect::is_zip(&f.name, &f.bytes) {
            total -= size;
            let inner = super::zip::expand(&f.name, &f.bytes, limits, total)?;
            total += inner.iter().map(|x| x.bytes.len() as u64).sum::<u64>();
            report.files.push(FileReport {
                name: f.name.clone(),
                format: Format::Zip,
                detail: format!("{} files", inner.len()),
            });
            flat.extend(inner);
        } else {
            flat.push(f);
        }
    }
    if total > limits.max_total_bytes {
        return Err(ImportError::new(
            &first_name,
            "size",
            format!(
                "the files come to {} together; the limit is {}",
                crate::display::bytes(total),
                crate::display::bytes(limits.max_total_bytes)
            ),
        ));
    }

    let mut pieces = Vec::new();
    for f in &flat {
        let (format, piece, detail) = read_one(f, &mut report)?;
        if format == Format::Unrecognised {
            report.skip(detect::unrecognised_reason(&f.name), f.name.clone());
        }
        report.files.push(FileReport {
            name: f.name.clone(),
            format,
            detail,
        });
        if let Some(p) = piece {
            pieces.push((f.name.clone(), p));
        }
    }
    if pieces.is_empty() {
        return Err(detect::nothing_recognised(
            flat.first().map(|f| f.name.as_str()).unwrap_or(&first_name),
        ));
    }
    // A tabprobe dataset JSON given alone (no split asked for) is the dataset it holds, taken
    // whole — its name, description, label set and reviews — as the page's own loader takes
    // it (the page has the worker read one over 512 KiB); assembling would rename it and drop
    // its reviews.
    if let ([_], true) = (flat.as_slice(), options.splits.is_empty()) {
        if let Some((_, Piece::Product(_))) = pieces.first() {
            if let Some((_, Piece::Product(d))) = pieces.pop() {
                report.count(&d);
                return Ok((d, report));
            }
        }
    }
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| stem(&first_name).to_string());
    let dataset = assemble(name, pieces, options, &mut report)?;
    report.count(&dataset);
    Ok((dataset, report))
}

/// What reading one file gave: its format, what it holds (none for a file passed over), and
/// the detail of the summary's line.
type ReadFile = (Format, Option<Piece>, String);

/// Detects and parses one file.
fn read_one(f: &InputFile, report: &mut ImportReport) -> Result<ReadFile, ImportError> {
    let name = f.name.as_str();
    if detect::is_zip(name, &f.bytes) {
        report.skip("zip inside a zip is not opened", name.to_string());
        return Ok((Format::Zip, None, "not opened (nested)".into()));
    }
    let Ok(text) = decode_text(name, &f.bytes) else {
        // Binary files in a folder (images, archives) are passed over; a data file that is
        // not UTF-8 is an error.
        let lower = name.to_ascii_lowercase();
        if [".json", ".jsonl", ".tsv", ".csv"]
            .iter()
            .any(|e| lower.ends_with(e))
        {
            return Err(decode_text(name, &f.bytes)
                .err()
                .unwrap_or_else(|| ImportError::new(name, "line 1", "not UTF-8 text")));
        }
        return Ok((Format::Unrecognised, None, "binary file".into()));
    };
    if !detect::looks_like_json(text) {
        return read_text(name, text);
    }
    if detect::looks_like_jsonl(name, text) {
        return read_nli_jsonl(name, text, report);
    }
    read_json(name, text)
}

/// An NLI JSON-lines file (SNLI, MNLI): its examples; those without a gold label are passed
/// over and listed.
fn read_nli_jsonl(
    name: &str,
    text: &str,
    report: &mut ImportReport,
) -> Result<ReadFile, ImportError> {
    let split = stem(name).to_string();
    let lines = nli_jsonl::parse(name, &split, text)?;
    for n in &lines.no_majority {
        report.skip(
            "gold label \"-\" (no annotator majority)",
            format!("{name}:line {n}"),
        );
    }
    let detail = format!(
        "{} examples, {} skipped for gold label \"-\"",
        lines.examples.len(),
        lines.no_majority.len()
    );
    Ok((
        Format::NliJsonl,
        Some(Piece::Examples(lines.examples)),
        detail,
    ))
}

/// A JSON file, by the format its content shows.
fn read_json(name: &str, text: &str) -> Result<ReadFile, ImportError> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) if name.ends_with(".json") => return Err(ImportError::json_syntax(name, &e)),
        Err(_) => return Ok((Format::Unrecognised, None, String::new())),
    };
    let format = detect::detect_json(name, &value);
    let piece = match format {
        Format::ProductJson => {
            drop(value);
            Piece::Product(read_product(name, text)?)
        }
        Format::InfotabsTable => Piece::Table(Table::KeyValue(infotabs::parse_table(
            name,
            stem(name),
            text,
        )?)),
        Format::TabpertTable => Piece::Table(Table::KeyValue(tabpert::parse_table(
            name,
            stem(name),
            &value,
        )?)),
        Format::TabfactStatements => Piece::Statements(tabfact::parse_statements(name, &value)?),
        Format::TabfactSplitIds => Piece::SplitIds(
            tabfact::split_of_id_file(name),
            tabfact::parse_split_ids(name, &value)?,
        ),
        _ => return Ok((Format::Unrecognised, None, String::new())),
    };
    let detail = describe(&piece);
    Ok((format, Some(piece), detail))
}

/// A dataset in tabprobe's own format; its first problem becomes the import's error.
fn read_product(name: &str, text: &str) -> Result<Dataset, ImportError> {
    parse_dataset(name, text).map_err(|e| {
        let p = e.problems.first();
        ImportError::new(
            name,
            p.map(|p| match p.line_column {
                Some((l, c)) => format!("line {l}, column {c}"),
                None => p.path.clone(),
            })
            .unwrap_or_else(|| "$".into()),
            format!(
                "{} ({} problem(s) in all; `tabprobe validate` lists them)",
                p.map(|p| p.message.clone()).unwrap_or_default(),
                e.problems.len()
            ),
        )
    })
}

/// A text file (TSV, CSV), by the format its name and header show.
fn read_text(name: &str, text: &str) -> Result<ReadFile, ImportError> {
    let format = detect::detect_text(name, text);
    let piece = match format {
        Format::InfotabsSplitTsv => Piece::Examples(infotabs::parse_split_tsv(
            name,
            &infotabs::split_name(name),
            text,
        )?),
        Format::InfotabsReasoningTsv => {
            Piece::Reasoning(infotabs::parse_reasoning_tsv(name, text)?)
        }
        Format::InfotabsValidationTsv => {
            Piece::Validation(infotabs::parse_validation_tsv(name, text)?)
        }
        Format::TabprobeCounterfactualTsv => {
            Piece::Counterfactual(parse_counterfactual_tsv(name, text).map_err(|e| match e {
                crate::data::import::counterfactual::CounterfactualError::Row {
                    line,
                    message,
                    ..
                } => ImportError::new(name, format!("line {line}"), message),
                other => ImportError::new(name, "line 1", other.to_string()),
            })?)
        }
        Format::TabpertHypothesesTsv => Piece::Tabpert(tabpert::parse_hypotheses(name, text)?),
        Format::RelevanceCsv => Piece::Votes(relevance_csv::parse(name, text)?),
        Format::TableBertTsv => {
            Piece::TableBert(stem(name).to_string(), tablebert::parse(name, text)?)
        }
        Format::TabfactCsv => Piece::Table(Table::Relational(tabfact::parse_csv_table(
            name,
            super::base_name(name),
            text,
        )?)),
        _ => return Ok((Format::Unrecognised, None, String::new())),
    };
    let detail = describe(&piece);
    Ok((format, Some(piece), detail))
}

/// What a piece holds, for the per-file line of the summary.
fn describe(p: &Piece) -> String {
    match p {
        Piece::Product(d) => format!("{} tables, {} examples", d.tables.len(), d.examples.len()),
        Piece::Table(t) => format!("table {} ({} rows)", t.id(), t.row_count()),
        Piece::Examples(e) => format!("{} examples", e.len()),
        Piece::Statements(s) => format!(
            "{} tables, {} statements",
            s.len(),
            s.iter().map(|t| t.statements.len()).sum::<usize>()
        ),
        Piece::SplitIds(split, ids) => format!("split {split}: {} tables", ids.len()),
        Piece::TableBert(_, r) => format!("{} statements", r.len()),
        Piece::Reasoning(r) => format!("{} rows of reasoning categories", r.len()),
        Piece::Validation(r) => format!("{} rows of validation labels", r.len()),
        Piece::Counterfactual(p) => format!("{} counterfactual pairs", p.len()),
        Piece::Tabpert(r) => format!("{} hypotheses", r.len()),
        Piece::Votes(v) => format!("{} votes", v.len()),
    }
}

/// Puts the pieces together, one stage after the other: the pieces that carry tables and
/// examples of their own first, then the ones that need the tables (TabFact statements,
/// Table-BERT rows, counterfactual pairs, TabPert rows), the split filter, the examples whose
/// table no file held, the side files, and a last check of the relevant rows.
fn assemble(
    name: String,
    pieces: Vec<(String, Piece)>,
    options: &ImportOptions,
    report: &mut ImportReport,
) -> Result<Dataset, ImportError> {
    let mut a = Assembly::new(name, report);
    let waiting = a.sort(pieces)?;
    a.add_statements(waiting.statements, &waiting.split_lists);
    a.add_table_bert(waiting.table_bert);
    for p in &waiting.pairs {
        a.d.examples.extend(pair_examples(p));
    }
    a.add_tabpert(waiting.tabpert)?;
    a.keep_splits(&options.splits);
    a.drop_unmatched();
    a.note_reasoning(&waiting.reasoning);
    a.note_validation(&waiting.validation);
    apply_votes(&mut a.d, waiting.votes, &a.table_index, a.report)?;
    a.check_relevant_rows()?;
    a.finish()
}

/// The pieces that wait for every table to be loaded, by kind, with the file each came from.
#[derive(Default)]
struct Waiting {
    split_lists: Vec<(String, HashSet<String>)>,
    statements: Vec<(String, Vec<tabfact::TableStatements>)>,
    table_bert: Vec<(String, Vec<tablebert::TableBertRow>)>,
    reasoning: Vec<infotabs::ReasoningRow>,
    validation: Vec<infotabs::ValidationRow>,
    pairs: Vec<CounterfactualPair>,
    tabpert: Vec<(String, Vec<tabpert::TabpertRow>)>,
    votes: Vec<(String, Vec<relevance_csv::RelevanceVote>)>,
}

/// The dataset being put together.
struct Assembly<'r> {
    d: Dataset,
    /// Position of each table id in `d.tables`.
    table_index: HashMap<String, usize>,
    report: &'r mut ImportReport,
    /// Files whose format is two-way (TabFact) and three-way; the dataset is two-way only
    /// when every source is.
    two_way_sources: usize,
    three_way_sources: usize,
}

impl<'r> Assembly<'r> {
    fn new(name: String, report: &'r mut ImportReport) -> Self {
        Assembly {
            d: Dataset::new(name),
            table_index: HashMap::new(),
            report,
            two_way_sources: 0,
            three_way_sources: 0,
        }
    }

    /// Adds a table, unless one with its id is already loaded (the first is kept; a different
    /// content is reported).
    fn add_table(&mut self, t: Table, file: &str) {
        match self.table_index.get(t.id()) {
            Some(&i) if self.d.tables[i] == t => {}
            Some(_) => self.report.skip(
                "table id already loaded with different content (the first was kept)",
                format!("{file}: {}", t.id()),
            ),
            None => {
                self.table_index
                    .insert(t.id().to_string(), self.d.tables.len());
                self.d.tables.push(t);
            }
        }
    }

    /// Takes in the tables and examples the pieces carry and keeps the rest waiting.
    fn sort(&mut self, pieces: Vec<(String, Piece)>) -> Result<Waiting, ImportError> {
        let mut w = Waiting::default();
        for (file, piece) in pieces {
            match piece {
                Piece::Product(p) => self.add_product(p, &file)?,
                Piece::Table(t) => self.add_table(t, &file),
                Piece::Examples(e) => {
                    self.three_way_sources += 1;
                    self.d.examples.extend(e);
                }
                Piece::Statements(s) => {
                    self.two_way_sources += 1;
                    w.statements.push((file, s));
                }
                Piece::SplitIds(split, ids) => {
                    w.split_lists.push((split, ids.into_iter().collect()))
                }
                Piece::TableBert(split, rows) => {
                    self.two_way_sources += 1;
                    w.table_bert.push((split, rows));
                }
                Piece::Reasoning(r) => w.reasoning.extend(r),
                Piece::Validation(v) => w.validation.extend(v),
                Piece::Counterfactual(p) => {
                    self.three_way_sources += 1;
                    w.pairs.extend(p);
                }
                Piece::Tabpert(r) => {
                    self.three_way_sources += 1;
                    w.tabpert.push((file, r));
                }
                Piece::Votes(v) => w.votes.push((file, v)),
            }
        }
        w.split_lists.sort_by_key(|(s, _)| tabfact::split_rank(s));
        Ok(w)
    }

    /// A dataset in the product's own format: its tables and examples.
    fn add_product(&mut self, p: Dataset, file: &str) -> Result<(), ImportError> {
        if p.label_set == LabelSet::TwoWay {
            self.two_way_sources += 1;
        } else {
            self.three_way_sources += 1;
        }
        if self.d.description.is_empty() {
            self.d.description = p.description;
        }
        for t in p.tables {
            self.add_table(t, file);
        }
        // The file validated against its own tables, but a table id loaded earlier with other
        // content wins (see `add_table`): the example's relevant rows must still point into
        // the table it will be probed with.
        let by_id: HashMap<&str, &Table> = self.d.tables.iter().map(|t| (t.id(), t)).collect();
        for (j, e) in p.examples.iter().enumerate() {
            let table = e.table.as_deref().and_then(|id| by_id.get(id).copied());
            if let Some(problem) = relevant_row_problem(e, table) {
                return Err(ImportError::new(
                    file,
                    format!("$.examples[{j}].relevant_rows[{}]", problem.0),
                    problem.1,
                ));
            }
        }
        self.d.examples.extend(p.examples);
        Ok(())
    }

    /// TabFact statements: captions onto their tables, the split from the id lists (else the
    /// file's stem).
    fn add_statements(
        &mut self,
        statements: Vec<(String, Vec<tabfact::TableStatements>)>,
        split_lists: &[(String, HashSet<String>)],
    ) {
        for (file, tables) in statements {
            for ts in tables {
                if let Some(&i) = self.table_index.get(&ts.table) {
                    if let Table::Relational(r) = &mut self.d.tables[i] {
                        if r.caption.is_empty() {
                            r.caption = ts.caption.clone();
                        }
                    }
                }
                let split = if split_lists.is_empty() {
                    stem(&file).to_string()
                } else {
                    match split_lists.iter().find(|(_, ids)| ids.contains(&ts.table)) {
                        Some((s, _)) => s.clone(),
                        None => {
                            for _ in &ts.statements {
                                self.report.skip(
                                    "table is in none of the split lists given",
                                    format!("{file}: {}", ts.table),
                                );
                            }
                            continue;
                        }
                    }
                };
                for (i, (text, label)) in ts.statements.into_iter().enumerate() {
                    let mut e =
                        Example::plain(format!("{}-{}", ts.table, i + 1), text, label, &split);
                    e.table = Some(ts.table.clone());
                    self.d.examples.push(e);
                }
            }
        }
    }

    /// Table-BERT rows: on the table when it was given, else on Table-BERT's own linearization
    /// as a text premise.
    fn add_table_bert(&mut self, table_bert: Vec<(String, Vec<tablebert::TableBertRow>)>) {
        let mut linearized_premises = 0;
        for (split, rows) in table_bert {
            for r in rows {
                let has_table = self.table_index.contains_key(&r.table);
                if !has_table {
                    linearized_premises += 1;
                }
                let mut e =
                    Example::plain(format!("{split}-{}", r.line), r.statement, r.label, &split);
                e.table = has_table.then(|| r.table.clone());
                e.premise = (!has_table).then_some(r.linearized);
                self.d.examples.push(e);
            }
        }
        if linearized_premises > 0 {
            self.report.notes.push(format!(
                "{linearized_premises} Table-BERT statements use Table-BERT's linearized columns as a text premise (their table CSV was not among the files)"
            ));
        }
    }

    /// TabPert rows: relevant row keys → row indices of the table; rows without a label or
    /// repeated are skipped, an empty hypothesis is an error on its line.
    fn add_tabpert(
        &mut self,
        tabpert: Vec<(String, Vec<tabpert::TabpertRow>)>,
    ) -> Result<(), ImportError> {
        let mut seen = HashSet::new();
        let mut n = 0;
        for (file, rows) in tabpert {
            for r in rows {
                let at = format!("{file}:line {}", r.line);
                let Some(label) = r.label else {
                    self.report.skip("empty label cell (TabPert)", at);
                    continue;
                };
                if r.hypothesis.trim().is_empty() {
                    return Err(ImportError::new(
                        &file,
                        format!("line {}", r.line),
                        "empty hypothesis; expected the hypothesis text",
                    ));
                }
                if !seen.insert((r.table.clone(), r.hypothesis.clone(), label)) {
                    self.report.skip(
                        "same table, hypothesis and label as an earlier TabPert row",
                        at,
                    );
                    continue;
                }
                let keys = match r.relevant_keys {
                    Some(keys) => keys,
                    None => {
                        self.report.skip(
                            "table_rows is not a list like ['Died', 'Born'] (relevant rows left out)",
                            at.clone(),
                        );
                        Vec::new()
                    }
                };
                let relevant_rows = self.rows_of_keys(&r.table, &keys, &at);
                n += 1;
                let mut e = Example::plain(format!("tabpert-{n}"), r.hypothesis, label, "tabpert");
                e.table = Some(r.table);
                e.relevant_rows = relevant_rows;
                self.d.examples.push(e);
            }
        }
        Ok(())
    }

    /// The sorted row indices of `keys` in key-value table `table`; `None` when a key is not
    /// in it (reported at `at`), when there are no keys or the table is not key-value.
    fn rows_of_keys(&mut self, table: &str, keys: &[String], at: &str) -> Option<Vec<usize>> {
        let t = match self.table_index.get(table).map(|&i| &self.d.tables[i]) {
            Some(Table::KeyValue(t)) if !keys.is_empty() => t,
            _ => return None,
        };
        // Keys are compared without surrounding spaces: the release has
        // `'Current constitution '` for the table's `Current constitution `.
        let idx: Option<Vec<usize>> = keys
            .iter()
            .map(|k| t.rows.iter().position(|row| row.key.trim() == k.trim()))
            .collect();
        match idx {
            Some(mut v) => {
                v.sort_unstable();
                v.dedup();
                Some(v)
            }
            None => {
                self.report.skip(
                    "relevant row key not in the table (relevant rows left out)",
                    at.to_string(),
                );
                None
            }
        }
    }

    /// Keeps only the examples of `splits` (all when empty) and the tables they use.
    fn keep_splits(&mut self, splits: &[String]) {
        if splits.is_empty() {
            return;
        }
        let d = &mut self.d;
        let before = d.examples.len();
        d.examples.retain(|e| {
            e.split
                .as_ref()
                .is_some_and(|s| splits.iter().any(|k| k == s))
        });
        let dropped = before - d.examples.len();
        if dropped > 0 {
            self.report.notes.push(format!(
                "{dropped} examples of other splits left out (kept: {})",
                splits.join(", ")
            ));
        }
        let used: HashSet<&str> = d
            .examples
            .iter()
            .filter_map(|e| e.table.as_deref())
            .collect();
        let before = d.tables.len();
        d.tables.retain(|t| used.contains(t.id()));
        if before > d.tables.len() {
            self.report.notes.push(format!(
                "{} tables no kept example uses left out",
                before - d.tables.len()
            ));
        }
        self.table_index = d
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id().to_string(), i))
            .collect();
    }

    /// Drops the examples whose table no file held (counted in the report); counterfactual
    /// examples whose original was dropped lose their link.
    fn drop_unmatched(&mut self) {
        let (table_index, report) = (&self.table_index, &mut *self.report);
        self.d.examples.retain(|e| match &e.table {
            Some(id) if !table_index.contains_key(id) => {
                *report.unmatched_table_ids.entry(id.clone()).or_insert(0) += 1;
                false
            }
            _ => true,
        });
        let ids: HashSet<String> = self
            .d
            .examples
            .iter()
            .filter_map(|e| e.id.clone())
            .collect();
        for e in &mut self.d.examples {
            if e.derived_from.as_ref().is_some_and(|o| !ids.contains(o)) {
                e.derived_from = None;
            }
        }
    }

    /// Reasoning categories onto the examples they name, with a note of how many matched.
    fn note_reasoning(&mut self, reasoning: &[infotabs::ReasoningRow]) {
        if reasoning.is_empty() {
            return;
        }
        let applied = infotabs::apply_reasoning(&mut self.d.examples, reasoning);
        let keys: HashSet<(&str, &str)> = self
            .d
            .examples
            .iter()
            .filter_map(|e| Some((e.table.as_deref()?, e.hypothesis.as_str())))
            .collect();
        let unmatched = reasoning
            .iter()
            .filter(|r| !keys.contains(&(r.table.as_str(), r.hypothesis.as_str())))
            .count();
        self.report.notes.push(format!(
            "reasoning categories put on {applied} examples ({} rows read, {unmatched} of them match no example)",
            reasoning.len()
        ));
    }

    /// Validation labels are not put on the examples; the note says how many match one and
    /// how often the validators' majority is the gold label.
    fn note_validation(&mut self, validation: &[infotabs::ValidationRow]) {
        if validation.is_empty() {
            return;
        }
        let by_key: HashMap<(&str, &str), Label> = self
            .d
            .examples
            .iter()
            .filter_map(|e| Some(((e.table.as_deref()?, e.hypothesis.as_str()), e.label)))
            .collect();
        let matched: Vec<bool> = validation
            .iter()
            .filter_map(|v| {
                let gold = by_key.get(&(v.table.as_str(), v.hypothesis.as_str()))?;
                Some(*gold == v.majority)
            })
            .collect();
        self.report.notes.push(format!(
            "validation labels: {} of {} rows match an example; the validators' majority equals the gold label on {} of them",
            matched.len(),
            validation.len(),
            matched.iter().filter(|m| **m).count()
        ));
    }

    /// Every stage keeps relevant rows inside their table; this says where if one did not.
    fn check_relevant_rows(&self) -> Result<(), ImportError> {
        let by_id: HashMap<&str, &Table> = self.d.tables.iter().map(|t| (t.id(), t)).collect();
        for (j, e) in self.d.examples.iter().enumerate() {
            let table = e.table.as_deref().and_then(|id| by_id.get(id).copied());
            if let Some((k, message)) = relevant_row_problem(e, table) {
                return Err(ImportError::new(
                    self.first_file(),
                    format!(
                        "example {} ($.examples[{j}].relevant_rows[{k}] of the imported dataset)",
                        e.id.as_deref().unwrap_or("without id")
                    ),
                    message,
                ));
            }
        }
        Ok(())
    }

    /// The name of the first file read (errors about the whole import are placed there).
    fn first_file(&self) -> &str {
        self.report
            .files
            .first()
            .map(|f| f.name.as_str())
            .unwrap_or("")
    }

    /// The dataset, or an error when nothing was loaded; two-way only when every source is.
    fn finish(self) -> Result<Dataset, ImportError> {
        if self.d.examples.is_empty() && self.d.tables.is_empty() {
            let hint = match self.report.unmatched_table_ids.keys().next() {
                Some(id) => format!(
                    "every example names a table none of the files holds (e.g. {id}); add the table files"
                ),
                None => "the files hold no tables and no examples".to_string(),
            };
            return Err(ImportError::new(
                self.first_file(),
                "all files",
                format!("nothing to load: {hint}"),
            ));
        }
        let mut d = self.d;
        d.label_set = if self.two_way_sources > 0 && self.three_way_sources == 0 {
            LabelSet::TwoWay
        } else {
            LabelSet::ThreeWay
        };
        Ok(d)
    }
}

/// The first relevant row of `e` that is not a row of `table` (the table it will be probed
/// with): its position in `relevant_rows` and the message. `None` when all are in range, or
/// when the example has no table or no relevant rows.
fn relevant_row_problem(e: &Example, table: Option<&Table>) -> Option<(usize, String)> {
    let (rows, table) = (e.relevant_rows.as_ref()?, table?);
    let n = table.row_count();
    let (k, r) = rows.iter().enumerate().find(|(_, &r)| r >= n)?;
    Some((
        k,
        format!(
            "relevant row {r} is past the {n} rows of table {} (indices are 0-based); a table with this id was loaded earlier with other content and is the one kept",
            table.id()
        ),
    ))
}

/// Majority votes onto the examples they name; a ballot whose length is not the table's row
/// count is an error on its line.
fn apply_votes(
    d: &mut Dataset,
    votes: Vec<(String, Vec<relevance_csv::RelevanceVote>)>,
    table_index: &HashMap<String, usize>,
    report: &mut ImportReport,
) -> Result<(), ImportError> {
    if votes.is_empty() {
        return Ok(());
    }
    // (table, hypothesis) → each annotator's (name, one vote per row), in file order.
    type Ballots = Vec<(String, Vec<bool>)>;
    let mut ballots: BTreeMap<(String, String), Ballots> = BTreeMap::new();
    for (file, vs) in votes {
        for v in vs {
            let Some(&ti) = table_index.get(&v.table) else {
                report.skip(
                    "votes for a table no file held",
                    format!("{file}:line {}", v.line),
                );
                continue;
            };
            let rows = d.tables[ti].row_count();
            if v.votes.len() != rows {
                return Err(ImportError::new(
                    &file,
                    format!("line {}", v.line),
                    format!(
                        "{} votes; expected one 0/1 per row of table {} ({rows} rows)",
                        v.votes.len(),
                        v.table
                    ),
                ));
            }
            ballots
                .entry((v.table, v.hypothesis))
                .or_default()
                .push((v.annotator, v.votes));
        }
    }
    let mut applied = 0;
    for e in &mut d.examples {
        let Some(t) = e.table.clone() else { continue };
        if let Some(b) = ballots.remove(&(t, e.hypothesis.clone())) {
            let refs: Vec<&[bool]> = b.iter().map(|(_, v)| v.as_slice()).collect();
            e.relevant_rows = Some(relevance_csv::majority(&refs));
            // The ballots stay, in file order, for the agreement figures (§5.2).
            e.relevance_votes = Some(
                b.into_iter()
                    .map(|(annotator, votes)| RelevanceBallot {
                        annotator,
                        rows: (0..votes.len()).filter(|&r| votes[r]).collect(),
                    })
                    .collect(),
            );
            applied += 1;
        }
    }
    for (table, hypothesis) in ballots.keys() {
        report.skip(
            "votes for a hypothesis no example has",
            format!("{table}: {hypothesis}"),
        );
    }
    report.notes.push(format!(
        "relevant rows (majority vote) put on {applied} examples, each annotator's votes kept"
    ));
    Ok(())
}
