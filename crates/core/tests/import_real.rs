//! The importers on the real published files in `../shared/data` (INFOTABS, the probing
//! paper's counterfactual pairs, TabPert), counts asserted against the sources. Each test
//! prints a `SKIP: …` line and passes when that folder is absent.

#[path = "common/import_files.rs"]
#[allow(dead_code)]
mod files;

use std::collections::BTreeMap;

use tabprobe_core::data::import::{import_files, Format, ImportOptions};

#[test]
fn infotabs_as_published() {
    let Some(data) = files::shared_data("infotabs_as_published") else {
        return;
    };
    let base = data.join("infotabs/data");
    let inputs = files::read(
        &base,
        &["tables/json", "maindata", "reasoning", "validation"],
    );
    let (d, r) = import_files(inputs, &ImportOptions::default()).unwrap();
    print!("{}", r.to_text());
    let totals: BTreeMap<&str, usize> = r
        .per_split
        .iter()
        .map(|(s, c)| (s.as_str(), c.iter().sum()))
        .collect();
    assert_eq!(
        totals,
        BTreeMap::from([
            ("alpha1", 1800),
            ("alpha2", 1800),
            ("alpha3", 1800),
            ("dev", 1800),
            ("train", 16538),
        ])
    );
    assert_eq!(r.per_split["train"], [5495, 5538, 5505]);
    for split in ["dev", "alpha1", "alpha2", "alpha3"] {
        assert_eq!(r.per_split[split], [600, 600, 600], "{split}");
    }
    assert_eq!(d.tables.len(), 2719);
    assert!(r.notes.contains(&"reasoning categories put on 160 examples (320 rows read, 160 of them match no example)".to_string()), "{:?}", r.notes);
    assert!(r.notes.contains(&"validation labels: 5859 of 7173 rows match an example; the validators' majority equals the gold label on 4807 of them".to_string()), "{:?}", r.notes);
    assert_eq!(d.examples.len(), 23738);
    assert!(
        r.unmatched_table_ids.is_empty(),
        "{:?}",
        r.unmatched_table_ids
    );
    assert_eq!(
        r.files
            .iter()
            .filter(|f| f.format == Format::InfotabsTable)
            .count(),
        2719
    );
}

#[test]
fn tabprobe_counterfactual_pairs_as_published() {
    let Some(data) = files::shared_data("tabprobe_counterfactual_pairs_as_published") else {
        return;
    };
    let base = data.join("tabprobe/data/counterfactuals/training");
    let inputs = files::read(
        &base,
        &[
            "cf_training_anonymized.tsv",
            "tables_json",
            "tables_mod_json",
        ],
    );
    let (d, r) = import_files(inputs, &ImportOptions::default()).unwrap();
    print!("{}", r.to_text());
    assert_eq!(d.examples.len(), 2 * 1109);
    assert_eq!(d.tables.len(), 1280);
    assert_eq!(r.per_split["counterfactual"], [1109, 0, 1109]);
    assert!(
        r.unmatched_table_ids.is_empty(),
        "{:?}",
        r.unmatched_table_ids
    );
}

#[test]
fn tabpert_as_published() {
    let Some(data) = files::shared_data("tabpert_as_published") else {
        return;
    };
    let base = data.join("tabpert/final_dataset");
    let inputs = files::read(
        &base,
        &[
            "hypotheses/counterfactual_hypotheses.tsv",
            "final_without_originals/tables",
        ],
    );
    let (d, r) = import_files(inputs, &ImportOptions::default()).unwrap();
    print!("{}", r.to_text());
    assert_eq!(d.tables.len(), 186);
    assert!(
        r.unmatched_table_ids.is_empty(),
        "{:?}",
        r.unmatched_table_ids
    );
    let with_rows = d
        .examples
        .iter()
        .filter(|e| e.relevant_rows.is_some())
        .count();
    // 1,008 rows, 4 with an empty label cell; 835 name relevant rows, of which 2 name a key
    // the table lacks and 3 are cut off (`['President'`).
    assert_eq!(d.examples.len(), 1004);
    assert_eq!(r.per_split["tabpert"], [341, 321, 342]);
    assert_eq!(with_rows, 830);
    assert_eq!(r.skipped_total(), 4 + 2 + 3);
}
