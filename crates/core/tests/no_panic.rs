//! No input text may crash a probe (issue #11 §1): `build_probe_set` with every probe kind, on
//! arbitrary Unicode titles, keys, values, premises and hypotheses, returns a probe set or an
//! error and never panics. The strings are drawn from arbitrary Unicode and from a vocabulary
//! of the cases that once broke it: characters whose lower-case form has another byte length
//! (`K` KELVIN SIGN, `İ`, `ẞ`), multi-byte first characters (`Éire` inside `Éireann`), the
//! words the hypothesis probes look for (monotone words, negations, quantifiers, months,
//! numbers, dates), and hypotheses built from the table's own title and values so the
//! probes' phrase matching fires.

use proptest::prelude::*;
use tabprobe_core::data::dataset::{Dataset, Example};
use tabprobe_core::data::label::Label;
use tabprobe_core::data::table::{KeyValueRow, KeyValueTable, RelationalTable, Table};
use tabprobe_core::linearize::Linearization;
use tabprobe_core::probe::rules::RuleSet;
use tabprobe_core::probe::word_order::PermutationTarget;
use tabprobe_core::probe::{build_probe_set, ProbeSettings};
use tabprobe_core::probe_kind::ProbeKind;

/// Tokens that exercise every branch of the hypothesis probes and every case-mapping quirk.
const VOCAB: &[&str] = &[
    "K",
    "k",
    "İ",
    "i",
    "ı",
    "ß",
    "ẞ",
    "SS",
    "Σ",
    "σ",
    "ς",
    "É",
    "é",
    "Éire",
    "Éireann",
    "ﬁ",
    "ǅ",
    "Ω",
    "Ω",
    "\u{301}",
    "\u{307}",
    "𝔘",
    "🙂",
    "日本",
    "-",
    ",",
    ".",
    "'",
    "’",
    "&",
    "(",
    ")",
    "%",
    "$",
    "over",
    "under",
    "more",
    "less",
    "fewer",
    "than",
    "at",
    "most",
    "least",
    "up",
    "to",
    "no",
    "not",
    "n't",
    "isn't",
    "isn’t",
    "never",
    "was",
    "is",
    "has",
    "been",
    "did",
    "before",
    "after",
    "since",
    "until",
    "of",
    "in",
    "the",
    "a",
    "all",
    "every",
    "some",
    "many",
    "March",
    "May",
    "Aug",
    "0",
    "1",
    "3",
    "30",
    "31",
    "46",
    "1.5",
    "1,200",
    "1500",
    "1979",
    "2016",
    "99999999999999999999999",
    "3.",
    "46:06",
    "",
    " ",
    "\t",
    "\n",
];

/// A short string: arbitrary Unicode, or vocabulary tokens joined with or without spaces.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,12}",
        "[ \\t]{0,3}",
        prop::collection::vec(prop::sample::select(VOCAB), 0..6).prop_map(|w| w.join(" ")),
        prop::collection::vec(prop::sample::select(VOCAB), 0..6).prop_map(|w| w.concat()),
    ]
}

fn key_value(id: String, title: String, rows: Vec<(String, Vec<String>)>) -> Table {
    Table::KeyValue(KeyValueTable {
        id,
        title,
        rows: rows
            .into_iter()
            .map(|(key, values)| KeyValueRow { key, values })
            .collect(),
    })
}

fn relational(id: String, caption: String, header: Vec<String>, cells: Vec<String>) -> Table {
    let width = header.len().max(1);
    let rows = cells.chunks(width).map(|c| c.to_vec()).collect();
    Table::Relational(RelationalTable {
        id,
        caption,
        header,
        rows,
    })
}

/// A table of either shape; ids `t0`, `t1`, … so examples can refer to them.
fn table(i: usize) -> impl Strategy<Value = Table> {
    let kv = (
        text(),
        prop::collection::vec((text(), prop::collection::vec(text(), 0..4)), 0..5),
    )
        .prop_map(move |(title, rows)| key_value(format!("t{i}"), title, rows));
    let rel = (
        text(),
        prop::collection::vec(text(), 0..3),
        prop::collection::vec(text(), 0..7),
    )
        .prop_map(move |(c, h, cells)| relational(format!("t{i}"), c, h, cells));
    prop_oneof![3 => kv, 1 => rel]
}

fn label() -> impl Strategy<Value = Label> {
    prop::sample::select(vec![Label::Entail, Label::Neutral, Label::Contradict])
}

/// Every title and value of `tables`: hypothesis material that the phrase matching will find.
fn table_strings(tables: &[Table]) -> Vec<String> {
    let mut out = Vec::new();
    for t in tables {
        out.push(t.title().to_string());
        match t {
            Table::KeyValue(kv) => {
                for r in &kv.rows {
                    out.push(r.key.clone());
                    out.extend(r.values.iter().cloned());
                }
            }
            Table::Relational(r) => out.extend(r.rows.iter().flatten().cloned()),
        }
    }
    out
}

/// Raw material for one example: which premise, the hypothesis's parts (a free string, a pick
/// from the tables' strings, or the two glued together so a value sits inside a longer word),
/// label, relevant rows, derived-from.
type ExampleParts = (
    u8,
    Vec<(u8, usize, String)>,
    Label,
    Option<Vec<usize>>,
    Option<usize>,
);

fn example_parts() -> impl Strategy<Value = ExampleParts> {
    (
        any::<u8>(),
        prop::collection::vec((0u8..4, any::<usize>(), text()), 0..6),
        label(),
        prop::option::of(prop::collection::vec(0usize..7, 0..4)),
        prop::option::of(0usize..4),
    )
}

fn dataset() -> impl Strategy<Value = Dataset> {
    (1usize..4)
        .prop_flat_map(|n| {
            (
                (0..n).map(table).collect::<Vec<_>>(),
                prop::collection::vec(example_parts(), 1..5),
            )
        })
        .prop_map(|(tables, parts)| {
            let pool = table_strings(&tables);
            let mut d = Dataset::new("fuzz");
            let n = tables.len();
            d.examples = parts
                .into_iter()
                .enumerate()
                .map(|(i, (premise, hparts, label, relevant, derived))| {
                    let hypothesis = hparts
                        .into_iter()
                        .map(
                            |(how, k, free)| match (how, pool.get(k % pool.len().max(1))) {
                                (1, Some(s)) => s.clone(),
                                (2, Some(s)) => format!("{s}{free}"),
                                (3, Some(s)) => format!("{free}{s}"),
                                _ => free,
                            },
                        )
                        .collect::<Vec<_>>()
                        .join(" ");
                    let (table, premise) = match premise % 4 {
                        0 | 1 => (Some(format!("t{}", premise as usize % n)), None),
                        2 => (None, Some(pool.join(". "))),
                        _ => (None, None),
                    };
                    Example {
                        id: Some(format!("e{i}")),
                        table,
                        premise,
                        hypothesis,
                        label,
                        split: Some("dev".into()),
                        relevant_rows: relevant,
                        categories: vec![],
                        annotator: None,
                        derived_from: derived.map(|j| format!("e{j}")),
                        operation: None,
                        relevance_votes: None,
                    }
                })
                .collect();
            d.tables = tables;
            d
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn every_probe_on_any_text_never_panics(
        d in dataset(),
        seed in any::<u64>(),
        strategy in prop::sample::select(Linearization::ALL.to_vec()),
        target in prop::sample::select(vec![
            PermutationTarget::Hypothesis,
            PermutationTarget::Premise,
            PermutationTarget::Both,
        ]),
        q in 1usize..4,
        short in 0usize..3,
    ) {
        let mut s = ProbeSettings::new(ProbeKind::all(), seed);
        s.linearization.strategy = strategy;
        s.word_order.q = q;
        s.word_order.target = target;
        s.word_order.max_short_words = short;
        s.hypothesis_only = seed % 2 == 0;
        // Ok or Err (nothing to probe, a table the strategy cannot linearize): never a panic.
        let _ = build_probe_set(&d, &s, &RuleSet::default());
    }
}
