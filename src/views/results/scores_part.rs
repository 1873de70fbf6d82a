//! The report's score parts: Tables 4 and 7 (drawn as bars, then as tables) and Table 8, both
//! switched by the reader's "include heuristic items".

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::run::RunResult;

use super::built::Built;
use super::file_stem;
use super::item_list::Drill;
use super::score_plot::ScorePlot;
use super::section_tables::{section_table, Source};

/// Tables 4 and 7, per model: certain and reviewer-accepted items are counted; unreviewed
/// heuristic items are left out (and counted) unless the reader asks for them.
#[component]
pub fn ScoresPart(
    runs: Vec<Arc<RunResult>>,
    built: Built,
    /// Count heuristic items nobody has reviewed (shared with Table 8).
    include_heuristic: RwSignal<bool>,
    drill: RwSignal<Option<Drill>>,
) -> impl IntoView {
    let scores_now = move || {
        let inc = include_heuristic.get();
        let built = built.get()?;
        let report = &built.report;
        let tables = runs
            .iter()
            .enumerate()
            .flat_map(|(m, r)| {
                let prefix = file_stem(r);
                let many = runs.len() > 1;
                let src = Source::of(m);
                let secs = if inc {
                    report.scores_with_heuristic.get(m)
                } else {
                    report.sections.get(m)
                };
                secs.cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|s| s.id.is_score_table())
                    .map(|mut s| {
                        if many {
                            s.title = format!("{} — {}", s.title, r.model.label());
                        }
                        // The bars first: the table below holds the same numbers.
                        let plot = view! { <ScorePlot section=s.clone()/> };
                        view! { {plot}{section_table(s, prefix.clone(), drill, src)} }.into_any()
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>();
        Some(tables)
    };
    view! {
        <section id="scores" class="result-part">
            <h2>"Scores (Tables 4 and 7)"</h2>
            <p class="hint">"Accuracy (%) on the originals, on label-preserving and on label-flipping items: mean ± sd over 100 seeded samples of 80%, drawn as bars with ±sd error bars per probe and model, then as the tables. NEUTRAL examples are left out (paper §4, §6); certain and reviewer-accepted items are counted, and the columns heuristic_left_out / rejected_left_out / neutral_left_out say how many items each table left out. Click a row for the items it counts."</p>
            <label class="results-options">
                <input type="checkbox" data-testid="include-heuristic"
                    prop:checked=move || include_heuristic.get()
                    on:change=move |ev| include_heuristic.set(event_target_checked(&ev))/>
                " include heuristic items nobody has reviewed (their expected label may be wrong)"
            </label>
            {scores_now}
        </section>
    }
}

/// Table 8, the paired counterfactual analysis: both of core's tables, switched by "include
/// heuristic items"; with a second model its hypothesis-only scores give O-Hypo.
#[component]
pub fn Table8Part(
    runs: Vec<Arc<RunResult>>,
    built: Built,
    /// Count heuristic items nobody has reviewed (shared with Tables 4 and 7).
    include_heuristic: RwSignal<bool>,
    drill: RwSignal<Option<Drill>>,
) -> impl IntoView {
    let stem = file_stem(&runs[0]);
    let body = move || {
        let inc = include_heuristic.get();
        let built = built.get()?;
        Some(match &built.report.table8 {
            Ok(t8) => {
                let src = Source {
                    hypothesis_model: t8.hypothesis_model,
                    ..Source::of(0)
                };
                let secs = if inc { &t8.with_heuristic } else { &t8.default };
                secs.iter()
                    .map(|s| section_table(s.clone(), stem.clone(), drill, src))
                    .collect::<Vec<_>>()
            }
            Err(e) => vec![view! { <p class="problem">{e.to_string()}</p> }.into_any()],
        })
    };
    view! {
        <section id="table8" class="result-part" data-testid="table8">
            <h2>"Paired counterfactual analysis (Table 8)"</h2>
            {body}
        </section>
    }
}
