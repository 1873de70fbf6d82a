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
use crate::counterfactual::{pair_examples, parse_counterfactual_tsv, CounterfactualPair};
use crate::dataset::{Dataset, Example, RelevanceBallot};
use crate::label::{Label, LabelSet};
use crate::table::Table;
use crate::validate::parse_dataset;

/// Choices for one import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The dataset's name (default: the first file's stem).
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
                super::human_size(total),
                super::human_size(limits.max_total_bytes)
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
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| stem(&first_name).to_string());
    let dataset = assemble(name, pieces, options, &mut report)?;
    report.count(&dataset);
    Ok((dataset, report))
}

/// Detects and parses one file.
fn read_one(
    f: &InputFile,
    report: &mut ImportReport,
) -> Result<(Format, Option<Piece>, String), ImportError> {
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
    if detect::looks_like_json(text) {
        if detect::looks_like_jsonl(name, text) {
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
            return Ok((
                Format::NliJsonl,
                Some(Piece::Examples(lines.examples)),
                detail,
            ));
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) if name.ends_with(".json") => return Err(ImportError::json_syntax(name, &e)),
            Err(_) => return Ok((Format::Unrecognised, None, String::new())),
        };
        let format = detect::detect_json(name, &value);
        let piece = match format {
            Format::ProductJson => {
                drop(value);
                let d = parse_dataset(name, text).map_err(|e| {
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
                })?;
                Piece::Product(d)
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
            Format::TabfactStatements => {
                Piece::Statements(tabfact::parse_statements(name, &value)?)
            }
            Format::TabfactSplitIds => Piece::SplitIds(
                tabfact::split_of_id_file(name),
                tabfact::parse_split_ids(name, &value)?,
            ),
            _ => return Ok((Format::Unrecognised, None, String::new())),
        };
        let detail = describe(&piece);
        return Ok((format, Some(piece), detail));
    }
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
                crate::counterfactual::CounterfactualError::Row { line, message, .. } => {
                    ImportError::new(name, format!("line {line}"), message)
                }
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

/// Puts the pieces together.
fn assemble(
    name: String,
    pieces: Vec<(String, Piece)>,
    options: &ImportOptions,
    report: &mut ImportReport,
) -> Result<Dataset, ImportError> {
    let mut d = Dataset::new(name);
    let mut table_index: HashMap<String, usize> = HashMap::new();
    let mut add_table =
        |d: &mut Dataset, report: &mut ImportReport, t: Table, file: &str| match table_index
            .get(t.id())
        {
            Some(&i) if d.tables[i] == t => {}
            Some(_) => report.skip(
                "table id already loaded with different content (the first was kept)",
                format!("{file}: {}", t.id()),
            ),
            None => {
                table_index.insert(t.id().to_string(), d.tables.len());
                d.tables.push(t);
            }
        };
    let mut two_way_sources = 0;
    let mut three_way_sources = 0;
    let mut split_lists: Vec<(String, HashSet<String>)> = Vec::new();
    let mut statements = Vec::new();
    let mut table_bert = Vec::new();
    let mut reasoning = Vec::new();
    let mut validation = Vec::new();
    let mut pairs = Vec::new();
    let mut tabpert_rows = Vec::new();
    let mut votes = Vec::new();
    for (file, piece) in pieces {
        match piece {
            Piece::Product(p) => {
                if p.label_set == LabelSet::TwoWay {
                    two_way_sources += 1;
                } else {
                    three_way_sources += 1;
                }
                if d.description.is_empty() {
                    d.description = p.description;
                }
                for t in p.tables {
                    add_table(&mut d, report, t, &file);
                }
                // The file validated against its own tables, but a table id loaded earlier
                // with other content wins (see `add_table`): the example's relevant rows must
                // still point into the table it will be probed with.
                let by_id: HashMap<&str, &Table> = d.tables.iter().map(|t| (t.id(), t)).collect();
                for (j, e) in p.examples.iter().enumerate() {
                    let table = e.table.as_deref().and_then(|id| by_id.get(id).copied());
                    if let Some(problem) = relevant_row_problem(e, table) {
                        return Err(ImportError::new(
                            &file,
                            format!("$.examples[{j}].relevant_rows[{}]", problem.0),
                            problem.1,
                        ));
                    }
                }
                d.examples.extend(p.examples);
            }
            Piece::Table(t) => add_table(&mut d, report, t, &file),
            Piece::Examples(e) => {
                three_way_sources += 1;
                d.examples.extend(e);
            }
            Piece::Statements(s) => {
                two_way_sources += 1;
                statements.push((file, s));
            }
            Piece::SplitIds(split, ids) => split_lists.push((split, ids.into_iter().collect())),
            Piece::TableBert(split, rows) => {
                two_way_sources += 1;
                table_bert.push((file, split, rows));
            }
            Piece::Reasoning(r) => reasoning.extend(r),
            Piece::Validation(v) => validation.extend(v),
            Piece::Counterfactual(p) => {
                three_way_sources += 1;
                pairs.extend(p);
            }
            Piece::Tabpert(r) => {
                three_way_sources += 1;
                tabpert_rows.push((file, r));
            }
            Piece::Votes(v) => votes.push((file, v)),
        }
    }
    split_lists.sort_by_key(|(s, _)| tabfact::split_rank(s));

    // TabFact statements: captions onto their tables, the split from the id lists.
    for (file, tables) in statements {
        for ts in tables {
            if let Some(&i) = table_index.get(&ts.table) {
                if let Table::Relational(r) = &mut d.tables[i] {
                    if r.caption.is_empty() {
                        r.caption = ts.caption.clone();
                    }
                }
            }
            let split = if split_lists.is_empty() {
                Some(stem(&file).to_string())
            } else {
                match split_lists.iter().find(|(_, ids)| ids.contains(&ts.table)) {
                    Some((s, _)) => Some(s.clone()),
                    None => {
                        for _ in &ts.statements {
                            report.skip(
                                "table is in none of the split lists given",
                                format!("{file}: {}", ts.table),
                            );
                        }
                        continue;
                    }
                }
            };
            for (i, (text, label)) in ts.statements.into_iter().enumerate() {
                d.examples.push(Example {
                    id: Some(format!("{}-{}", ts.table, i + 1)),
                    table: Some(ts.table.clone()),
                    premise: None,
                    hypothesis: text,
                    label,
                    split: split.clone(),
                    relevant_rows: None,
                    relevance_votes: None,
                    categories: Vec::new(),
                    annotator: None,
                    derived_from: None,
                    operation: None,
                });
            }
        }
    }
    // Table-BERT rows: on the table when it was given, else on Table-BERT's own linearization.
    let mut linearized_premises = 0;
    for (_file, split, rows) in table_bert {
        for r in rows {
            let has_table = table_index.contains_key(&r.table);
            if !has_table {
                linearized_premises += 1;
            }
            d.examples.push(Example {
                id: Some(format!("{split}-{}", r.line)),
                table: has_table.then(|| r.table.clone()),
                premise: (!has_table).then_some(r.linearized),
                hypothesis: r.statement,
                label: r.label,
                split: Some(split.clone()),
                relevant_rows: None,
                relevance_votes: None,
                categories: Vec::new(),
                annotator: None,
                derived_from: None,
                operation: None,
            });
        }
    }
    if linearized_premises > 0 {
        report.notes.push(format!(
            "{linearized_premises} Table-BERT statements use Table-BERT's linearized columns as a text premise (their table CSV was not among the files)"
        ));
    }
    // The probing paper's pairs: original and edited table, the label flips.
    for p in &pairs {
        d.examples.extend(pair_examples(p));
    }
    // TabPert: relevant row keys → row indices of the table.
    let mut seen_tabpert = HashSet::new();
    let mut tabpert_n = 0;
    for (file, rows) in tabpert_rows {
        for r in rows {
            let at = format!("{file}:line {}", r.line);
            let Some(label) = r.label else {
                report.skip("empty label cell (TabPert)", at);
                continue;
            };
            if r.hypothesis.trim().is_empty() {
                return Err(ImportError::new(
                    &file,
                    format!("line {}", r.line),
                    "empty hypothesis; expected the hypothesis text",
                ));
            }
            if !seen_tabpert.insert((r.table.clone(), r.hypothesis.clone(), label)) {
                report.skip(
                    "same table, hypothesis and label as an earlier TabPert row",
                    at,
                );
                continue;
            }
            let keys = r.relevant_keys.unwrap_or_else(|| {
                report.skip(
                    "table_rows is not a list like ['Died', 'Born'] (relevant rows left out)",
                    at.clone(),
                );
                Vec::new()
            });
            let relevant_rows = match table_index.get(&r.table).map(|&i| &d.tables[i]) {
                Some(Table::KeyValue(t)) if !keys.is_empty() => {
                    // Keys are compared without surrounding spaces: the release has
                    // `'Current constitution '` for the table's `Current constitution `.
                    let idx: Option<Vec<usize>> = keys
                        .iter()
                        .map(|k| t.rows.iter().position(|row| row.key.trim() == k.trim()))
                        .collect();
                    if idx.is_none() {
                        report.skip(
                            "relevant row key not in the table (relevant rows left out)",
                            at.clone(),
                        );
                    }
                    idx.map(|mut v| {
                        v.sort_unstable();
                        v.dedup();
                        v
                    })
                }
                _ => None,
            };
            tabpert_n += 1;
            d.examples.push(Example {
                id: Some(format!("tabpert-{tabpert_n}")),
                table: Some(r.table),
                premise: None,
                hypothesis: r.hypothesis,
                label,
                split: Some("tabpert".to_string()),
                relevant_rows,
                relevance_votes: None,
                categories: Vec::new(),
                annotator: None,
                derived_from: None,
                operation: None,
            });
        }
    }

    // Split filter.
    if !options.splits.is_empty() {
        let before = d.examples.len();
        d.examples.retain(|e| {
            e.split
                .as_ref()
                .is_some_and(|s| options.splits.iter().any(|k| k == s))
        });
        let dropped = before - d.examples.len();
        if dropped > 0 {
            report.notes.push(format!(
                "{dropped} examples of other splits left out (kept: {})",
                options.splits.join(", ")
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
            report.notes.push(format!(
                "{} tables no kept example uses left out",
                before - d.tables.len()
            ));
        }
        table_index = d
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id().to_string(), i))
            .collect();
    }
    // Examples whose table no file held.
    d.examples.retain(|e| match &e.table {
        Some(id) if !table_index.contains_key(id) => {
            *report.unmatched_table_ids.entry(id.clone()).or_insert(0) += 1;
            false
        }
        _ => true,
    });
    // Counterfactual examples whose original was dropped lose their link.
    let ids: HashSet<String> = d.examples.iter().filter_map(|e| e.id.clone()).collect();
    for e in &mut d.examples {
        if e.derived_from.as_ref().is_some_and(|o| !ids.contains(o)) {
            e.derived_from = None;
        }
    }

    // Side files onto the examples.
    if !reasoning.is_empty() {
        let applied = infotabs::apply_reasoning(&mut d.examples, &reasoning);
        let keys: HashSet<(&str, &str)> = d
            .examples
            .iter()
            .filter_map(|e| Some((e.table.as_deref()?, e.hypothesis.as_str())))
            .collect();
        let unmatched = reasoning
            .iter()
            .filter(|r| !keys.contains(&(r.table.as_str(), r.hypothesis.as_str())))
            .count();
        report.notes.push(format!(
            "reasoning categories put on {applied} examples ({} rows read, {unmatched} of them match no example)",
            reasoning.len()
        ));
    }
    if !validation.is_empty() {
        let by_key: HashMap<(&str, &str), Label> = d
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
        report.notes.push(format!(
            "validation labels: {} of {} rows match an example; the validators' majority equals the gold label on {} of them",
            matched.len(),
            validation.len(),
            matched.iter().filter(|m| **m).count()
        ));
    }
    apply_votes(&mut d, votes, &table_index, report)?;
    // Every path above keeps relevant rows inside their table; this says where if one did not.
    let by_id: HashMap<&str, &Table> = d.tables.iter().map(|t| (t.id(), t)).collect();
    for (j, e) in d.examples.iter().enumerate() {
        let table = e.table.as_deref().and_then(|id| by_id.get(id).copied());
        if let Some((k, message)) = relevant_row_problem(e, table) {
            return Err(ImportError::new(
                report.files.first().map(|f| f.name.as_str()).unwrap_or(""),
                format!(
                    "example {} ($.examples[{j}].relevant_rows[{k}] of the imported dataset)",
                    e.id.as_deref().unwrap_or("without id")
                ),
                message,
            ));
        }
    }

    if d.examples.is_empty() && d.tables.is_empty() {
        let hint = match report.unmatched_table_ids.keys().next() {
            Some(id) => format!(
                "every example names a table none of the files holds (e.g. {id}); add the table files"
            ),
            None => "the files hold no tables and no examples".to_string(),
        };
        return Err(ImportError::new(
            report.files.first().map(|f| f.name.as_str()).unwrap_or(""),
            "all files",
            format!("nothing to load: {hint}"),
        ));
    }
    d.label_set = if two_way_sources > 0 && three_way_sources == 0 {
        LabelSet::TwoWay
    } else {
        LabelSet::ThreeWay
    };
    Ok(d)
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
