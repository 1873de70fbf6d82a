//! The scores file (docs/scoring-elsewhere.md#the-scores-file): what a model tabprobe cannot
//! run said about each pair of a pairs file ([`super::pairs_file`]) — one JSON line per pair,
//! `{"id", "probs": {label: p, …}}` or `{"id", "label"}` — read back as the scores a run takes.
//!
//! The file is outside input: it is checked whole before anything uses it, and every refusal
//! names the file, the line and how many lines share the problem ([`ScoresError`]).

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::data::label::{Label, LabelSet};
use crate::run::pairs_file::pair_id;
use crate::scoring::{Pair, PairScore};

/// Scores files larger than this are refused before they are read (a line is about 100
/// bytes; the demo's dev split with every probe has 45,987 pairs).
pub const MAX_SCORES_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// How far from 1 a line's probabilities may sum.
pub const PROB_SUM_TOLERANCE: f64 = 1e-3;

/// The scores of a probe set's pairs, read from a scores file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedScores {
    /// One score per pair, in the probe set's pair order. A line with a label alone puts
    /// probability 1 on it (its figures that need probabilities are not shown: see
    /// [`ImportedScores::label_only`]); no logits.
    pub scores: Vec<PairScore>,
    /// How many lines gave a label without probabilities.
    pub label_only: usize,
    /// Lower-case hex SHA-256 of the file's bytes: the imported model's identity.
    pub sha256: String,
}

/// Why a scores file was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScoresError {
    /// Larger than [`MAX_SCORES_FILE_BYTES`].
    #[error("{file}: {bytes} bytes, more than the {max} a scores file may hold")]
    TooLarge {
        /// The file.
        file: String,
        /// Its size.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// Lines that break a rule: how many, and the first.
    #[error("{file}: {count} line(s) {problem}; the first is line {line}: {detail}")]
    Lines {
        /// The file.
        file: String,
        /// How many lines break it.
        count: usize,
        /// The rule broken, e.g. `name no pair of this probe set`.
        problem: String,
        /// The first such line (1-based).
        line: usize,
        /// What is wrong there.
        detail: String,
    },
    /// No line names a pair of this probe set.
    #[error("{file}: none of its {lines} lines names a pair of this probe set ({pairs} pairs): it was made for another probe set, linearization or pair order (the ids are digests of the exact text a model reads)")]
    OtherProbeSet {
        /// The file.
        file: String,
        /// Its lines.
        lines: usize,
        /// The probe set's pairs.
        pairs: usize,
    },
    /// Pairs without a score.
    #[error("{file}: {count} of the probe set's {pairs} pairs have no score; the first is {id} (hypothesis {hypothesis:?}): score every pair of the pairs file")]
    Missing {
        /// The file.
        file: String,
        /// How many pairs lack a score.
        count: usize,
        /// The probe set's pairs.
        pairs: usize,
        /// The first one's id.
        id: String,
        /// Its hypothesis.
        hypothesis: String,
    },
}

/// One line as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    id: String,
    #[serde(default)]
    probs: Option<HashMap<String, f64>>,
    #[serde(default)]
    label: Option<String>,
}

/// Lines that broke one rule.
#[derive(Default)]
struct Broken {
    count: usize,
    first: Option<(usize, String)>,
}

impl Broken {
    fn add(&mut self, line: usize, detail: String) {
        self.count += 1;
        self.first.get_or_insert((line, detail));
    }
}

/// A scores file read and checked line by line, not yet matched to a probe set: each id's
/// score and the line it came from. The page keeps one per imported model
/// ([`ScoresIndex::for_pairs`] for a probe run, [`ScoresIndex::get`] for a single pair).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoresIndex {
    /// Per id: the 1-based line it came from and its score.
    by_id: HashMap<String, (usize, PairScore)>,
    /// The ids of the lines that gave a label without probabilities.
    label_only_ids: HashSet<String>,
    /// Lines that are not blank.
    pub lines: usize,
    /// Lower-case hex SHA-256 of the file's bytes: the imported model's identity.
    pub sha256: String,
}

/// Reads the scores file `file` (its `bytes`) for the probe set whose distinct pairs are
/// `pairs` and whose labels are `label_set`: [`parse_scores`], then
/// [`ScoresIndex::for_pairs`].
pub fn read_scores(
    file: &str,
    bytes: &[u8],
    pairs: &[Pair],
    label_set: LabelSet,
) -> Result<ImportedScores, ScoresError> {
    parse_scores(file, bytes, label_set)?.for_pairs(file, pairs)
}

/// Reads the scores file `file` (its `bytes`) over the labels `label_set`: every line must be
/// a JSON object with an id given once, and probabilities over the dataset's labels or a label
/// of them (or both, agreeing). Which probe set it was made for is checked later
/// ([`ScoresIndex::for_pairs`]).
pub fn parse_scores(
    file: &str,
    bytes: &[u8],
    label_set: LabelSet,
) -> Result<ScoresIndex, ScoresError> {
    if bytes.len() as u64 > MAX_SCORES_FILE_BYTES {
        return Err(ScoresError::TooLarge {
            file: file.into(),
            bytes: bytes.len() as u64,
            max: MAX_SCORES_FILE_BYTES,
        });
    }
    let mut by_id: HashMap<String, (usize, PairScore)> = HashMap::new();
    let mut label_only_ids = HashSet::new();
    let mut rules: Vec<(&str, Broken)> = [
        "are not JSON objects of the scores file",
        "repeat an id given before",
        "give neither probabilities nor a label, or a label outside the dataset's",
        "give probabilities that are not the dataset's labels, finite, at least 0 and summing to 1 (± 0.001)",
        "give a label that is not the most probable one",
    ]
    .into_iter()
    .map(|r| (r, Broken::default()))
    .collect();
    let mut lines = 0;
    let text = String::from_utf8_lossy(bytes);
    for (k, raw) in text.lines().enumerate() {
        let n = k + 1;
        if raw.trim().is_empty() {
            continue;
        }
        lines += 1;
        let line: Line = match serde_json::from_str(raw) {
            Ok(l) => l,
            Err(e) => {
                rules[0].1.add(n, e.to_string());
                continue;
            }
        };
        if by_id.contains_key(&line.id) {
            rules[1].1.add(n, format!("id {:?}", line.id));
            continue;
        }
        let label = match &line.label {
            Some(name) => {
                match serde_json::from_value::<Label>(serde_json::Value::from(name.as_str()))
                    .ok()
                    .filter(|l| label_set.labels().contains(l))
                {
                    Some(l) => Some(l),
                    None => {
                        rules[2].1.add(n, format!("label {name:?}"));
                        continue;
                    }
                }
            }
            None => None,
        };
        let probs = match &line.probs {
            Some(p) => match canonical_probs(p, label_set) {
                Ok(p) => Some(p),
                Err(detail) => {
                    rules[3].1.add(n, detail);
                    continue;
                }
            },
            None => None,
        };
        let score = match (probs, label) {
            (Some(probs), label) => {
                let score = imported(probs);
                if label.is_some_and(|l| l != score.predicted()) {
                    rules[4].1.add(
                        n,
                        format!(
                            "label {:?}, most probable {}",
                            line.label.unwrap_or_default(),
                            score.predicted().as_str()
                        ),
                    );
                    continue;
                }
                score
            }
            (None, Some(label)) => {
                label_only_ids.insert(line.id.clone());
                let mut probs = [0.0; 3];
                probs[Label::ALL.iter().position(|&l| l == label).unwrap_or(0)] = 1.0;
                imported(probs)
            }
            (None, None) => {
                rules[2].1.add(n, "no \"probs\" and no \"label\"".into());
                continue;
            }
        };
        by_id.insert(line.id, (n, score));
    }
    for (problem, broken) in rules {
        if let Some((line, detail)) = broken.first {
            return Err(ScoresError::Lines {
                file: file.into(),
                count: broken.count,
                problem: problem.into(),
                line,
                detail,
            });
        }
    }
    Ok(ScoresIndex {
        by_id,
        label_only_ids,
        lines,
        sha256: Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    })
}

impl ScoresIndex {
    /// How many lines gave a label without probabilities.
    pub fn label_only(&self) -> usize {
        self.label_only_ids.len()
    }

    /// The score of `pair` (by its id, [`pair_id`]), if the file has one.
    pub fn get(&self, pair: &Pair) -> Option<&PairScore> {
        self.by_id.get(&pair_id(pair)).map(|(_, score)| score)
    }

    /// The scores of the probe set whose distinct pairs are `pairs`, in its order: every pair
    /// must have a score and every line must name one of its pairs (a file made for another
    /// probe set, linearization or pair order names none). `file` names the file in errors.
    pub fn for_pairs(&self, file: &str, pairs: &[Pair]) -> Result<ImportedScores, ScoresError> {
        let ids: Vec<String> = pairs.iter().map(pair_id).collect();
        let known: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let mut unknown: Vec<(usize, &str)> = self
            .by_id
            .iter()
            .filter(|(id, _)| !known.contains(id.as_str()))
            .map(|(id, (line, _))| (*line, id.as_str()))
            .collect();
        unknown.sort_unstable();
        if let Some(&(line, id)) = unknown.first() {
            if unknown.len() == self.lines {
                return Err(ScoresError::OtherProbeSet {
                    file: file.into(),
                    lines: self.lines,
                    pairs: pairs.len(),
                });
            }
            return Err(ScoresError::Lines {
                file: file.into(),
                count: unknown.len(),
                problem: "name no pair of this probe set".into(),
                line,
                detail: format!("id {id:?}"),
            });
        }
        let missing: Vec<usize> = (0..pairs.len())
            .filter(|&i| !self.by_id.contains_key(&ids[i]))
            .collect();
        if let Some(&first) = missing.first() {
            return Err(ScoresError::Missing {
                file: file.into(),
                count: missing.len(),
                pairs: pairs.len(),
                id: ids[first].clone(),
                hypothesis: pairs[first].hypothesis.clone(),
            });
        }
        Ok(ImportedScores {
            scores: ids
                .iter()
                .filter_map(|id| self.by_id.get(id).map(|(_, s)| s.clone()))
                .collect(),
            label_only: ids
                .iter()
                .filter(|id| self.label_only_ids.contains(*id))
                .count(),
            sha256: self.sha256.clone(),
        })
    }
}

/// A score read from a file: its probabilities, no logits, nothing truncated (a scorer
/// elsewhere cuts pairs its own way).
fn imported(probs: [f32; 3]) -> PairScore {
    PairScore {
        probs,
        logits: Vec::new(),
        truncated: false,
        premise_tokens_dropped: 0,
    }
}

/// `probs` in canonical order (ENTAIL, NEUTRAL, CONTRADICT; NEUTRAL 0 in a two-way set), or
/// what is wrong with them.
fn canonical_probs(probs: &HashMap<String, f64>, label_set: LabelSet) -> Result<[f32; 3], String> {
    let labels = label_set.labels();
    let mut out = [0.0f32; 3];
    if probs.len() != labels.len() {
        let mut keys: Vec<&str> = probs.keys().map(String::as_str).collect();
        keys.sort_unstable();
        return Err(format!(
            "probabilities over {keys:?}; the dataset's labels are {:?}",
            labels.iter().map(|l| l.as_str()).collect::<Vec<_>>()
        ));
    }
    let mut sum = 0.0;
    for &label in labels {
        let p = *probs
            .get(label.as_str())
            .ok_or_else(|| format!("no probability for {}", label.as_str()))?;
        if !p.is_finite() || p < 0.0 {
            return Err(format!("{} = {p}", label.as_str()));
        }
        sum += p;
        out[Label::ALL.iter().position(|&l| l == label).unwrap_or(0)] = p as f32;
    }
    if (sum - 1.0).abs() > PROB_SUM_TOLERANCE {
        return Err(format!("the probabilities sum to {sum:.4}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::PairOrder;

    fn pairs() -> Vec<Pair> {
        [
            "Bridesmaids runs over two hours.",
            "Bridesmaids cost little.",
        ]
        .iter()
        .map(|h| Pair {
            premise: "Running time is 125 minutes.".into(),
            hypothesis: h.to_string(),
            order: PairOrder::PremiseFirst,
        })
        .collect()
    }

    fn ids() -> Vec<String> {
        pairs().iter().map(pair_id).collect()
    }

    fn read(text: &str) -> Result<ImportedScores, ScoresError> {
        read_scores(
            "scores.jsonl",
            text.as_bytes(),
            &pairs(),
            LabelSet::ThreeWay,
        )
    }

    #[test]
    fn probabilities_and_labels_come_back_in_the_probe_sets_order() {
        let [a, b] = [&ids()[0], &ids()[1]];
        // Lines in any order; a label alone puts 1 on it.
        let text = format!(
            "{{\"id\":\"{b}\",\"label\":\"NEUTRAL\"}}\n\n{{\"id\":\"{a}\",\"probs\":{{\"CONTRADICT\":0.25,\"ENTAIL\":0.7,\"NEUTRAL\":0.05}},\"label\":\"ENTAIL\"}}\n"
        );
        let s = read(&text).expect("reads");
        assert_eq!(s.scores[0].probs, [0.7, 0.05, 0.25]);
        assert_eq!(s.scores[1].probs, [0.0, 1.0, 0.0]);
        assert!(s.scores[0].logits.is_empty());
        assert_eq!(s.label_only, 1);
        assert_eq!(s.sha256.len(), 64);
    }

    #[test]
    fn every_bad_file_is_refused_with_its_count_and_first_line() {
        let [a, b] = [&ids()[0], &ids()[1]];
        let ok_b = format!("{{\"id\":\"{b}\",\"label\":\"ENTAIL\"}}");
        let cases = [
            (format!("not json\n{ok_b}"), "1 line(s) are not JSON objects of the scores file; the first is line 1"),
            (format!("{{\"id\":\"feedfeedfeedfeed\",\"label\":\"ENTAIL\"}}\n{{\"id\":\"{a}\",\"label\":\"ENTAIL\"}}\n{ok_b}"), "1 line(s) name no pair of this probe set; the first is line 1: id \"feedfeedfeedfeed\""),
            (format!("{{\"id\":\"{a}\",\"label\":\"ENTAIL\"}}\n{{\"id\":\"{a}\",\"label\":\"NEUTRAL\"}}\n{ok_b}"), "1 line(s) repeat an id given before; the first is line 2"),
            (format!("{{\"id\":\"{a}\",\"label\":\"entailment\"}}\n{ok_b}"), "a label outside the dataset's; the first is line 1: label \"entailment\""),
            (format!("{{\"id\":\"{a}\",\"probs\":{{\"ENTAIL\":0.7,\"NEUTRAL\":0.2,\"CONTRADICT\":0.2}}}}\n{ok_b}"), "the first is line 1: the probabilities sum to 1.1000"),
            (format!("{{\"id\":\"{a}\",\"probs\":{{\"ENTAIL\":1.2,\"NEUTRAL\":-0.2,\"CONTRADICT\":0.0}}}}\n{ok_b}"), "the first is line 1: NEUTRAL = -0.2"),
            (format!("{{\"id\":\"{a}\",\"probs\":{{\"ENTAIL\":1.0,\"CONTRADICT\":0.0}}}}\n{ok_b}"), "probabilities over [\"CONTRADICT\", \"ENTAIL\"]"),
            (format!("{{\"id\":\"{a}\",\"probs\":{{\"ENTAIL\":0.9,\"NEUTRAL\":0.05,\"CONTRADICT\":0.05}},\"label\":\"NEUTRAL\"}}\n{ok_b}"), "give a label that is not the most probable one; the first is line 1"),
            (format!("{{\"id\":\"{a}\"}}\n{ok_b}"), "no \"probs\" and no \"label\""),
            (ok_b.clone(), &format!("1 of the probe set's 2 pairs have no score; the first is {a}")),
            ("{\"id\":\"feedfeedfeedfeed\",\"label\":\"ENTAIL\"}".to_string(), "none of its 1 lines names a pair of this probe set (2 pairs): it was made for another probe set"),
        ];
        for (text, expected) in cases {
            let e = read(&text).expect_err(&text).to_string();
            assert!(e.starts_with("scores.jsonl: "), "{e}");
            assert!(e.contains(expected), "{text}\n→ {e}\nexpected: {expected}");
        }
        // NaN is not JSON: the line does not read.
        assert!(read(&format!(
            "{{\"id\":\"{a}\",\"probs\":{{\"ENTAIL\":NaN}}}}\n{ok_b}"
        ))
        .is_err());
    }

    #[test]
    fn an_index_read_alone_scores_single_pairs_and_matches_a_set_later() {
        // The page reads a file once (parse_scores) and matches it to each probe set it runs
        // (for_pairs) or to a single pair (get); a set it was not made for is refused then.
        let [a, b] = [&ids()[0], &ids()[1]];
        let text = format!(
            "{{\"id\":\"{a}\",\"label\":\"NEUTRAL\"}}\n{{\"id\":\"{b}\",\"probs\":{{\"ENTAIL\":0.5,\"NEUTRAL\":0.25,\"CONTRADICT\":0.25}}}}\n"
        );
        let index = parse_scores("s", text.as_bytes(), LabelSet::ThreeWay).expect("reads");
        assert_eq!((index.lines, index.label_only()), (2, 1));
        assert_eq!(
            index.get(&pairs()[1]).map(|s| s.probs),
            Some([0.5, 0.25, 0.25])
        );
        let mut other = pairs()[0].clone();
        other.hypothesis.push('!');
        assert!(index.get(&other).is_none());
        let s = index
            .for_pairs("s", &pairs())
            .expect("made for these pairs");
        assert_eq!(s.label_only, 1);
        let e = index
            .for_pairs("s", &pairs()[..1])
            .expect_err("one line names no pair");
        assert!(
            e.to_string()
                .contains("1 line(s) name no pair of this probe set; the first is line 2"),
            "{e}"
        );
        let e = index.for_pairs("s", &[other]).expect_err("another set");
        assert!(
            e.to_string().contains("none of its 2 lines names a pair"),
            "{e}"
        );
    }

    #[test]
    fn a_two_way_set_takes_two_way_probabilities() {
        let [a, b] = [&ids()[0], &ids()[1]];
        let text = format!(
            "{{\"id\":\"{a}\",\"probs\":{{\"ENTAIL\":0.4,\"CONTRADICT\":0.6}}}}\n{{\"id\":\"{b}\",\"label\":\"NEUTRAL\"}}\n"
        );
        let e = read_scores("s", text.as_bytes(), &pairs(), LabelSet::TwoWay)
            .expect_err("NEUTRAL is not two-way");
        assert!(e.to_string().contains("label \"NEUTRAL\""), "{e}");
        let text = text.replace("NEUTRAL", "CONTRADICT");
        let s = read_scores("s", text.as_bytes(), &pairs(), LabelSet::TwoWay).expect("reads");
        assert_eq!(s.scores[0].probs, [0.4, 0.0, 0.6]);
    }
}
