//! The results' vocabulary, defined once: the paper's shorthand (C-THP, Ω_max, P^c, …) that
//! the report's column headers and row names use, each with a one-line explanation and the
//! docs anchor of its longer definition, and the unit every column's numbers are in.
//!
//! The site shows a term's line as a tooltip (on hover and keyboard focus) with a link to its
//! definition; the "Glossary" section of docs/probes-and-metrics.md carries the same lines under the same anchors
//! (a test checks that they agree), so a reader never needs the paper in hand.

/// What a column's numbers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A share of 0–100, shown with `%` (every share in the report is a percentage).
    Percent,
    /// A count, a name, a coefficient (κ), nats or a BLEU score: no sign.
    Plain,
}

/// One shorthand term of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// How the term is written for people (`C-THP`, `Ω_max`).
    pub name: &'static str,
    /// The header cells and row names it explains, as the report writes them.
    pub keys: &'static [&'static str],
    /// Its anchor in the docs' glossary and the site's copy of it (`glossary-c-thp`).
    pub anchor: &'static str,
    /// The one-line explanation.
    pub line: &'static str,
}

/// Every shorthand term the results view shows, in reading order.
pub const GLOSSARY: &[Term] = &[
    Term {
        name: "C-THP",
        keys: &["c_thp"],
        anchor: "glossary-c-thp",
        line: "Counterfactual, Table + Hypothesis, Prediction: whether the full model is right on the counterfactual (edited) table.",
    },
    Term {
        name: "O-THP",
        keys: &["o_thp"],
        anchor: "glossary-o-thp",
        line: "Original, Table + Hypothesis, Prediction: whether the full model is right on the original table.",
    },
    Term {
        name: "O-Hypo",
        keys: &["o_hypo"],
        anchor: "glossary-o-hypo",
        line: "Original, Hypothesis only: whether the model that sees no table (a hypothesis-only model, or the model with an empty premise) is right on the original.",
    },
    Term {
        name: "in paper",
        keys: &["in_paper"],
        anchor: "glossary-in-paper",
        line: "yes when this right/wrong combination is one of the four rows the paper's Table 8 reports.",
    },
    Term {
        name: "prem+hypo / hypo-only",
        keys: &["model"],
        anchor: "glossary-views",
        line: "Which view scored the items: prem+hypo is the model on table and hypothesis; hypo-only view is the same model with an empty premise; hypo-only model a second, hypothesis-only model.",
    },
    Term {
        name: "original / preserved / flipped",
        keys: &[
            "original_n",
            "original_mean",
            "original_sd",
            "preserved_n",
            "preserved_mean",
            "preserved_sd",
            "flipped_n",
            "flipped_mean",
            "flipped_sd",
        ],
        anchor: "glossary-preserved-flipped",
        line: "Accuracy on the original examples, on perturbed items whose label should stay (preserved) and on items whose label should change (flipped); mean and sd over 100 samples of 80%, n items.",
    },
    Term {
        name: "left out",
        keys: &["heuristic_left_out", "rejected_left_out", "neutral_left_out"],
        anchor: "glossary-left-out",
        line: "Items the table did not count: heuristic items nobody reviewed, items a reviewer rejected, items of NEUTRAL examples (the paper leaves NEUTRAL out).",
    },
    Term {
        name: "before / mean (invalid transitions)",
        keys: &["before", "mean"],
        anchor: "glossary-invalid",
        line: "Of the items the model predicted this label for before the edit, the % whose label after the edit the rule forbids; mean is over the splits.",
    },
    Term {
        name: "valid / INVALID",
        keys: &["valid"],
        anchor: "glossary-valid",
        line: "Whether the rule of the operation allows this before → after transition (red edges in the graph are invalid).",
    },
    Term {
        name: "pooled",
        keys: &["pooled"],
        anchor: "glossary-pooled",
        line: "Every split's items together, as one graph.",
    },
    Term {
        name: "precision / recall",
        keys: &["precision", "recall"],
        anchor: "glossary-precision-recall",
        line: "Rows the model relies on (deleting them changes its prediction) against the rows people marked relevant: precision = % of the model's rows that are relevant, recall = % of relevant rows the model relies on.",
    },
    Term {
        name: "all / some / none",
        keys: &["all", "some", "none"],
        anchor: "glossary-all-some-none",
        line: "% of examples where the model relies on all, some or none of the relevant rows.",
    },
    Term {
        name: "ignores premise within none",
        keys: &["ignores_premise_within_none"],
        anchor: "glossary-ignores-premise-within-none",
        line: "Of the examples in 'none', the % where no row deletion changes the prediction at all.",
    },
    Term {
        name: "ignores premise",
        keys: &["ignores_premise"],
        anchor: "glossary-ignores-premise",
        line: "% of examples (or, per example, yes/no) where no row deletion changes the prediction.",
    },
    Term {
        name: "correct all / some / none",
        keys: &["correct_all", "correct_some", "correct_none", "correct"],
        anchor: "glossary-correct",
        line: "Right on the original and relying on all, some or none of the relevant rows (% of all examples; per example: right or not).",
    },
    Term {
        name: "incomplete",
        keys: &["incomplete", "rows_deleted"],
        anchor: "glossary-incomplete",
        line: "Examples whose rows were not all deleted (a cap or a cancel): a relevant row may never have been tested, so they enter no figure.",
    },
    Term {
        name: "human rows / model rows / uses",
        keys: &["human_rows", "model_rows", "uses"],
        anchor: "glossary-evidence-rows",
        line: "The rows people marked relevant, the rows whose deletion changes the model's prediction (key and 1-based row number), and whether the model uses all, some or none of the relevant ones.",
    },
    Term {
        name: "Fleiss' κ",
        keys: &[
            "fleiss_kappa",
            "kappa_per_example_mean",
            "kappa_per_example_sd",
            "kappa_per_example_n",
        ],
        anchor: "glossary-kappa",
        line: "Agreement of the annotators' relevant-row marks beyond chance (1 = perfect, 0 = chance); pooled, then the mean ± sd of each example's own κ over n examples.",
    },
    Term {
        name: "3+ annotators",
        keys: &["examples_3plus", "same_rows_3plus"],
        anchor: "glossary-three-annotators",
        line: "Examples with at least 3 annotators, and the % of them where at least 3 marked exactly the same rows.",
    },
    Term {
        name: "𝒜 (accuracy)",
        keys: &["accuracy"],
        anchor: "glossary-accuracy",
        line: "% of the original examples the model labels correctly.",
    },
    Term {
        name: "Ω_max",
        keys: &["omega_max"],
        anchor: "glossary-omega-max",
        line: "% of examples where at least one word-order permutation still gets the gold label (UNLI).",
    },
    Term {
        name: "Ω_rand",
        keys: &["omega_rand"],
        anchor: "glossary-omega-rand",
        line: "% of examples accepting more than 1/3 of their permutations, more than a random guess would (UNLI).",
    },
    Term {
        name: "Ω_x",
        keys: &["omega_x", "x"],
        anchor: "glossary-omega-x",
        line: "% of examples giving the gold label to more than a share x of their permutations (x = 0 is Ω_max).",
    },
    Term {
        name: "P^c",
        keys: &["p_c", "p_c_accepted_only"],
        anchor: "glossary-p-c",
        line: "Over the examples the model gets right (D^c), the mean % of their permutations it still gets right (UNLI Eq. 3); 'accepted only' keeps the examples accepting at least one.",
    },
    Term {
        name: "P^f",
        keys: &["p_f"],
        anchor: "glossary-p-f",
        line: "Over the examples the model gets wrong (D^f) with an accepted permutation, the mean % of their permutations that get the gold label.",
    },
    Term {
        name: "entropy",
        keys: &["entropy_accepted", "entropy_c", "entropy_f"],
        anchor: "glossary-entropy",
        line: "Mean entropy (nats) of the model's probabilities on accepted permutations: low means confident; _c over D^c, _f over D^f.",
    },
    Term {
        name: "BLEU-2",
        keys: &["bleu2_from", "bleu2_to", "rate"],
        anchor: "glossary-bleu2",
        line: "How close a permutation is to the original word order (BLEU on word pairs, 0–1); rate is the % of permutations in the bin that get the gold label.",
    },
    Term {
        name: "hypothesis only / majority baseline",
        keys: &["hypothesis_only", "majority_label", "majority_baseline"],
        anchor: "glossary-table1",
        line: "Accuracy without the table, and the % the split's most frequent gold label would score by always answering it.",
    },
];

/// Column headers and row names that need no explanation (plain words and counts).
pub const PLAIN: &[&str] = &[
    "group",
    "probe",
    "split",
    "from",
    "to",
    "count",
    "examples",
    "items",
    "annotators",
    "skipped",
    "permutations",
    "accepted",
    "example",
    "field",
    "value",
    "percent",
];

/// The term explaining a header cell or row name, if it is shorthand. Row names of a
/// group (`split:dev`, `category:numerical`) and probe names are not shorthand.
pub fn term(key: &str) -> Option<&'static Term> {
    GLOSSARY.iter().find(|t| t.keys.contains(&key))
}

/// The unit of column `header` of the report section written to `<file>.csv`: every share
/// is a percentage. The invalid-transition tables' split columns are percentages too.
pub fn unit(file: &str, header: &str) -> Unit {
    const PERCENT: &[&str] = &[
        "original_mean",
        "original_sd",
        "preserved_mean",
        "preserved_sd",
        "flipped_mean",
        "flipped_sd",
        "percent",
        "precision",
        "recall",
        "all",
        "some",
        "none",
        "ignores_premise_within_none",
        "correct_all",
        "correct_some",
        "correct_none",
        "same_rows_3plus",
        "accuracy",
        "hypothesis_only",
        "majority_baseline",
        "omega_max",
        "omega_rand",
        "omega_x",
        "p_c",
        "p_c_accepted_only",
        "p_f",
        "rate",
    ];
    // In the summary the share of examples ignoring the premise; per example a yes/no.
    if header == "ignores_premise" {
        return if file == "evidence" {
            Unit::Percent
        } else {
            Unit::Plain
        };
    }
    let split_column = file.starts_with("invalid_") && header != "group" && header != "before";
    if split_column || PERCENT.contains(&header) {
        Unit::Percent
    } else {
        Unit::Plain
    }
}

/// A cell as people read it: a number in a percentage column gets its `%`; an empty cell
/// stays empty.
pub fn with_unit(file: &str, header: &str, cell: &str) -> String {
    if unit(file, header) == Unit::Percent && cell.parse::<f64>().is_ok() {
        format!("{cell}%")
    } else {
        cell.to_string()
    }
}
