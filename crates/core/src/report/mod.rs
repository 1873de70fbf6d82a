//! The paper-style report of a run, recomputed from the run file alone — Table 1 accuracy
//! per split beside the hypothesis-only figure and the majority baseline, Table 4 / 7 scores,
//! the invalid-transition tables (5, 6, 13–17) and transition-graph edge percentages (one per
//! [`TransitionSet`]: Table 6's single and all-relevant-rows deletions apart, the
//! label-preserving rule's hypothesis and counterfactual sets, `n/a` where a two-way model
//! cannot meet a rule), evidence selection (§5.3, complete examples only), agreement of
//! relevance annotations (§5.2), word-order metrics (UNLI §4) and Table 8 (NEUTRAL left out,
//! label-flipping and label-preserving counterfactuals apart) — each also split by split and
//! by reasoning category (docs/probes-and-metrics.md#breakdown-by-split-and-category), as [`Section`]s of cells. The command line prints them
//! (`tabprobe report`) and writes each as CSV with [`render_csv`]; the site shows the same
//! sections and downloads the same CSV, so both agree by construction.
//!
//! Every figure is computed by [`crate::metrics`]; the report only lays them out. Each section
//! is built in a file of `report/sections/`; this module holds what they share (the reader's
//! [`ReportOptions`], the formatters) and assembles them in paper order ([`sections_with`]).

mod figures;
mod full;
pub mod glossary;
pub mod score_plot;
mod section;
mod sections;
mod select;

pub use figures::{
    figures, figures_by_group, set_figures, transition_sets, word_order_figures, Figures,
    GraphFigure, InvalidFigure, Marked, OmegaPoint, SetFigures, WordOrderFigures, POOLED,
};
pub use full::{FullReport, Table8Report, Table8Unavailable};
pub use score_plot::ScoreBars;
pub use section::{csv_text, neutralised, render_csv, render_text, Row, Section, SectionId};
pub use sections::invalid::NOT_APPLICABLE_CELL;
pub use sections::scores::{
    has_score_tables, score_sections, LABEL_PRESERVING_COUNTERFACTUAL, SCORE_COLUMNS,
};
pub use sections::table1::table1_section;
pub use sections::table8::table8_sections;
pub use select::ItemSelector;

use crate::metrics::transition_report::heuristic_left_out;
use crate::metrics::{SampleOptions, TransitionSet};
use crate::probe::review::ReviewState;
use crate::probe::rules::Operation;
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;
use sections::{agreement, evidence, graphs, invalid, overview, table8, word_order};

/// The group name of figures over every example.
pub const ALL: &str = "all";

/// The counterfactual probes of Table 7 and Table 8.
pub const COUNTERFACTUAL: [ProbeKind; 3] = crate::metrics::transition_report::COUNTERFACTUAL_PROBES;

/// A percentage or other figure with two decimals.
pub fn num(x: f64) -> String {
    format!("{x:.2}")
}

/// A fraction in 0..=1 with four decimals (UNLI reports fractions).
pub fn frac(x: f64) -> String {
    format!("{x:.4}")
}

/// A share in 0..=1 as a percentage with two decimals: the report gives every share in %
/// (UNLI's word-order fractions too), so one unit reads everywhere.
pub fn pct(x: f64) -> String {
    num(100.0 * x)
}

/// An optional figure; empty when absent.
pub fn opt(x: Option<f64>, f: fn(f64) -> String) -> String {
    x.map(f).unwrap_or_default()
}

/// The operation's snake_case name, as in run files.
pub fn operation_name(op: Operation) -> String {
    serde_json::to_value(op)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{op:?}"))
}

/// The paper table an operation's invalid-transition table mirrors.
pub fn paper_table(op: Operation) -> &'static str {
    match op {
        Operation::RowDeletion => "Table 5",
        Operation::RelevantRowDeletion => "Table 6",
        Operation::IrrelevantRowDeletion => "Table 16",
        Operation::RowInsertion => "Table 13",
        Operation::RowValueUpdate => "Table 14",
        Operation::RowPermutation => "Table 15",
        Operation::DeleteThenInsert => "Table 17",
        Operation::LabelPreserving => "§4, §6",
        Operation::PremiseRemoval => "not in the paper",
    }
}

/// Choices a reader makes about the report (the CLI's `tabprobe report` flags and the
/// results view's switches). The default is the paper's reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportOptions {
    /// Count heuristic items nobody has reviewed in Tables 4 and 7 (left out by default, and
    /// then counted in the `heuristic_left_out` column), in Table 8 and in the label-preserving
    /// transition sets (judged by their generated expectation; a note says how many).
    pub include_heuristic: bool,
    /// Tables 4 and 7 draw one item per original example *and per column* (preserved,
    /// flipped) instead of the paper's one item per example ([`SampleOptions::per_column`]).
    pub per_column: bool,
}

/// The sampling used for Tables 4 and 7: the paper's 100 samples of 80%, seeded by the run.
pub fn sample_options(run: &RunResult) -> SampleOptions {
    sample_options_with(run, &ReportOptions::default())
}

/// [`sample_options`] under the reader's [`ReportOptions`].
pub fn sample_options_with(run: &RunResult, opts: &ReportOptions) -> SampleOptions {
    SampleOptions {
        seed: run.settings.seed,
        include_heuristic: opts.include_heuristic,
        per_column: opts.per_column,
        ..SampleOptions::default()
    }
}

/// Every section of the report, in paper order, with the default [`ReportOptions`].
pub fn sections(run: &RunResult) -> Vec<Section> {
    sections_with(run, &ReportOptions::default())
}

/// Every section of the report, in paper order.
pub fn sections_with(run: &RunResult, ropts: &ReportOptions) -> Vec<Section> {
    let mut out = vec![overview::overview(run), table1_section(&[run])];
    let present = |k: ProbeKind| run.items.iter().any(|it| it.probe == k);
    out.extend(score_sections(run, ropts));
    // The label-preserving sets and Table 8 count certain and accepted items; on request they
    // count the unreviewed heuristic items too (judged by their generated expectation), and
    // each such section says how many it included.
    let counted = ropts.include_heuristic.then(|| heuristic_counted(run));
    let judged = counted.as_ref().unwrap_or(run);
    for set in TransitionSet::ALL {
        let included = if counted.is_some() {
            heuristic_left_out(run, set)
        } else {
            0
        };
        if let Some(mut s) = invalid::invalid_section(judged, set, ropts.include_heuristic) {
            s.notes.extend(included_note(included));
            out.push(s);
        }
        if let Some(mut s) = graphs::graph_section(judged, set, ropts.include_heuristic) {
            s.notes.extend(included_note(included));
            out.push(s);
        }
    }
    if present(ProbeKind::RowDeletion) {
        out.extend(evidence::evidence_sections(run));
    }
    if let Some(s) = agreement::agreement_section(run) {
        out.push(s);
    }
    if present(ProbeKind::WordOrder) {
        out.extend(word_order::word_order_sections(run));
    }
    out.extend(table8::table8_sections_in(run, judged, ropts));
    out
}

/// `run` with every heuristic item nobody has reviewed counted as if certain (judged by its
/// generated expectation): what "include heuristic items" means for the figures that count
/// certain and accepted items only. Rejected items stay out.
pub fn heuristic_counted(run: &RunResult) -> RunResult {
    let mut r = run.clone();
    for it in &mut r.items {
        if it.review == ReviewState::HeuristicUnreviewed {
            it.review = ReviewState::Certain;
        }
    }
    r
}

/// The note a section gets when heuristic items were included on request.
pub(crate) fn included_note(included: usize) -> Option<String> {
    (included > 0).then(|| {
        format!(
            "{included} heuristic item(s) nobody has reviewed are INCLUDED on request (judged by their generated expectation, which may be wrong)"
        )
    })
}
