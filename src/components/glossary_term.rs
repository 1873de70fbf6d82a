//! A header or row name of the results with its explanation: the paper's shorthand
//! (`C-THP`, `Ω_max`) is focusable, shows its one line from core's glossary on hover and on
//! keyboard focus (a visible tooltip the name is `aria-describedby`), and links to its entry
//! in the glossary (docs/probes-and-metrics.md's section, reproduced on the About page).

use std::sync::atomic::{AtomicUsize, Ordering};

use leptos::prelude::*;
use tabprobe_core::report::glossary::{term, Term};

/// Tooltip ids must be unique on the page.
static NEXT_TIP: AtomicUsize = AtomicUsize::new(0);

/// Where a term's definition opens: the About page's glossary, at the docs' anchor.
pub fn glossary_href(t: &Term) -> String {
    format!("#/about/{}", t.anchor)
}

/// The tooltip's widest, in CSS px (its `max-width`).
const TIP_WIDTH: f64 = 320.0;

/// Puts the tooltip (fixed, so no scrolling table clips it) under the term, kept inside the
/// window: a term at the right edge of a wide table gets its tooltip shifted left.
fn place(term: &web_sys::Element, tip: &web_sys::HtmlSpanElement) {
    let Some(w) = web_sys::window() else { return };
    let vw = w
        .inner_width()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(1024.0);
    let Some((left, bottom)) = rect(term) else {
        return;
    };
    let width = TIP_WIDTH.min(vw - 16.0);
    let left = left.min(vw - width - 8.0).max(8.0);
    let _ = tip.set_attribute(
        "style",
        &format!(
            "left: {left:.0}px; top: {:.0}px; max-width: {width:.0}px",
            bottom + 4.0
        ),
    );
}

/// `(left, bottom)` of `el`'s box in the window (getBoundingClientRect, called through
/// js-sys: web-sys' DomRect is not among the features this crate enables).
fn rect(el: &web_sys::Element) -> Option<(f64, f64)> {
    use wasm_bindgen::JsCast;
    let f = js_sys::Reflect::get(el, &"getBoundingClientRect".into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    let r = f.call0(el).ok()?;
    let num = |k: &str| js_sys::Reflect::get(&r, &k.into()).ok()?.as_f64();
    Some((num("left")?, num("bottom")?))
}

/// `text` as shown, explained when `key` (the header cell or row name as the report writes
/// it) is glossary shorthand; plain text otherwise.
#[component]
pub fn TermText(
    /// What the page shows.
    text: String,
    /// The report's spelling, looked up in the glossary.
    key: String,
) -> impl IntoView {
    let Some(t) = term(&key) else {
        return view! { <span>{text}</span> }.into_any();
    };
    let id = format!("tip-{}", NEXT_TIP.fetch_add(1, Ordering::Relaxed));
    let described_by = id.clone();
    let tip = NodeRef::<leptos::html::Span>::new();
    let show = move |ev: web_sys::Event| {
        if let (Some(term), Some(tip)) = (
            ev.current_target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()),
            tip.get(),
        ) {
            place(&term, &tip);
        }
    };
    view! {
        <span class="term" tabindex="0" aria-describedby=described_by data-testid="term" data-term=t.anchor
            on:mouseenter=move |ev| show(ev.into()) on:focus=move |ev| show(ev.into())
            on:keydown=|ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { ev.stop_propagation() }>
            {text}
            <span class="tip" role="tooltip" id=id data-testid="term-tip" node_ref=tip>
                {t.line}" "
                // A row or cell around the term may drill down on click: the link only navigates.
                <a href=glossary_href(t) data-testid="term-link" on:click=|ev| ev.stop_propagation()>"Glossary: "{t.name}</a>
            </span>
        </span>
    }
    .into_any()
}
