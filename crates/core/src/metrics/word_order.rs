//! Permutation-acceptance metrics (UNLI §3–§5): 𝒜, Ω_x, Ω_max, Ω_rand, P^c, P^f, mean entropy
//! of the model's probabilities on accepted permutations, and acceptance by BLEU-2 bin.
//!
//! The sets, as UNLI §3 defines them: D^c is every example the model gets right unpermuted;
//! D^f every example it gets wrong unpermuted but that has at least one accepted permutation
//! ("deemed correct according to Ω_max"). P^c and P^f (Eq. 3) average each example's share
//! of accepted permutations over D^c and D^f. UNLU's released code also drops D^c examples
//! with no accepted permutation; that variant is kept beside P^c as `p_c_accepted_only`,
//! never as P^c.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::entropy::entropy;
use super::group::{in_group, Group};
use crate::probe::{Edit, ProbeItem};
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;

/// One example's permutations as the metrics need them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermutedExample {
    /// Whether the model got the unpermuted example right.
    pub original_correct: bool,
    /// Per permutation: (accepted = predicted the gold label, probabilities, BLEU-2).
    pub permutations: Vec<(bool, [f32; 3], f64)>,
}

impl PermutedExample {
    /// `Pr_M(P̂_i, Ĥ_i)_cor`: the share of permutations given the gold label.
    pub fn share_accepted(&self) -> f64 {
        if self.permutations.is_empty() {
            return 0.0;
        }
        self.permutations.iter().filter(|p| p.0).count() as f64 / self.permutations.len() as f64
    }
}

/// One BLEU-2 bin of Figure 3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BleuBin {
    /// Lower edge (inclusive).
    pub lo: f64,
    /// Upper edge (exclusive, except the last bin which includes 1).
    pub hi: f64,
    /// Permutations in the bin.
    pub total: usize,
    /// Of which accepted.
    pub accepted: usize,
    /// `accepted / total`, `None` for an empty bin.
    pub rate: Option<f64>,
}

/// The word-order metrics, all as fractions in 0..=1 like UNLI's Table 2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WordOrderMetrics {
    /// Examples with permutations.
    pub examples: usize,
    /// Examples skipped (a sentence of five words or fewer).
    pub skipped: usize,
    /// 𝒜: accuracy on the unpermuted examples.
    pub accuracy: f64,
    /// Ω_max: share of examples with at least one accepted permutation.
    pub omega_max: f64,
    /// Ω_rand: share of examples accepting more than 1/m of their permutations (m labels).
    pub omega_rand: f64,
    /// Ω_x for the requested thresholds.
    pub omega: Vec<(f64, f64)>,
    /// P^c (UNLI Eq. 3): mean share of accepted permutations over D^c, every example the
    /// model gets right unpermuted (one accepting none counts 0); `None` if D^c is empty.
    pub p_c: Option<f64>,
    /// P^c among the D^c examples with at least one accepted permutation (UNLU's released
    /// code): not the paper's P^c, shown beside it. `None` if there is no such example.
    #[serde(default)]
    pub p_c_accepted_only: Option<f64>,
    /// P^f: the same mean over D^f, the examples wrong unpermuted that accept at least one
    /// permutation (UNLI §3); `None` if D^f is empty.
    pub p_f: Option<f64>,
    /// Mean entropy (nats) of the probabilities on accepted permutations: each example's mean
    /// over its accepted permutations, averaged over the examples with at least one (UNLU's
    /// aggregation, UNLI Figure 2). Computed without libm, so identical on every target.
    pub mean_entropy_accepted: Option<f64>,
    /// The same over D^c (its examples with at least one accepted permutation).
    pub mean_entropy_c: Option<f64>,
    /// The same over D^f.
    pub mean_entropy_f: Option<f64>,
    /// Acceptance by BLEU-2 bin.
    pub bleu_bins: Vec<BleuBin>,
}

/// Bin edges for the BLEU-2 analysis (UNLI's lowest range is 0–0.15).
pub const BLEU_EDGES: [f64; 7] = [0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 1.0];

/// The BLEU-2 bin (index into the bins of [`BLEU_EDGES`]) a permutation falls in: `lo` ≤
/// BLEU-2 < `hi`; anything else (1 itself, or a value outside 0..1) in the last bin. The
/// metric bins with it and the report's drill-down selects with it.
pub fn bleu_bin(bleu2: f64) -> usize {
    let last = BLEU_EDGES.len() - 2;
    BLEU_EDGES
        .windows(2)
        .position(|w| bleu2 >= w[0] && bleu2 < w[1])
        .unwrap_or(last)
}

/// The BLEU-2 of a word-order item's permutation (0 for an item of another edit).
pub fn permutation_bleu(item: &ProbeItem) -> f64 {
    match &item.edit {
        Edit::WordsPermuted { bleu2, .. } => *bleu2,
        _ => 0.0,
    }
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Ω_x: the share of examples whose accepted share exceeds `x`.
pub fn omega(examples: &[PermutedExample], x: f64) -> f64 {
    if examples.is_empty() {
        return 0.0;
    }
    examples.iter().filter(|e| e.share_accepted() > x).count() as f64 / examples.len() as f64
}

/// Points of the Ω_x curve the site plots and the report lists: x = 0, 0.05, …, 0.95 (Ω at
/// x = 1 is always 0, as no share exceeds 1; Ω_0 is Ω_max).
pub const OMEGA_CURVE_POINTS: usize = 20;

/// The x values of the Ω_x curve, `k / 20` for k = 0..20.
pub fn omega_curve_x() -> Vec<f64> {
    (0..OMEGA_CURVE_POINTS)
        .map(|k| k as f64 / OMEGA_CURVE_POINTS as f64)
        .collect()
}

/// The Ω_x curve: `(x, Ω_x)` for every x of [`omega_curve_x`].
pub fn omega_curve(examples: &[PermutedExample]) -> Vec<(f64, f64)> {
    omega_curve_x()
        .into_iter()
        .map(|x| (x, omega(examples, x)))
        .collect()
}

/// Which permuted examples a figure of [`WordOrderMetrics`] is computed over: what a cell of
/// the word-order report lists when opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExampleSet {
    /// Every permuted example (`examples`, `accuracy`).
    All,
    /// Examples with at least one accepted permutation (`omega_max`, `entropy_accepted`).
    AnyAccepted,
    /// Examples accepting more than 1/m of their permutations (`omega_rand`).
    OverChance,
    /// D^c: every example right unpermuted (`p_c`).
    RightOriginally,
    /// D^c examples with at least one accepted permutation (`p_c_accepted_only`,
    /// `entropy_c`).
    RightOriginallyAccepting,
    /// D^f: examples wrong unpermuted with at least one accepted permutation (`p_f`,
    /// `entropy_f`).
    WrongOriginallyAccepting,
}

impl ExampleSet {
    /// The set behind a column of the `word_order` report section; `None` for columns that
    /// count no permuted example (`group`, `skipped`).
    pub fn of_column(column: &str) -> Option<ExampleSet> {
        Some(match column {
            "examples" | "accuracy" => ExampleSet::All,
            "omega_max" | "entropy_accepted" => ExampleSet::AnyAccepted,
            "omega_rand" => ExampleSet::OverChance,
            "p_c" => ExampleSet::RightOriginally,
            "p_c_accepted_only" | "entropy_c" => ExampleSet::RightOriginallyAccepting,
            "p_f" | "entropy_f" => ExampleSet::WrongOriginallyAccepting,
            _ => return None,
        })
    }

    /// Whether `e` is in the set; `labels` is m (3, or 2 for a two-way model).
    pub fn contains(self, e: &PermutedExample, labels: usize) -> bool {
        let any = e.permutations.iter().any(|p| p.0);
        match self {
            ExampleSet::All => true,
            ExampleSet::AnyAccepted => any,
            ExampleSet::OverChance => e.share_accepted() > 1.0 / labels.max(1) as f64,
            ExampleSet::RightOriginally => e.original_correct,
            ExampleSet::RightOriginallyAccepting => e.original_correct && any,
            ExampleSet::WrongOriginallyAccepting => !e.original_correct && any,
        }
    }

    /// The set in words, completing "examples …".
    pub fn description(self) -> &'static str {
        match self {
            ExampleSet::All => "with permutations",
            ExampleSet::AnyAccepted => "accepting at least one permutation (Ω_max)",
            ExampleSet::OverChance => "accepting more than 1/m of their permutations (Ω_rand)",
            ExampleSet::RightOriginally => "originally right (D^c)",
            ExampleSet::RightOriginallyAccepting => {
                "originally right that accept a permutation (D^c, ≥ 1 accepted)"
            }
            ExampleSet::WrongOriginallyAccepting => {
                "originally wrong that accept a permutation (D^f)"
            }
        }
    }
}

/// Each example's mean entropy over its accepted permutations, averaged over the examples
/// of `set` that have at least one; `None` when none has.
fn mean_entropy(set: &[&PermutedExample]) -> Option<f64> {
    let per_example: Vec<f64> = set
        .iter()
        .filter_map(|e| {
            let h: Vec<f64> = e
                .permutations
                .iter()
                .filter(|p| p.0)
                .map(|p| entropy(&p.1))
                .collect();
            mean(&h)
        })
        .collect();
    mean(&per_example)
}

/// Computes every metric. `labels` is m (3, or 2 for a two-way model); `thresholds` are extra
/// x values for Ω_x.
pub fn word_order_metrics(
    examples: &[PermutedExample],
    skipped: usize,
    labels: usize,
    thresholds: &[f64],
) -> WordOrderMetrics {
    let n = examples.len();
    let accuracy = if n == 0 {
        0.0
    } else {
        examples.iter().filter(|e| e.original_correct).count() as f64 / n as f64
    };
    let omega_max = if n == 0 {
        0.0
    } else {
        examples
            .iter()
            .filter(|e| e.permutations.iter().any(|p| p.0))
            .count() as f64
            / n as f64
    };
    let set = |s: ExampleSet| -> Vec<&PermutedExample> {
        examples.iter().filter(|e| s.contains(e, labels)).collect()
    };
    let d_c = set(ExampleSet::RightOriginally);
    let d_c_accepting = set(ExampleSet::RightOriginallyAccepting);
    let d_f = set(ExampleSet::WrongOriginallyAccepting);
    let share_mean =
        |s: &[&PermutedExample]| mean(&s.iter().map(|e| e.share_accepted()).collect::<Vec<_>>());
    let all: Vec<&PermutedExample> = examples.iter().collect();
    let mut bins: Vec<BleuBin> = BLEU_EDGES
        .windows(2)
        .map(|w| BleuBin {
            lo: w[0],
            hi: w[1],
            total: 0,
            accepted: 0,
            rate: None,
        })
        .collect();
    for e in examples {
        for p in &e.permutations {
            let k = bleu_bin(p.2);
            bins[k].total += 1;
            bins[k].accepted += usize::from(p.0);
        }
    }
    for b in &mut bins {
        b.rate = (b.total > 0).then(|| b.accepted as f64 / b.total as f64);
    }
    WordOrderMetrics {
        examples: n,
        skipped,
        accuracy,
        omega_max,
        omega_rand: omega(examples, 1.0 / labels.max(1) as f64),
        omega: thresholds
            .iter()
            .map(|&x| (x, omega(examples, x)))
            .collect(),
        p_c: share_mean(&d_c),
        p_c_accepted_only: share_mean(&d_c_accepting),
        p_f: share_mean(&d_f),
        mean_entropy_accepted: mean_entropy(&all),
        mean_entropy_c: mean_entropy(&d_c),
        mean_entropy_f: mean_entropy(&d_f),
        bleu_bins: bins,
    }
}

/// The per-example view of the word-order items of the run's examples in `group` (`None` =
/// every example), each with its position in `run.examples` (what the report's drill-down
/// needs to find the items of the examples a figure counts), and the number of those examples
/// skipped.
pub fn permuted_examples(
    run: &RunResult,
    group: Option<&Group>,
) -> (Vec<(usize, PermutedExample)>, usize) {
    let mut by_ex: BTreeMap<usize, PermutedExample> = BTreeMap::new();
    for it in run
        .items
        .iter()
        .filter(|it| it.probe == ProbeKind::WordOrder)
    {
        let Some(ex) = run.example_of(it).filter(|ex| in_group(group, ex)) else {
            continue;
        };
        let entry = by_ex.entry(it.example).or_insert_with(|| PermutedExample {
            original_correct: run.original_prediction(ex) == ex.gold,
            permutations: Vec::new(),
        });
        let probs = run
            .pairs
            .get(it.perturbed_pair)
            .map(|p| p.score.probs)
            .unwrap_or([0.0; 3]);
        entry.permutations.push((
            run.predicted(it.perturbed_pair) == ex.gold,
            probs,
            permutation_bleu(it),
        ));
    }
    // A skip names its example by id; ids of probed examples are unique (`#<index>` when
    // the dataset has none), so the id finds the example's split and categories.
    let skipped = run
        .skipped
        .iter()
        .filter(|s| s.probe == Some(ProbeKind::WordOrder))
        .filter(|s| {
            run.examples
                .iter()
                .find(|e| e.id == s.example)
                .is_some_and(|e| in_group(group, e))
        })
        .count();
    (by_ex.into_iter().collect(), skipped)
}

/// Word-order metrics of the run's examples in `group` (`None` = every example); a group
/// with neither permuted nor skipped examples has `examples` and `skipped` 0.
pub fn run_word_order_metrics(
    run: &RunResult,
    thresholds: &[f64],
    group: Option<&Group>,
) -> WordOrderMetrics {
    let (ex, skipped) = permuted_examples(run, group);
    let ex: Vec<PermutedExample> = ex.into_iter().map(|(_, e)| e).collect();
    of_run(
        run,
        word_order_metrics(&ex, skipped, run.model.label_set.labels().len(), thresholds),
    )
}

/// `m` as `run`'s model allows: without the entropies when it gave labels without
/// probabilities (a one-hot "probability" has entropy 0, which would be a false figure).
fn of_run(run: &RunResult, mut m: WordOrderMetrics) -> WordOrderMetrics {
    if run.model.label_only {
        m.mean_entropy_accepted = None;
        m.mean_entropy_c = None;
        m.mean_entropy_f = None;
    }
    m
}
