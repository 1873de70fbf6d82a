//! Property tests of the probes' invariants.

use proptest::prelude::*;
use tabprobe_core::data::table::{KeyValueRow, KeyValueTable, Table};
use tabprobe_core::probe::edit_table::KeyIndex;
use tabprobe_core::probe::permutation::derangement;
use tabprobe_core::probe::table_probes::{row_insertion, row_permutation, TableContext};
use tabprobe_core::probe::{Edit, Premise};
use tabprobe_core::rng::Rng;

fn table(id: &str, keys: &[String]) -> Table {
    Table::KeyValue(KeyValueTable {
        id: id.into(),
        title: id.into(),
        rows: keys
            .iter()
            .enumerate()
            .map(|(i, k)| KeyValueRow {
                key: k.clone(),
                values: vec![format!("v{i}")],
            })
            .collect(),
    })
}

fn rows(t: &Premise) -> Vec<KeyValueRow> {
    match t {
        Premise::Table(Table::KeyValue(t)) => t.rows.clone(),
        _ => panic!(),
    }
}

proptest! {
    #[test]
    fn a_derangement_moves_every_word(words in prop::collection::vec("[a-e]{1,2}", 2..12), seed in any::<u64>()) {
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let o = derangement(&w, &mut Rng::new(seed)).unwrap();
        let mut sorted = o.clone();
        sorted.sort();
        prop_assert_eq!(sorted, (0..w.len()).collect::<Vec<_>>());
        prop_assert!((0..w.len()).all(|i| o[i] != i));
    }

    #[test]
    fn insertion_never_duplicates_a_key(
        a in prop::collection::btree_set("[A-F]", 1..5),
        b in prop::collection::btree_set("[A-H]", 1..8),
        seed in any::<u64>(),
    ) {
        let a: Vec<String> = a.into_iter().collect();
        let b: Vec<String> = b.into_iter().collect();
        let ta = table("A", &a);
        let index = KeyIndex::new(&[ta.clone(), table("B", &b)]);
        let ctx = TableContext { table: &ta, hypothesis: "h", relevant_rows: None, index: &index };
        let items = row_insertion(&ctx, 3, &mut Rng::new(seed));
        let new_keys = b.iter().filter(|k| !a.contains(k)).count();
        prop_assert_eq!(items.len(), new_keys.min(3));
        for it in items {
            let r = rows(&it.perturbed.premise);
            let mut keys: Vec<&String> = r.iter().map(|r| &r.key).collect();
            keys.sort();
            keys.dedup();
            prop_assert_eq!(keys.len(), r.len());
            prop_assert_eq!(&r[..a.len()], &rows(&Premise::Table(ta.clone()))[..]);
        }
    }

    #[test]
    fn permutation_keeps_the_multiset_of_rows(n in 2usize..9, seed in any::<u64>()) {
        let keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        let t = table("T", &keys);
        let index = KeyIndex::default();
        let ctx = TableContext { table: &t, hypothesis: "h", relevant_rows: None, index: &index };
        let items = row_permutation(&ctx, 5, &mut Rng::new(seed));
        // n = 2 has one non-identity order, n = 3 five.
        let possible: usize = (1..=n).product::<usize>() - 1;
        prop_assert_eq!(items.len(), possible.min(5));
        for it in items {
            let mut r = rows(&it.perturbed.premise);
            let Edit::RowsPermuted { order } = &it.edit else { panic!() };
            prop_assert_ne!(order, &(0..n).collect::<Vec<_>>());
            r.sort_by(|x, y| x.key.cmp(&y.key));
            prop_assert_eq!(r, rows(&Premise::Table(t.clone())));
        }
    }
}
