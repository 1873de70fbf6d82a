//! One shard's part of a probe set, and the stamp its run file carries so [`super::merge`]
//! can check the shards belong together and put every entry back where the whole run has it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::assign::{fnv1a64, ShardSpec};
use crate::probe::rules::RuleSet;
use crate::probe::{ProbeSet, ProbeSettings};
use crate::scoring::ModelId;
use crate::Dataset;

/// What a probe set is made of, digested so shards of different runs are told apart. Each
/// part is `fnv1a64` (see [`super::assign`]) of the part's compact JSON (serde_json, fields in
/// declaration order), as 16 lower-case hex digits; `seed` and `model` are kept as they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeSetDigest {
    /// `fnv1a64` of the lines `dataset`, `settings`, `rules`, `seed`, `model` below, each
    /// followed by `\n`.
    pub digest: String,
    /// The parsed dataset (so re-indenting the file does not matter).
    pub dataset: String,
    /// The probe settings (probes, caps, linearization, seed, …).
    pub settings: String,
    /// The validity rules.
    pub rules: String,
    /// The seed every random choice derives from (also inside `settings`).
    pub seed: u64,
    /// SHA-256 of the model's weight file.
    pub model: String,
}

fn hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

impl ProbeSetDigest {
    /// The digest of a probe set built from `dataset` with `settings` and `rules`, scored by
    /// `model`.
    pub fn new(
        dataset: &Dataset,
        settings: &ProbeSettings,
        rules: &RuleSet,
        model: &ModelId,
    ) -> Result<ProbeSetDigest, serde_json::Error> {
        let dataset = hex(serde_json::to_string(dataset)?.as_bytes());
        let settings_hex = hex(serde_json::to_string(settings)?.as_bytes());
        let rules = hex(serde_json::to_string(rules)?.as_bytes());
        let seed = settings.seed;
        let model = model.weights_sha256.clone();
        let all = format!("{dataset}\n{settings_hex}\n{rules}\n{seed}\n{model}\n");
        Ok(ProbeSetDigest {
            digest: hex(all.as_bytes()),
            dataset,
            settings: settings_hex,
            rules,
            seed,
            model,
        })
    }

    /// The first part that differs from `other`, as `shard.probe_set.<part>`.
    pub fn first_difference(&self, other: &ProbeSetDigest) -> Option<&'static str> {
        if self.dataset != other.dataset {
            Some("shard.probe_set.dataset")
        } else if self.seed != other.seed {
            Some("shard.probe_set.seed")
        } else if self.settings != other.settings {
            Some("shard.probe_set.settings")
        } else if self.rules != other.rules {
            Some("shard.probe_set.rules")
        } else if self.model != other.model {
            Some("shard.probe_set.model")
        } else if self.digest != other.digest {
            Some("shard.probe_set.digest")
        } else {
            None
        }
    }
}

/// Sizes of the whole (unsharded) run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardTotals {
    /// Original examples.
    pub examples: usize,
    /// Perturbed items.
    pub items: usize,
    /// Distinct pairs.
    pub pairs: usize,
}

/// Where each entry of a shard's run file sits in the whole run: `examples[k]` is the
/// position in the whole run of the shard's `k`-th example, likewise for items and pairs. They
/// describe the whole shard, also in a partial (cancelled) shard file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardPositions {
    /// Positions of the shard's examples.
    pub examples: Vec<usize>,
    /// Positions of its items.
    pub items: Vec<usize>,
    /// Positions of its pairs.
    pub pairs: Vec<usize>,
}

/// The `shard` field of a shard's run file (absent from unsharded and merged runs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardStamp {
    /// 1-based shard number.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
    /// The program that wrote it, e.g. `tabprobe 0.1.0`.
    pub tool: String,
    /// Where the model ran (`flex`, `wgpu`): backends round differently, so shards of one run
    /// must share it.
    pub backend: String,
    /// What the whole run is made of.
    pub probe_set: ProbeSetDigest,
    /// Sizes of the whole run.
    pub totals: ShardTotals,
    /// Where this shard's entries go in the whole run.
    pub positions: ShardPositions,
}

/// The part of `set` that shard `spec` scores: the examples whose id hashes to it (see
/// [`super::assign`]), their items, and the pairs these use (each kept once, in the whole
/// set's order), every index renumbered into the part. Pairs no example or item uses (none in
/// a set [`crate::probe::build_probe_set`] builds) go to shard 1, so merging loses nothing.
/// `skipped` and `unapplied_reviews` describe the whole set and are kept whole. Returns the
/// part and where its entries sit in `set`.
pub fn restrict(set: &ProbeSet, spec: ShardSpec) -> (ProbeSet, ShardPositions) {
    let examples: Vec<usize> = (0..set.examples.len())
        .filter(|&e| spec.holds(&set.examples[e].id))
        .collect();
    let example_at: BTreeMap<usize, usize> =
        examples.iter().enumerate().map(|(k, &e)| (e, k)).collect();
    let items: Vec<usize> = (0..set.items.len())
        .filter(|&i| example_at.contains_key(&set.items[i].example))
        .collect();
    let has_hypothesis_only = set.hypothesis_only_pairs.len() == set.examples.len();
    let mut used = vec![false; set.pairs.len()];
    let mut mark = |p: usize| {
        if let Some(u) = used.get_mut(p) {
            *u = true;
        }
    };
    for &e in &examples {
        mark(set.examples[e].pair);
        if has_hypothesis_only {
            mark(set.hypothesis_only_pairs[e]);
        }
    }
    for &i in &items {
        let it = &set.items[i];
        mark(it.original_pair);
        mark(it.perturbed_pair);
        if let Some(p) = it.hypothesis_only_pair {
            mark(p);
        }
    }
    if spec.index == 1 {
        let mut referenced = vec![false; set.pairs.len()];
        let all = set.examples.iter().map(|e| e.pair);
        let all = all.chain(set.hypothesis_only_pairs.iter().copied());
        let all = all.chain(set.items.iter().flat_map(|it| {
            [it.original_pair, it.perturbed_pair]
                .into_iter()
                .chain(it.hypothesis_only_pair)
        }));
        for p in all {
            if let Some(r) = referenced.get_mut(p) {
                *r = true;
            }
        }
        for (p, r) in referenced.iter().enumerate() {
            if !r {
                used[p] = true;
            }
        }
    }
    let pairs: Vec<usize> = (0..set.pairs.len()).filter(|&p| used[p]).collect();
    let pair_at: BTreeMap<usize, usize> = pairs.iter().enumerate().map(|(k, &p)| (p, k)).collect();
    // Every index looked up here was marked above, so the lookups find it.
    let local = |p: usize| pair_at.get(&p).copied().unwrap_or(p);
    let part = ProbeSet {
        settings: set.settings.clone(),
        rules: set.rules.clone(),
        label_set: set.label_set,
        examples: examples
            .iter()
            .map(|&e| {
                let mut ex = set.examples[e].clone();
                ex.pair = local(ex.pair);
                ex
            })
            .collect(),
        items: items
            .iter()
            .map(|&i| {
                let mut it = set.items[i].clone();
                it.example = example_at.get(&it.example).copied().unwrap_or(it.example);
                it.original_pair = local(it.original_pair);
                it.perturbed_pair = local(it.perturbed_pair);
                it.hypothesis_only_pair = it.hypothesis_only_pair.map(local);
                it
            })
            .collect(),
        pairs: pairs.iter().map(|&p| set.pairs[p].clone()).collect(),
        hypothesis_only_pairs: if has_hypothesis_only {
            examples
                .iter()
                .map(|&e| local(set.hypothesis_only_pairs[e]))
                .collect()
        } else {
            Vec::new()
        },
        skipped: set.skipped.clone(),
        unapplied_reviews: set.unapplied_reviews.clone(),
    };
    (
        part,
        ShardPositions {
            examples,
            items,
            pairs,
        },
    )
}
