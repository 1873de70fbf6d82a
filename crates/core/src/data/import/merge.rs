//! Merging an imported dataset into the one already loaded (the site's "Merge" choice): tables
//! with the same id must be identical, example ids must not collide.

use std::collections::{HashMap, HashSet};

use super::ImportError;
use crate::data::dataset::Dataset;
use crate::data::label::LabelSet;

/// `base` with the tables and examples of `add` appended. `add_name` names the import in
/// errors. The result is two-way only when both are.
pub fn merge(base: &Dataset, add: Dataset, add_name: &str) -> Result<Dataset, ImportError> {
    let mut out = base.clone();
    let index: HashMap<&str, usize> = base
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id(), i))
        .collect();
    let mut new_tables = Vec::new();
    for t in add.tables {
        match index.get(t.id()) {
            Some(&i) if base.tables[i] == t => {}
            Some(_) => {
                return Err(ImportError::new(
                    add_name,
                    format!("table {}", t.id()),
                    format!(
                        "the loaded dataset has a different table with the id {}; expected new ids or identical tables (use Replace instead)",
                        t.id()
                    ),
                ))
            }
            None => new_tables.push(t),
        }
    }
    let ids: HashSet<&str> = base
        .examples
        .iter()
        .filter_map(|e| e.id.as_deref())
        .collect();
    if let Some(dup) = add
        .examples
        .iter()
        .filter_map(|e| e.id.as_deref())
        .find(|id| ids.contains(id))
    {
        return Err(ImportError::new(
            add_name,
            format!("example {dup}"),
            format!("the loaded dataset already has an example with the id {dup}; expected new ids (use Replace instead)"),
        ));
    }
    out.tables.extend(new_tables);
    // Reviews travel with their examples; an example without an id is known by its index,
    // which moves up by the examples already loaded.
    let offset = out.examples.len();
    out.reviews.extend(add.reviews.into_iter().map(|mut r| {
        if let Some((ex, probe, n)) = crate::data::review::parse_item_id(&r.item) {
            if let Some(i) = ex.strip_prefix('#').and_then(|i| i.parse::<usize>().ok()) {
                r.item = crate::data::review::item_id(&format!("#{}", i + offset), probe, n);
            }
        }
        r
    }));
    out.reviews.sort_by(|a, b| a.item.cmp(&b.item));
    out.examples.extend(add.examples);
    out.label_set = if base.label_set == LabelSet::TwoWay && add.label_set == LabelSet::TwoWay {
        LabelSet::TwoWay
    } else {
        LabelSet::ThreeWay
    };
    Ok(out)
}
