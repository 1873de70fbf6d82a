//! The report's sections as tables on the results page: each figure drills down to the items
//! core put on its row or cell, and the closing part holds every table of every model.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::report::{ItemSelector, Section, SectionId};
use tabprobe_core::run::RunResult;

use super::file_stem;
use super::item_list::Drill;
use crate::components::score_tables::SectionTable;

/// Where a section's numbers come from: run `model` of the result (and, for Table 8 computed
/// with the second model's hypothesis-only scores, run `hypothesis_model`).
#[derive(Clone, Copy)]
pub struct Source {
    /// The run whose figures the section shows.
    pub model: usize,
    /// The run whose hypothesis-only scores the section read.
    pub hypothesis_model: usize,
}

impl Source {
    /// The figures of run `model` alone.
    pub fn of(model: usize) -> Self {
        Source {
            model,
            hypothesis_model: model,
        }
    }
}

/// A section as a table whose figures drill down to their items (the selectors core put
/// on its rows and cells).
pub fn section_table(
    section: Section,
    prefix: String,
    drill: RwSignal<Option<Drill>>,
    src: Source,
) -> AnyView {
    let on_items = Callback::new(move |items: ItemSelector| {
        drill.set(Some(Drill {
            model: src.model,
            hypothesis_model: src.hypothesis_model,
            items,
        }))
    });
    view! { <SectionTable section=section file_prefix=prefix on_items=on_items/> }.into_any()
}

/// The sections among `ids` of every model's report, as tables (titled with the model when
/// there are several).
pub fn pick(
    runs: &[Arc<RunResult>],
    per_model_sections: &[Vec<Section>],
    ids: &[SectionId],
    drill: RwSignal<Option<Drill>>,
) -> Vec<AnyView> {
    runs.iter()
        .zip(per_model_sections)
        .enumerate()
        .flat_map(|(m, (r, secs))| {
            let prefix = file_stem(r);
            secs.iter()
                .filter(|s| ids.contains(&s.id))
                .map(|s| {
                    let mut s = s.clone();
                    if runs.len() > 1 {
                        s.title = format!("{} — {}", s.title, r.model.label());
                    }
                    section_table(s, prefix.clone(), drill, Source::of(m))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every section of every model's report, each model's in a closed `<details>`.
pub fn all_tables_part(
    runs: &[Arc<RunResult>],
    per_model_sections: Vec<Vec<Section>>,
    drill: RwSignal<Option<Drill>>,
) -> AnyView {
    runs.iter()
        .zip(per_model_sections)
        .enumerate()
        .map(|(m, (r, secs))| {
            let prefix = file_stem(r);
            let tables = secs
                .into_iter()
                .map(|s| section_table(s, prefix.clone(), drill, Source::of(m)))
                .collect::<Vec<_>>();
            view! {
                <details class="all-tables">
                    <summary>{format!("Every table of the report, with the breakdowns by split and category — {}", r.model.label())}</summary>
                    {tables}
                </details>
            }
        })
        .collect::<Vec<_>>()
        .into_any()
}
