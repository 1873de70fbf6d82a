//! What an import found: the format detected for every file, counts per split and label,
//! table ids examples named but no file held, and every skipped row grouped by reason.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::detect::Format;
use crate::data::dataset::Dataset;
use crate::data::label::Label;

/// How many example locations a [`SkipGroup`] keeps (the count is always complete).
pub const MAX_LOCATIONS: usize = 10;

/// The summary shown before the user accepts an import, and printed by `tabprobe convert`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportReport {
    /// Every input file with the format detected and what was read from it, in input order.
    pub files: Vec<FileReport>,
    /// Number of tables in the result.
    pub tables: usize,
    /// Number of examples in the result.
    pub examples: usize,
    /// Examples per split (`-` when none) and label: `[ENTAIL, NEUTRAL, CONTRADICT]`.
    pub per_split: BTreeMap<String, [usize; 3]>,
    /// Table ids examples referred to that no input file held, with how many examples were
    /// dropped for each.
    pub unmatched_table_ids: BTreeMap<String, usize>,
    /// Rows and files not used, grouped by reason.
    pub skipped: Vec<SkipGroup>,
    /// Other facts worth saying, e.g. how many examples received reasoning categories.
    pub notes: Vec<String>,
}

/// One input file in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileReport {
    /// The file's name as given.
    pub name: String,
    /// What it was recognised as.
    pub format: Format,
    /// What was read from it, e.g. `1,800 examples`.
    pub detail: String,
}

/// Rows (or files) skipped for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipGroup {
    /// Why, e.g. `gold label "-" (no annotator majority)`.
    pub reason: String,
    /// How many rows or files.
    pub count: usize,
    /// The first few locations, `file:line N`.
    pub locations: Vec<String>,
}

impl ImportReport {
    /// Records one skipped row or file under `reason`.
    pub fn skip(&mut self, reason: &str, location: String) {
        let group = match self.skipped.iter_mut().position(|g| g.reason == reason) {
            Some(i) => &mut self.skipped[i],
            None => {
                self.skipped.push(SkipGroup {
                    reason: reason.to_string(),
                    count: 0,
                    locations: Vec::new(),
                });
                let last = self.skipped.len() - 1;
                &mut self.skipped[last]
            }
        };
        group.count += 1;
        if group.locations.len() < MAX_LOCATIONS {
            group.locations.push(location);
        }
    }

    /// Total rows and files skipped.
    pub fn skipped_total(&self) -> usize {
        self.skipped.iter().map(|g| g.count).sum()
    }

    /// Fills `tables`, `examples` and `per_split` from the finished dataset.
    pub(crate) fn count(&mut self, dataset: &Dataset) {
        self.tables = dataset.tables.len();
        self.examples = dataset.examples.len();
        self.per_split.clear();
        for e in &dataset.examples {
            let split = e.split.clone().unwrap_or_else(|| "-".to_string());
            let slot = match e.label {
                Label::Entail => 0,
                Label::Neutral => 1,
                Label::Contradict => 2,
            };
            self.per_split.entry(split).or_insert([0; 3])[slot] += 1;
        }
    }

    /// One line per input file, except that table files and files not recognised (often
    /// thousands) are summed up per format:
    /// `INFOTABS table JSON: 2719 file(s) (tables/json/T0.json … tables/json/T999.json)`.
    pub fn file_lines(&self) -> Vec<String> {
        let grouped = |f: Format| {
            matches!(
                f,
                Format::InfotabsTable
                    | Format::TabpertTable
                    | Format::TabfactCsv
                    | Format::Unrecognised
            )
        };
        let mut lines = Vec::new();
        let mut groups: Vec<(Format, Vec<&str>)> = Vec::new();
        for f in &self.files {
            if grouped(f.format) {
                match groups.iter_mut().find(|(g, _)| *g == f.format) {
                    Some((_, names)) => names.push(&f.name),
                    None => groups.push((f.format, vec![&f.name])),
                }
            } else {
                lines.push(format!(
                    "{}: {} — {}",
                    f.name,
                    f.format.describe(),
                    f.detail
                ));
            }
        }
        for (format, names) in groups {
            let span = match names.as_slice() {
                [one] => one.to_string(),
                [first, .., last] => format!("{first} … {last}"),
                [] => String::new(),
            };
            lines.push(format!(
                "{}: {} file(s) ({span})",
                format.describe(),
                names.len()
            ));
        }
        lines
    }

    /// The report as plain text, as `tabprobe convert` prints it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for line in self.file_lines() {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(&format!(
            "result: {} tables, {} examples\n",
            self.tables, self.examples
        ));
        out.push_str("split\tENTAIL\tNEUTRAL\tCONTRADICT\ttotal\n");
        for (split, c) in &self.per_split {
            out.push_str(&format!(
                "{split}\t{}\t{}\t{}\t{}\n",
                c[0],
                c[1],
                c[2],
                c.iter().sum::<usize>()
            ));
        }
        if !self.unmatched_table_ids.is_empty() {
            let dropped: usize = self.unmatched_table_ids.values().sum();
            let ids: Vec<&str> = self
                .unmatched_table_ids
                .keys()
                .take(MAX_LOCATIONS)
                .map(String::as_str)
                .collect();
            out.push_str(&format!(
                "unmatched table ids: {} ({dropped} examples dropped): {}{}\n",
                self.unmatched_table_ids.len(),
                ids.join(", "),
                if self.unmatched_table_ids.len() > MAX_LOCATIONS {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        for g in &self.skipped {
            out.push_str(&format!(
                "skipped {} × {}: {}{}\n",
                g.count,
                g.reason,
                g.locations.join(", "),
                if g.count > g.locations.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }
}
