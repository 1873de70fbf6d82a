//! Linearization (docs/data-formats.md#linearization): how a table becomes the premise text a model reads, and in
//! which order premise and hypothesis are paired. The strategy is part of every result.

mod infotabs_compat;
mod paragraph;
pub mod sentences;
mod template;
mod units;

use serde::{Deserialize, Serialize};

use crate::data::table::Table;
use crate::scoring::{Pair, PairOrder};

pub use infotabs_compat::{infotabs_compat_paragraph, infotabs_compat_units};
pub use paragraph::{paragraph, paragraph_units};
pub use template::{
    concatenation, concatenation_units, horizontal_template, horizontal_template_units,
    vertical_template, vertical_template_units,
};
pub use units::PremiseUnits;

/// A way of turning a table into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Linearization {
    /// INFOTABS' "table as a paragraph", cleaned up (`is`/`are` by value count, no
    /// trailing space, trimmed values).
    Paragraph,
    /// Byte for byte what `json_to_para.py` of the INFOTABS authors produced, quirks
    /// included; published INFOTABS models were trained on this text.
    #[default]
    InfotabsCompat,
    /// Table-BERT's horizontal template: `row 1 is : <col> is <cell> ; … .`.
    HorizontalTemplate,
    /// Table-BERT's vertical template: one sentence per column.
    VerticalTemplate,
    /// Cells concatenated with a separator and no template words.
    Concatenation,
}

impl Linearization {
    /// Every strategy, in the order the UI lists them.
    pub const ALL: [Linearization; 5] = [
        Linearization::Paragraph,
        Linearization::InfotabsCompat,
        Linearization::HorizontalTemplate,
        Linearization::VerticalTemplate,
        Linearization::Concatenation,
    ];

    /// How people read it: `infotabs compat`.
    pub fn display_name(self) -> String {
        crate::display::readable(self.as_str())
    }

    /// The snake_case name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Linearization::Paragraph => "paragraph",
            Linearization::InfotabsCompat => "infotabs_compat",
            Linearization::HorizontalTemplate => "horizontal_template",
            Linearization::VerticalTemplate => "vertical_template",
            Linearization::Concatenation => "concatenation",
        }
    }

    /// Parses [`Linearization::as_str`] names.
    pub fn from_name(name: &str) -> Option<Linearization> {
        Linearization::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

/// What of the premise a model reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PremiseMode {
    /// The premise, linearized with the strategy.
    #[default]
    Full,
    /// No premise at all: every pair's premise is empty, so the model reads the hypothesis
    /// alone — a model trained that way (a hypothesis-only baseline). Named [`NO_PREMISE`]
    /// where a linearization name is expected (command lines, model manifests, model cards).
    HypothesisOnly,
}

impl PremiseMode {
    /// The default, full premise (`serde` leaves it out of run files, which keep their bytes).
    pub fn is_full(&self) -> bool {
        *self == PremiseMode::Full
    }
}

/// The name of [`PremiseMode::HypothesisOnly`] where a linearization name is expected.
pub const NO_PREMISE: &str = "none";

/// A linearization strategy, a pair order and a premise mode: everything needed to turn a
/// table and a hypothesis into the [`Pair`] a model scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct LinearizeSettings {
    /// How the table becomes text.
    pub strategy: Linearization,
    /// Which text comes first.
    pub order: PairOrder,
    /// Whether the model reads the premise at all.
    #[serde(default, skip_serializing_if = "PremiseMode::is_full")]
    pub premise: PremiseMode,
}

/// Why a table could not be linearized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinearizeError {
    /// The strategy is defined for key–value tables only.
    #[error("table {table}: the {strategy} linearization is defined for key-value (INFOTABS) tables only")]
    KeyValueOnly {
        /// Table id.
        table: String,
        /// Strategy name.
        strategy: &'static str,
    },
    /// A row with no values: the INFOTABS script crashes on it (`values[-1]`).
    #[error(
        "table {table}: row {key:?} has no values, which the INFOTABS script cannot linearize"
    )]
    EmptyRow {
        /// Table id.
        table: String,
        /// The row's key.
        key: String,
    },
    /// A `YYYY-MM-DD` match that is not a calendar date: the INFOTABS script crashes on it
    /// (`strptime` raises).
    #[error("table {table}: row {key:?} contains {text:?}, which looks like an ISO date but is not a valid one")]
    InvalidIsoDate {
        /// Table id.
        table: String,
        /// The row's key.
        key: String,
        /// The `YYYY-MM-DD` text.
        text: String,
    },
}

/// Linearizes `table` with `strategy`.
pub fn linearize(table: &Table, strategy: Linearization) -> Result<String, LinearizeError> {
    Ok(linearize_units(table, strategy)?.text)
}

/// Linearizes `table` with `strategy`, keeping where each sentence unit lies in the text:
/// each row's sentence for the paragraphs (one per record for a relational table), the
/// title's and each row's (horizontal) or column's (vertical) sentence for the templates,
/// and the whole text for the concatenation, which has no sentences. The text is exactly
/// [`linearize`]'s.
pub fn linearize_units(
    table: &Table,
    strategy: Linearization,
) -> Result<PremiseUnits, LinearizeError> {
    match strategy {
        Linearization::Paragraph => Ok(paragraph_units(table)),
        Linearization::InfotabsCompat => match table {
            Table::KeyValue(t) => infotabs_compat_units(t),
            Table::Relational(t) => Err(LinearizeError::KeyValueOnly {
                table: t.id.clone(),
                strategy: strategy.as_str(),
            }),
        },
        Linearization::HorizontalTemplate => Ok(horizontal_template_units(table)),
        Linearization::VerticalTemplate => Ok(vertical_template_units(table)),
        Linearization::Concatenation => Ok(concatenation_units(table)),
    }
}

impl LinearizeSettings {
    /// The settings of a model that reads no premise ([`PremiseMode::HypothesisOnly`]).
    pub fn no_premise() -> LinearizeSettings {
        LinearizeSettings {
            premise: PremiseMode::HypothesisOnly,
            ..LinearizeSettings::default()
        }
    }

    /// Settings from a name a person gives: a strategy's name ([`Linearization::as_str`]),
    /// or [`NO_PREMISE`] for a model that reads the hypothesis alone; premise first.
    pub fn from_name(name: &str) -> Option<LinearizeSettings> {
        if name == NO_PREMISE {
            return Some(LinearizeSettings::no_premise());
        }
        Linearization::from_name(name).map(|strategy| LinearizeSettings {
            strategy,
            ..LinearizeSettings::default()
        })
    }

    /// The name [`LinearizeSettings::from_name`] reads: [`NO_PREMISE`] or the strategy's.
    pub fn name(&self) -> &'static str {
        match self.premise {
            PremiseMode::HypothesisOnly => NO_PREMISE,
            PremiseMode::Full => self.strategy.as_str(),
        }
    }

    /// Every name [`LinearizeSettings::from_name`] reads, for messages.
    pub fn names() -> Vec<&'static str> {
        std::iter::once(NO_PREMISE)
            .chain(Linearization::ALL.iter().map(|l| l.as_str()))
            .collect()
    }

    /// Whether the model reads the hypothesis alone.
    pub fn hypothesis_only(&self) -> bool {
        self.premise == PremiseMode::HypothesisOnly
    }

    /// The pair a model scores for a premise text and a hypothesis: the premise is left out
    /// in [`PremiseMode::HypothesisOnly`]. The texts stay in their own fields whatever the
    /// order, and [`Pair::order`] tells the tokenizer which to put first: swapping them
    /// instead would make the model truncate the hypothesis of a long hypothesis-first pair.
    pub fn pair(&self, premise: &str, hypothesis: &str) -> Pair {
        Pair {
            premise: if self.hypothesis_only() {
                String::new()
            } else {
                premise.to_string()
            },
            hypothesis: hypothesis.to_string(),
            order: self.order,
        }
    }

    /// How the settings read for a person: `infotabs compat, premise first`, or
    /// `no premise (hypothesis only)`.
    pub fn describe(&self) -> String {
        if self.hypothesis_only() {
            return "no premise (hypothesis only)".to_string();
        }
        format!(
            "{}, {}",
            self.strategy.display_name(),
            if self.order.is_premise_first() {
                "premise first"
            } else {
                "hypothesis first"
            }
        )
    }

    /// The premise text of `table`: linearized with the strategy, or empty (and not
    /// linearized at all) when the model reads no premise.
    pub fn premise_text(&self, table: &Table) -> Result<String, LinearizeError> {
        if self.hypothesis_only() {
            return Ok(String::new());
        }
        linearize(table, self.strategy)
    }

    /// Linearizes `table` and pairs it with `hypothesis`.
    pub fn table_pair(&self, table: &Table, hypothesis: &str) -> Result<Pair, LinearizeError> {
        Ok(self.pair(&self.premise_text(table)?, hypothesis))
    }
}

/// Finds the first `DDDD-DD-DD` (ASCII digits) in `s`, as Python's
/// `re.search('\d{4}-\d{2}-\d{2}', s)` does on the ASCII-folded INFOTABS text.
pub(crate) fn find_iso_date(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let shape = |w: &[u8]| {
        w.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
    };
    (0..=b.len() - 10)
        .find(|&i| shape(&b[i..i + 10]))
        .map(|i| &s[i..i + 10])
}

/// Whether `YYYY-MM-DD` is a date `strptime('%Y-%m-%d')` accepts (year 1..=9999, real day).
pub(crate) fn is_valid_iso_date(d: &str) -> bool {
    let num = |r: std::ops::Range<usize>| d.get(r).and_then(|x| x.parse::<u32>().ok());
    let (Some(y), Some(m), Some(day)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    y >= 1 && (1..=days).contains(&day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_date_search_and_validity() {
        assert_eq!(
            find_iso_date("April 28, 2011 (2011-04-28) (Westwood)"),
            Some("2011-04-28")
        );
        assert_eq!(find_iso_date("29 March 1979"), None);
        assert!(is_valid_iso_date("2000-02-29"));
        assert!(!is_valid_iso_date("1900-02-29"));
        assert!(!is_valid_iso_date("2011-13-01"));
        assert!(!is_valid_iso_date("0000-01-01"));
    }

    #[test]
    fn hypothesis_first_keeps_the_texts_in_place_and_records_the_order() {
        let s = LinearizeSettings {
            strategy: Linearization::Paragraph,
            order: PairOrder::HypothesisFirst,
            ..LinearizeSettings::default()
        };
        let p = s.pair("P", "H");
        assert_eq!((p.premise.as_str(), p.hypothesis.as_str()), ("P", "H"));
        assert_eq!(p.order, PairOrder::HypothesisFirst);
        let p = LinearizeSettings::default().pair("P", "H");
        assert_eq!(p.order, PairOrder::PremiseFirst);
        assert_eq!(
            Linearization::from_name("vertical_template"),
            Some(Linearization::VerticalTemplate)
        );
    }

    #[test]
    fn hypothesis_only_pairs_have_no_premise_and_the_name_none() {
        let s = LinearizeSettings::from_name("none").unwrap();
        assert!(s.hypothesis_only());
        assert_eq!(s.name(), "none");
        assert_eq!(s.pair("P", "H").premise, "");
        assert_eq!(s.describe(), "no premise (hypothesis only)");
        // A table that no strategy could linearize is not linearized at all.
        let bad = Table::KeyValue(crate::data::table::KeyValueTable {
            id: "T".into(),
            title: "T".into(),
            rows: vec![crate::data::table::KeyValueRow {
                key: "k".into(),
                values: vec![],
            }],
        });
        assert!(LinearizeSettings::default().table_pair(&bad, "H").is_err());
        assert_eq!(s.table_pair(&bad, "H").unwrap().premise, "");
        let p = LinearizeSettings::from_name("paragraph").unwrap();
        assert_eq!(
            (p.strategy, p.premise),
            (Linearization::Paragraph, PremiseMode::Full)
        );
        assert_eq!(p.name(), "paragraph");
        assert_eq!(LinearizeSettings::from_name("nothing"), None);
        // Run files without the field read as the full premise, and it is not written then.
        let json = serde_json::to_string(&LinearizeSettings::default()).unwrap();
        assert!(!json.contains(r#""premise":"#), "{json}");
        let back: LinearizeSettings = serde_json::from_str(&json).unwrap();
        assert_eq!(back.premise, PremiseMode::Full);
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains(r#""premise":"hypothesis_only""#), "{json}");
    }
}
