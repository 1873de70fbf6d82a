//! Tables 4 and 7 as a bar plot: for each probe (a group of bars) and each model view
//! (prem+hypo, hypo-only), the accuracy on the originals, on label-preserving and on
//! label-flipping items as bars with ±sd error bars. The geometry is computed here, from the
//! same scores the table's `all` rows are written from (the section carries them as
//! [`ScoreBars`], numbers rather than formatted cells), so the plot and the tables cannot
//! disagree and the scales are tested by hand; the site only draws the rectangles and lines.

use serde::{Deserialize, Serialize};

use crate::metrics::{MeanSd, ScoreView};
use crate::report::Section;

/// Which predictions a row of Tables 4 and 7 reads: its `model` cell, and a series of the plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ModelView {
    /// The model on premise and hypothesis.
    #[serde(rename = "prem+hypo")]
    PremiseAndHypothesis,
    /// The same model on the hypothesis with an empty premise.
    #[serde(rename = "hypo-only view")]
    HypothesisOnlyView,
    /// A second, hypothesis-only model on the hypothesis.
    #[serde(rename = "hypo-only model")]
    HypothesisOnlyModel,
}

impl ModelView {
    /// The `model` cell: `prem+hypo`, `hypo-only view` or `hypo-only model`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelView::PremiseAndHypothesis => "prem+hypo",
            ModelView::HypothesisOnlyView => "hypo-only view",
            ModelView::HypothesisOnlyModel => "hypo-only model",
        }
    }

    /// Whether the row reads the hypothesis alone (the plot draws its bars lighter).
    pub fn hypothesis_only(self) -> bool {
        self != ModelView::PremiseAndHypothesis
    }

    /// The predictions the row's scores are computed from.
    pub fn score_view(self) -> ScoreView {
        if self.hypothesis_only() {
            ScoreView::HypothesisOnly
        } else {
            ScoreView::PremiseAndHypothesis
        }
    }
}

impl std::fmt::Display for ModelView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The three kinds of accuracy a row of Table 4 / 7 reports, in column order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarKind {
    /// Accuracy on the original examples.
    Original,
    /// On the label-preserving items.
    Preserved,
    /// On the label-flipping items.
    Flipped,
}

impl BarKind {
    /// Every kind, in column order.
    pub const ALL: [BarKind; 3] = [BarKind::Original, BarKind::Preserved, BarKind::Flipped];

    /// `original`, `preserved` or `flipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            BarKind::Original => "original",
            BarKind::Preserved => "preserved",
            BarKind::Flipped => "flipped",
        }
    }
}

impl std::fmt::Display for BarKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of a score table over every example, as numbers: what the plot draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreBars {
    /// The row's `probe` cell.
    pub probe: String,
    /// The row's `model` cell.
    pub model: ModelView,
    /// Accuracy on the originals, label-preserving and label-flipping items ([`BarKind::ALL`]'s
    /// order); `None` where the row has no such items.
    pub accuracy: [Option<MeanSd>; 3],
}

/// Width of the plot's drawing, in SVG user units.
pub const WIDTH: f64 = 640.0;
/// Height of the plot's drawing, in SVG user units.
pub const HEIGHT: f64 = 260.0;
/// Left margin (the y axis and its tick labels).
pub const LEFT: f64 = 44.0;
/// Right margin.
pub const RIGHT: f64 = 8.0;
/// Top margin.
pub const TOP: f64 = 10.0;
/// Bottom margin (group names).
pub const BOTTOM: f64 = 36.0;

/// One bar: an accuracy (mean ± sd, in %) of one kind, one model view, one probe.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The probe (the table row's `probe` cell).
    pub group: String,
    /// Which accuracy.
    pub kind: BarKind,
    /// The model view (the row's `model` cell).
    pub model: ModelView,
    /// Mean accuracy, %.
    pub mean: f64,
    /// Standard deviation, % points.
    pub sd: f64,
    /// Left edge.
    pub x: f64,
    /// Width.
    pub width: f64,
    /// Top edge (the mean).
    pub y: f64,
    /// Height down to the 0 line.
    pub height: f64,
    /// The error bar's top (mean + sd, at most 100%).
    pub err_top: f64,
    /// The error bar's bottom (mean − sd, at least 0%).
    pub err_bottom: f64,
}

/// A probe's place on the x axis.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupLabel {
    /// The probe's name.
    pub name: String,
    /// The centre of its bars.
    pub x: f64,
}

/// The whole plot: bars, group labels, y ticks (value in %, y), and the series legend (kind,
/// model) in bar order within a group.
#[derive(Debug, Clone, PartialEq)]
pub struct BarPlot {
    /// Every bar with a value.
    pub bars: Vec<Bar>,
    /// One label per probe.
    pub groups: Vec<GroupLabel>,
    /// Ticks of the y axis: (value %, y).
    pub ticks: Vec<(f64, f64)>,
    /// The series in their order within a group.
    pub series: Vec<(BarKind, ModelView)>,
}

/// The y coordinate of `percent` (0 at the bottom of the drawing area, 100 at its top).
pub fn y_of(percent: f64) -> f64 {
    let h = HEIGHT - TOP - BOTTOM;
    TOP + h * (1.0 - percent.clamp(0.0, 100.0) / 100.0)
}

/// The plot of a `table4_scores` / `table7_scores` section: its rows over every example
/// (the split and category breakdowns stay in the table). `None` when no row has a value.
/// Every probe gets the same series slots, so a kind is at the same place in each group; a
/// missing value leaves its slot empty.
pub fn score_plot(section: &Section) -> Option<BarPlot> {
    bar_plot(&section.bars)
}

/// The plot of score rows (see [`score_plot`]).
pub fn bar_plot(rows: &[ScoreBars]) -> Option<BarPlot> {
    let mut probes: Vec<String> = Vec::new();
    let mut models: Vec<ModelView> = Vec::new();
    for r in rows {
        push_new(&mut probes, &r.probe);
        push_new(&mut models, &r.model);
    }
    let series: Vec<(BarKind, ModelView)> = BarKind::ALL
        .iter()
        .flat_map(|&k| models.iter().map(move |&mo| (k, mo)))
        .collect();
    let slot = (WIDTH - LEFT - RIGHT) / probes.len().max(1) as f64;
    let bar_w = 0.8 * slot / series.len().max(1) as f64;
    let mut bars = Vec::new();
    for r in rows {
        let gi = probes.iter().position(|x| *x == r.probe)?;
        for (si, &(kind, model)) in series.iter().enumerate() {
            if r.model != model {
                continue;
            }
            let k = BarKind::ALL.iter().position(|&x| x == kind)?;
            let Some(MeanSd { mean, sd, .. }) = r.accuracy[k] else {
                continue;
            };
            let x = LEFT + gi as f64 * slot + 0.1 * slot + si as f64 * bar_w;
            let y = y_of(mean);
            bars.push(Bar {
                group: probes[gi].clone(),
                kind,
                model,
                mean,
                sd,
                x,
                width: bar_w,
                y,
                height: y_of(0.0) - y,
                err_top: y_of(mean + sd),
                err_bottom: y_of(mean - sd),
            });
        }
    }
    if bars.is_empty() {
        return None;
    }
    // Left to right: by probe, then by series.
    bars.sort_by(|a, b| a.x.total_cmp(&b.x));
    let groups = probes
        .iter()
        .enumerate()
        .map(|(i, name)| GroupLabel {
            name: name.clone(),
            x: LEFT + (i as f64 + 0.5) * slot,
        })
        .collect();
    let ticks = (0..=4)
        .map(|k| 25.0 * k as f64)
        .map(|v| (v, y_of(v)))
        .collect();
    Some(BarPlot {
        bars,
        groups,
        ticks,
        series,
    })
}

fn push_new<T: PartialEq + Clone>(v: &mut Vec<T>, x: &T) {
    if !v.contains(x) {
        v.push(x.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(m: (f64, f64)) -> Option<MeanSd> {
        Some(MeanSd {
            mean: m.0,
            sd: m.1,
            n: 10,
        })
    }

    fn row(probe: &str, model: &str, o: Option<(f64, f64)>, f: Option<(f64, f64)>) -> ScoreBars {
        let model = [
            ModelView::PremiseAndHypothesis,
            ModelView::HypothesisOnlyView,
            ModelView::HypothesisOnlyModel,
        ]
        .into_iter()
        .find(|v| v.as_str() == model)
        .unwrap();
        ScoreBars {
            probe: probe.into(),
            model,
            accuracy: [o.and_then(ms), None, f.and_then(ms)],
        }
    }

    #[test]
    fn y_scale_by_hand() {
        // Drawing area: from y = 10 (100%) down to y = 260 − 36 = 224 (0%), 214 units tall.
        assert_eq!(y_of(100.0), 10.0);
        assert_eq!(y_of(0.0), 224.0);
        assert_eq!(y_of(50.0), 117.0);
        assert_eq!(y_of(150.0), 10.0, "clamped at 100%");
        assert_eq!(y_of(-5.0), 224.0, "clamped at 0%");
    }

    #[test]
    fn bars_and_error_bars_by_hand() {
        let p = bar_plot(&[
            row(
                "negation",
                "prem+hypo",
                Some((80.0, 5.0)),
                Some((40.0, 10.0)),
            ),
            row("negation", "hypo-only view", Some((50.0, 2.0)), None),
            row("paraphrase", "prem+hypo", Some((60.0, 0.0)), None),
        ])
        .unwrap();
        // Two probes, so two slots of (640 − 44 − 8) / 2 = 294; series: 3 kinds × 2 views,
        // each bar 0.8 × 294 / 6 = 39.2 wide, starting 0.1 × 294 = 29.4 into the slot.
        assert_eq!(p.series.len(), 6);
        let named = |(k, m): (BarKind, ModelView)| (k.as_str(), m.as_str());
        assert_eq!(named(p.series[0]), ("original", "prem+hypo"));
        assert_eq!(named(p.series[1]), ("original", "hypo-only view"));
        assert_eq!(named(p.series[4]), ("flipped", "prem+hypo"));
        assert_eq!(p.groups.len(), 2);
        assert!((p.groups[0].x - (44.0 + 147.0)).abs() < 1e-9);
        assert!((p.groups[1].x - (44.0 + 294.0 + 147.0)).abs() < 1e-9);
        // negation: original/prem+hypo, original/hypo-only, flipped/prem+hypo; paraphrase:
        // original/prem+hypo. Rows without a value give no bar.
        assert_eq!(p.bars.len(), 4);
        let b = &p.bars[0];
        assert_eq!(
            (b.group.as_str(), b.kind.as_str(), b.model.as_str()),
            ("negation", "original", "prem+hypo")
        );
        assert!((b.x - 73.4).abs() < 1e-9);
        assert!((b.width - 39.2).abs() < 1e-9);
        // 80% → y = 10 + 214 × 0.2 = 52.8; height 224 − 52.8 = 171.2; ±5 → 85% / 75%.
        assert!((b.y - 52.8).abs() < 1e-9);
        assert!((b.height - 171.2).abs() < 1e-9);
        assert!((b.err_top - (10.0 + 214.0 * 0.15)).abs() < 1e-9);
        assert!((b.err_bottom - (10.0 + 214.0 * 0.25)).abs() < 1e-9);
        let h = &p.bars[1];
        assert_eq!(h.model.as_str(), "hypo-only view");
        assert!((h.x - (73.4 + 39.2)).abs() < 1e-9, "the next series slot");
        let f = &p.bars[2];
        assert_eq!(f.kind.as_str(), "flipped");
        // Series 4 of the first group: 73.4 + 4 × 39.2 = 230.2; 40% ± 10.
        assert!((f.x - 230.2).abs() < 1e-9);
        assert!((f.y - 138.4).abs() < 1e-9);
        let q = &p.bars[3];
        assert_eq!(q.group, "paraphrase");
        assert!((q.x - (44.0 + 294.0 + 29.4)).abs() < 1e-9);
        // sd 0: the error bar is the bar's top.
        assert_eq!(q.err_top, q.y);
        assert_eq!(q.err_bottom, q.y);
        assert_eq!(p.ticks.first(), Some(&(0.0, 224.0)));
        assert_eq!(p.ticks.last(), Some(&(100.0, 10.0)));
    }

    #[test]
    fn error_bars_stay_within_0_and_100() {
        let p = bar_plot(&[row(
            "negation",
            "prem+hypo",
            Some((97.0, 6.0)),
            Some((3.0, 6.0)),
        )])
        .unwrap();
        assert_eq!(p.bars[0].err_top, y_of(100.0));
        assert_eq!(p.bars[1].err_bottom, y_of(0.0));
    }

    #[test]
    fn no_values_no_plot() {
        assert_eq!(bar_plot(&[row("negation", "prem+hypo", None, None)]), None);
    }
}
