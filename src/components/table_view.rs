//! A read-only rendering of either table shape; multi-valued cells are shown as lists and
//! relevant rows (when an example is selected) are marked. Large tables (a shared result at
//! the share limits has 20,000 cells per table) are drawn a chunk of rows per task, and a
//! view may draw only their first rows until asked for the rest ([`Rows`]): the browser's
//! layout of the whole 40,000 cells of a result at the limits took frames of 100–450 ms.

use std::ops::Range;
use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::Table;

use crate::components::in_chunks::in_chunks;

/// About how many cells one task builds: about 5 ms of the page's thread (measured on the
/// largest shared result: the first 1,000 cells of each of its three tables took 32 ms).
pub const CELLS_PER_TASK: usize = 500;

/// How many rows of `rows` rows holding `cells` cells in all one task builds.
pub fn rows_per_task(rows: usize, cells: usize) -> usize {
    (CELLS_PER_TASK * rows / cells.max(1)).max(1)
}

/// How many of a table's rows are drawn, given each row's cells: all, or the first rows
/// whose cells come to at most `max_cells` (at least one).
pub fn rows_within(cells: impl IntoIterator<Item = usize>, max_cells: usize) -> usize {
    let mut total = 0usize;
    let mut rows = 0;
    for c in cells {
        total = total.saturating_add(c);
        if total > max_cells && rows > 0 {
            break;
        }
        rows += 1;
    }
    rows
}

/// The rows of a table as a view: `count` rows holding `cells` cells, made by `make` a range
/// at a time, a chunk per task; when `shown` is less than `count`, the first `shown` rows
/// and a row with a button that draws the others (`columns` wide).
#[derive(Clone)]
pub struct Rows<F> {
    /// Rows in all.
    pub count: usize,
    /// Cells in all.
    pub cells: usize,
    /// Rows drawn before the button.
    pub shown: usize,
    /// Columns the button's row spans.
    pub columns: usize,
    /// The views of the rows in a range.
    pub make: F,
}

impl<F, V> Rows<F>
where
    F: Fn(Range<usize>) -> V + Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    /// The view.
    pub fn view(self) -> impl IntoView {
        let Rows {
            count,
            cells,
            shown,
            columns,
            make,
        } = self;
        let per_task = rows_per_task(count, cells);
        let first = {
            let make = make.clone();
            in_chunks(shown, per_task, make)
        };
        let all = RwSignal::new(false);
        let rest = move || {
            let make = make.clone();
            all.get().then(|| {
                in_chunks(count - shown, per_task, move |r| {
                    make(r.start + shown..r.end + shown)
                })
            })
        };
        let more = count - shown;
        let button = move || {
            (more > 0 && !all.get()).then(|| {
                view! {
                    <tr class="more-rows">
                        <td colspan=columns.to_string()>
                            <button class="small" data-testid="show-all-rows" on:click=move |_| all.set(true)>
                                {format!("Show the other {more} rows")}
                            </button>
                        </td>
                    </tr>
                }
            })
        };
        view! { {first} {rest} {button} }
    }
}

/// Renders `table`; rows whose index is in `relevant` get the `relevant` class. With
/// `max_cells`, only the first rows holding at most that many cells are drawn until the
/// reader asks for the others.
#[component]
pub fn TableView(
    table: Table,
    #[prop(default = Vec::new())] relevant: Vec<usize>,
    #[prop(default = usize::MAX)] max_cells: usize,
) -> impl IntoView {
    let relevant = Arc::new(relevant);
    match table {
        Table::KeyValue(t) => {
            let cells: Vec<usize> = t.rows.iter().map(|r| 1 + r.values.len()).collect();
            let rows = Arc::new(t.rows);
            let body = Rows {
                count: rows.len(),
                cells: cells.iter().sum(),
                shown: rows_within(cells, max_cells),
                columns: 2,
                make: move |range: Range<usize>| {
                    crate::timing::timed("table-chunk", || {
                        rows[range.clone()]
                            .iter()
                            .zip(range)
                            .map(|(row, i)| {
                                let values = match row.values.as_slice() {
                                    [one] => view! { <span>{one.clone()}</span> }.into_any(),
                                    many => {
                                        let items = many
                                            .iter()
                                            .map(|v| view! { <li>{v.clone()}</li> })
                                            .collect::<Vec<_>>();
                                        view! { <ul class="values">{items}</ul> }.into_any()
                                    }
                                };
                                view! {
                                    <tr class:relevant=relevant.contains(&i)>
                                        <th scope="row">{row.key.clone()}</th>
                                        <td>{values}</td>
                                    </tr>
                                }
                            })
                            .collect::<Vec<_>>()
                    })
                },
            };
            view! {
                <table class="kv-table" data-testid="table-view">
                    <caption>{t.title}</caption>
                    <tbody>{body.view()}</tbody>
                </table>
            }
            .into_any()
        }
        Table::Relational(t) => {
            let columns = t.header.len();
            let header = t
                .header
                .into_iter()
                .map(|h| view! { <th scope="col">{h}</th> })
                .collect::<Vec<_>>();
            let cells: Vec<usize> = t.rows.iter().map(Vec::len).collect();
            let rows = Arc::new(t.rows);
            let body = Rows {
                count: rows.len(),
                cells: cells.iter().sum(),
                shown: rows_within(cells, max_cells),
                columns,
                make: move |range: Range<usize>| {
                    rows[range.clone()]
                        .iter()
                        .zip(range)
                        .map(|(cells, i)| {
                            let cells = cells
                                .iter()
                                .map(|c| view! { <td>{c.clone()}</td> })
                                .collect::<Vec<_>>();
                            view! { <tr class:relevant=relevant.contains(&i)>{cells}</tr> }
                        })
                        .collect::<Vec<_>>()
                },
            };
            view! {
                <table class="rel-table" data-testid="table-view">
                    <caption>{t.caption}</caption>
                    <thead><tr>{header}</tr></thead>
                    <tbody>{body.view()}</tbody>
                </table>
            }
            .into_any()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_drawn_up_to_the_cells_asked_for() {
        assert_eq!(rows_within([2, 2, 2], usize::MAX), 3);
        assert_eq!(rows_within([2, 2, 2], 4), 2);
        assert_eq!(rows_within([2, 2, 2], 5), 2);
        // At least one row, however many cells it holds.
        assert_eq!(rows_within([50, 2], 10), 1);
        assert_eq!(rows_within(Vec::new(), 10), 0);
        assert_eq!(rows_per_task(1000, 20_000), 25);
        assert_eq!(rows_per_task(10, 0), 5000);
    }
}
