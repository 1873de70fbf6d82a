//! Timings for the report of issue 12 §4 (ignored: speed is not asserted). Only APIs that
//! existed before the fix, so the same file times the old code:
//! `cargo test --release -p tabprobe-core --test share_measure -- --ignored --nocapture`.

use std::path::PathBuf;
use std::time::Instant;

use tabprobe_core::data::table::{KeyValueRow, KeyValueTable};
use tabprobe_core::edit::diff_tables;
use tabprobe_core::linearize::{linearize, Linearization};
use tabprobe_core::share::decode;
use tabprobe_core::Table;

fn table(n: usize, keys: usize) -> Table {
    Table::KeyValue(KeyValueTable {
        id: "T".into(),
        title: "Big".into(),
        rows: (0..n)
            .map(|i| KeyValueRow {
                key: format!("k{}", i % keys),
                values: vec!["v".into()],
            })
            .collect(),
    })
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

#[test]
#[ignore]
fn measure() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hostile");
    for name in ["share-330k-rows.link", "share-2x165k-rows.link"] {
        let link = std::fs::read_to_string(p.join(name)).unwrap();
        let t = Instant::now();
        let ok = decode(&link).is_ok();
        println!("decode {name}: {:.0} ms (accepted: {ok})", ms(t));
    }
    let n: usize = std::env::var("ROWS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(330_000);
    // Keys as in the hostile links (8 distinct) and all distinct.
    for keys in [8, n] {
        let (a, b) = (table(n, keys), table(n, keys));
        let t = Instant::now();
        let d = diff_tables(&a, &b);
        println!(
            "diff_tables {n} rows, {keys} keys: {:.0} ms ({} rows)",
            ms(t),
            d.rows.len()
        );
    }
    let a = table(n, n);
    for s in Linearization::ALL {
        let t = Instant::now();
        let len = linearize(&a, s).map(|x| x.len()).unwrap_or(0);
        println!(
            "linearize {n} rows {}: {:.0} ms ({len} bytes)",
            s.as_str(),
            ms(t)
        );
    }
}
