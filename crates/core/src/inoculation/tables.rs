//! The before/after tables of an inoculation (the paper's Tables 9–12): accuracy on the
//! original test sets per split (Tables 9 and 11), and on the held-out challenge set per split
//! in four columns — the originals the items derive from, label-preserving, label-flipping and
//! several-label items (Tables 10 and 12). Every figure is a [`Cell`] (`cell.rs`); the
//! figure and its drill-down both use [`Cell::counts`], so they cannot disagree.

pub use crate::inoculation::cell::{Cell, Column};
use crate::inoculation::{InoculationResult, ItemClass};

/// The splits of the original examples, in first-seen order.
pub fn splits(result: &InoculationResult) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for it in &result.items {
        if it.class == ItemClass::Original && !out.contains(&it.split) {
            out.push(it.split.clone());
        }
    }
    out
}

/// The splits that hold held-out challenge items, in first-seen order.
pub fn challenge_splits(result: &InoculationResult) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for it in &result.items {
        if it.class != ItemClass::Original && !out.contains(&it.split) {
            out.push(it.split.clone());
        }
    }
    out
}

/// The challenge table's columns, in the paper's order.
pub const CHALLENGE_COLUMNS: [Column; 4] = [
    Column::ChallengeOriginal,
    Column::Challenge(ItemClass::Preserved),
    Column::Challenge(ItemClass::Flipped),
    Column::Challenge(ItemClass::Several),
];

/// A column's heading.
pub fn heading(column: Column) -> &'static str {
    match column {
        Column::OriginalTest => "Original test set",
        Column::ChallengeOriginal => "Original",
        Column::Challenge(class) => class.heading(),
        Column::ChallengeAll => "Challenge set",
    }
}

/// A split's name as a heading (`(no split)` for the empty name).
pub fn split_name(split: &str) -> &str {
    if split.is_empty() {
        "(no split)"
    } else {
        split
    }
}

/// `74.88` or `–` (two decimals, as the paper prints).
pub fn format_percent(p: Option<f64>) -> String {
    p.map_or_else(|| "–".to_string(), |p| format!("{p:.2}"))
}

/// The tables as text, as `tabprobe report` prints them: the original test sets, then the
/// challenge set per split, then the grid and the outcome of every size.
pub fn render_text(result: &InoculationResult) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let names: Vec<&str> = result.settings.probes.iter().map(|p| p.as_str()).collect();
    let _ = writeln!(
        out,
        "Inoculation of {} on {} ({} challenge items, {} evaluated only; seed {})",
        result.model.name,
        names.join(", "),
        result.challenge_items,
        result.evaluate_only,
        result.settings.seed
    );
    let splits = splits(result);
    let _ = writeln!(
        out,
        "\nOriginal test sets (as Tables 9 and 11), accuracy %\n#samples\tlr\t{}",
        splits
            .iter()
            .map(|s| split_name(s))
            .collect::<Vec<_>>()
            .join("\t")
    );
    for (m, model) in result.models.iter().enumerate() {
        let cells: Vec<String> = splits
            .iter()
            .map(|s| {
                format_percent(
                    Cell {
                        model: m,
                        split: Some(s.clone()),
                        column: Column::OriginalTest,
                    }
                    .percent(result),
                )
            })
            .collect();
        let lr = model
            .learning_rate
            .map_or("–".to_string(), |l| format!("{l:e}"));
        let _ = writeln!(out, "{}\t{lr}\t{}", model.row_name(), cells.join("\t"));
    }
    let _ = writeln!(
        out,
        "\nHeld-out challenge set (as Tables 10 and 12), accuracy %\n#samples\t{}",
        CHALLENGE_COLUMNS.map(heading).join("\t")
    );
    for split in challenge_splits(result) {
        let _ = writeln!(out, "{} set", split_name(&split));
        for (m, model) in result.models.iter().enumerate() {
            let cells: Vec<String> = CHALLENGE_COLUMNS
                .iter()
                .map(|&column| {
                    let cell = Cell {
                        model: m,
                        split: Some(split.clone()),
                        column,
                    };
                    let (_, n) = cell.tally(result);
                    format!("{} (n={n})", format_percent(cell.percent(result)))
                })
                .collect();
            let _ = writeln!(out, "{}\t{}", model.row_name(), cells.join("\t"));
        }
    }
    let _ = writeln!(
        out,
        "\nFine-tuning grid\nsize\tlr\tdev acc %\tbest epoch\tsteps\tkept\tseconds\tstopped"
    );
    for g in &result.grid {
        let _ = writeln!(
            out,
            "{}\t{:e}\t{:.2}\t{}\t{}\t{}\t{:.1}\t{}",
            g.size,
            g.learning_rate,
            100.0 * g.dev_accuracy,
            g.best_epoch,
            g.steps,
            if g.chosen { "yes" } else { "no" },
            g.seconds,
            g.stopped
        );
    }
    let _ = writeln!(
        out,
        "\nOutcome (§7; tolerance {} pp)",
        result.settings.tolerance_pp
    );
    for m in 1..result.models.len() {
        let o = crate::inoculation::outcome::of_model(result, m);
        let _ = writeln!(out, "n = {}: {}", result.models[m].size, o.describe());
    }
    out
}

/// The tables as CSV rows: `table,split,samples,learning_rate,column,correct,total,accuracy`.
pub fn render_csv(result: &InoculationResult) -> String {
    let header = "table,split,samples,learning_rate,column,correct,total,accuracy";
    let mut rows: Vec<Vec<String>> = vec![header.split(',').map(String::from).collect()];
    let mut row = |table: &str, split: &str, m: usize, column: Column| {
        let cell = Cell {
            model: m,
            split: Some(split.to_string()),
            column,
        };
        let (right, all) = cell.tally(result);
        let model = &result.models[m];
        rows.push(vec![
            table.to_string(),
            split.to_string(),
            model.size.to_string(),
            model
                .learning_rate
                .map_or(String::new(), |l| format!("{l:e}")),
            heading(column).to_string(),
            right.to_string(),
            all.to_string(),
            cell.percent(result)
                .map_or(String::new(), |p| format!("{p:.4}")),
        ]);
    };
    for split in splits(result) {
        for m in 0..result.models.len() {
            row("original", &split, m, Column::OriginalTest);
        }
    }
    for split in challenge_splits(result) {
        for m in 0..result.models.len() {
            for column in CHALLENGE_COLUMNS {
                row("challenge", &split, m, column);
            }
        }
    }
    crate::report::csv_text(rows)
}
