//! Two tabs, one kept dataset (docs/browser-storage.md#two-tabs): a three-way merge of the
//! working dataset. `base` is the version both tabs last agreed on (what this tab last read
//! from or wrote to the store), `mine` this tab's dataset, `theirs` what another tab wrote since.
//!
//! Tables, examples and reviews are merged entry by entry, by key (a table's id, an example's
//! id — or its whole text when it has none —, a review's item id): an entry only one side
//! changed takes that side's version (a deletion included); one both changed alike is taken
//! once. Items both tabs made independently that got the same fresh id (`H2~hand1` in each)
//! are both kept: this tab's is renamed to the next free id (`H2~hand2`, its table `T~edit2`).
//! What both changed differently is a [`MergeConflict`]: the merge takes `prefer`'s version
//! and names the entry, so the page can ask which one the user keeps.
//!
//! The result keeps `theirs`' order, with what only this tab added appended in its order
//! (hand-made items are appended when made, so the merged file reads as if one tab made them
//! all).

use std::collections::{HashMap, HashSet};

use crate::data::dataset::{Dataset, Example};
use crate::data::review::Review;
use crate::data::table::Table;

/// Whose version a conflicting entry takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// This tab's.
    Mine,
    /// The other tab's.
    Theirs,
}

/// An entry both tabs changed, differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeConflict {
    /// What it is, for people: `example H1`, `table T3`, `the review of H1/negation/0`,
    /// `the dataset's name`.
    pub what: String,
}

/// A merged dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The merge (conflicts resolved to the preferred side).
    pub dataset: Dataset,
    /// What both tabs changed differently.
    pub conflicts: Vec<MergeConflict>,
    /// This tab's new items renamed because the other tab took their id: (old, new), tables
    /// and examples.
    pub renamed: Vec<(String, String)>,
}

/// Merges `mine` and `theirs`, both changed from `base` (see the module docs).
pub fn merge_datasets(base: &Dataset, mine: &Dataset, theirs: &Dataset, prefer: Side) -> Merged {
    let mut conflicts = Vec::new();
    let (mine, renamed) = renamed_apart(base, mine, theirs);
    let mut scalar = |what: &str, b: &String, m: &String, t: &String| -> String {
        pick(Some(b), Some(m), Some(t), prefer, what, &mut conflicts)
            .cloned()
            .unwrap_or_default()
    };
    let name = scalar("the dataset's name", &base.name, &mine.name, &theirs.name);
    let description = scalar(
        "the dataset's description",
        &base.description,
        &mine.description,
        &theirs.description,
    );
    let label_set = *pick(
        Some(&base.label_set),
        Some(&mine.label_set),
        Some(&theirs.label_set),
        prefer,
        "the dataset's label set",
        &mut conflicts,
    )
    .unwrap_or(&theirs.label_set);
    let tables = merge_keyed(
        (&base.tables, &mine.tables, &theirs.tables),
        |t| t.id().to_string(),
        |k| format!("table {k}"),
        prefer,
        &mut conflicts,
    );
    let examples = merge_keyed(
        (&base.examples, &mine.examples, &theirs.examples),
        example_key,
        |k| format!("example {}", k.split('\u{0}').next().unwrap_or(k)),
        prefer,
        &mut conflicts,
    );
    let reviews = merge_keyed(
        (&base.reviews, &mine.reviews, &theirs.reviews),
        |r: &Review| r.item.clone(),
        |k| format!("the review of {k}"),
        prefer,
        &mut conflicts,
    );
    Merged {
        dataset: Dataset {
            format: theirs.format.clone(),
            version: theirs.version,
            name,
            description,
            label_set,
            tables,
            examples,
            reviews,
        },
        conflicts,
        renamed,
    }
}

/// An example's key: its id, or (no id) its whole JSON text — an id-less example has no
/// identity beyond its content, so changing it reads as removing one and adding another.
fn example_key(e: &Example) -> String {
    match &e.id {
        Some(id) => id.clone(),
        None => format!(
            "(no id)\u{0}{}",
            serde_json::to_string(e).unwrap_or_default()
        ),
    }
}

/// The three-way rule for one entry (`None`: absent); records a conflict under `what`.
fn pick<'a, T: PartialEq>(
    base: Option<&'a T>,
    mine: Option<&'a T>,
    theirs: Option<&'a T>,
    prefer: Side,
    what: &str,
    conflicts: &mut Vec<MergeConflict>,
) -> Option<&'a T> {
    if mine == base || mine == theirs {
        theirs
    } else if theirs == base {
        mine
    } else {
        conflicts.push(MergeConflict {
            what: what.to_string(),
        });
        match prefer {
            Side::Mine => mine,
            Side::Theirs => theirs,
        }
    }
}

/// Entries keyed by `key` (a repeated key is told apart by its occurrence), merged entry by
/// entry; `theirs`' order, then what only `mine` has, in its order.
fn merge_keyed<T: Clone + PartialEq>(
    (base, mine, theirs): (&[T], &[T], &[T]),
    key: impl Fn(&T) -> String,
    describe: impl Fn(&str) -> String,
    prefer: Side,
    conflicts: &mut Vec<MergeConflict>,
) -> Vec<T> {
    let keyed = |items: &[T]| -> Vec<(String, usize)> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        items
            .iter()
            .map(|item| {
                let k = key(item);
                let n = seen.entry(k.clone()).or_insert(0);
                *n += 1;
                (k, *n)
            })
            .collect()
    };
    let index = |items: &[T]| -> HashMap<(String, usize), usize> {
        keyed(items)
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, i))
            .collect()
    };
    let (b, m) = (index(base), index(mine));
    let mut out = Vec::with_capacity(theirs.len().max(mine.len()));
    let mut done: HashSet<(String, usize)> = HashSet::new();
    for (i, k) in keyed(theirs).into_iter().enumerate() {
        let chosen = pick(
            b.get(&k).map(|&j| &base[j]),
            m.get(&k).map(|&j| &mine[j]),
            Some(&theirs[i]),
            prefer,
            &describe(&k.0),
            conflicts,
        );
        out.extend(chosen.cloned());
        done.insert(k);
    }
    for (i, k) in keyed(mine).into_iter().enumerate() {
        if done.contains(&k) {
            continue;
        }
        // Not in theirs: added here, or deleted there.
        let chosen = pick(
            b.get(&k).map(|&j| &base[j]),
            Some(&mine[i]),
            None,
            prefer,
            &describe(&k.0),
            conflicts,
        );
        out.extend(chosen.cloned());
    }
    out
}

/// `mine` with its new tables and examples renamed where `theirs` made a different one under
/// the same id (the two tabs' fresh ids collide: both made `H2~hand1`), and the renames.
fn renamed_apart(
    base: &Dataset,
    mine: &Dataset,
    theirs: &Dataset,
) -> (Dataset, Vec<(String, String)>) {
    let mut mine = mine.clone();
    let mut renamed = Vec::new();
    let base_tables: HashSet<&str> = base.tables.iter().map(Table::id).collect();
    let mut taken: HashSet<String> = theirs
        .tables
        .iter()
        .chain(&mine.tables)
        .map(|t| t.id().to_string())
        .collect();
    let theirs_tables: HashMap<&str, &Table> = theirs.tables.iter().map(|t| (t.id(), t)).collect();
    let mut table_moves: HashMap<String, String> = HashMap::new();
    for table in &mut mine.tables {
        let id = table.id().to_string();
        let clash = !base_tables.contains(id.as_str())
            && theirs_tables
                .get(id.as_str())
                .is_some_and(|t| *t != &*table);
        if clash {
            let new = next_free(&id, "edit", &taken);
            taken.insert(new.clone());
            match table {
                Table::KeyValue(t) => t.id = new.clone(),
                Table::Relational(t) => t.id = new.clone(),
            }
            table_moves.insert(id.clone(), new.clone());
            renamed.push((id, new));
        }
    }
    let base_examples: HashSet<&str> = base
        .examples
        .iter()
        .filter_map(|e| e.id.as_deref())
        .collect();
    let theirs_examples: HashMap<&str, &Example> = theirs
        .examples
        .iter()
        .filter_map(|e| e.id.as_deref().map(|id| (id, e)))
        .collect();
    let mut taken: HashSet<String> = theirs
        .examples
        .iter()
        .chain(&mine.examples)
        .filter_map(|e| e.id.clone())
        .collect();
    for example in &mut mine.examples {
        let added = example
            .id
            .as_deref()
            .is_some_and(|id| !base_examples.contains(id));
        if let Some(new) = example.table.as_ref().and_then(|t| table_moves.get(t)) {
            if added {
                example.table = Some(new.clone());
            }
        }
        let Some(id) = example.id.clone() else {
            continue;
        };
        let clash = added
            && theirs_examples
                .get(id.as_str())
                .is_some_and(|t| *t != &*example);
        if clash {
            let new = next_free(&id, "hand", &taken);
            taken.insert(new.clone());
            example.id = Some(new.clone());
            renamed.push((id, new));
        }
    }
    (mine, renamed)
}

/// `<base>~<tag><k>` with the smallest `k ≥ 1` not in `taken` (the rule hand-made items are
/// named by: `H2~hand1` → `H2~hand2`).
fn next_free(id: &str, tag: &str, taken: &HashSet<String>) -> String {
    let base = id.split('~').next().unwrap_or(id);
    (1..)
        .map(|k| format!("{base}~{tag}{k}"))
        .find(|c| !taken.contains(c))
        .unwrap_or_else(|| format!("{id}~{tag}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::label::Label;
    use crate::edit::annotate::annotate_relevant_rows;
    use crate::edit::hand_made::{add_hand_made, HandMadeItem, HandMadeOperation};

    fn demo() -> Dataset {
        crate::data::validate::parse_dataset(
            "demo",
            r#"{"format":"tabprobe-dataset","version":1,"name":"demo",
               "tables":[{"kind":"key_value","id":"T1","title":"Bridesmaids","rows":[{"key":"Running time","values":["125 minutes"]},{"key":"Budget","values":["$32.5 million"]}]}],
               "examples":[{"id":"H1","table":"T1","hypothesis":"Bridesmaids runs over two hours.","label":"ENTAIL","split":"dev"},
                           {"id":"H2","table":"T1","hypothesis":"Bridesmaids cost little.","label":"CONTRADICT","split":"dev"}]}"#,
        )
        .expect("the test dataset reads")
    }

    fn hand_item(d: &Dataset, from: &str, value: &str) -> HandMadeItem {
        let mut table = d.tables[0].clone();
        if let Table::KeyValue(t) = &mut table {
            t.rows[0].values = vec![value.to_string()];
        }
        HandMadeItem {
            table: Some(table),
            premise: None,
            hypothesis: format!("edited to {value}"),
            label: Label::Contradict,
            derived_from: Some(from.to_string()),
            relevant_rows: None,
            operation: HandMadeOperation::EditTable,
        }
    }

    fn ids(d: &Dataset) -> Vec<&str> {
        d.examples.iter().filter_map(|e| e.id.as_deref()).collect()
    }

    #[test]
    fn items_saved_in_two_tabs_are_both_kept() {
        // The issue's case: tab A saves an item of H1, tab B one of H2, from the same base.
        let base = demo();
        let mut a = base.clone();
        add_hand_made(&mut a, hand_item(&base, "H1", "76 minutes")).expect("A's item");
        let mut b = base.clone();
        add_hand_made(&mut b, hand_item(&base, "H2", "$1 million")).expect("B's item");
        // A wrote first; B merges onto it.
        let m = merge_datasets(&base, &b, &a, Side::Theirs);
        assert_eq!(m.conflicts, vec![]);
        assert_eq!(ids(&m.dataset), ["H1", "H2", "H1~hand1", "H2~hand1"]);
        let tables: Vec<&str> = m.dataset.tables.iter().map(Table::id).collect();
        // Both edits of T1 got `T1~edit1` in their own tab: B's is renamed.
        assert_eq!(tables, ["T1", "T1~edit1", "T1~edit2"]);
        assert_eq!(m.dataset.examples[3].table.as_deref(), Some("T1~edit2"));
        assert_eq!(
            m.renamed,
            vec![("T1~edit1".to_string(), "T1~edit2".to_string())]
        );
        crate::data::validate::check_reloads("merged", &m.dataset).expect("the merge reloads");
    }

    #[test]
    fn two_items_of_one_example_get_two_ids() {
        let base = demo();
        let mut a = base.clone();
        add_hand_made(&mut a, hand_item(&base, "H1", "76 minutes")).expect("A's item");
        let mut b = base.clone();
        add_hand_made(&mut b, hand_item(&base, "H1", "300 minutes")).expect("B's item");
        let m = merge_datasets(&base, &b, &a, Side::Theirs);
        assert_eq!(m.conflicts, vec![]);
        assert_eq!(ids(&m.dataset), ["H1", "H2", "H1~hand1", "H1~hand2"]);
        assert_eq!(m.dataset.examples[2].hypothesis, "edited to 76 minutes");
        assert_eq!(m.dataset.examples[3].hypothesis, "edited to 300 minutes");
        assert_eq!(m.dataset.examples[3].table.as_deref(), Some("T1~edit2"));
        assert_eq!(
            m.renamed,
            vec![
                ("T1~edit1".to_string(), "T1~edit2".to_string()),
                ("H1~hand1".to_string(), "H1~hand2".to_string())
            ]
        );
    }

    #[test]
    fn annotations_of_different_examples_merge_and_of_one_example_conflict() {
        let base = demo();
        let mut a = base.clone();
        annotate_relevant_rows(&mut a, "H1", &[0]).expect("A annotates H1");
        let mut b = base.clone();
        annotate_relevant_rows(&mut b, "H2", &[1]).expect("B annotates H2");
        let m = merge_datasets(&base, &b, &a, Side::Theirs);
        assert_eq!(m.conflicts, vec![]);
        assert_eq!(m.dataset.examples[0].relevant_rows, Some(vec![0]));
        assert_eq!(m.dataset.examples[1].relevant_rows, Some(vec![1]));

        // Both mark H1's evidence, differently: a conflict, resolved as asked.
        let mut c = base.clone();
        annotate_relevant_rows(&mut c, "H1", &[1]).expect("C annotates H1");
        let theirs_wins = merge_datasets(&base, &c, &a, Side::Theirs);
        assert_eq!(
            theirs_wins.conflicts,
            vec![MergeConflict {
                what: "example H1".into()
            }]
        );
        assert_eq!(theirs_wins.dataset.examples[0].relevant_rows, Some(vec![0]));
        let mine_wins = merge_datasets(&base, &c, &a, Side::Mine);
        assert_eq!(mine_wins.dataset.examples[0].relevant_rows, Some(vec![1]));
        // The same mark in both tabs is no conflict.
        let same = merge_datasets(&base, &a, &a.clone(), Side::Theirs);
        assert_eq!(same.conflicts, vec![]);
        assert_eq!(same.dataset, a);
    }

    #[test]
    fn a_deletion_on_one_side_is_kept_unless_the_other_changed_the_entry() {
        let base = demo();
        let mut a = base.clone();
        a.examples.remove(1);
        // B changed nothing: H2 stays deleted.
        let m = merge_datasets(&base, &base, &a, Side::Theirs);
        assert_eq!(ids(&m.dataset), ["H1"]);
        // B deleted it, A did not touch it: deleted too (mine's deletion, theirs unchanged).
        let m = merge_datasets(&base, &a, &base, Side::Theirs);
        assert_eq!(ids(&m.dataset), ["H1"]);
        // B changed H2 while A deleted it: a conflict.
        let mut b = base.clone();
        b.examples[1].label = Label::Neutral;
        let m = merge_datasets(&base, &b, &a, Side::Mine);
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(m.dataset.examples[1].label, Label::Neutral);
        let m = merge_datasets(&base, &b, &a, Side::Theirs);
        assert_eq!(ids(&m.dataset), ["H1"]);
    }

    #[test]
    fn nothing_changed_on_one_side_gives_the_other() {
        let base = demo();
        let mut a = base.clone();
        add_hand_made(&mut a, hand_item(&base, "H1", "76 minutes")).expect("A's item");
        a.name = "renamed".into();
        assert_eq!(merge_datasets(&base, &base, &a, Side::Mine).dataset, a);
        assert_eq!(merge_datasets(&base, &a, &base, Side::Theirs).dataset, a);
        let m = merge_datasets(&base, &a, &a, Side::Theirs);
        assert_eq!((m.dataset, m.conflicts.len()), (a, 0));
    }
}
