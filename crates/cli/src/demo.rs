//! The bundled demo dataset: INFOTABS dev tables (those with expert reasoning categories first,
//! then the next in file order) with all their hypotheses, plus the paper's running examples
//! *Breakfast in America* (T1264) and *Bridesmaids* (T996) with their INFOTABS train hypotheses
//! and the hypotheses H1–H5 of the paper's Figures 1–2.

use std::path::Path;

use tabprobe_core::data::import::infotabs::{
    apply_reasoning, parse_reasoning_tsv, parse_split_tsv, parse_table,
};
use tabprobe_core::{Dataset, Example, Label, Table};

/// The paper's Figures 1–2: (id, table, hypothesis, label, relevant row keys).
/// Relevant rows follow §3: H1 needs Genre and Length; H2 Released; H3 Recorded; H4 none
/// (the table says nothing of tracks); H5 the running time.
const PAPER_HYPOTHESES: [(&str, &str, &str, Label, &[&str]); 5] = [
    (
        "paper-H1",
        "T1264",
        "Breakfast in America is a pop album with a length of 46 minutes.",
        Label::Entail,
        &["Genre", "Length"],
    ),
    (
        "paper-H2",
        "T1264",
        "Breakfast in America was released at the end of 1979.",
        Label::Contradict,
        &["Released"],
    ),
    (
        "paper-H3",
        "T1264",
        "Most of Breakfast in America was recorded in the last month of 1978.",
        Label::Neutral,
        &["Recorded"],
    ),
    (
        "paper-H4",
        "T1264",
        "Breakfast in America has 6 tracks.",
        Label::Neutral,
        &[],
    ),
    (
        "paper-H5",
        "T996",
        "Bridesmaids has a running time of over 3 hrs.",
        Label::Contradict,
        &["Running time"],
    ),
];

/// Builds the demo dataset from the INFOTABS `data` folder.
pub fn build(infotabs: &Path, dev_tables: usize) -> Result<Dataset, String> {
    let dev_path = infotabs.join("maindata/infotabs_dev.tsv");
    let mut dev = parse_split_tsv(
        &dev_path.display().to_string(),
        "dev",
        &crate::io::read_text(&dev_path)?,
    )
    .map_err(|e| e.to_string())?;
    let reasoning_path = infotabs.join("reasoning/infotabs_dev.tsv");
    let reasoning = parse_reasoning_tsv(
        &reasoning_path.display().to_string(),
        &crate::io::read_text(&reasoning_path)?,
    )
    .map_err(|e| e.to_string())?;
    apply_reasoning(&mut dev, &reasoning);

    // Tables with expert categories first (so category breakdowns have data), then file order.
    let mut chosen: Vec<String> = Vec::new();
    for id in reasoning
        .iter()
        .map(|r| &r.table)
        .chain(dev.iter().filter_map(|e| e.table.as_ref()))
    {
        if chosen.len() < dev_tables && !chosen.contains(id) {
            chosen.push(id.clone());
        }
    }
    let train_path = infotabs.join("maindata/infotabs_train.tsv");
    let train = parse_split_tsv(
        &train_path.display().to_string(),
        "train",
        &crate::io::read_text(&train_path)?,
    )
    .map_err(|e| e.to_string())?;
    let running = ["T1264", "T996"];

    let mut dataset = Dataset::new("INFOTABS demo");
    dataset.description = format!(
        "{} INFOTABS dev tables with all their hypotheses (expert reasoning categories where INFOTABS has them), \
         plus the running examples of Gupta et al. (TACL 2022): Breakfast in America (T1264) and Bridesmaids (T996) \
         with their INFOTABS train hypotheses and the paper's H1-H5 (split \"paper\"). \
         INFOTABS (Gupta et al., ACL 2020) is Apache-2.0; its tables come from Wikipedia (CC BY-SA). \
         Built by `tabprobe demo`.",
        chosen.len()
    );
    for id in running
        .iter()
        .map(|s| s.to_string())
        .chain(chosen.iter().cloned())
    {
        let path = infotabs.join(format!("tables/json/{id}.json"));
        let table = parse_table(
            &path.display().to_string(),
            &id,
            &crate::io::read_text(&path)?,
        )
        .map_err(|e| e.to_string())?;
        dataset.tables.push(Table::KeyValue(table));
    }
    for (id, table, hypothesis, label, keys) in PAPER_HYPOTHESES {
        let Some(Table::KeyValue(t)) = dataset.table(table) else {
            return Err(format!(
                "running example {table} is missing from {}",
                infotabs.display()
            ));
        };
        let relevant = keys
            .iter()
            .map(|k| {
                t.rows
                    .iter()
                    .position(|r| r.key == *k)
                    .ok_or_else(|| format!("{table} has no row {k:?}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        dataset.examples.push(Example {
            id: Some(id.to_string()),
            table: Some(table.to_string()),
            premise: None,
            hypothesis: hypothesis.to_string(),
            label,
            split: Some("paper".to_string()),
            relevant_rows: Some(relevant),
            relevance_votes: None,
            categories: Vec::new(),
            annotator: None,
            derived_from: None,
            operation: None,
        });
    }
    dataset.examples.extend(
        train
            .into_iter()
            .filter(|e| e.table.as_deref().is_some_and(|t| running.contains(&t))),
    );
    dataset.examples.extend(
        dev.into_iter()
            .filter(|e| e.table.as_ref().is_some_and(|t| chosen.contains(t))),
    );
    // The file must pass the same validation as any upload.
    let text = dataset.to_json_pretty().map_err(|e| e.to_string())?;
    tabprobe_core::parse_dataset("demo", &text).map_err(|e| e.report())
}
