//! Shards back into one run: the run file a single process would have written, byte for
//! byte, once serialised the same way. Shards of different runs, partial shards, and missing
//! or repeated shards are refused with the file and field at fault.

use std::collections::BTreeMap;

use crate::probe::{ProbeExample, ProbeItem};
use crate::run::{RunResult, ScoredPair};

use super::split::{ShardPositions, ShardStamp};

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

/// Shard files by their shard number: (file name, run, its stamp).
type ByIndex = BTreeMap<usize, (String, RunResult, ShardStamp)>;

/// Merges shard run files (`(file name, run)`, in any order) into the whole run: every shard
/// `1..=n` exactly once, all of one run (same tool, probe set, model, settings, rules), none
/// partial. The result has no `shard` stamp and equals the unsharded run.
pub fn merge_shards(shards: Vec<(String, RunResult)>) -> Result<RunResult, MergeError> {
    let (by_index, first) = index_shards(shards)?;
    let Some((_, first_run, stamp)) = first.and_then(|i| by_index.get(&i)) else {
        return Err(MergeError::Empty);
    };
    // Everything but the entries, which come from the shards below.
    let header = RunResult {
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
    let totals = stamp.totals;
    check_all_there(&by_index, stamp.count)?;
    let mut whole = Whole {
        examples: vec![None; totals.examples],
        items: vec![None; totals.items],
        pairs: vec![None; totals.pairs],
        hypothesis_only: vec![None; totals.examples],
    };
    for (file, run, stamp) in by_index.into_values() {
        whole.place_shard(&file, run, &stamp.positions)?;
    }
    whole.into_run(header)
}

/// The shard files by shard number, and the first file's number (every other file is
/// compared with it): each a complete shard of the same run, no number twice.
fn index_shards(shards: Vec<(String, RunResult)>) -> Result<(ByIndex, Option<usize>), MergeError> {
    let mut by_index = ByIndex::new();
    // The first file's shard number (no copy of it kept).
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
    Ok((by_index, first))
}

/// Every shard `1..=count` is there, and no other.
fn check_all_there(by_index: &ByIndex, count: usize) -> Result<(), MergeError> {
    if let Some((_, (file, _, _))) = by_index.iter().find(|(&i, _)| i == 0 || i > count) {
        return Err(MergeError::Inconsistent {
            file: file.to_string(),
            what: format!("$.shard.index is outside 1..={count}"),
        });
    }
    let missing: Vec<String> = (1..=count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| i.to_string())
        .collect();
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
    Ok(())
}

/// The whole run's entries as the shards fill them, by their positions in the whole run.
struct Whole {
    examples: Vec<Option<ProbeExample>>,
    items: Vec<Option<ProbeItem>>,
    pairs: Vec<Option<ScoredPair>>,
    hypothesis_only: Vec<Option<usize>>,
}

impl Whole {
    /// Puts `run`'s entries (a shard's, from `file`) where `pos` says they go in the whole
    /// run, their pair and example numbers turned into the whole run's.
    fn place_shard(
        &mut self,
        file: &str,
        run: RunResult,
        pos: &ShardPositions,
    ) -> Result<(), MergeError> {
        let global_pair = |path: String, p: usize| {
            pos.pairs
                .get(p)
                .copied()
                .ok_or_else(|| MergeError::Inconsistent {
                    file: file.to_string(),
                    what: format!("{path} is {p}, past $.shard.positions.pairs"),
                })
        };
        let mut examples = Vec::with_capacity(run.examples.len());
        for (k, mut ex) in run.examples.into_iter().enumerate() {
            ex.pair = global_pair(format!("$.examples[{k}].pair"), ex.pair)?;
            examples.push(ex);
        }
        let mut items = Vec::with_capacity(run.items.len());
        for (k, mut it) in run.items.into_iter().enumerate() {
            it.example =
                pos.examples
                    .get(it.example)
                    .copied()
                    .ok_or_else(|| MergeError::Inconsistent {
                        file: file.to_string(),
                        what: format!(
                            "$.items[{k}].example is {}, past $.shard.positions.examples",
                            it.example
                        ),
                    })?;
            it.original_pair =
                global_pair(format!("$.items[{k}].original_pair"), it.original_pair)?;
            it.perturbed_pair =
                global_pair(format!("$.items[{k}].perturbed_pair"), it.perturbed_pair)?;
            it.hypothesis_only_pair = match it.hypothesis_only_pair {
                Some(p) => Some(global_pair(
                    format!("$.items[{k}].hypothesis_only_pair"),
                    p,
                )?),
                None => None,
            };
            items.push(it);
        }
        if run.hypothesis_only_pairs.len() == examples.len() {
            let mut global = Vec::with_capacity(run.hypothesis_only_pairs.len());
            for (k, &p) in run.hypothesis_only_pairs.iter().enumerate() {
                global.push(global_pair(format!("$.hypothesis_only_pairs[{k}]"), p)?);
            }
            place(
                file,
                "examples",
                &mut self.hypothesis_only,
                &pos.examples,
                global,
            )?;
        }
        place(
            file,
            "examples",
            &mut self.examples,
            &pos.examples,
            examples,
        )?;
        place(file, "items", &mut self.items, &pos.items, items)?;
        place(file, "pairs", &mut self.pairs, &pos.pairs, run.pairs)
    }

    /// The whole run: `header` with every entry, or the first entry no shard gave.
    fn into_run(self, header: RunResult) -> Result<RunResult, MergeError> {
        let whole = |what: &str, n: usize| MergeError::Inconsistent {
            file: "the shards".into(),
            what: format!("{what} {n} of the whole run is in no shard"),
        };
        Ok(RunResult {
            examples: collect(self.examples).map_err(|n| whole("example", n))?,
            items: collect(self.items).map_err(|n| whole("item", n))?,
            pairs: collect(self.pairs).map_err(|n| whole("pair", n))?,
            // Hypothesis-only pairs are all there or the run has none (as `finish` writes
            // them).
            hypothesis_only_pairs: collect(self.hypothesis_only).unwrap_or_default(),
            ..header
        })
    }
}

/// All slots filled, or the position of the first empty one.
fn collect<T>(slots: Vec<Option<T>>) -> Result<Vec<T>, usize> {
    slots
        .into_iter()
        .enumerate()
        .map(|(k, s)| s.ok_or(k))
        .collect()
}
