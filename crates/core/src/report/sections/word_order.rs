//! Word order (UNLI §4): the summary per group, acceptance by BLEU-2 bin and the Ω_x curve,
//! the last two laid out from the same figures the site draws.

use crate::metrics::{
    groups, omega_curve_x, run_word_order_metrics, ExampleSet, Group, WordOrderMetrics,
};
use crate::report::{
    frac, num, opt, pct, ItemSelector, Marked, Row, Section, SectionId, WordOrderFigures, ALL,
};
use crate::run::RunResult;

fn word_order_row(group: &str, m: &WordOrderMetrics) -> Vec<String> {
    vec![
        group.to_string(),
        m.examples.to_string(),
        m.skipped.to_string(),
        pct(m.accuracy),
        pct(m.omega_max),
        pct(m.omega_rand),
        opt(m.p_c, pct),
        opt(m.p_c_accepted_only, pct),
        opt(m.p_f, pct),
        opt(m.mean_entropy_accepted, frac),
        opt(m.mean_entropy_c, frac),
        opt(m.mean_entropy_f, frac),
    ]
}

pub(crate) fn word_order_sections(run: &RunResult) -> Vec<Section> {
    let mut s = Section::new(
        SectionId::WordOrder,
        "Word order (UNLI §4) — % of examples (entropy in nats)",
        &[
            "group",
            "examples",
            "skipped",
            "accuracy",
            "omega_max",
            "omega_rand",
            "p_c",
            "p_c_accepted_only",
            "p_f",
            "entropy_accepted",
            "entropy_c",
            "entropy_f",
        ],
    );
    s.notes.push(
        "p_c: P^c of UNLI Eq. 3, the mean share of accepted permutations over all originally right examples (D^c); \
         p_c_accepted_only: the same over D^c examples with at least one accepted permutation (UNLU's released code), not P^c; \
         p_f: P^f over D^f, the originally wrong examples with at least one accepted permutation"
            .to_string(),
    );
    s.notes.push(
        "entropy in nats: each example's mean over its accepted permutations, averaged over the examples with at least one"
            .to_string(),
    );
    if run.model.label_only {
        s.notes.push(
            "entropy: n/a — the model's scores file gives some pairs a label without probabilities (docs/scoring-elsewhere.md#what-label-only-scores-cannot-show)"
                .to_string(),
        );
    }
    let mut bleu = Section::new(
        SectionId::WordOrderBleu,
        "Word order — acceptance by BLEU-2 of the permutation (UNLI Figure 3)",
        &[
            "group",
            "bleu2_from",
            "bleu2_to",
            "permutations",
            "accepted",
            "rate",
        ],
    );
    let mut curve = Section::new(
        SectionId::WordOrderOmega,
        "Word order — Ω_x curve: share of examples giving the gold label to more than x of their permutations (UNLI Eq. 2, Figure 8)",
        &["group", "x", "omega_x"],
    );
    curve
        .notes
        .push("x = 0 is Ω_max; the site's Ω_x chart plots the same points".to_string());
    // Each column of the summary is computed over its own set of examples (ExampleSet), so
    // each cell carries its own items.
    let header = s.header.clone();
    let mut add = |name: &str, group: Option<Group>, m: &WordOrderMetrics| {
        let mut row = Row::new(word_order_row(name, m));
        row.cell_items = header
            .iter()
            .enumerate()
            .filter_map(|(i, column)| {
                let set = ExampleSet::of_column(column)?;
                let group = group.clone();
                Some((i, ItemSelector::WordOrder { group, set }))
            })
            .collect();
        s.rows.push(row);
        let figures = WordOrderFigures::of(m, group.as_ref());
        for Marked { value: p, items } in figures.omega {
            curve
                .rows
                .push(Row::new(vec![name.to_string(), num(p.x), pct(p.omega)]).counting(items));
        }
        for Marked { value: b, items } in figures.bleu {
            let cells = vec![
                name.to_string(),
                num(b.lo),
                num(b.hi),
                b.total.to_string(),
                b.accepted.to_string(),
                opt(b.rate, pct),
            ];
            bleu.rows.push(Row::new(cells).counting(items));
        }
    };
    let xs = omega_curve_x();
    add(ALL, None, &run_word_order_metrics(run, &xs, None));
    // Groups with neither permuted nor skipped examples are left out.
    for g in groups(run) {
        let m = run_word_order_metrics(run, &xs, Some(&g));
        if m.examples > 0 || m.skipped > 0 {
            add(&g.label(), Some(g), &m);
        }
    }
    vec![s, bleu, curve]
}
