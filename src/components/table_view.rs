//! A read-only rendering of either table shape; multi-valued cells are shown as lists and
//! relevant rows (when an example is selected) are marked.

use leptos::prelude::*;
use tabprobe_core::Table;

/// Renders `table`; rows whose index is in `relevant` get the `relevant` class.
#[component]
pub fn TableView(
    table: Table,
    #[prop(default = Vec::new())] relevant: Vec<usize>,
) -> impl IntoView {
    match table {
        Table::KeyValue(t) => {
            let rows = t
                .rows
                .into_iter()
                .enumerate()
                .map(|(i, row)| {
                    let values = if row.values.len() == 1 {
                        row.values
                            .into_iter()
                            .next()
                            .map(|v| view! { <span>{v}</span> }.into_any())
                    } else {
                        let items = row
                            .values
                            .into_iter()
                            .map(|v| view! { <li>{v}</li> })
                            .collect::<Vec<_>>();
                        Some(view! { <ul class="values">{items}</ul> }.into_any())
                    };
                    view! {
                        <tr class:relevant=relevant.contains(&i)>
                            <th scope="row">{row.key}</th>
                            <td>{values}</td>
                        </tr>
                    }
                })
                .collect::<Vec<_>>();
            view! {
                <table class="kv-table" data-testid="table-view">
                    <caption>{t.title}</caption>
                    <tbody>{rows}</tbody>
                </table>
            }
            .into_any()
        }
        Table::Relational(t) => {
            let header = t
                .header
                .into_iter()
                .map(|h| view! { <th scope="col">{h}</th> })
                .collect::<Vec<_>>();
            let rows = t
                .rows
                .into_iter()
                .enumerate()
                .map(|(i, cells)| {
                    let cells = cells
                        .into_iter()
                        .map(|c| view! { <td>{c}</td> })
                        .collect::<Vec<_>>();
                    view! { <tr class:relevant=relevant.contains(&i)>{cells}</tr> }
                })
                .collect::<Vec<_>>();
            view! {
                <table class="rel-table" data-testid="table-view">
                    <caption>{t.caption}</caption>
                    <thead><tr>{header}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            }
            .into_any()
        }
    }
}
