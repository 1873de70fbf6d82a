//! The whole report of a saved run at once: every model's sections, the score tables and
//! Table 8 counting unreviewed heuristic items (the reader's switch), Table 8 with the second
//! model's hypothesis-only scores, and every drawn figure per group of examples. The model
//! worker builds it (issue 15: the page's thread only shows figures) and sends it as data;
//! the page picks its sections by [`SectionId`](super::SectionId) and its figures by group,
//! and drills down through the selectors on their rows and marks.

use serde::{Deserialize, Serialize};

use super::{
    figures_by_group, score_sections, sections_with, table8_sections, Figures, ReportOptions,
    Section,
};
use crate::run::{RunResult, SubstituteError};

/// Every table the results view shows of one saved run, computed from its run files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FullReport {
    /// Per model (main first), every section under the default [`ReportOptions`].
    pub sections: Vec<Vec<Section>>,
    /// Per model, its drawn figures over every example and then over each group of examples
    /// (splits, then reasoning categories), each mark with its items.
    pub figures: Vec<Vec<Figures>>,
    /// Per model, Tables 4 and 7 counting the heuristic items nobody reviewed.
    pub scores_with_heuristic: Vec<Vec<Section>>,
    /// Table 8, or why it cannot be computed (the second model's run is not on the same
    /// examples).
    pub table8: Result<Table8Report, Table8Unavailable>,
}

/// Why a report has no Table 8.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum Table8Unavailable {
    /// The saved run holds no run file.
    #[error("the run holds no run file")]
    NoRun,
    /// The second model's run cannot give the hypothesis-only scores.
    #[error(transparent)]
    SecondModel(SubstituteError),
}

/// Table 8's sections both ways the reader can count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table8Report {
    /// Which model's hypothesis-only scores give O-Hypo: the second's when there is one
    /// (an index into the runs).
    pub hypothesis_model: usize,
    /// Certain and reviewer-accepted items.
    pub default: Vec<Section>,
    /// Also the heuristic items nobody reviewed.
    pub with_heuristic: Vec<Section>,
}

impl FullReport {
    /// The report of `runs` (main model first; a second model shares the main's probe set).
    pub fn build(runs: &[&RunResult]) -> FullReport {
        let default = ReportOptions::default();
        let heuristic = ReportOptions {
            include_heuristic: true,
            ..ReportOptions::default()
        };
        let sections = runs.iter().map(|r| sections_with(r, &default)).collect();
        let figures = runs.iter().map(|r| figures_by_group(r)).collect();
        let scores_with_heuristic = runs.iter().map(|r| score_sections(r, &heuristic)).collect();
        let table8 = match runs {
            [] => Err(Table8Unavailable::NoRun),
            [main] => Ok(table8_report(main, 0)),
            [main, second, ..] => main
                .with_hypothesis_model(second)
                .map(|combined| table8_report(&combined, 1))
                .map_err(Table8Unavailable::SecondModel),
        };
        FullReport {
            sections,
            figures,
            scores_with_heuristic,
            table8,
        }
    }
}

fn table8_report(run: &RunResult, hypothesis_model: usize) -> Table8Report {
    Table8Report {
        hypothesis_model,
        default: table8_sections(run, &ReportOptions::default()),
        with_heuristic: table8_sections(
            run,
            &ReportOptions {
                include_heuristic: true,
                ..ReportOptions::default()
            },
        ),
    }
}
