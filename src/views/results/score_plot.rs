//! Tables 4 and 7 drawn as bars (issue 18 §4): per probe and model view, the accuracy on the
//! originals, on label-preserving and on label-flipping items with ±sd error bars. Every
//! coordinate comes from core's `score_plot` (tested by hand there); this only draws them.

use leptos::prelude::*;
use tabprobe_core::report::score_plot::{
    score_plot, BarKind, ModelView, BOTTOM, HEIGHT, LEFT, RIGHT, WIDTH,
};
use tabprobe_core::report::Section;

/// The CSS class of a bar: its kind, and whether it reads the hypothesis alone (lighter).
fn bar_class(kind: BarKind, model: ModelView) -> String {
    let view = if model.hypothesis_only() { " hypo" } else { "" };
    format!("plot-bar {kind}{view}")
}

/// The bar plot of one Table 4 / 7 section; nothing when it has no value to draw.
#[component]
pub fn ScorePlot(
    /// The `table4_scores` or `table7_scores` section.
    section: Section,
) -> impl IntoView {
    let plot = score_plot(&section)?;
    let x0 = LEFT;
    let x1 = WIDTH - RIGHT;
    let ticks = plot
        .ticks
        .iter()
        .map(|&(v, y)| {
            view! {
                <line class="grid" x1=x0 x2=x1 y1=y y2=y/>
                <text class="tick" x=x0 - 4.0 y=y + 4.0 text-anchor="end">{format!("{v:.0}%")}</text>
            }
        })
        .collect::<Vec<_>>();
    let bars = plot
        .bars
        .iter()
        .map(|b| {
            let cx = b.x + b.width / 2.0;
            let cap = (b.width / 4.0).min(6.0);
            let title = format!(
                "{} — {}, {}: {:.2}% ± {:.2}",
                b.group, b.kind, b.model, b.mean, b.sd
            );
            view! {
                <g data-testid="plot-bar" data-group=b.group.clone() data-kind=b.kind.as_str() data-model=b.model.as_str()
                    data-mean=format!("{:.2}", b.mean) data-sd=format!("{:.2}", b.sd)>
                    <title>{title}</title>
                    <rect class=bar_class(b.kind, b.model) x=b.x y=b.y width=b.width height=b.height/>
                    <g class="err" data-testid="plot-err" data-top=format!("{:.2}", b.err_top) data-bottom=format!("{:.2}", b.err_bottom)>
                        <line x1=cx x2=cx y1=b.err_top y2=b.err_bottom/>
                        <line x1=cx - cap x2=cx + cap y1=b.err_top y2=b.err_top/>
                        <line x1=cx - cap x2=cx + cap y1=b.err_bottom y2=b.err_bottom/>
                    </g>
                </g>
            }
        })
        .collect::<Vec<_>>();
    let names = plot
        .groups
        .iter()
        .map(|g| {
            view! { <text class="group-name" x=g.x y=HEIGHT - BOTTOM + 18.0 text-anchor="middle">{tabprobe_core::display::readable(&g.name)}</text> }
        })
        .collect::<Vec<_>>();
    let legend = plot
        .series
        .iter()
        .map(|&(kind, model)| {
            view! { <li><span class=format!("swatch {}", bar_class(kind, model))></span>{format!("{kind} · {model}")}</li> }
        })
        .collect::<Vec<_>>();
    let aria = format!("{}: bars with ±sd error bars", section.title);
    Some(view! {
        <figure class="score-plot" data-testid="score-plot" data-file=section.file()>
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=aria>
                {ticks}
                <line class="axis" x1=x0 x2=x1 y1=HEIGHT - BOTTOM y2=HEIGHT - BOTTOM/>
                {bars}
                {names}
            </svg>
            <figcaption>
                <ul class="plot-legend">{legend}</ul>
                "Accuracy (%), mean ± sd over the samples; the same numbers as the table below."
            </figcaption>
        </figure>
    })
}
