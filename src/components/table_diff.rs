//! The edited table against the original (SPEC §5): one line per row with its mark — added,
//! changed, moved, removed or unchanged — and the row's content before and after.

use leptos::prelude::*;
use tabprobe_core::edit::{RowChange, TableDiff};
use tabprobe_core::Table;

/// `key` and the values (or a record's cells) of row `i`, for display.
fn row_text(table: &Table, i: usize) -> (String, String) {
    match table {
        Table::KeyValue(t) => t
            .rows
            .get(i)
            .map(|r| (r.key.clone(), r.values.join(" ; ")))
            .unwrap_or_default(),
        Table::Relational(t) => t
            .rows
            .get(i)
            .map(|r| (r.first().cloned().unwrap_or_default(), r.join(" | ")))
            .unwrap_or_default(),
    }
}

/// One comparison line.
struct Line {
    mark: &'static str,
    key: String,
    before: String,
    after: String,
}

fn lines(original: &Table, edited: &Table, diff: &TableDiff) -> Vec<Line> {
    let mut out = Vec::new();
    for (i, change) in diff.rows.iter().enumerate() {
        let (key, after) = row_text(edited, i);
        let moved = diff.moved.get(i).copied().unwrap_or(false);
        let (mark, before) = match change {
            RowChange::Added => ("added", String::new()),
            RowChange::Changed { from } => (
                if moved { "changed moved" } else { "changed" },
                row_text(original, *from).1,
            ),
            RowChange::Same { from } => (
                if moved { "moved" } else { "same" },
                row_text(original, *from).1,
            ),
        };
        out.push(Line {
            mark,
            key,
            before,
            after,
        });
    }
    for &from in &diff.removed {
        let (key, before) = row_text(original, from);
        out.push(Line {
            mark: "removed",
            key,
            before,
            after: String::new(),
        });
    }
    out
}

/// The comparison as a table; `diff` must describe `edited` against `original`.
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
        (o != e).then(|| view! {
            <p class="diff-title" data-testid="diff-title">"title: " <del>{o}</del> " → " <ins>{e}</ins></p>
        })
    };
    let rows = move || {
        let ls = original.with(|o| edited.with(|e| diff.with(|d| lines(o, e, d))));
        ls.into_iter()
            .map(|l| {
                let label = match l.mark {
                    "added" => "+ added",
                    "removed" => "− removed",
                    "changed" => "~ changed",
                    "changed moved" => "~ changed, moved",
                    "moved" => "↕ moved",
                    _ => "",
                };
                view! {
                    <tr class=format!("diff-row {}", l.mark) data-testid="diff-row" data-mark=l.mark>
                        <td class="mark">{label}</td>
                        <th scope="row">{l.key}</th>
                        <td class="before">{l.before}</td>
                        <td class="after">{l.after}</td>
                    </tr>
                }
            })
            .collect::<Vec<_>>()
    };
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
