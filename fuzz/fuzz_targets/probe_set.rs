//! Every probe on any text (issue #11 §1): `build_probe_set` with all probe kinds returns a
//! probe set or an error, never a panic. Input starting with `{` is read as a dataset JSON
//! (unvalidated, so broken datasets are probed too); any other input builds a small dataset
//! from the bytes (titles, keys, values and hypotheses as arbitrary UTF-8, hypotheses glued
//! from the tables' own strings so the phrase matching fires). Sizes are bounded so one
//! execution stays fast.
#![no_main]
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use tabprobe_core::linearize::Linearization;
use tabprobe_core::probe::word_order::PermutationTarget;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::{Dataset, Example, KeyValueRow, KeyValueTable, Label, RelationalTable, Table};

const MAX_TABLES: usize = 6;
const MAX_ROWS: usize = 12;
const MAX_EXAMPLES: usize = 8;

fn text(u: &mut Unstructured) -> Result<String> {
    let s: &str = u.arbitrary()?;
    Ok(s.chars().take(64).collect())
}

fn table(u: &mut Unstructured, i: usize) -> Result<Table> {
    let id = format!("t{i}");
    if u.ratio(1, 4)? {
        let caption = text(u)?;
        let width = u.int_in_range(0..=3)?;
        let header = (0..width).map(|_| text(u)).collect::<Result<Vec<_>>>()?;
        let n = u.int_in_range(0..=4)?;
        let mut rows = Vec::new();
        for _ in 0..n {
            // Ragged records on purpose: a broken file may hold them.
            let w = u.int_in_range(0..=width + 1)?;
            rows.push((0..w).map(|_| text(u)).collect::<Result<Vec<_>>>()?);
        }
        return Ok(Table::Relational(RelationalTable {
            id,
            caption,
            header,
            rows,
        }));
    }
    let title = text(u)?;
    let n = u.int_in_range(0..=5)?;
    let mut rows = Vec::new();
    for _ in 0..n {
        let key = text(u)?;
        let k = u.int_in_range(0..=3)?;
        let values = (0..k).map(|_| text(u)).collect::<Result<Vec<_>>>()?;
        rows.push(KeyValueRow { key, values });
    }
    Ok(Table::KeyValue(KeyValueTable { id, title, rows }))
}

fn structured(u: &mut Unstructured) -> Result<Dataset> {
    let n = u.int_in_range(1..=3)?;
    let tables = (0..n).map(|i| table(u, i)).collect::<Result<Vec<_>>>()?;
    let mut pool: Vec<String> = Vec::new();
    for t in &tables {
        pool.push(t.title().to_string());
        match t {
            Table::KeyValue(kv) => {
                for r in &kv.rows {
                    pool.push(r.key.clone());
                    pool.extend(r.values.iter().cloned());
                }
            }
            Table::Relational(r) => pool.extend(r.rows.iter().flatten().cloned()),
        }
    }
    let mut d = Dataset::new("fuzz");
    let m = u.int_in_range(1..=5)?;
    for i in 0..m {
        let parts = u.int_in_range(0..=5)?;
        let mut h = String::new();
        for _ in 0..parts {
            // A free string, a table string, or the two glued (a value inside a longer word).
            let picked = if pool.is_empty() {
                String::new()
            } else {
                pool[u.choose_index(pool.len())?].clone()
            };
            match u.int_in_range(0..=3)? {
                0 => h.push_str(&text(u)?),
                1 => h.push_str(&picked),
                2 => h.push_str(&format!("{picked}{}", text(u)?)),
                _ => h.push_str(&format!("{}{picked}", text(u)?)),
            }
            if u.arbitrary()? {
                h.push(' ');
            }
        }
        let label = *u.choose(&[Label::Entail, Label::Neutral, Label::Contradict])?;
        let (table, premise) = match u.int_in_range(0..=3)? {
            0 | 1 => (Some(format!("t{}", u.choose_index(n)?)), None),
            2 => (None, Some(pool.join(". "))),
            _ => (None, None),
        };
        let relevant_rows = if u.arbitrary()? {
            let k = u.int_in_range(0..=3)?;
            Some(
                (0..k)
                    .map(|_| u.int_in_range(0..=7))
                    .collect::<Result<Vec<usize>>>()?,
            )
        } else {
            None
        };
        let derived_from = if u.ratio(1, 4)? {
            Some(format!("e{}", u.int_in_range(0..=4)?))
        } else {
            None
        };
        d.examples.push(Example {
            id: Some(format!("e{i}")),
            table,
            premise,
            hypothesis: h,
            label,
            split: Some("dev".into()),
            relevant_rows,
            categories: vec![],
            annotator: None,
            derived_from,
            operation: None,
            relevance_votes: None,
        });
    }
    d.tables = tables;
    Ok(d)
}

/// Bounds a parsed dataset so one execution stays fast.
fn bounded(mut d: Dataset) -> Dataset {
    d.tables.truncate(MAX_TABLES);
    for t in &mut d.tables {
        match t {
            Table::KeyValue(kv) => kv.rows.truncate(MAX_ROWS),
            Table::Relational(r) => r.rows.truncate(MAX_ROWS),
        }
    }
    d.examples.truncate(MAX_EXAMPLES);
    d
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (dataset, seed, pick) = if data.first() == Some(&b'{') {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let Ok(d) = serde_json::from_str::<Dataset>(text) else {
            return;
        };
        (bounded(d), data.len() as u64, data.len())
    } else {
        let Ok(d) = structured(&mut u) else {
            return;
        };
        let seed = u.arbitrary::<u64>().unwrap_or(0);
        let pick = u.arbitrary::<usize>().unwrap_or(0);
        (d, seed, pick)
    };
    let mut s = ProbeSettings::new(ProbeKind::all(), seed);
    s.linearization.strategy = Linearization::ALL[pick % Linearization::ALL.len()];
    s.word_order.q = 1 + pick % 3;
    s.word_order.target = [
        PermutationTarget::Both,
        PermutationTarget::Hypothesis,
        PermutationTarget::Premise,
    ][pick / 3 % 3];
    s.word_order.max_short_words = pick / 9 % 3;
    s.hypothesis_only = pick % 2 == 1;
    let _ = build_probe_set(&dataset, &s, &RuleSet::default());
});
