//! Shards back into one run: the run file a single process would have written, byte for
//! byte, once serialised the same way. Shards of different runs, partial shards, and missing
//! or repeated shards are refused with the file and field at fault.

use std::collections::BTreeMap;

use crate::probe::{ProbeExample, ProbeItem};
use crate::run::{RunResult, ScoredPair};

use super::split::ShardStamp;

/// Why shards cannot be merged; every message names the file(s) and, where a field differs,
/// its JSON path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// No file given.
    #[error("no shard files given")]
    Empty,
    /// A file without a `shard` stamp.
    #[error("{file}: not a shard (it has no $.shard); `tabprobe probe --shard i/n` writes shards")]
    NotAShard {
        /// The file.
        file: String,
    },
    /// A shard whose run was cancelled or killed.
    #[error("{file}: shard {index}/{count} is incomplete ({done} of {total} pairs scored); finish it with `tabprobe probe … --shard {index}/{count} --resume`")]
    Incomplete {
        /// The file.
        file: String,
        /// Its shard number.
        index: usize,
        /// Shard count.
        count: usize,
        /// Pairs scored.
        done: usize,
        /// Pairs to score.
        total: usize,
    },
    /// Two shards disagree on what run they belong to.
    #[error(
        "{file} and {other}: {field} differs ({left} vs {right}); these shards are not of one run"
    )]
    Differs {
        /// The first file.
        file: String,
        /// The file that differs from it.
        other: String,
        /// The JSON path of the field.
        field: String,
        /// The first file's value (shortened).
        left: String,
        /// The other's.
        right: String,
    },
    /// The same shard number given twice.
    #[error("shard {index}/{count} given twice: {first} and {second}")]
    Duplicate {
        /// Shard number.
        index: usize,
        /// Shard count.
        count: usize,
        /// First file.
        first: String,
        /// Second file.
        second: String,
    },
    /// Some shard numbers absent.
    #[error("missing shard(s) {missing} of {count}: got {got}")]
    Missing {
        /// The absent numbers, e.g. `2, 5`.
        missing: String,
        /// Shard count.
        count: usize,
        /// The numbers present.
        got: String,
    },
    /// A shard whose positions do not fit its contents or the totals.
    #[error("{file}: {what}")]
    Inconsistent {
        /// The file.
        file: String,
        /// What is wrong, with the JSON path.
        what: String,
    },
}

/// A short rendering of a value for messages.
fn short(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "?".into());
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// Checks `shard` belongs to the same run as `first`; the error names the first field that
/// differs.
fn same_run(
    (first_name, first, a): (&str, &RunResult, &ShardStamp),
    (name, run, b): (&str, &RunResult, &ShardStamp),
) -> Result<(), MergeError> {
    let differs = |field: &str, left: String, right: String| MergeError::Differs {
        file: first_name.to_string(),
        other: name.to_string(),
        field: field.to_string(),
        left,
        right,
    };
    macro_rules! check {
        ($field:expr, $x:expr, $y:expr) => {
            if $x != $y {
                return Err(differs($field, short(&$x), short(&$y)));
            }
        };
    }
    check!("$.shard.count", a.count, b.count);
    check!("$.shard.tool", a.tool, b.tool);
    check!("$.shard.backend", a.backend, b.backend);
    if let Some(part) = a.probe_set.first_difference(&b.probe_set) {
        let pick = |d: &super::ProbeSetDigest| match part {
            "shard.probe_set.dataset" => d.dataset.clone(),
            "shard.probe_set.seed" => d.seed.to_string(),
            "shard.probe_set.settings" => d.settings.clone(),
            "shard.probe_set.rules" => d.rules.clone(),
            "shard.probe_set.model" => d.model.clone(),
            _ => d.digest.clone(),
        };
        return Err(differs(
            &format!("$.{part}"),
            pick(&a.probe_set),
            pick(&b.probe_set),
        ));
    }
    check!("$.shard.totals", a.totals, b.totals);
    check!("$.format", first.format, run.format);
    check!("$.version", first.version, run.version);
    check!(
        "$.model.weights_sha256",
        first.model.weights_sha256,
        run.model.weights_sha256
    );
    check!("$.model.name", first.model.name, run.model.name);
    // f32 and f16-mixed shards of one model score the same pairs to other digits: one merged
    // run must not hold both.
    check!(
        "$.model.precision",
        first.model.precision.as_str(),
        run.model.precision.as_str()
    );
    check!(
        "$.model.label_set",
        first.model.label_set,
        run.model.label_set
    );
    check!("$.settings", first.settings, run.settings);
    check!("$.rules", first.rules, run.rules);
    check!("$.label_set", first.label_set, run.label_set);
    check!("$.skipped", first.skipped, run.skipped);
    check!(
        "$.unapplied_reviews",
        first.unapplied_reviews,
        run.unapplied_reviews
    );
    check!(
        "$.hypothesis_only_model",
        first.hypothesis_only_model,
        run.hypothesis_only_model
    );
    Ok(())
}

/// Places `values` at `positions` in `slots`; a position past the end is an error naming
/// `what`. A slot already filled keeps its first value (a pair two shards share).
fn place<T>(
    file: &str,
    what: &str,
    slots: &mut [Option<T>],
    positions: &[usize],
    values: Vec<T>,
) -> Result<(), MergeError> {
    if positions.len() != values.len() {
        return Err(MergeError::Inconsistent {
            file: file.to_string(),
            what: format!(
                "$.shard.positions.{what} has {} entries but the file has {} {what}",
                positions.len(),
                values.len()
            ),
        });
    }
    for (k, (&p, v)) in positions.iter().zip(values).enumerate() {
        let total = slots.len();
        let slot = slots.get_mut(p).ok_or_else(|| MergeError::Inconsistent {
            file: file.to_string(),
            what: format!(
                "$.shard.positions.{what}[{k}] is {p}, but the run has only {total} {what}"
            ),
        })?;
        if slot.is_none() {
            *slot = Some(v);
        }
    }
    Ok(())
}

/// Merges shard run files (`(file name, run)`, in any order) into the whole run: every shard
/// `1..=n` exactly once, all of one run (same tool, probe set, model, settings, rules), none
/// partial. The result has no `shard` stamp and equals the unsharded run.
pub fn merge_shards(shards: Vec<(String, RunResult)>) -> Result<RunResult, MergeError> {
    let mut by_index: BTreeMap<usize, (String, RunResult, ShardStamp)> = BTreeMap::new();
    // The first file's shard number: every other file is compared with it (no copy kept).
    let mut first: Option<usize> = None;
    for (file, run) in shards {
        let Some(stamp) = run.shard.clone() else {
            return Err(MergeError::NotAShard { file });
        };
        if let Some(p) = run.cancelled_at {
            return Err(MergeError::Incomplete {
                file,
                index: stamp.index,
                count: stamp.count,
                done: p.done,
                total: p.total,
            });
        }
        if let Some((f, r, s)) = first.and_then(|i| by_index.get(&i)) {
            same_run((f, r, s), (&file, &run, &stamp))?;
        } else {
            first = Some(stamp.index);
        }
        if let Some((earlier, _, _)) = by_index.get(&stamp.index) {
            return Err(MergeError::Duplicate {
                index: stamp.index,
                count: stamp.count,
                first: earlier.clone(),
                second: file,
            });
        }
        by_index.insert(stamp.index, (file, run, stamp));
    }
    let Some((_, first_run, first_stamp)) = first.and_then(|i| by_index.get(&i)) else {
        return Err(MergeError::Empty);
    };
    let stamp = first_stamp.clone();
    // Everything but the entries, which come from the shards below.
    let template = RunResult {
        format: first_run.format.clone(),
        version: first_run.version,
        model: first_run.model.clone(),
        settings: first_run.settings.clone(),
        rules: first_run.rules.clone(),
        label_set: first_run.label_set,
        examples: Vec::new(),
        items: Vec::new(),
        pairs: Vec::new(),
        hypothesis_only_pairs: Vec::new(),
        hypothesis_only_model: first_run.hypothesis_only_model.clone(),
        skipped: first_run.skipped.clone(),
        unapplied_reviews: first_run.unapplied_reviews.clone(),
        cancelled_at: None,
        shard: None,
    };
    let count = stamp.count;
    let missing: Vec<String> = (1..=count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    let out_of_range: Vec<&String> = by_index
        .iter()
        .filter(|(&i, _)| i == 0 || i > count)
        .map(|(_, (f, _, _))| f)
        .collect();
    if let Some(file) = out_of_range.first() {
        return Err(MergeError::Inconsistent {
            file: file.to_string(),
            what: format!("$.shard.index is outside 1..={count}"),
        });
    }
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            missing: missing.join(", "),
            count,
            got: by_index
                .keys()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let totals = stamp.totals;
    let mut examples: Vec<Option<ProbeExample>> = vec![None; totals.examples];
    let mut items: Vec<Option<ProbeItem>> = vec![None; totals.items];
    let mut pairs: Vec<Option<ScoredPair>> = vec![None; totals.pairs];
    let mut hypothesis_only: Vec<Option<usize>> = vec![None; totals.examples];
    for (file, run, stamp) in by_index.into_values() {
        let pos = &stamp.positions;
        let global_pair = |p: usize| pos.pairs.get(p).copied();
        let bad_pair = |path: String, p: usize| MergeError::Inconsistent {
            file: file.clone(),
            what: format!("{path} is {p}, past $.shard.positions.pairs"),
        };
        let mut shard_examples = Vec::with_capacity(run.examples.len());
        for (k, mut ex) in run.examples.into_iter().enumerate() {
            ex.pair = global_pair(ex.pair)
                .ok_or_else(|| bad_pair(format!("$.examples[{k}].pair"), ex.pair))?;
            shard_examples.push(ex);
        }
        let mut shard_items = Vec::with_capacity(run.items.len());
        for (k, mut it) in run.items.into_iter().enumerate() {
            it.example =
                pos.examples
                    .get(it.example)
                    .copied()
                    .ok_or_else(|| MergeError::Inconsistent {
                        file: file.clone(),
                        what: format!(
                            "$.items[{k}].example is {}, past $.shard.positions.examples",
                            it.example
                        ),
                    })?;
            it.original_pair = global_pair(it.original_pair)
                .ok_or_else(|| bad_pair(format!("$.items[{k}].original_pair"), it.original_pair))?;
            it.perturbed_pair = global_pair(it.perturbed_pair).ok_or_else(|| {
                bad_pair(format!("$.items[{k}].perturbed_pair"), it.perturbed_pair)
            })?;
            it.hypothesis_only_pair = match it.hypothesis_only_pair {
                Some(p) => Some(
                    global_pair(p)
                        .ok_or_else(|| bad_pair(format!("$.items[{k}].hypothesis_only_pair"), p))?,
                ),
                None => None,
            };
            shard_items.push(it);
        }
        if run.hypothesis_only_pairs.len() == shard_examples.len() {
            let mut global = Vec::with_capacity(run.hypothesis_only_pairs.len());
            for (k, &p) in run.hypothesis_only_pairs.iter().enumerate() {
                global.push(
                    global_pair(p)
                        .ok_or_else(|| bad_pair(format!("$.hypothesis_only_pairs[{k}]"), p))?,
                );
            }
            place(
                &file,
                "examples",
                &mut hypothesis_only,
                &pos.examples,
                global,
            )?;
        }
        place(
            &file,
            "examples",
            &mut examples,
            &pos.examples,
            shard_examples,
        )?;
        place(&file, "items", &mut items, &pos.items, shard_items)?;
        place(&file, "pairs", &mut pairs, &pos.pairs, run.pairs)?;
    }
    let whole = |what: &str, n: usize| MergeError::Inconsistent {
        file: "the shards".into(),
        what: format!("{what} {n} of the whole run is in no shard"),
    };
    let examples = collect(examples).map_err(|n| whole("example", n))?;
    let items = collect(items).map_err(|n| whole("item", n))?;
    let pairs = collect(pairs).map_err(|n| whole("pair", n))?;
    // Hypothesis-only pairs are all there or the run has none (as `finish` writes them).
    let hypothesis_only_pairs = collect(hypothesis_only).unwrap_or_default();
    Ok(RunResult {
        format: template.format,
        version: template.version,
        model: template.model,
        settings: template.settings,
        rules: template.rules,
        label_set: template.label_set,
        examples,
        items,
        pairs,
        hypothesis_only_pairs,
        hypothesis_only_model: template.hypothesis_only_model,
        skipped: template.skipped,
        unapplied_reviews: template.unapplied_reviews,
        cancelled_at: None,
        shard: None,
    })
}

/// All slots filled, or the position of the first empty one.
fn collect<T>(slots: Vec<Option<T>>) -> Result<Vec<T>, usize> {
    slots
        .into_iter()
        .enumerate()
        .map(|(k, s)| s.ok_or(k))
        .collect()
}
