//! The edited table against the original (docs/using-the-site.md#the-table-editor): one line per row with its mark — added,
//! changed, moved, removed or unchanged — and the row's content before and after. The lines
//! come from core (`edit::diff_lines`), so the editor and the share page show the same.

use std::sync::Arc;

use leptos::prelude::*;
use tabprobe_core::edit::{diff_lines, DiffLine, TableDiff};

use crate::components::table_view::{rows_within, Rows};
use tabprobe_core::Table;

/// The lines as table rows.
fn line_rows(lines: Vec<DiffLine>) -> Vec<impl IntoView> {
    lines
        .into_iter()
        .map(|l| {
            let mark = l.mark.as_str();
            view! {
                <tr class=format!("diff-row {mark}") data-testid="diff-row" data-mark=mark>
                    <td class="mark">{l.mark.label()}</td>
                    <th scope="row">{l.key}</th>
                    <td class="before">{l.before}</td>
                    <td class="after">{l.after}</td>
                </tr>
            }
        })
        .collect()
}

/// The title change line, when there is one.
fn title_line(change: Option<(String, String)>) -> Option<impl IntoView> {
    change.map(|(o, e)| {
        view! {
            <p class="diff-title" data-testid="diff-title">"title: " <del>{o}</del> " → " <ins>{e}</ins></p>
        }
    })
}

/// The frame around a summary, title line and rows.
fn diff_frame(summary: impl IntoView, title: impl IntoView, rows: impl IntoView) -> impl IntoView {
    view! {
        <div class="table-diff" data-testid="table-diff">
            <p class="diff-summary" data-testid="diff-summary">{summary}</p>
            {title}
            <table class="diff-table">
                <thead><tr><th>""</th><th>"row"</th><th>"original"</th><th>"edited"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The comparison as a table; `diff` must describe `edited` against `original` (the editor:
/// all three change as the user edits).
#[component]
pub fn TableDiffView(
    #[prop(into)] original: Signal<Table>,
    #[prop(into)] edited: Signal<Table>,
    #[prop(into)] diff: Signal<TableDiff>,
) -> impl IntoView {
    let summary = move || diff.with(|d| d.summary());
    let title = move || {
        let (o, e) = (
            original.with(|t| t.title().to_string()),
            edited.with(|t| t.title().to_string()),
        );
        title_line((o != e).then_some((o, e)))
    };
    let rows =
        move || line_rows(original.with(|o| edited.with(|e| diff.with(|d| diff_lines(o, e, d)))));
    diff_frame(summary, title, rows)
}

/// A comparison computed once (the share page's model: `share::view::TableChange`), its
/// lines built a chunk per task when they hold many cells (as `TableView` does); with
/// `max_cells`, only the first lines holding at most that many cells are drawn until the
/// reader asks for the others.
#[component]
pub fn TableDiffLines(
    summary: String,
    title_change: Option<(String, String)>,
    lines: Vec<DiffLine>,
    #[prop(default = usize::MAX)] max_cells: usize,
) -> impl IntoView {
    // A line is four cells, and its row's text twice: counted as a cell per 100 bytes.
    let cells: Vec<usize> = lines
        .iter()
        .map(|l| 4 + (l.before.len() + l.after.len()) / 100)
        .collect();
    let lines = Arc::new(lines);
    let rows = Rows {
        count: lines.len(),
        cells: cells.iter().sum(),
        shown: rows_within(cells, max_cells),
        columns: 4,
        make: move |range: std::ops::Range<usize>| line_rows(lines[range].to_vec()),
    };
    diff_frame(summary, title_line(title_change), rows.view())
}
