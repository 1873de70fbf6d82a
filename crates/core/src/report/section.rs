//! One table of the report as data: which table it is ([`SectionId`]), its notes and header,
//! and rows that carry their cells with the items behind them ([`Row`], an
//! [`ItemSelector`]); printed as aligned text (`tabprobe report`) and written as CSV (the CLI
//! and the site's download) by the same functions.

use serde::{Deserialize, Serialize};

use super::select::ItemSelector;
use crate::metrics::{CounterfactualClass, TransitionSet};

/// Which table of the report a [`Section`] is: the site places and drills by it, the CSV file
/// is named after it ([`SectionId::file`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SectionId {
    /// The run's settings and counts.
    Run,
    /// Table 1: accuracy per split beside hypothesis-only and the majority baseline.
    Table1,
    /// Table 4: hypothesis probes' scores.
    Table4,
    /// Table 7: counterfactual tables' scores.
    Table7,
    /// An invalid-transition table of one transition set (Tables 5, 6, 13–17).
    Invalid(TransitionSet),
    /// A transition graph of one transition set, as edge rows.
    Graph(TransitionSet),
    /// Evidence selection (§5.3) per group.
    Evidence,
    /// Evidence selection per example.
    EvidenceExamples,
    /// Agreement of relevance annotations (§5.2).
    Agreement,
    /// Word-order metrics (UNLI §4) per group.
    WordOrder,
    /// Word-order acceptance by BLEU-2 bin.
    WordOrderBleu,
    /// The Ω_x curve.
    WordOrderOmega,
    /// Table 8 of one class of counterfactuals.
    Table8(CounterfactualClass),
}

impl SectionId {
    /// The file stem of the section's CSV (`tabprobe report --csv`, the site's download).
    pub fn file(self) -> String {
        match self {
            SectionId::Run => "run".into(),
            SectionId::Table1 => "table1_accuracy".into(),
            SectionId::Table4 => "table4_scores".into(),
            SectionId::Table7 => "table7_scores".into(),
            SectionId::Invalid(set) => format!("invalid_{}", set.as_str()),
            SectionId::Graph(set) => format!("graph_{}", set.as_str()),
            SectionId::Evidence => "evidence".into(),
            SectionId::EvidenceExamples => "evidence_examples".into(),
            SectionId::Agreement => "agreement".into(),
            SectionId::WordOrder => "word_order".into(),
            SectionId::WordOrderBleu => "word_order_bleu".into(),
            SectionId::WordOrderOmega => "word_order_omega".into(),
            SectionId::Table8(class) => format!("table8_paired_{}", class.as_str()),
        }
    }

    /// Tables 4 and 7, the score tables (mean ± sd over samples).
    pub fn is_score_table(self) -> bool {
        matches!(self, SectionId::Table4 | SectionId::Table7)
    }
}

/// One row of a section: its cells and the items its figures count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The cells, one per column of the header; an empty cell means "no value".
    pub cells: Vec<String>,
    /// The items every figure of the row counts, when they count one set (an edge, a
    /// probe's score row, a Table 8 combination, …); `None` when the row has no items behind
    /// it or its columns count different sets (see `cell_items`).
    pub items: Option<ItemSelector>,
    /// Items behind single cells, by column index, where the columns of one row count
    /// different sets (the word-order summary: Ω_max counts other examples than P^c).
    pub cell_items: Vec<(usize, ItemSelector)>,
}

impl Row {
    /// A row of cells with no items behind it.
    pub fn new(cells: Vec<String>) -> Row {
        Row {
            cells,
            items: None,
            cell_items: Vec::new(),
        }
    }

    /// The row with `items` behind all its figures.
    pub fn counting(mut self, items: ItemSelector) -> Row {
        self.items = Some(items);
        self
    }

    /// The cell in column `i` (`""` past the end).
    pub fn cell(&self, i: usize) -> &str {
        self.cells.get(i).map(String::as_str).unwrap_or("")
    }

    /// The items behind the cell in column `i`: its own, else the row's.
    pub fn items_of_cell(&self, i: usize) -> Option<&ItemSelector> {
        self.cell_items
            .iter()
            .find(|(c, _)| *c == i)
            .map(|(_, s)| s)
            .or(self.items.as_ref())
    }
}

/// One table of the report: which it is, a title, notes, a header and rows. The same cells
/// are printed as text and written as CSV (`<file>.csv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// Which table it is.
    pub id: SectionId,
    /// Heading, naming the paper table it mirrors.
    pub title: String,
    /// Remarks printed under the heading (not in the CSV).
    pub notes: Vec<String>,
    /// Column names.
    pub header: Vec<String>,
    /// The rows.
    pub rows: Vec<Row>,
    /// A score table's rows over every example as numbers, for its bar plot
    /// ([`super::score_plot`]); empty for every other section.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bars: Vec<super::score_plot::ScoreBars>,
}

impl Section {
    /// An empty section.
    pub(crate) fn new(id: SectionId, title: &str, header: &[&str]) -> Section {
        Section {
            id,
            title: title.to_string(),
            notes: Vec::new(),
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
            bars: Vec::new(),
        }
    }

    /// The file stem of its CSV ([`SectionId::file`]).
    pub fn file(&self) -> String {
        self.id.file()
    }

    /// The index of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Appends a row of cells with no items behind it.
    pub(crate) fn push(&mut self, cells: Vec<String>) {
        self.rows.push(Row::new(cells));
    }
}

/// The section as aligned text.
pub fn render_text(s: &Section) -> String {
    let mut out = format!("## {}\n", s.title);
    for n in &s.notes {
        out.push_str(&format!("   ({n})\n"));
    }
    if s.rows.is_empty() {
        out.push_str("   (no rows)\n");
        return out;
    }
    let cols = s.header.len();
    let mut width = vec![0usize; cols];
    for row in std::iter::once(&s.header).chain(s.rows.iter().map(|r| &r.cells)) {
        for (i, c) in row.iter().enumerate().take(cols) {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |row: &[String]| {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = width.get(i).copied().unwrap_or(0);
                let c = if c.is_empty() { "-" } else { c.as_str() };
                format!("{c:<pad$}")
            })
            .collect();
        format!("   {}\n", cells.join("  ").trim_end())
    };
    out.push_str(&line(&s.header));
    for row in &s.rows {
        out.push_str(&line(&row.cells));
    }
    out
}

/// One CSV cell neutralised against formula injection, before the `csv` crate quotes it.
/// Every CSV the site and the CLI write goes through it.
///
/// A spreadsheet runs a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return as
/// a formula; a dataset's text (a key, a category, a model name) can start so. Following
/// OWASP's CSV-injection rule such a cell is prefixed with `'`, which spreadsheets show as
/// text. A plain number (`-0.12`, `+3`, `-1e-3`, `-12.5%`) cannot be a formula and is kept as
/// it is, so negative figures stay numbers.
pub fn neutralised(cell: &str) -> std::borrow::Cow<'_, str> {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_plain_number(cell) {
        format!("'{cell}").into()
    } else {
        cell.into()
    }
}

/// `[+-]digits[.digits][e[+-]digits][%]`, nothing else.
fn is_plain_number(s: &str) -> bool {
    let s = s.strip_suffix('%').unwrap_or(s);
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (s, None),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => digits(int) && digits(frac),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(digits)
}

/// The section as CSV ([`csv_text`]): the bytes `tabprobe report --csv` writes to
/// `<file>.csv` ([`SectionId::file`]) and the site downloads.
pub fn render_csv(s: &Section) -> String {
    csv_text(std::iter::once(&s.header).chain(s.rows.iter().map(|r| &r.cells)))
}

/// Rows as CSV: every cell neutralised ([`neutralised`]), then quoted by the `csv` crate where
/// RFC 4180 needs it; lines end in `\n`. Every CSV the site and the CLI write is made here.
pub fn csv_text<R, C>(rows: R) -> String
where
    R: IntoIterator,
    R::Item: IntoIterator<Item = C>,
    C: AsRef<str>,
{
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for row in rows {
        let cells: Vec<String> = row
            .into_iter()
            .map(|c| neutralised(c.as_ref()).into_owned())
            .collect();
        // Writing to a Vec cannot fail.
        let _ = w.write_record(&cells);
    }
    let bytes = w.into_inner().unwrap_or_default();
    // Every cell went in as UTF-8 and the writer adds only ASCII.
    String::from_utf8(bytes).unwrap_or_default()
}
