//! The transition graph (docs/probes-and-metrics.md#the-transition-graph; the paper's Figures 3, 4, 7–11) as SVG: the three labels as
//! nodes, one arrow per observed `before → after` transition labelled with its percentage of
//! the source node's transitions; valid edges black, invalid edges red. Clicking (or Enter on)
//! an edge drills down to its items.

use leptos::prelude::*;
use tabprobe_core::metrics::transitions::TransitionEdge;
use tabprobe_core::{Label, LabelSet};

/// Node centres in the drawing (viewBox −50…410 × −40…270, room for self-loops and their labels): ENTAIL left, NEUTRAL top, CONTRADICT right.
fn node(label: Label) -> (f64, f64) {
    match label {
        Label::Entail => (85.0, 190.0),
        Label::Neutral => (180.0, 55.0),
        Label::Contradict => (275.0, 190.0),
    }
}

/// Nodes are ellipses wide enough for their name ("CONTRADICT" at the 18 px the results view
/// draws it): a circle of the old 30-unit radius let the name spill over the edges beside it.
const RX: f64 = 70.0;
const RY: f64 = 28.0;

/// Distance from a node's centre to its outline along the unit direction `(ux, uy)`.
fn reach(ux: f64, uy: f64) -> f64 {
    1.0 / ((ux / RX).powi(2) + (uy / RY).powi(2)).sqrt()
}

/// The path of an edge and where its label goes. Edges between two nodes bend to the left
/// of their direction, so `a → b` and `b → a` do not overlap; a self-loop sits outside the
/// node, away from the triangle's centre.
fn geometry(from: Label, to: Label) -> (String, (f64, f64)) {
    let (x1, y1) = node(from);
    if from == to {
        let (cx, cy) = (180.0, 145.0);
        let (dx, dy) = (x1 - cx, y1 - cy);
        let len = (dx * dx + dy * dy).sqrt();
        let (ux, uy) = (dx / len, dy / len);
        // Two points on the circle, ±35° around the outward direction, and a far control.
        let rot = |a: f64| (ux * a.cos() - uy * a.sin(), ux * a.sin() + uy * a.cos());
        let (ax, ay) = rot(0.6);
        let (bx, by) = rot(-0.6);
        let (ra, rb, r) = (reach(ax, ay), reach(bx, by), reach(ux, uy));
        let p1 = (x1 + ax * ra, y1 + ay * ra);
        let p2 = (x1 + bx * rb, y1 + by * rb);
        let c1 = (x1 + ax * (ra + 50.0), y1 + ay * (ra + 50.0));
        let c2 = (x1 + bx * (rb + 50.0), y1 + by * (rb + 50.0));
        let label = (x1 + ux * (r + 38.0), y1 + uy * (r + 38.0) + 4.0);
        return (
            format!(
                "M {:.1} {:.1} C {:.1} {:.1} {:.1} {:.1} {:.1} {:.1}",
                p1.0, p1.1, c1.0, c1.1, c2.0, c2.1, p2.0, p2.1
            ),
            label,
        );
    }
    let (x2, y2) = node(to);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt();
    let (ux, uy) = (dx / len, dy / len);
    // Left normal of the direction of travel.
    let (nx, ny) = (uy, -ux);
    let bend = 22.0;
    let r = reach(ux, uy);
    let start = (x1 + ux * r + nx * 8.0, y1 + uy * r + ny * 8.0);
    let end = (
        x2 - ux * (r + 4.0) + nx * 8.0,
        y2 - uy * (r + 4.0) + ny * 8.0,
    );
    let mid = ((x1 + x2) / 2.0 + nx * bend, (y1 + y2) / 2.0 + ny * bend);
    let label = (
        (x1 + x2) / 2.0 + nx * (bend + 12.0),
        (y1 + y2) / 2.0 + ny * (bend + 12.0) + 4.0,
    );
    (
        format!(
            "M {:.1} {:.1} Q {:.1} {:.1} {:.1} {:.1}",
            start.0, start.1, mid.0, mid.1, end.0, end.1
        ),
        label,
    )
}

fn short(label: Label, set: LabelSet) -> &'static str {
    match (label, set) {
        (Label::Entail, LabelSet::TwoWay) => "ENTAILED",
        (Label::Contradict, LabelSet::TwoWay) => "REFUTED",
        (Label::Entail, _) => "ENTAIL",
        (Label::Neutral, _) => "NEUTRAL",
        (Label::Contradict, _) => "CONTRADICT",
    }
}

/// One transition graph. `on_edge` receives `(before, after)` of a clicked edge.
#[component]
pub fn TransitionGraphSvg(
    /// The edges (non-zero counts), from core's `TransitionMatrix::edges`.
    edges: Vec<TransitionEdge>,
    /// Caption: the split, or "pooled".
    caption: String,
    /// How labels are named.
    set: LabelSet,
    /// Drill-down.
    on_edge: Callback<(Label, Label)>,
    /// One item's transition (a shared probe result): edges say "valid" / "invalid", not a
    /// percentage, and are not buttons.
    #[prop(optional)]
    one_item: bool,
) -> impl IntoView {
    let nodes = set
        .labels()
        .iter()
        .map(|&l| {
            let (x, y) = node(l);
            let class = format!("node {}", l.as_str().to_lowercase());
            view! {
                <g class=class>
                    <ellipse cx=x cy=y rx=RX ry=RY/>
                    <text x=x y=y + 4.0 text-anchor="middle">{short(l, set)}</text>
                </g>
            }
        })
        .collect::<Vec<_>>();
    let drawn = edges
        .into_iter()
        .map(|e| edge_view(e, set, on_edge, one_item))
        .collect::<Vec<_>>();
    let aria = format!("transition graph, {caption}");
    let data_caption = caption.clone();
    view! {
        <figure class="transition-graph" data-testid="transition-graph" data-caption=data_caption>
            <svg viewBox="-50 -40 460 310" role="img" aria-label=aria>
                <defs>
                    <marker id="arrow-valid" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M 0 0 L 10 5 L 0 10 z" class="arrow valid"/>
                    </marker>
                    <marker id="arrow-invalid" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M 0 0 L 10 5 L 0 10 z" class="arrow invalid"/>
                    </marker>
                </defs>
                {nodes}
                {drawn}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}

/// One edge of the graph: its arrow, its percentage (or verdict, for `one_item`) and a title
/// saying what it counts; a click or Enter opens its items.
fn edge_view(
    e: TransitionEdge,
    set: LabelSet,
    on_edge: Callback<(Label, Label)>,
    one_item: bool,
) -> impl IntoView {
    let (d, (lx, ly)) = geometry(e.from, e.to);
    // Out of a label whose rule a two-way model cannot meet, no edge is valid or
    // invalid: it is drawn grey, "n/a".
    let class = if e.not_applicable {
        "edge not-applicable"
    } else if e.valid {
        "edge valid"
    } else {
        "edge invalid"
    };
    let marker = if e.valid || e.not_applicable {
        "url(#arrow-valid)"
    } else {
        "url(#arrow-invalid)"
    };
    let verdict = if e.not_applicable {
        "n/a: not applicable to a two-way model"
    } else if e.valid {
        "valid"
    } else {
        "INVALID"
    };
    let (from, to) = (e.from, e.to);
    let text = if one_item {
        match (e.not_applicable, e.valid) {
            (true, _) => "not judged".to_string(),
            (false, true) => "valid".to_string(),
            (false, false) => "invalid".to_string(),
        }
    } else {
        format!("{:.1}%", e.percent)
    };
    let title = if one_item {
        format!("{} → {}: {text}", short(from, set), short(to, set))
    } else {
        format!(
            "{} → {}: {} of the items predicted {} before ({:.2}%), {} — click for the items",
            short(from, set),
            short(to, set),
            e.count,
            short(from, set),
            e.percent,
            verdict
        )
    };
    view! {
        <g class=class role=(!one_item).then_some("button") tabindex=(!one_item).then_some("0") data-testid="edge"
            data-from=from.as_str() data-to=to.as_str()
            data-count=e.count.to_string() data-percent=format!("{:.4}", e.percent)
            data-valid=e.valid.to_string() data-not-applicable=e.not_applicable.to_string()
            on:click=move |_| on_edge.run((from, to))
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Enter" || ev.key() == " " {
                    ev.prevent_default();
                    on_edge.run((from, to));
                }
            }>
            <title>{title}</title>
            <path d=d.clone() class="hit"/>
            <path d=d marker-end=marker/>
            <text x=lx y=ly text-anchor="middle" data-testid="edge-label">{text}</text>
        </g>
    }
}
