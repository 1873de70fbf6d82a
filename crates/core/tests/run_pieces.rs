//! Issue 15 §2: a run travels between the worker, the page and the browser's storage in
//! pieces. The pieces of a run (and of several runs one after the other) assemble back to the
//! same run, byte for byte as a run file; a piece out of place, of another format, or a run
//! whose indices dangle is refused with the piece and place named.

mod common;

use common::*;
use tabprobe_core::run::pieces::{run_pieces, runs_pieces, RunAssembler, ENTRIES_PER_PIECE};
use tabprobe_core::run::RunResult;

fn run() -> RunResult {
    hash_run(&every_probe_settings())
}

/// The fixture's run with its items repeated until there are more than two pieces of them
/// (repeated items keep valid indices).
fn big_run() -> RunResult {
    let mut r = run();
    let items = r.items.clone();
    while r.items.len() <= 2 * ENTRIES_PER_PIECE {
        r.items.extend(items.iter().cloned());
    }
    r
}

fn assemble(name: &str, pieces: &[Vec<u8>]) -> Result<Vec<RunResult>, String> {
    let mut a = RunAssembler::new(name);
    for p in pieces {
        a.push(p).map_err(|e| e.to_string())?;
    }
    a.finish().map_err(|e| e.to_string())
}

fn json(r: &RunResult) -> String {
    serde_json::to_string(r).expect("run JSON")
}

#[test]
fn pieces_assemble_to_the_same_run_file() {
    let r = big_run();
    let pieces: Vec<Vec<u8>> = run_pieces(&r).collect();
    // A head, then examples, items and pairs in pieces of at most ENTRIES_PER_PIECE.
    let per = |n: usize| n.div_ceil(ENTRIES_PER_PIECE);
    assert_eq!(
        pieces.len(),
        1 + per(r.examples.len()) + per(r.items.len()) + per(r.pairs.len())
    );
    assert!(per(r.items.len()) >= 3, "{} items", r.items.len());
    assert!(pieces[0].starts_with(b"{\"Head\":"));
    // No piece holds more than its share: the head carries no entries.
    let head: serde_json::Value = serde_json::from_slice(&pieces[0]).expect("head JSON");
    assert_eq!(head["Head"]["items"], serde_json::json!([]));
    assert_eq!(head["Head"]["pairs"], serde_json::json!([]));
    let back = assemble("test", &pieces).expect("assembles");
    assert_eq!(back.len(), 1);
    assert_eq!(back[0], r);
    assert_eq!(json(&back[0]), json(&r));
}

#[test]
fn several_runs_follow_one_another() {
    let a = run();
    let mut b = big_run();
    b.model.name = "second".into();
    let runs = vec![a.clone(), b.clone()];
    let pieces: Vec<Vec<u8>> = runs_pieces(&runs).collect();
    let back = assemble("saved run x", &pieces).expect("assembles");
    assert_eq!(back, runs);
    let mut one = RunAssembler::new("worker run");
    for p in &pieces {
        one.push(p).expect("piece");
    }
    let e = one.finish_one().unwrap_err();
    assert_eq!(e.to_string(), "worker run: holds 2 runs; expected one");
    assert!(matches!(
        e,
        tabprobe_core::run::RunFileError::NotOne { runs: 2, .. }
    ));
}

#[test]
fn bad_pieces_are_refused_with_piece_and_place() {
    let r = run();
    let pieces: Vec<Vec<u8>> = run_pieces(&r).collect();
    // Entries before any head.
    let err = assemble("saved run x", &pieces[1..]).unwrap_err();
    assert!(
        err.starts_with("saved run x, piece 0: expected the head of a run first"),
        "{err}"
    );
    // Nothing at all.
    assert_eq!(
        assemble("saved run x", &[]).unwrap_err(),
        "saved run x: holds no run"
    );
    // Another version of the run format.
    let mut newer = r.clone();
    newer.version += 1;
    let newer: Vec<Vec<u8>> = run_pieces(&newer).collect();
    let err = assemble("saved run x", &newer).unwrap_err();
    assert!(
        err.starts_with("saved run x, piece 0: $.Head.version is 2; this build reads version 1"),
        "{err}"
    );
    // A piece that is not JSON, and one of the wrong shape: the piece, path, line and column.
    let mut broken = pieces.clone();
    broken[1] = b"{\"Items\": [1]}".to_vec();
    let err = assemble("saved run x", &broken).unwrap_err();
    assert!(
        err.starts_with("saved run x, piece 1: at Items[0] (line 1, column"),
        "{err}"
    );
    broken[1] = b"{\"Items\": [".to_vec();
    let err = assemble("saved run x", &broken).unwrap_err();
    assert!(err.starts_with("saved run x, piece 1: at "), "{err}");
    broken[1] = vec![0xff, 0xfe];
    let err = assemble("saved run x", &broken).unwrap_err();
    assert!(
        err.starts_with("saved run x, piece 1: not UTF-8 text"),
        "{err}"
    );
    // A dangling index is caught when the run is finished, like a run file.
    let mut dangling = r.clone();
    let n = dangling.pairs.len();
    dangling.items[3].perturbed_pair = n + 5;
    let dangling: Vec<Vec<u8>> = run_pieces(&dangling).collect();
    assert_eq!(
        assemble("saved run x", &dangling).unwrap_err(),
        format!(
            "saved run x, run 0: $.items[3].perturbed_pair is {}, but the file has only {n} pairs",
            n + 5
        )
    );
}

/// The page and the worker cut a stored Blob of pieces at the lengths stored beside it; lengths
/// that do not add up to the Blob (or overflow) are refused, naming the source.
#[test]
fn piece_ranges_cut_at_the_lengths_and_refuse_wrong_ones() {
    use tabprobe_core::run::pieces::piece_ranges;
    assert_eq!(
        piece_ranges("x", &[3, 0, 5], 8).unwrap(),
        vec![0..3, 3..3, 3..8]
    );
    assert_eq!(piece_ranges("x", &[], 0).unwrap(), vec![]);
    let short = piece_ranges("saved run r", &[3, 4], 8)
        .unwrap_err()
        .to_string();
    assert!(
        short.starts_with("saved run r: its pieces hold 8 bytes"),
        "{short}"
    );
    // Lengths that wrap around to the total are refused, not cut.
    assert!(piece_ranges("x", &[usize::MAX, 9], 8).is_err());
}
