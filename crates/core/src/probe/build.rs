//! Building a probe set: choose examples, generate every selected probe's perturbations,
//! apply the caps, linearize, and collect the distinct premise/hypothesis pairs so that each
//! is scored once however many items share it (most items share their original pair).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::edit_table::KeyIndex;
use super::hypothesis::{self, HypothesisContext};
use super::table_probes::{self, TableContext};
use super::word_order::{self, WordOrderSettings};
use super::{
    Basis, Certainty, Edit, Expectation, Perturbation, Premise, ProbeExample, ProbeInput, ProbeItem,
};
use crate::data::dataset::Dataset;
use crate::data::label::LabelSet;
use crate::linearize::{linearize_units, LinearizeError, LinearizeSettings, PremiseUnits};
use crate::probe::counterfactual;
use crate::probe::review::ReviewState;
use crate::probe::rules::RuleSet;
use crate::probe_kind::ProbeKind;
use crate::rng::Rng;
use crate::scoring::Pair;

/// Limits on the number of perturbed items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Caps {
    /// At most this many items per example and probe (a seeded sample, original order kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_example: Option<usize>,
    /// At most this many items per probe over the whole run (a seeded sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_run: Option<usize>,
}

/// Everything that decides which items a run contains; stored in its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeSettings {
    /// The probes to generate.
    pub probes: Vec<ProbeKind>,
    /// Caps on the number of items.
    #[serde(default)]
    pub caps: Caps,
    /// The seed every random choice derives from.
    pub seed: u64,
    /// Table → text, and pair order.
    #[serde(default)]
    pub linearization: LinearizeSettings,
    /// k for row permutation (default 5: docs/probes-and-metrics.md#table-probes-without-relevance).
    #[serde(default = "default_permutations")]
    pub permutations: usize,
    /// Rows drawn per example for row insertion (and cells for relational value updates).
    #[serde(default = "default_insertions")]
    pub insertions: usize,
    /// Only examples of these splits (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub splits: Option<Vec<String>>,
    /// Word-order probe settings (q, target, short-sentence limit).
    #[serde(default)]
    pub word_order: WordOrderSettings,
    /// Also score each original hypothesis with an empty premise (the hypothesis-only view
    /// of docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view, needed for Table 8's O-Hypo column).
    #[serde(default)]
    pub hypothesis_only: bool,
    /// Also score the perturbed hypothesis of every Table 4 / Table 7 item (hypothesis and
    /// counterfactual probes) with an empty premise, and each original hypothesis too: the
    /// hypothesis-only rows of Tables 4 and 7 (the same model's hypothesis-only view, docs/probes-and-metrics.md#models-compared-the-hypothesis-only-view).
    #[serde(default)]
    pub hypothesis_only_items: bool,
}

fn default_permutations() -> usize {
    5
}
fn default_insertions() -> usize {
    3
}

impl ProbeSettings {
    /// Settings for `probes` with the defaults docs/probes-and-metrics.md#probes gives.
    pub fn new(probes: Vec<ProbeKind>, seed: u64) -> ProbeSettings {
        ProbeSettings {
            probes,
            caps: Caps::default(),
            seed,
            linearization: LinearizeSettings::default(),
            permutations: default_permutations(),
            insertions: default_insertions(),
            splits: None,
            word_order: WordOrderSettings::default(),
            hypothesis_only: false,
            hypothesis_only_items: false,
        }
    }
}

/// An example (or example × probe) left out, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// Example id.
    pub example: String,
    /// The probe concerned, when the skip is probe-specific.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeKind>,
    /// Why, in words.
    pub reason: String,
}

/// Why a probe set could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    /// No probe was selected.
    #[error("no probe selected")]
    NoProbes,
    /// Nothing to run: every example was filtered out or skipped.
    #[error("no example can be probed ({0} skipped)")]
    NoExamples(usize),
    /// A linearization failed on a perturbed table.
    #[error(transparent)]
    Linearize(#[from] LinearizeError),
}

/// The generated items, ready to score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeSet {
    /// How it was built.
    pub settings: ProbeSettings,
    /// The validity rules its transitions are judged by.
    pub rules: RuleSet,
    /// The dataset's label set.
    pub label_set: LabelSet,
    /// The original examples.
    pub examples: Vec<ProbeExample>,
    /// The perturbed items.
    pub items: Vec<ProbeItem>,
    /// Every distinct pair to score, once.
    pub pairs: Vec<Pair>,
    /// Hypothesis-only pair per example (when `settings.hypothesis_only`), by example position.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hypothesis_only_pairs: Vec<usize>,
    /// What was left out and why.
    pub skipped: Vec<Skipped>,
    /// Ids of the dataset's reviews that name an item of this set but were made on a
    /// different perturbation (generation changed since): not applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unapplied_reviews: Vec<String>,
}

/// What a run will cost, shown before running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeCounts {
    /// Original examples.
    pub examples: usize,
    /// Perturbed items.
    pub items: usize,
    /// Items per probe.
    pub per_probe: BTreeMap<ProbeKind, usize>,
    /// Distinct pairs = forward passes the model will make.
    pub forward_passes: usize,
    /// Skipped examples or example × probe combinations.
    pub skipped: usize,
}

impl ProbeSet {
    /// What pair `index` belongs to, for error messages: the example whose original it is,
    /// else the item that reads it (perturbed, original or hypothesis-only).
    pub fn pair_owner(&self, index: usize) -> Option<String> {
        if let Some(e) = self.examples.iter().find(|e| e.pair == index) {
            return Some(format!("example {}", e.id));
        }
        if let Some(k) = self.hypothesis_only_pairs.iter().position(|&p| p == index) {
            if let Some(e) = self.examples.get(k) {
                return Some(format!("example {}, hypothesis only", e.id));
            }
        }
        self.items
            .iter()
            .find(|it| {
                it.perturbed_pair == index
                    || it.original_pair == index
                    || it.hypothesis_only_pair == Some(index)
            })
            .map(|it| format!("item {}", it.id))
    }

    /// The counts the runner shows before starting.
    pub fn counts(&self) -> ProbeCounts {
        let mut per_probe = BTreeMap::new();
        for it in &self.items {
            *per_probe.entry(it.probe).or_insert(0) += 1;
        }
        ProbeCounts {
            examples: self.examples.len(),
            items: self.items.len(),
            per_probe,
            forward_passes: self.pairs.len(),
            skipped: self.skipped.len(),
        }
    }
}

/// Distinct pairs, numbered in first-seen order.
#[derive(Default)]
struct PairTable {
    pairs: Vec<Pair>,
    index: HashMap<Pair, usize>,
}

impl PairTable {
    fn add(&mut self, pair: Pair) -> usize {
        if let Some(&i) = self.index.get(&pair) {
            return i;
        }
        let i = self.pairs.len();
        self.index.insert(pair.clone(), i);
        self.pairs.push(pair);
        i
    }
}

/// The premise text a model reads: the table linearized, the text, or nothing — always
/// nothing when the settings read no premise ([`LinearizeSettings::pair`] clears it too).
fn premise_text(p: &Premise, s: &LinearizeSettings) -> Result<String, LinearizeError> {
    match p {
        Premise::Table(t) => s.premise_text(t),
        Premise::Text(t) => Ok(t.clone()),
        Premise::Empty => Ok(String::new()),
    }
}

/// The premise as sentence units, for the word-order probe: the linearizer's units for a
/// table, abbreviation-aware sentences for plain text, none when there is no premise.
fn premise_units(p: &Premise, s: &LinearizeSettings) -> Result<PremiseUnits, LinearizeError> {
    match p {
        Premise::Table(t) => linearize_units(t, s.strategy),
        Premise::Text(t) => Ok(PremiseUnits::plain(t)),
        Premise::Empty => Ok(PremiseUnits::default()),
    }
}

/// The pair a model scores for an input.
pub fn input_pair(input: &ProbeInput, s: &LinearizeSettings) -> Result<Pair, LinearizeError> {
    Ok(s.pair(&premise_text(&input.premise, s)?, &input.hypothesis))
}

/// Keeps `cap` of `items` (a seeded sample, original order kept).
fn cap_items<T>(items: Vec<T>, cap: Option<usize>, rng: &mut Rng) -> Vec<T> {
    match cap {
        Some(c) if items.len() > c => {
            let mut keep = rng.sample_indices(items.len(), c);
            keep.sort_unstable();
            let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
            keep.into_iter().filter_map(|i| slots[i].take()).collect()
        }
        _ => items,
    }
}

/// Generates one probe's perturbations for one example.
fn generate(
    kind: ProbeKind,
    ex: &ProbeExample,
    dataset: &Dataset,
    index: &KeyIndex,
    settings: &ProbeSettings,
) -> Result<Vec<Perturbation>, String> {
    let mut rng = Rng::derive(settings.seed, &format!("{}/{}", kind.as_str(), ex.index));
    if kind == ProbeKind::PremiseRemoval {
        return Ok(vec![table_probes::premise_removal(&ex.input.hypothesis)]);
    }
    if kind == ProbeKind::Counterfactual {
        return Ok(shipped_counterfactuals(ex, dataset));
    }
    if kind == ProbeKind::WordOrder {
        let premise =
            premise_units(&ex.input.premise, &settings.linearization).map_err(|e| e.to_string())?;
        return word_order::word_order(
            &premise,
            &ex.input.hypothesis,
            ex.gold,
            &settings.word_order,
            &mut rng,
        )
        .map_err(|e| e.to_string());
    }
    if ProbeKind::HYPOTHESIS.contains(&kind) {
        let ctx = HypothesisContext {
            premise: &ex.input.premise,
            hypothesis: &ex.input.hypothesis,
            gold: ex.gold,
            index,
        };
        return Ok(match kind {
            ProbeKind::MonotoneNumber => hypothesis::monotone_numbers(&ctx),
            ProbeKind::PlainNumber => hypothesis::plain_numbers(&ctx),
            ProbeKind::NamedEntity => hypothesis::named_entities(&ctx, &mut rng),
            ProbeKind::Negation => hypothesis::negation(&ctx),
            ProbeKind::NominalModifier => hypothesis::nominal_modifiers(&ctx, &mut rng),
            _ => hypothesis::quantifiers(&ctx),
        });
    }
    let Premise::Table(table) = &ex.input.premise else {
        return Err("table probes need a table premise".to_string());
    };
    if kind == ProbeKind::TitleSwap {
        return Ok(counterfactual::title_swap(
            table,
            &ex.input.hypothesis,
            ex.gold,
            &dataset.tables,
            &mut rng,
        ));
    }
    if kind == ProbeKind::RowSwap {
        let rel = ex.relevant_rows.as_deref();
        return Ok(counterfactual::row_swap(
            table,
            &ex.input.hypothesis,
            ex.gold,
            rel,
            &dataset.tables,
            &mut rng,
        ));
    }
    let ctx = TableContext {
        table,
        hypothesis: &ex.input.hypothesis,
        relevant_rows: ex.relevant_rows.as_deref(),
        index,
    };
    let needs_relevance = matches!(
        kind,
        ProbeKind::RelevantRowDeletion
            | ProbeKind::AllRelevantRowsDeletion
            | ProbeKind::IrrelevantRowDeletion
    );
    if needs_relevance && ex.relevant_rows.is_none() {
        return Err("no relevant rows annotated (mark them in the table editor)".to_string());
    }
    Ok(match kind {
        ProbeKind::RowDeletion => table_probes::row_deletion(&ctx),
        ProbeKind::RowInsertion => table_probes::row_insertion(&ctx, settings.insertions, &mut rng),
        ProbeKind::RowValueUpdate => {
            table_probes::row_value_update(&ctx, settings.insertions, &mut rng)
        }
        ProbeKind::RowPermutation => {
            table_probes::row_permutation(&ctx, settings.permutations, &mut rng)
        }
        ProbeKind::DeleteThenInsert => table_probes::delete_then_insert(&ctx, &mut rng),
        ProbeKind::RelevantRowDeletion => table_probes::relevant_row_deletion(&ctx),
        ProbeKind::AllRelevantRowsDeletion => table_probes::all_relevant_rows_deletion(&ctx),
        ProbeKind::IrrelevantRowDeletion => table_probes::irrelevant_row_deletion(&ctx),
        _ => Vec::new(),
    })
}

/// The original examples a run probes (split filter applied, unknown tables skipped).
///
/// An example whose `derived_from` names another example of the dataset is a shipped
/// counterfactual (or a hand-made item), not an original: it is reached only through the
/// counterfactual probe, paired with its original (paper §6), and never probed again as if it
/// were an original — that would count one table–hypothesis pair twice in every other table.
pub fn select_examples(
    dataset: &Dataset,
    settings: &ProbeSettings,
    skipped: &mut Vec<Skipped>,
) -> Vec<ProbeExample> {
    let ids: BTreeSet<&str> = dataset
        .examples
        .iter()
        .filter_map(|e| e.id.as_deref())
        .collect();
    let counterfactual_probe = settings.probes.contains(&ProbeKind::Counterfactual);
    let mut out = Vec::new();
    for (index, ex) in dataset.examples.iter().enumerate() {
        if let Some(splits) = &settings.splits {
            if !ex.split.as_ref().is_some_and(|s| splits.contains(s)) {
                continue;
            }
        }
        let id = ex.id.clone().unwrap_or_else(|| format!("#{index}"));
        if let Some(original) = derived_from_present(ex, &ids) {
            // With the counterfactual probe on it becomes that probe's item; without, say why
            // it is absent.
            if !counterfactual_probe {
                skipped.push(Skipped {
                    example: id,
                    probe: None,
                    reason: format!(
                        "derived from {original:?}: a shipped counterfactual is probed only by the counterfactual probe, paired with its original"
                    ),
                });
            }
            continue;
        }
        let premise = match (&ex.table, &ex.premise) {
            (Some(tid), _) => match dataset.table(tid) {
                Some(t) => Premise::Table(t.clone()),
                None => {
                    skipped.push(Skipped {
                        example: id,
                        probe: None,
                        reason: format!("unknown table {tid:?}"),
                    });
                    continue;
                }
            },
            (None, Some(p)) => Premise::Text(p.clone()),
            (None, None) => Premise::Empty,
        };
        out.push(ProbeExample {
            index,
            id,
            input: ProbeInput {
                premise,
                hypothesis: ex.hypothesis.clone(),
            },
            gold: ex.label,
            split: ex.split.clone(),
            categories: ex.categories.clone(),
            relevant_rows: ex.relevant_rows.clone(),
            relevance_votes: ex.relevance_votes.clone(),
            pair: 0,
        });
    }
    out
}

/// Builds the probe set for `dataset` (deterministic given `settings.seed`).
pub fn build_probe_set(
    dataset: &Dataset,
    settings: &ProbeSettings,
    rules: &RuleSet,
) -> Result<ProbeSet, ProbeError> {
    if settings.probes.is_empty() {
        return Err(ProbeError::NoProbes);
    }
    let mut skipped = Vec::new();
    let candidates = select_examples(dataset, settings, &mut skipped);
    let index = KeyIndex::new(&dataset.tables);
    let mut pairs = PairTable::default();
    let mut examples = Vec::new();
    for mut ex in candidates {
        match input_pair(&ex.input, &settings.linearization) {
            Ok(p) => {
                ex.pair = pairs.add(p);
                examples.push(ex);
            }
            Err(e) => skipped.push(Skipped {
                example: ex.id.clone(),
                probe: None,
                reason: e.to_string(),
            }),
        }
    }
    if examples.is_empty() {
        return Err(ProbeError::NoExamples(skipped.len()));
    }
    let mut hypothesis_only_pairs = Vec::new();
    if settings.hypothesis_only || settings.hypothesis_only_items {
        for ex in &examples {
            hypothesis_only_pairs
                .push(pairs.add(settings.linearization.pair("", &ex.input.hypothesis)));
        }
    }
    let mut items = Vec::new();
    for &kind in &settings.probes {
        let mut cap_rng = Rng::derive(settings.seed, &format!("cap/{}", kind.as_str()));
        let mut per_kind: Vec<(usize, usize, Perturbation)> = Vec::new();
        for (pos, ex) in examples.iter().enumerate() {
            match generate(kind, ex, dataset, &index, settings) {
                Ok(ps) => {
                    // Number before capping, so an item keeps its id (and its review) whatever
                    // the caps: `n` is its position among everything the probe generated.
                    let ps: Vec<(usize, Perturbation)> = ps.into_iter().enumerate().collect();
                    let ps = cap_items(ps, settings.caps.per_example, &mut cap_rng);
                    per_kind.extend(ps.into_iter().map(|(n, p)| (pos, n, p)));
                }
                Err(reason) => skipped.push(Skipped {
                    example: ex.id.clone(),
                    probe: Some(kind),
                    reason,
                }),
            }
        }
        for (pos, n, p) in cap_items(per_kind, settings.caps.per_run, &mut cap_rng) {
            let ex = &examples[pos];
            let perturbed_pair = match input_pair(&p.perturbed, &settings.linearization) {
                Ok(pair) => pairs.add(pair),
                Err(e) => {
                    skipped.push(Skipped {
                        example: ex.id.clone(),
                        probe: Some(kind),
                        reason: e.to_string(),
                    });
                    continue;
                }
            };
            let hypothesis_only_pair = (settings.hypothesis_only_items
                && in_score_tables(kind)
                && matches!(p.expectation, Expectation::Label { .. }))
            .then(|| pairs.add(settings.linearization.pair("", &p.perturbed.hypothesis)));
            items.push(ProbeItem {
                id: crate::data::review::item_id(&ex.id, kind, n),
                example: pos,
                probe: p.probe,
                edit: p.edit,
                perturbed: p.perturbed,
                expectation: p.expectation,
                review: ReviewState::from_certainty(p.certainty),
                certainty: p.certainty,
                basis: Some(p.basis),
                original_pair: ex.pair,
                perturbed_pair,
                hypothesis_only_pair,
            });
        }
    }
    let unapplied_reviews =
        crate::probe::review::apply_reviews(&mut items, &examples, &dataset.reviews);
    Ok(ProbeSet {
        settings: settings.clone(),
        rules: rules.clone(),
        label_set: dataset.label_set,
        examples,
        items,
        pairs: pairs.pairs,
        hypothesis_only_pairs,
        skipped,
        unapplied_reviews,
    })
}

/// The original `ex` derives from, when it names an example the dataset holds (a dangling
/// `derived_from` leaves the example an original: nothing else would ever probe it).
fn derived_from_present<'a>(
    ex: &'a crate::data::dataset::Example,
    ids: &BTreeSet<&str>,
) -> Option<&'a str> {
    ex.derived_from
        .as_deref()
        .filter(|o| ids.contains(o) && ex.id.as_deref() != Some(*o))
}

/// Whether a probe's items are scored in Table 4 (hypothesis probes) or Table 7
/// (counterfactual tables), the tables with hypothesis-only rows.
fn in_score_tables(kind: ProbeKind) -> bool {
    ProbeKind::HYPOTHESIS.contains(&kind)
        || matches!(
            kind,
            ProbeKind::RowSwap | ProbeKind::TitleSwap | ProbeKind::Counterfactual
        )
}

/// Examples shipped with the dataset whose `derived_from` is `ex`: hand-made counterfactuals,
/// judged by the label their author asserted (certain).
fn shipped_counterfactuals(ex: &ProbeExample, dataset: &Dataset) -> Vec<Perturbation> {
    dataset
        .examples
        .iter()
        .filter(|d| d.derived_from.as_deref() == Some(ex.id.as_str()))
        .filter_map(|d| {
            let premise = match (&d.table, &d.premise) {
                (Some(t), _) => Premise::Table(dataset.table(t)?.clone()),
                (None, Some(p)) => Premise::Text(p.clone()),
                (None, None) => Premise::Empty,
            };
            Some(Perturbation {
                probe: ProbeKind::Counterfactual,
                edit: Edit::Counterfactual {
                    example: d.id.clone().unwrap_or_default(),
                },
                perturbed: ProbeInput {
                    premise,
                    hypothesis: d.hypothesis.clone(),
                },
                expectation: Expectation::Label {
                    labels: vec![d.label],
                },
                certainty: Certainty::Certain,
                basis: Basis::ShippedLabel,
            })
        })
        .collect()
}
