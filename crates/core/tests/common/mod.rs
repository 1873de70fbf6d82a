//! Shared fixtures: the paper's running example (Figure 1, *Breakfast in America*), the
//! Bridesmaids table of Figure 2, and deterministic fake scorers.
#![allow(dead_code)]

use tabprobe_core::data::dataset::{Dataset, Example};
use tabprobe_core::data::label::{Label, LabelSet};
use tabprobe_core::data::table::{KeyValueRow, KeyValueTable, Table};
use tabprobe_core::probe::ProbeSettings;
use tabprobe_core::probe_kind::ProbeKind;
use tabprobe_core::scoring::{ModelId, Pair, PairScore, PairScorer, ScoreError};

pub fn row(k: &str, v: &[&str]) -> KeyValueRow {
    KeyValueRow {
        key: k.to_string(),
        values: v.iter().map(|s| s.to_string()).collect(),
    }
}

/// Figure 1. Rows: 0 Released, 1 Recorded, 2 Studio, 3 Genre, 4 Length, 5 Label, 6 Producer.
pub fn breakfast() -> Table {
    Table::KeyValue(KeyValueTable {
        id: "T1264".into(),
        title: "Breakfast in America".into(),
        rows: vec![
            row("Released", &["29 March 1979"]),
            row("Recorded", &["May-December 1978"]),
            row(
                "Studio",
                &["The Village Recorder (Studio B) in Los Angeles"],
            ),
            row("Genre", &["pop", "art rock", "soft rock"]),
            row("Length", &["46:06"]),
            row("Label", &["A&M"]),
            row("Producer", &["Peter Henderson, Supertramp"]),
        ],
    })
}

/// Figure 2 (abridged).
pub fn bridesmaids() -> Table {
    Table::KeyValue(KeyValueTable {
        id: "T996".into(),
        title: "Bridesmaids".into(),
        rows: vec![
            row("Directed by", &["Paul Feig"]),
            row("Length", &["125 minutes"]),
            row("Country", &["United States"]),
            row("Language", &["English"]),
        ],
    })
}

/// A third table with a multi-valued Genre, so value updates have something to draw from.
pub fn other_album() -> Table {
    Table::KeyValue(KeyValueTable {
        id: "T7".into(),
        title: "Kind of Blue".into(),
        rows: vec![
            row("Genre", &["jazz", "modal jazz"]),
            row("Label", &["Columbia"]),
            row("Released", &["17 August 1959"]),
        ],
    })
}

pub const H1: &str = "Breakfast in America is a pop album with a length of 46 minutes.";
pub const H2: &str = "Breakfast in America was released at the end of 1979.";
pub const H3: &str = "Most of Breakfast in America was recorded in the last month of 1978.";
pub const H5: &str = "Bridesmaids has a running time of over 3 hrs.";

fn ex(
    id: &str,
    table: &str,
    h: &str,
    label: Label,
    relevant: Option<Vec<usize>>,
    split: &str,
) -> Example {
    Example {
        id: Some(id.into()),
        table: Some(table.into()),
        premise: None,
        hypothesis: h.into(),
        label,
        split: Some(split.into()),
        relevant_rows: relevant,
        relevance_votes: None,
        categories: vec![],
        annotator: None,
        derived_from: None,
        operation: None,
    }
}

/// H1 (E; relevant Genre, Length), H2 (C; relevant Released), H3 (N; relevant Recorded),
/// H5 on Bridesmaids (C; relevant Length).
pub fn running_example() -> Dataset {
    let mut d = Dataset::new("running example");
    d.tables = vec![breakfast(), bridesmaids(), other_album()];
    d.examples = vec![
        ex("H1", "T1264", H1, Label::Entail, Some(vec![3, 4]), "a1"),
        ex("H2", "T1264", H2, Label::Contradict, Some(vec![0]), "a1"),
        ex("H3", "T1264", H3, Label::Neutral, Some(vec![1]), "a2"),
        ex("H5", "T996", H5, Label::Contradict, Some(vec![1]), "a2"),
    ];
    d.examples[0].categories = vec!["numerical".into(), "lexical".into()];
    d.examples[1].categories = vec!["temporal".into()];
    d.label_set = LabelSet::ThreeWay;
    d
}

pub fn score_of(label: Label) -> PairScore {
    let mut probs = [0.1f32; 3];
    probs[Label::ALL.iter().position(|l| *l == label).unwrap()] = 0.8;
    PairScore {
        probs,
        logits: vec![],
        truncated: false,
        premise_tokens_dropped: 0,
    }
}

/// An evidence-grounded fake: for a known hypothesis, its gold label when every needed
/// fact appears in the premise, NEUTRAL otherwise. Counts the pairs it scores.
pub struct EvidenceFake {
    pub facts: Vec<(&'static str, Label, Vec<&'static str>)>,
    pub scored: usize,
    pub batches: usize,
}

impl EvidenceFake {
    pub fn new() -> Self {
        EvidenceFake {
            facts: vec![
                (H1, Label::Entail, vec!["pop", "46:06"]),
                (H2, Label::Contradict, vec!["29 March 1979"]),
                (H3, Label::Neutral, vec![]),
                (H5, Label::Contradict, vec!["125 minutes"]),
            ],
            scored: 0,
            batches: 0,
        }
    }
}

impl PairScorer for EvidenceFake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        self.scored += pairs.len();
        self.batches += 1;
        Ok(pairs
            .iter()
            .map(|p| {
                let label = self
                    .facts
                    .iter()
                    .find(|(h, _, _)| *h == p.hypothesis)
                    .map(|(_, l, needs)| {
                        if needs.iter().all(|n| p.premise.contains(n)) {
                            *l
                        } else {
                            Label::Neutral
                        }
                    })
                    .unwrap_or(Label::Neutral);
                score_of(label)
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "evidence-fake".into(),
            weights_sha256: "0".repeat(64),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

/// A fake that ignores the premise: always the gold label of the hypothesis (a perfect
/// hypothesis-only model). With a table probe it never moves.
pub struct HypothesisOnlyFake;

impl PairScorer for HypothesisOnlyFake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        let facts = EvidenceFake::new().facts;
        Ok(pairs
            .iter()
            .map(|p| {
                let l = facts
                    .iter()
                    .find(|(h, _, _)| *h == p.hypothesis)
                    .map(|f| f.1)
                    .unwrap_or(Label::Neutral);
                score_of(l)
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "hypothesis-only-fake".into(),
            weights_sha256: "1".repeat(64),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

/// Probabilities from an FNV-1a hash of the pair, with integer arithmetic and one f32
/// division each (IEEE-exact, so identical on every target): the determinism test's model,
/// also used by the word-order before/after measurement.
pub struct HashFake;

pub fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl PairScorer for HashFake {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        Ok(pairs
            .iter()
            .map(|p| {
                let h = fnv(&format!("{}\u{1f}{}", p.premise, p.hypothesis));
                let w = [
                    1 + (h & 0xff),
                    1 + ((h >> 8) & 0xff),
                    1 + ((h >> 16) & 0xff),
                ];
                let sum = (w[0] + w[1] + w[2]) as f32;
                PairScore {
                    probs: [w[0] as f32 / sum, w[1] as f32 / sum, w[2] as f32 / sum],
                    logits: vec![w[0] as f32, w[1] as f32, w[2] as f32],
                    truncated: p.premise.len() > 300,
                    premise_tokens_dropped: p.premise.len().saturating_sub(300) / 4,
                }
            })
            .collect())
    }
    fn model_id(&self) -> ModelId {
        ModelId {
            name: "hash-fake".into(),
            weights_sha256: "3".repeat(64),
            label_set: LabelSet::ThreeWay,
            precision: Default::default(),
            label_only: false,
            scores_file: false,
        }
    }
}

pub fn example(
    id: &str,
    table: Option<&str>,
    premise: Option<&str>,
    h: &str,
    label: Label,
) -> Example {
    Example {
        id: Some(id.into()),
        table: table.map(str::to_string),
        premise: premise.map(str::to_string),
        hypothesis: h.into(),
        label,
        split: Some("a3".into()),
        relevant_rows: None,
        relevance_votes: None,
        categories: vec!["fixture".into()],
        annotator: None,
        derived_from: None,
        operation: None,
    }
}

/// The running example (Figures 1–2, 5–6) plus a shipped counterfactual of H1 and a
/// plain-text premise, so every probe kind has something to do.
pub fn fixture() -> Dataset {
    let mut d = running_example();
    let mut cf = breakfast();
    if let Table::KeyValue(t) = &mut cf {
        t.id = "T1264_cf".into();
        t.rows[4].values = vec!["36:06".into()];
    }
    d.tables.push(cf);
    let mut h1cf = example("H1-cf", Some("T1264_cf"), None, H1, Label::Contradict);
    h1cf.derived_from = Some("H1".into());
    d.examples.push(h1cf);
    d.examples.push(example(
        "M1",
        None,
        Some("The new rights are nice enough and everyone really likes the newest benefits."),
        "Everyone really likes the newest benefits of the new rights.",
        Label::Entail,
    ));
    d.examples.push(example(
        "K1",
        Some("T7"),
        None,
        "Kind of Blue is not a jazz album released by Columbia in more than 1950.",
        Label::Contradict,
    ));
    d
}

/// Settings that give every probe kind items on [`fixture`]: all probes, hypothesis-only
/// scores, six permutations per word-order example.
pub fn every_probe_settings() -> ProbeSettings {
    let mut s = ProbeSettings::new(ProbeKind::all(), 20220710);
    s.hypothesis_only = true;
    s.word_order.q = 6;
    s
}

/// [`fixture`]'s run with `settings` (default rules, batches of 7), scored by [`HashFake`].
pub fn hash_run(settings: &ProbeSettings) -> tabprobe_core::run::RunResult {
    let set = tabprobe_core::probe::build_probe_set(
        &fixture(),
        settings,
        &tabprobe_core::probe::rules::RuleSet::default(),
    )
    .expect("probe set");
    let mut run = tabprobe_core::run::ProbeRun::new(set, 7);
    run.run(&mut HashFake, |_| {}, || false).expect("run");
    run.finish(HashFake.model_id()).expect("finish")
}
