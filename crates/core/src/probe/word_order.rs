//! Word-order probes (docs/probes-and-metrics.md#word-order-probes; UNLI §4): q permutations per example of the hypothesis, the
//! premise (each sentence on its own) or both, with no word keeping its position. Examples
//! with a permuted sentence of five words or fewer are skipped (UNLI drops them too). The
//! premise's sentences are the units its linearizer built (a row's sentence, a template's
//! row), or, for plain text, sentences split without breaking at abbreviations.

use serde::{Deserialize, Serialize};

use super::{Basis, Certainty, Edit, Expectation, Perturbation, Premise, ProbeInput};
use crate::data::label::Label;
use crate::linearize::PremiseUnits;
use crate::probe::permutation::{apply, bleu2, derangement};
use crate::probe_kind::ProbeKind;
use crate::rng::Rng;

/// What to permute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PermutationTarget {
    /// The hypothesis only.
    Hypothesis,
    /// The premise only (each sentence).
    Premise,
    /// Both, permutation j of each paired.
    #[default]
    Both,
}

/// Word-order settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WordOrderSettings {
    /// Permutations per example (UNLI: 100).
    pub q: usize,
    /// What to permute.
    pub target: PermutationTarget,
    /// Sentences with at most this many words make the example skipped (UNLI: 5).
    pub max_short_words: usize,
}

impl Default for WordOrderSettings {
    fn default() -> Self {
        WordOrderSettings {
            q: 100,
            target: PermutationTarget::Both,
            max_short_words: 5,
        }
    }
}

/// q distinct derangements of one sentence's words (fewer if the sentence has fewer).
fn permutations_of(words: &[&str], q: usize, rng: &mut Rng) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut tries = 0;
    while out.len() < q && tries < 20 * q.max(1) {
        tries += 1;
        let Some(o) = derangement(words, rng) else {
            break;
        };
        let t = apply(words, &o);
        if !texts.contains(&t) {
            texts.push(t);
            out.push(o);
        }
    }
    out
}

/// Why an example gets no word-order items (its run records it as skipped, with this text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WordOrderSkip {
    /// The hypothesis is too short to permute (UNLI drops such examples).
    #[error("hypothesis has {words} words (≤ {short})")]
    ShortHypothesis {
        /// Its words.
        words: usize,
        /// The most words a skipped sentence has ([`WordOrderSettings::max_short_words`]).
        short: usize,
    },
    /// The premise has no sentence to permute.
    #[error("no premise to permute")]
    NoPremise,
    /// A premise sentence is too short to permute.
    #[error("premise sentence {sentence:?} has {words} words (≤ {short})")]
    ShortPremiseSentence {
        /// The sentence, its words joined by spaces.
        sentence: String,
        /// Its words.
        words: usize,
        /// As for [`WordOrderSkip::ShortHypothesis`].
        short: usize,
    },
}

/// The word-order items of one example. `premise` is its premise as sentence units
/// ([`crate::linearize::linearize_units`] for a table, [`PremiseUnits::plain`] for text):
/// each unit's words are permuted in place, and the text between units (separators, the
/// INFOTABS paragraph's trailing space) is kept. `Err` says why the example is skipped.
pub fn word_order(
    premise: &PremiseUnits,
    hypothesis: &str,
    gold: Label,
    settings: &WordOrderSettings,
    rng: &mut Rng,
) -> Result<Vec<Perturbation>, WordOrderSkip> {
    let short = settings.max_short_words;
    let hyp_words: Vec<&str> = hypothesis.split_whitespace().collect();
    let prem_sents: Vec<Vec<&str>> = premise
        .units()
        .into_iter()
        .map(|s| s.split_whitespace().collect())
        .collect();
    let do_h = settings.target != PermutationTarget::Premise;
    let do_p = settings.target != PermutationTarget::Hypothesis;
    if do_h && hyp_words.len() <= short {
        return Err(WordOrderSkip::ShortHypothesis {
            words: hyp_words.len(),
            short,
        });
    }
    if do_p {
        if prem_sents.is_empty() {
            return Err(WordOrderSkip::NoPremise);
        }
        if let Some(s) = prem_sents.iter().find(|s| s.len() <= short) {
            return Err(WordOrderSkip::ShortPremiseSentence {
                sentence: s.join(" "),
                words: s.len(),
                short,
            });
        }
    }
    let h_perms = if do_h {
        permutations_of(&hyp_words, settings.q, rng)
    } else {
        Vec::new()
    };
    let p_perms: Vec<Vec<Vec<usize>>> = if do_p {
        prem_sents
            .iter()
            .map(|s| permutations_of(s, settings.q, rng))
            .collect()
    } else {
        Vec::new()
    };
    let mut count = settings.q;
    if do_h {
        count = count.min(h_perms.len());
    }
    for p in &p_perms {
        count = count.min(p.len());
    }
    let prem_words: Vec<&str> = prem_sents.iter().flatten().copied().collect();
    let mut out = Vec::new();
    for j in 0..count {
        let (hypothesis_order, new_h) = if do_h {
            (Some(h_perms[j].clone()), apply(&hyp_words, &h_perms[j]))
        } else {
            (None, hypothesis.to_string())
        };
        let (premise_orders, premise_text, permuted_units) = if do_p {
            let orders: Vec<Vec<usize>> = p_perms.iter().map(|p| p[j].clone()).collect();
            let units: Vec<String> = prem_sents
                .iter()
                .zip(&orders)
                .map(|(s, o)| apply(s, o))
                .collect();
            (Some(orders), premise.replace_units(&units), units)
        } else {
            (None, premise.text.clone(), Vec::new())
        };
        let bleu = if do_h {
            let cand: Vec<&str> = new_h.split_whitespace().collect();
            bleu2(&hyp_words, &cand)
        } else {
            // The units' words only: text between units is not permuted.
            let cand: Vec<&str> = permuted_units
                .iter()
                .flat_map(|u| u.split_whitespace())
                .collect();
            bleu2(&prem_words, &cand)
        };
        out.push(Perturbation {
            probe: ProbeKind::WordOrder,
            edit: Edit::WordsPermuted {
                target: settings.target,
                hypothesis_order,
                premise_orders,
                bleu2: bleu,
            },
            perturbed: ProbeInput {
                premise: Premise::Text(premise_text),
                hypothesis: new_h,
            },
            expectation: Expectation::Label { labels: vec![gold] },
            certainty: Certainty::Certain,
            basis: Basis::WordOrder,
        });
    }
    Ok(out)
}
