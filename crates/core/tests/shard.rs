//! Shards of a probe run (issue 14): the hash that assigns examples, hand-worked; every
//! example in exactly one shard; shards merged in any order give the unsharded run file byte
//! for byte (n = 1, 3, 7, with hypothesis-only pairs and a per-run cap); merge refuses shards
//! of another run (naming the field), partial shards, and missing or repeated shards.

mod common;

use common::*;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSet, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::shard::{
    fnv1a64, merge_shards, restrict, shard_of, MergeError, ProbeSetDigest, ShardSpec, ShardStamp,
    ShardTotals,
};
use tabprobe_core::run::{ProbeRun, RunResult};
use tabprobe_core::scoring::PairScorer;
use tabprobe_core::Dataset;

#[test]
fn examples_are_assigned_by_fnv1a64_of_their_id() {
    // FNV-1a 64 of "H1": offset 0xcbf29ce484222325, xor 'H' (0x48), × 0x100000001b3, xor '1'
    // (0x31), × 0x100000001b3 (mod 2^64) = 0x09270707b5bb0032 = 659503600128163890.
    assert_eq!(fnv1a64(b"H1"), 0x0927_0707_b5bb_0032);
    assert_eq!(fnv1a64(b"H1"), 659_503_600_128_163_890);
    // 659503600128163890 = 3 × 219834533376054630 + 0 → shard 1 of 3;
    // = 7 × 94214800018309127 + 1 → shard 2 of 7.
    assert_eq!(shard_of("H1", 3), 1);
    assert_eq!(shard_of("H1", 7), 2);
    // "H2" = 0x09270607b5bafe7f = 659502500616535679: mod 3 = 2, mod 7 = 5.
    assert_eq!(shard_of("H2", 3), 3);
    assert_eq!(shard_of("H2", 7), 6);
    assert_eq!(shard_of("anything", 1), 1);
}

/// The running example and copies of it under other ids, so 7 shards are not all empty.
fn dataset() -> Dataset {
    let mut d = running_example();
    let originals = d.examples.clone();
    for n in 1..=4 {
        for e in &originals {
            let mut e = e.clone();
            e.id = e.id.map(|id| format!("{id}-copy{n}"));
            d.examples.push(e);
        }
    }
    d
}

fn settings() -> ProbeSettings {
    let mut s = ProbeSettings::new(ProbeKind::TABLE.to_vec(), 7);
    s.hypothesis_only = true;
    s.caps.per_run = Some(40);
    s
}

fn probe_set() -> ProbeSet {
    build_probe_set(&dataset(), &settings(), &RuleSet::default()).expect("probe set")
}

fn score(set: ProbeSet, batch: usize) -> RunResult {
    let mut run = ProbeRun::new(set, batch);
    run.run(&mut HashFake, |_| {}, || false).expect("run");
    run.finish(HashFake.model_id()).expect("finish")
}

fn digest() -> ProbeSetDigest {
    ProbeSetDigest::new(
        &dataset(),
        &settings(),
        &RuleSet::default(),
        &HashFake.model_id(),
    )
    .expect("digest")
}

/// Shard `index` of `count`, scored and stamped as `tabprobe probe --shard` writes it.
fn shard(set: &ProbeSet, index: usize, count: usize) -> RunResult {
    let (part, positions) = restrict(set, ShardSpec::new(index, count).expect("spec"));
    let mut run = score(part, 3);
    run.shard = Some(ShardStamp {
        index,
        count,
        tool: "tabprobe test".into(),
        backend: "hash".into(),
        probe_set: digest(),
        totals: ShardTotals {
            examples: set.examples.len(),
            items: set.items.len(),
            pairs: set.pairs.len(),
        },
        positions,
    });
    run
}

fn shards(count: usize) -> Vec<(String, RunResult)> {
    let set = probe_set();
    (1..=count)
        .map(|i| (format!("shard-{i}.json"), shard(&set, i, count)))
        .collect()
}

#[test]
fn every_example_is_in_exactly_one_shard() {
    let set = probe_set();
    for count in [1, 3, 7] {
        let mut seen: Vec<String> = (1..=count)
            .flat_map(|i| restrict(&set, ShardSpec::new(i, count).unwrap()).0.examples)
            .map(|e| e.id)
            .collect();
        seen.sort();
        let mut all: Vec<String> = set.examples.iter().map(|e| e.id.clone()).collect();
        all.sort();
        assert_eq!(seen, all, "{count} shards");
    }
}

#[test]
fn merged_shards_are_the_unsharded_run_byte_for_byte() {
    let single = serde_json::to_string(&score(probe_set(), 7)).expect("json");
    assert!(single.contains("\"hypothesis_only_pairs\""));
    for count in [1, 3, 7] {
        let mut parts = shards(count);
        // Order of the files on the command line does not matter.
        parts.reverse();
        let merged = merge_shards(parts).expect("merge");
        let merged = serde_json::to_string(&merged).expect("json");
        assert!(merged == single, "{count} shards: merged run differs");
    }
}

#[test]
fn an_empty_shard_is_still_a_valid_run_file() {
    // 20 ids over 7 shards: the fixture's ids leave at least one shard with few examples;
    // every shard file must pass the run file's own index checks.
    for (name, run) in shards(7) {
        run.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = serde_json::to_string(&run).expect("json");
        tabprobe_core::run::parse_run(&name, &text).expect("parses back");
    }
}

#[test]
fn shards_of_another_run_are_refused_naming_the_field() {
    let mut parts = shards(3);
    if let Some(s) = parts[1].1.shard.as_mut() {
        s.probe_set.seed = 8;
    }
    let e = merge_shards(parts).unwrap_err().to_string();
    assert!(
        e.contains("shard-1.json and shard-2.json") && e.contains("$.shard.probe_set.seed"),
        "{e}"
    );

    let mut parts = shards(3);
    parts[2].1.model.weights_sha256 = "4".repeat(64);
    if let Some(s) = parts[2].1.shard.as_mut() {
        s.probe_set.model = "4".repeat(64);
    }
    let e = merge_shards(parts).unwrap_err().to_string();
    assert!(e.contains("$.shard.probe_set.model"), "{e}");

    let mut parts = shards(3);
    parts[2].1.model.name = "other".into();
    let e = merge_shards(parts).unwrap_err().to_string();
    assert!(e.contains("$.model.name"), "{e}");

    let mut parts = shards(3);
    if let Some(s) = parts[1].1.shard.as_mut() {
        s.backend = "wgpu".into();
    }
    let e = merge_shards(parts).unwrap_err().to_string();
    assert!(e.contains("$.shard.backend"), "{e}");

    let mut parts = shards(3);
    if let Some(s) = parts[1].1.shard.as_mut() {
        s.count = 4;
    }
    let e = merge_shards(parts).unwrap_err().to_string();
    assert!(e.contains("$.shard.count") && e.contains("(3 vs 4)"), "{e}");
}

#[test]
fn missing_repeated_partial_and_unstamped_shards_are_reported() {
    let mut parts = shards(7);
    parts.remove(4);
    parts.remove(1);
    let e = merge_shards(parts).unwrap_err();
    assert_eq!(
        e.to_string(),
        "missing shard(s) 2, 5 of 7: got 1, 3, 4, 6, 7"
    );

    let mut parts = shards(3);
    let again = parts[1].clone();
    parts.push(("copy.json".into(), again.1));
    let e = merge_shards(parts).unwrap_err();
    assert!(matches!(e, MergeError::Duplicate { index: 2, .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "shard 2/3 given twice: shard-2.json and copy.json"
    );

    let set = probe_set();
    let (part, _) = restrict(&set, ShardSpec::new(1, 3).unwrap());
    let mut run = ProbeRun::new(part, 2);
    let batch = run.next_batch().expect("a batch");
    run.submit(HashFake.score(&batch).expect("scores"))
        .expect("submit");
    let mut partial = run.partial_result(HashFake.model_id());
    partial.shard = shards(3)[0].1.shard.clone();
    let mut parts = shards(3);
    parts[0].1 = partial;
    let e = merge_shards(parts).unwrap_err().to_string();
    assert!(
        e.contains("shard-1.json: shard 1/3 is incomplete (2 of "),
        "{e}"
    );
    assert!(e.contains("--resume"), "{e}");

    let mut parts = shards(3);
    parts[0].1.shard = None;
    let e = merge_shards(parts).unwrap_err().to_string();
    assert!(e.starts_with("shard-1.json: not a shard"), "{e}");
    assert_eq!(merge_shards(Vec::new()).unwrap_err(), MergeError::Empty);
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let whole = score(probe_set(), 3);
    let mut first = ProbeRun::new(probe_set(), 3);
    for _ in 0..4 {
        let batch = first.next_batch().expect("a batch");
        first.submit(HashFake.score(&batch).unwrap()).unwrap();
    }
    let partial = first.partial_result(HashFake.model_id());
    assert_eq!(partial.pairs.len(), 12);
    let mut resumed = ProbeRun::new(probe_set(), 3);
    let p = resumed
        .resume_with(partial.pairs.into_iter().map(|p| p.score).collect())
        .unwrap();
    assert_eq!(p.done, 12);
    resumed.run(&mut HashFake, |_| {}, || false).unwrap();
    let resumed = resumed.finish(HashFake.model_id()).unwrap();
    assert_eq!(
        serde_json::to_string(&resumed).unwrap(),
        serde_json::to_string(&whole).unwrap()
    );
}
