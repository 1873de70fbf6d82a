//! Two runs of one probe set lined up by example id (`run::align::align_by_id`,
//! `RunResult::examples_in`): a cancelled second run holds fewer examples, and a position in
//! the main run must never be read as a position in it.

mod common;

use std::cell::Cell;

use common::*;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::run::align::align_by_id;
use tabprobe_core::run::ProbeRun;
use tabprobe_core::scoring::PairScorer;

#[test]
fn five_items_against_three_out_of_order() {
    // Worked by hand: the second run holds e4, e1, e2 (in that order); e3 and e5 were never
    // scored by it.
    let main = ["e1", "e2", "e3", "e4", "e5"];
    let second = ["e4", "e1", "e2"];
    assert_eq!(
        align_by_id(main, second),
        [Some(1), Some(2), None, Some(0), None]
    );
    // Nothing in common, or an empty second run: every example is "not run".
    assert_eq!(align_by_id(main, []), [None; 5]);
    // Repeated ids pair in order of appearance, each position used once.
    assert_eq!(
        align_by_id(["a", "a", "a"], ["a", "b", "a"]),
        [Some(0), Some(2), None]
    );
}

#[test]
fn a_cancelled_second_run_lines_up_by_id() {
    let settings = ProbeSettings::new(vec![ProbeKind::RowDeletion], 1);
    let set = build_probe_set(&running_example(), &settings, &RuleSet::default()).unwrap();
    let mut fake = EvidenceFake::new();
    let mut full = ProbeRun::new(set.clone(), 8);
    full.run(&mut fake, |_| {}, || false).unwrap();
    let full = full.finish(fake.model_id()).unwrap();
    // The second model is cancelled after one batch of 2 pairs: the first 2 originals.
    let mut partial = ProbeRun::new(set, 2);
    let batches = Cell::new(0);
    let _ = partial.run(
        &mut fake,
        |_| batches.set(batches.get() + 1),
        || batches.get() >= 1,
    );
    let partial = partial.finish_partial(fake.model_id());
    assert_eq!(partial.examples.len(), 2);
    let aligned = full.examples_in(&partial);
    assert_eq!(aligned.len(), full.examples.len());
    assert_eq!(&aligned[..2], [Some(0), Some(1)]);
    assert!(aligned[2..].iter().all(Option::is_none), "{aligned:?}");
    // Every position handed out is valid in the shorter run.
    for q in aligned.into_iter().flatten() {
        assert!(q < partial.examples.len());
    }
}
