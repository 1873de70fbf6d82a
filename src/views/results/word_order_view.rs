//! Word-order charts (UNLI §4) as SVG: the Ω_x curve — the share of examples for which more
//! than a fraction x of the permutations get the gold label — and acceptance by BLEU-2 bin
//! (UNLI Figure 3). One chart per model, drawn from core's figures: points and bars open the
//! items core put on them. [`WordOrderPart`] is the report's part made of them and the tables.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::metrics::word_order::BleuBin;
use tabprobe_core::report::{ItemSelector, Marked, OmegaPoint, SectionId};
use tabprobe_core::run::RunResult;

use super::built::Built;
use super::item_list::Drill;
use super::section_tables::pick;

const W: f64 = 320.0;
const H: f64 = 180.0;
const PAD: f64 = 36.0;

fn sx(x: f64) -> f64 {
    PAD + x * (W - PAD - 10.0)
}
fn sy(y: f64) -> f64 {
    H - PAD + 10.0 - y * (H - PAD - 10.0)
}

fn axes(x_label: &'static str, y_label: &'static str) -> impl IntoView {
    let ticks = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|t| {
            view! {
                <line x1=sx(0.0) x2=sx(1.0) y1=sy(t) y2=sy(t) class="grid"/>
                <text x=PAD - 4.0 y=sy(t) + 3.0 text-anchor="end" class="tick">{format!("{:.0}%", 100.0 * t)}</text>
            }
        })
        .collect::<Vec<_>>();
    view! {
        {ticks}
        <line x1=sx(0.0) x2=sx(1.0) y1=sy(0.0) y2=sy(0.0) class="axis"/>
        <line x1=sx(0.0) x2=sx(0.0) y1=sy(0.0) y2=sy(1.0) class="axis"/>
        <text x=(sx(0.0) + sx(1.0)) / 2.0 y=H + 6.0 text-anchor="middle" class="axis-label">{x_label}</text>
        <text x=10.0 y=sy(0.5) text-anchor="middle" class="axis-label" transform=format!("rotate(-90 10 {})", sy(0.5))>{y_label}</text>
    }
}

/// The Ω_x curve.
#[component]
pub fn OmegaCurve(
    /// Ω_x at core's curve points (x = 0, 0.05, …, 0.95; Ω at x = 1 is always 0), the values
    /// the report's `word_order_omega` table holds, each with the items it counts.
    points: Vec<Marked<OmegaPoint>>,
    /// The model's name.
    model: String,
    /// Drill-down: receives the point's items.
    on_items: Callback<ItemSelector>,
) -> impl IntoView {
    let line = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", sx(p.value.x), sy(p.value.omega)))
        .collect::<Vec<_>>()
        .join(" ");
    let dots = points
        .into_iter()
        .map(|Marked { value: OmegaPoint { x, omega: y }, items }| {
            let on_key = items.clone();
            view! {
                <circle cx=sx(x) cy=sy(y) r="3" class="dot clickable" role="button" tabindex="0"
                    data-testid="omega-point" data-x=format!("{x:.2}") data-y=format!("{y:.4}")
                    on:click=move |_| on_items.run(items.clone())
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { on_items.run(on_key.clone()) }>
                    <title>{format!("Ω_{x:.2} = {:.2}%: click for the examples counted", 100.0 * y)}</title>
                </circle>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <figure class="chart" data-testid="omega-curve">
            <svg viewBox=format!("0 0 {W} {}", H + 12.0) role="img" aria-label="Omega x curve">
                {axes("x (share of permutations)", "Ω_x (%)")}
                <polyline points=line class="line"/>
                {dots}
            </svg>
            <figcaption>{format!("Ω_x — {model}")}</figcaption>
        </figure>
    }
}

/// Acceptance rate per BLEU-2 bin.
#[component]
pub fn BleuChart(
    /// The bins, each with its permutations.
    bins: Vec<Marked<BleuBin>>,
    /// The model's name.
    model: String,
    /// Drill-down: receives the bin's items.
    on_items: Callback<ItemSelector>,
) -> impl IntoView {
    let bars = bins
        .into_iter()
        .map(|Marked { value: b, items }| {
            let on_key = items.clone();
            let rate = b.rate.unwrap_or(0.0);
            let x = sx(b.lo) + 2.0;
            let w = (sx(b.hi) - sx(b.lo) - 4.0).max(1.0);
            view! {
                <g class="clickable" role="button" tabindex="0" data-testid="bleu-bin" data-lo=format!("{:.2}", b.lo) data-total=b.total.to_string() data-accepted=b.accepted.to_string()
                    on:click=move |_| on_items.run(items.clone())
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { on_items.run(on_key.clone()) }>
                    <rect x=x y=sy(rate) width=w height=sy(0.0) - sy(rate) class="bar"/>
                    <title>{format!("BLEU-2 {:.2}–{:.2}: {} of {} permutations accepted", b.lo, b.hi, b.accepted, b.total)}</title>
                    <text x=x + w / 2.0 y=sy(rate) - 3.0 text-anchor="middle" class="tick">
                        {if b.total == 0 { "–".to_string() } else { format!("{:.0}%", 100.0 * rate) }}
                    </text>
                </g>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <figure class="chart" data-testid="bleu-chart">
            <svg viewBox=format!("0 0 {W} {}", H + 12.0) role="img" aria-label="acceptance by BLEU-2">
                {axes("BLEU-2 of the permutation", "accepted (%)")}
                {bars}
            </svg>
            <figcaption>{format!("Acceptance by BLEU-2 — {model}")}</figcaption>
        </figure>
    }
}

/// Word order (UNLI §4): per model the Ω_x curve and the BLEU-2 chart (core's figures over
/// every example), then the tables.
#[component]
pub fn WordOrderPart(
    runs: Vec<Arc<RunResult>>,
    built: Built,
    drill: RwSignal<Option<Drill>>,
) -> impl IntoView {
    let report = built.get();
    let charts = runs
        .iter()
        .enumerate()
        .map(|(model, r)| {
            let on_items =
                Callback::new(move |items: ItemSelector| drill.set(Some(Drill::of(model, items))));
            let figures = report
                .as_ref()
                .and_then(|b| b.figures(model, 0)?.word_order.clone());
            let charts = figures.map(|w| {
                view! {
                    <OmegaCurve points=w.omega model=r.model.label() on_items=on_items/>
                    <BleuChart bins=w.bleu model=r.model.label() on_items=on_items/>
                }
            });
            view! {
                <div class="model-column">
                    <h4 class="model-title">{r.model.label()}</h4>
                    <div class="figures">{charts}</div>
                </div>
            }
        })
        .collect::<Vec<_>>();
    let tables = pick(
        &runs,
        report.as_ref().map_or(&[], |b| b.sections()),
        &[
            SectionId::WordOrder,
            SectionId::WordOrderOmega,
            SectionId::WordOrderBleu,
        ],
        drill,
    );
    view! {
        <section id="word-order" class="result-part">
            <h2>"Word order (UNLI §4)"</h2>
            <div class="models-side">{charts}</div>
            {tables}
        </section>
    }
}
