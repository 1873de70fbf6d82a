//! Table probes (docs/probes-and-metrics.md#table-probes-without-relevance, #table-probes-with-relevance, #premise-removal; paper §5 and Appendix): the perturbed tables of one
//! example, with the rule that judges them. Randomness comes only from the `Rng` passed in.

use super::edit_table::{
    append_row, delete_rows, header_key, permute_rows, replace_value, row_key, KeyIndex,
};
use super::{Basis, Certainty, Edit, Expectation, Perturbation, Premise, ProbeInput};
use crate::data::table::Table;
use crate::probe::rules::Operation;
use crate::probe_kind::ProbeKind;
use crate::rng::Rng;

/// One example's table, hypothesis and annotations, plus the dataset-wide key pool.
#[derive(Debug, Clone, Copy)]
pub struct TableContext<'a> {
    /// The example's table.
    pub table: &'a Table,
    /// The example's hypothesis (unchanged by table probes).
    pub hypothesis: &'a str,
    /// Human-annotated relevant rows, if any.
    pub relevant_rows: Option<&'a [usize]>,
    /// Where keys / columns / records occur in the dataset.
    pub index: &'a KeyIndex,
}

fn item(ctx: &TableContext, probe: ProbeKind, edit: Edit, table: Table) -> Perturbation {
    Perturbation {
        probe,
        edit,
        perturbed: ProbeInput {
            premise: Premise::Table(table),
            hypothesis: ctx.hypothesis.to_string(),
        },
        expectation: Expectation::Transition {
            operation: probe.operation().unwrap_or(Operation::RowDeletion),
        },
        certainty: Certainty::Certain,
        basis: Basis::TransitionRule,
    }
}

fn deletion(ctx: &TableContext, probe: ProbeKind, rows: Vec<usize>) -> Perturbation {
    let keys = rows.iter().map(|&i| row_key(ctx.table, i)).collect();
    let table = delete_rows(ctx.table, &rows);
    item(ctx, probe, Edit::RowsDeleted { rows, keys }, table)
}

/// Row deletion: one perturbed table per row.
pub fn row_deletion(ctx: &TableContext) -> Vec<Perturbation> {
    (0..ctx.table.row_count())
        .map(|i| deletion(ctx, ProbeKind::RowDeletion, vec![i]))
        .collect()
}

fn valid_relevant(ctx: &TableContext) -> Option<Vec<usize>> {
    let n = ctx.table.row_count();
    let mut r: Vec<usize> = ctx
        .relevant_rows?
        .iter()
        .copied()
        .filter(|&i| i < n)
        .collect();
    r.sort_unstable();
    r.dedup();
    Some(r)
}

/// Relevant-row deletion: each annotated relevant row on its own. Empty without annotations.
pub fn relevant_row_deletion(ctx: &TableContext) -> Vec<Perturbation> {
    valid_relevant(ctx)
        .unwrap_or_default()
        .into_iter()
        .map(|i| deletion(ctx, ProbeKind::RelevantRowDeletion, vec![i]))
        .collect()
}

/// All relevant rows deleted at once (only when there are at least two, otherwise it would
/// repeat the single-row item).
pub fn all_relevant_rows_deletion(ctx: &TableContext) -> Vec<Perturbation> {
    match valid_relevant(ctx) {
        Some(r) if r.len() >= 2 => vec![deletion(ctx, ProbeKind::AllRelevantRowsDeletion, r)],
        _ => Vec::new(),
    }
}

/// Irrelevant-row deletion: each row not annotated as relevant. Empty without annotations.
pub fn irrelevant_row_deletion(ctx: &TableContext) -> Vec<Perturbation> {
    let Some(r) = valid_relevant(ctx) else {
        return Vec::new();
    };
    (0..ctx.table.row_count())
        .filter(|i| !r.contains(i))
        .map(|i| deletion(ctx, ProbeKind::IrrelevantRowDeletion, vec![i]))
        .collect()
}

/// Premise removal: the model sees no premise; anything should become NEUTRAL.
pub fn premise_removal(hypothesis: &str) -> Perturbation {
    Perturbation {
        probe: ProbeKind::PremiseRemoval,
        edit: Edit::PremiseRemoved,
        perturbed: ProbeInput {
            premise: Premise::Empty,
            hypothesis: hypothesis.to_string(),
        },
        expectation: Expectation::Transition {
            operation: Operation::PremiseRemoval,
        },
        certainty: Certainty::Certain,
        basis: Basis::TransitionRule,
    }
}

/// `(table id, values)`: where a key occurs.
type KeySource = (String, Vec<String>);

/// A row another table has and `table` lacks: `(key, values, source table)`; for relational
/// tables a record of another table with the same header (its key is its first cell).
fn draw_new_rows(
    table: &Table,
    exclude_keys: &[String],
    index: &KeyIndex,
    n: usize,
    rng: &mut Rng,
) -> Vec<(String, Vec<String>, String)> {
    match table {
        Table::KeyValue(t) => {
            let candidates: Vec<(&String, Vec<&KeySource>)> = index
                .keys
                .iter()
                .filter(|(k, _)| !t.rows.iter().any(|r| &r.key == *k) && !exclude_keys.contains(k))
                .map(|(k, srcs)| {
                    let srcs: Vec<_> = srcs
                        .iter()
                        .filter(|(id, v)| id != &t.id && !v.is_empty())
                        .collect();
                    (k, srcs)
                })
                .filter(|(_, s)| !s.is_empty())
                .collect();
            rng.sample_indices(candidates.len(), n)
                .into_iter()
                .map(|i| {
                    let (k, srcs) = &candidates[i];
                    let (id, values) = srcs[rng.below(srcs.len())];
                    ((*k).clone(), values.clone(), id.clone())
                })
                .collect()
        }
        Table::Relational(t) => {
            let pool: Vec<&(String, Vec<String>)> = index
                .records
                .get(&header_key(&t.header))
                .map(|v| {
                    v.iter()
                        .filter(|(id, rec)| id != &t.id && !t.rows.contains(rec))
                        .collect()
                })
                .unwrap_or_default();
            rng.sample_indices(pool.len(), n)
                .into_iter()
                .map(|i| {
                    let (id, rec) = pool[i];
                    (
                        rec.first().cloned().unwrap_or_default(),
                        rec.clone(),
                        id.clone(),
                    )
                })
                .collect()
        }
    }
}

/// Row insertion: `n` rows with keys the table lacks (relational: records with the same
/// header), values taken from another table that has the key. Existing keys never change.
pub fn row_insertion(ctx: &TableContext, n: usize, rng: &mut Rng) -> Vec<Perturbation> {
    draw_new_rows(ctx.table, &[], ctx.index, n, rng)
        .into_iter()
        .filter_map(|(key, values, from_table)| {
            let table = append_row(ctx.table, &key, &values)?;
            let at = table.row_count() - 1;
            let edit = Edit::RowInserted {
                at,
                key,
                values,
                from_table,
            };
            Some(item(ctx, ProbeKind::RowInsertion, edit, table))
        })
        .collect()
}

/// Row-value update: in every multi-valued row, one value replaced by a value of the same key
/// from another table (one the row does not already hold). Relational tables: up to `n`
/// cells replaced by a different cell of the same column from another table.
pub fn row_value_update(ctx: &TableContext, n: usize, rng: &mut Rng) -> Vec<Perturbation> {
    let mut out = Vec::new();
    match ctx.table {
        Table::KeyValue(t) => {
            for (ri, row) in t.rows.iter().enumerate() {
                if row.values.len() < 2 {
                    continue;
                }
                let pool: Vec<(&String, &String)> = ctx
                    .index
                    .values_elsewhere(&row.key, &t.id)
                    .filter(|(_, v)| !row.values.contains(v))
                    .collect();
                if pool.is_empty() {
                    continue;
                }
                let vi = rng.below(row.values.len());
                let (from, value) = pool[rng.below(pool.len())];
                if let Some(table) = replace_value(ctx.table, ri, vi, value) {
                    let edit = Edit::ValueUpdated {
                        row: ri,
                        key: row.key.clone(),
                        value_index: vi,
                        before: row.values[vi].clone(),
                        after: value.clone(),
                        from_table: from.clone(),
                    };
                    out.push(item(ctx, ProbeKind::RowValueUpdate, edit, table));
                }
            }
        }
        Table::Relational(t) => {
            let cells: Vec<(usize, usize)> = (0..t.rows.len())
                .flat_map(|r| (0..t.header.len()).map(move |c| (r, c)))
                .collect();
            for ci in rng.sample_indices(cells.len(), cells.len()) {
                if out.len() >= n {
                    break;
                }
                let (r, c) = cells[ci];
                let Some(before) = t.rows.get(r).and_then(|rec| rec.get(c)) else {
                    continue;
                };
                let pool: Vec<&(String, String)> = ctx
                    .index
                    .columns
                    .get(&t.header[c])
                    .map(|v| {
                        v.iter()
                            .filter(|(id, cell)| id != &t.id && cell != before)
                            .collect()
                    })
                    .unwrap_or_default();
                if pool.is_empty() {
                    continue;
                }
                let (from, value) = pool[rng.below(pool.len())];
                if let Some(table) = replace_value(ctx.table, r, c, value) {
                    let edit = Edit::ValueUpdated {
                        row: r,
                        key: t.header[c].clone(),
                        value_index: c,
                        before: before.clone(),
                        after: value.clone(),
                        from_table: from.clone(),
                    };
                    out.push(item(ctx, ProbeKind::RowValueUpdate, edit, table));
                }
            }
        }
    }
    out
}

/// Row permutation: up to `k` distinct random orders, the original order excluded. Tables
/// with fewer than two rows have none; small tables give at most `n! - 1`.
pub fn row_permutation(ctx: &TableContext, k: usize, rng: &mut Rng) -> Vec<Perturbation> {
    let n = ctx.table.row_count();
    let identity: Vec<usize> = (0..n).collect();
    let mut seen: Vec<Vec<usize>> = Vec::new();
    if n < 2 {
        return Vec::new();
    }
    // Bounded retries: for tiny tables the distinct orders run out before k.
    let mut tries = 0;
    while seen.len() < k && tries < 50 * k.max(1) {
        tries += 1;
        let mut order = identity.clone();
        rng.shuffle(&mut order);
        if order != identity && !seen.contains(&order) {
            seen.push(order);
        }
    }
    seen.into_iter()
        .map(|order| {
            let table = permute_rows(ctx.table, &order);
            item(
                ctx,
                ProbeKind::RowPermutation,
                Edit::RowsPermuted { order },
                table,
            )
        })
        .collect()
}

/// Delete then insert: for each row, delete it and append a row with a key the original
/// table lacks (so it is not a value update in disguise).
pub fn delete_then_insert(ctx: &TableContext, rng: &mut Rng) -> Vec<Perturbation> {
    let mut out = Vec::new();
    for i in 0..ctx.table.row_count() {
        let deleted = delete_rows(ctx.table, &[i]);
        let deleted_key = row_key(ctx.table, i);
        let exclude = vec![deleted_key.clone()];
        let Some((key, values, from_table)) = draw_new_rows(ctx.table, &exclude, ctx.index, 1, rng)
            .into_iter()
            .next()
        else {
            continue;
        };
        let Some(table) = append_row(&deleted, &key, &values) else {
            continue;
        };
        let edit = Edit::DeletedThenInserted {
            deleted_row: i,
            deleted_key,
            inserted_key: key,
            values,
            from_table,
        };
        out.push(item(ctx, ProbeKind::DeleteThenInsert, edit, table));
    }
    out
}
