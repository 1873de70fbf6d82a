//! A measurement, not a check (run with `--ignored --nocapture`): how many items and forward
//! passes the table probes make on the real INFOTABS dev split, and how long building takes.

use std::path::PathBuf;
use std::time::Instant;

use tabprobe_core::data::dataset::Dataset;
use tabprobe_core::data::import::infotabs::{parse_split_tsv, parse_table};
use tabprobe_core::data::table::Table;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;

#[test]
#[ignore]
fn measure_infotabs_dev_probe_set() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/infotabs/data");
    if !data.is_dir() {
        eprintln!("SKIP: INFOTABS data not found");
        return;
    }
    let tsv = std::fs::read_to_string(data.join("maindata/infotabs_dev.tsv")).unwrap();
    let examples = parse_split_tsv("infotabs_dev.tsv", "dev", &tsv).unwrap();
    let mut d = Dataset::new("dev");
    let mut ids: Vec<String> = examples.iter().filter_map(|e| e.table.clone()).collect();
    ids.sort();
    ids.dedup();
    for id in &ids {
        let text = std::fs::read_to_string(data.join(format!("tables/json/{id}.json"))).unwrap();
        d.tables
            .push(Table::KeyValue(parse_table(id, id, &text).unwrap()));
    }
    d.examples = examples;
    for probes in [
        vec![ProbeKind::RowDeletion],
        vec![
            ProbeKind::RowInsertion,
            ProbeKind::RowValueUpdate,
            ProbeKind::RowPermutation,
            ProbeKind::DeleteThenInsert,
        ],
        ProbeKind::HYPOTHESIS.to_vec(),
        vec![ProbeKind::TitleSwap, ProbeKind::RowSwap],
    ] {
        let t = Instant::now();
        let set = build_probe_set(
            &d,
            &ProbeSettings::new(probes.clone(), 0),
            &RuleSet::default(),
        )
        .unwrap();
        let c = set.counts();
        eprintln!(
            "{probes:?}: {} examples, {} items {:?}, {} forward passes, built in {:?}",
            c.examples,
            c.items,
            c.per_probe,
            c.forward_passes,
            t.elapsed()
        );
    }
}
