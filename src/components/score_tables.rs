//! Tables of the results view: any section of core's run report (Tables 4, 7, 8, evidence,
//! word order, the per-category blocks) with its CSV download — the same cells and bytes as
//! `tabprobe report --csv` — and the invalid-transition table (Tables 5, 6, 13–17) whose
//! cells drill down to their items.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::metrics::invalid::NOT_APPLICABLE_TWO_WAY;
use tabprobe_core::probe::rules::Operation;
use tabprobe_core::report::glossary::with_unit;
use tabprobe_core::report::{
    num, operation_name, paper_table, render_csv, InvalidFigure, ItemSelector, Row, Section, ALL,
};

use crate::components::glossary_term::TermText;
use crate::components::in_chunks::in_chunks;
use crate::storage::download::download;

/// How the page names an operation: `row deletion (Table 5)`.
pub fn operation_title(op: Operation) -> String {
    format!(
        "{} ({})",
        tabprobe_core::display::readable(&operation_name(op)),
        paper_table(op)
    )
}

/// Rows of a report table built in one task; a longer table adds the rest this many at a
/// time, a task each (the INFOTABS dev split's per-example evidence table has 1,800 rows:
/// built at once they held the page for about 100 ms).
const ROWS_PER_TASK: usize = 200;

/// One report section as an HTML table with a CSV button. With `on_items`, the figures core
/// put items behind drill down: a row that counts one set of items is clickable as a whole,
/// a row whose columns count different sets (the word-order summary) cell by cell. A long
/// table shows its first [`ROWS_PER_TASK`] rows at once and the rest in the tasks after.
#[component]
pub fn SectionTable(
    /// The section.
    section: Section,
    /// A prefix for the CSV file name (e.g. the model's name).
    #[prop(default = String::new())]
    file_prefix: String,
    /// Drill-down: receives the items behind the row or cell clicked.
    #[prop(optional)]
    on_items: Option<Callback<ItemSelector>>,
) -> impl IntoView {
    let section = Arc::new(section);
    let stem = section.file();
    let file = if file_prefix.is_empty() {
        format!("{stem}.csv")
    } else {
        format!("{file_prefix}-{stem}.csv")
    };
    let header = section
        .header
        .iter()
        .map(|h| view! { <th scope="col" data-column=h.clone()><TermText text=tabprobe_core::display::readable(&h) key=h.clone()/></th> })
        .collect::<Vec<_>>();
    let body = {
        let section = section.clone();
        let stem = stem.clone();
        in_chunks(section.rows.len(), ROWS_PER_TASK, move |range| {
            section.rows[range]
                .iter()
                .map(|row| row_view(row, &section.header, &stem, on_items))
                .collect::<Vec<_>>()
        })
    };
    let notes = section
        .notes
        .iter()
        .map(|n| view! { <p class="note">{n.clone()}</p> })
        .collect::<Vec<_>>();
    let empty = section.rows.is_empty();
    let title = section.title.clone();
    // The CSV is written when asked for, not with the table.
    let csv_of = section.clone();
    view! {
        <div class="report-section" data-testid="report-section" data-file=stem.clone()>
            <div class="section-head">
                <h4>{title}</h4>
                <button class="small" data-testid="csv" on:click=move |_| download(&file, "text/csv", &render_csv(&csv_of))>"CSV"</button>
            </div>
            {notes}
            {if empty {
                view! { <p class="muted">"no rows"</p> }.into_any()
            } else {
                view! {
                    <div class="table-scroll">
                        <table class="scores"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>
                    </div>
                }.into_any()
            }}
        </div>
    }
}

/// One row of a report table (see [`SectionTable`]).
fn row_view(
    row: &Row,
    header: &[String],
    stem: &str,
    on_items: Option<Callback<ItemSelector>>,
) -> AnyView {
    let cells = row
        .cells
        .iter()
        .zip(header)
        .enumerate()
        .map(|(col, (c, h))| {
            let text = if c.is_empty() {
                "–".to_string()
            } else {
                with_unit(stem, h, c)
            };
            // A row name that is shorthand (`pooled`) is explained like a header; the group
            // `all` is plain (the column `all` of evidence selection is not).
            let text = if col == 0 && c != ALL {
                view! { <TermText text=text key=c.clone()/> }.into_any()
            } else {
                text.into_any()
            };
            let cell_items = row
                .cell_items
                .iter()
                .find(|(k, _)| *k == col)
                .map(|(_, items)| items.clone());
            match on_items.zip(cell_items) {
                Some((cb, arg)) => {
                    let arg2 = arg.clone();
                    view! {
                        <td class="clickable" tabindex="0" title="show the items behind this number" data-testid="section-cell" data-column=h.clone()
                            on:click=move |_| cb.run(arg.clone())
                            on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { cb.run(arg2.clone()) }>
                            {text}
                        </td>
                    }
                    .into_any()
                }
                None => view! { <td>{text}</td> }.into_any(),
            }
        })
        .collect::<Vec<_>>();
    match on_items.zip(row.items.clone()) {
        Some((cb, r)) => {
            let r2 = r.clone();
            view! {
                <tr class="clickable" tabindex="0" title="show the items behind this row"
                    on:click=move |_| cb.run(r.clone())
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { cb.run(r2.clone()) }>
                    {cells}
                </tr>
            }
            .into_any()
        }
        None => view! { <tr>{cells}</tr> }.into_any(),
    }
}

/// The invalid-transition table: % of items predicted L before whose after-label the rule
/// forbids, one column per split and their mean. A cell opens the items core put on it.
#[component]
pub fn InvalidTable(
    /// The table and its cells' items (core's figure).
    figure: InvalidFigure,
    /// Drill-down: receives the cell's items.
    on_items: Callback<ItemSelector>,
) -> impl IntoView {
    let table = &figure.table;
    let splits = table.splits.clone();
    // Core's layout: with one split, no mean column.
    let many = figure.draws_mean();
    let mean_head = many.then(|| view! { <th scope="col"><TermText text="mean".to_string() key="mean".to_string()/></th> });
    let head = splits
        .iter()
        .map(|s| view! { <th scope="col">{s.name().to_string()}</th> })
        .collect::<Vec<_>>();
    let cell = |v: Option<f64>, items: Option<&ItemSelector>| match (v, items.cloned()) {
        (Some(x), Some(items)) => {
            let on_key = items.clone();
            view! {
                <td class="clickable" tabindex="0" data-testid="invalid-cell"
                    title="show the items with an invalid transition"
                    on:click=move |_| on_items.run(items.clone())
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { on_items.run(on_key.clone()) }>
                    {format!("{}%", num(x))}
                </td>
            }
            .into_any()
        }
        _ => view! { <td class="muted">"–"</td> }.into_any(),
    };
    let mean_column = splits.len();
    let rows = table
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if r.not_applicable {
                // A two-way model cannot meet a rule whose only valid target is NEUTRAL: no
                // percentage (it would read 100% invalid).
                let span = figure.drawn_columns().to_string();
                return view! {
                    <tr class="not-applicable"><th scope="row">{r.label.as_str()}</th>
                        <td colspan=span class="muted" data-testid="invalid-na" title=NOT_APPLICABLE_TWO_WAY>{format!("n/a — {NOT_APPLICABLE_TWO_WAY}")}</td></tr>
                }
                .into_any();
            }
            let cells = r
                .per_split
                .iter()
                .enumerate()
                .map(|(k, v)| cell(*v, figure.cell_items(Some(i), k)))
                .collect::<Vec<_>>();
            let mean = many.then(|| cell(r.mean, figure.cell_items(Some(i), mean_column)));
            view! {
                <tr><th scope="row">{r.label.as_str()}</th>{cells}{mean}</tr>
            }
            .into_any()
        })
        .collect::<Vec<_>>();
    let avg = table
        .average
        .iter()
        .enumerate()
        .map(|(k, v)| cell(*v, figure.cell_items(None, k)))
        .collect::<Vec<_>>();
    let avg_mean = many.then(|| cell(table.mean_average, figure.cell_items(None, mean_column)));
    let notes = table
        .notes
        .iter()
        .map(|n| view! { <p class="note">{n.clone()}</p> })
        .collect::<Vec<_>>();
    view! {
        <div class="invalid-table">
            <table class="scores" data-testid="invalid-table">
                <caption>"% invalid transitions, by label predicted before"</caption>
                <thead><tr><th scope="col"><TermText text="before".to_string() key="before".to_string()/></th>{head}{mean_head}</tr></thead>
                <tbody>
                    {rows}
                    <tr class="average"><th scope="row">"Average"</th>{avg}{avg_mean}</tr>
                </tbody>
            </table>
            {notes}
        </div>
    }
}
