//! Hypothesis probes (SPEC §4.4, paper §4 and Table 2): edits of the hypothesis with the table
//! unchanged, over ENTAIL and CONTRADICT examples only (NEUTRAL needs table changes, §4 (a)).
//! Every item carries the edited span before/after, the expected label and its certainty.

use super::edit_table::KeyIndex;
use super::phrase::find_phrase;
use super::words::{format_number, is_year, numbers_in, parse_number, splice, words, Word};
use super::{Certainty, Edit, Expectation, Perturbation, Premise, ProbeInput, ProbeKind};
use crate::label::Label;
use crate::rng::Rng;
use crate::table::Table;

/// One example as the hypothesis probes see it.
#[derive(Debug, Clone, Copy)]
pub struct HypothesisContext<'a> {
    /// The premise, kept unchanged.
    pub premise: &'a Premise,
    /// The hypothesis to edit.
    pub hypothesis: &'a str,
    /// The gold label.
    pub gold: Label,
    /// Where keys occur across the dataset (for named-entity replacements).
    pub index: &'a KeyIndex,
}

impl HypothesisContext<'_> {
    fn table(&self) -> Option<&Table> {
        match self.premise {
            Premise::Table(t) => Some(t),
            _ => None,
        }
    }
}

fn flip(l: Label) -> Label {
    match l {
        Label::Entail => Label::Contradict,
        Label::Contradict => Label::Entail,
        Label::Neutral => Label::Neutral,
    }
}

fn span_item(
    ctx: &HypothesisContext,
    probe: ProbeKind,
    start: usize,
    end: usize,
    after: &str,
    expected: Label,
    certainty: Certainty,
) -> Perturbation {
    let h = ctx.hypothesis;
    Perturbation {
        probe,
        edit: Edit::HypothesisSpan {
            start,
            end,
            before: h[start..end].to_string(),
            after: after.to_string(),
        },
        perturbed: ProbeInput {
            premise: ctx.premise.clone(),
            hypothesis: splice(h, start, end, after),
        },
        expectation: Expectation::Label {
            labels: vec![expected],
        },
        certainty,
    }
}

/// Direction of a monotone word (Table 2): does a larger number keep ENTAIL?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Monotone {
    /// `over`, `more than`: larger keeps CONTRADICT, smaller keeps ENTAIL.
    Upward,
    /// `under`, `less than`: larger keeps ENTAIL, smaller keeps CONTRADICT.
    Downward,
    /// `before`: a later date keeps ENTAIL, an earlier one CONTRADICT.
    Before,
    /// `after`: a later date keeps CONTRADICT, an earlier one ENTAIL.
    After,
}

/// The monotone word governing the number at word `i`, if any.
fn monotone_before(ws: &[Word], i: usize) -> Option<Monotone> {
    let w = |k: usize| ws.get(k).map(|x| x.core.to_ascii_lowercase());
    let prev = if i >= 1 { w(i - 1) } else { None };
    let prev2 = if i >= 2 { w(i - 2) } else { None };
    match (prev2.as_deref(), prev.as_deref()) {
        (Some("more"), Some("than")) => Some(Monotone::Upward),
        (Some("less") | Some("fewer"), Some("than")) => Some(Monotone::Downward),
        (_, Some("over")) => Some(Monotone::Upward),
        (_, Some("under")) => Some(Monotone::Downward),
        (_, Some("before")) => Some(Monotone::Before),
        (_, Some("after")) => Some(Monotone::After),
        _ => None,
    }
}

/// Whether increasing the number keeps `gold` under `m`.
fn larger_keeps(m: Monotone, gold: Label) -> bool {
    match m {
        Monotone::Upward | Monotone::After => gold == Label::Contradict,
        Monotone::Downward | Monotone::Before => gold == Label::Entail,
    }
}

/// The number moved up or down: years by ten, other numbers twice / half (§4's large step).
fn moved(core: &str, x: f64, up: bool) -> String {
    if is_year(core) {
        format_number(if up { x + 10.0 } else { x - 10.0 })
    } else {
        format_number(if up { x * 2.0 } else { x / 2.0 })
    }
}

/// Numbers under a monotone word (Table 2): the label-preserving direction (certain) and the
/// opposite direction by a large step (a heuristic flip that needs review).
pub fn monotone_numbers(ctx: &HypothesisContext) -> Vec<Perturbation> {
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let ws = words(ctx.hypothesis);
    let mut out = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let (Some(x), Some(m)) = (parse_number(w.core), monotone_before(&ws, i)) else {
            continue;
        };
        if x == 0.0 {
            continue; // doubling or halving zero changes nothing
        }
        let up_keeps = larger_keeps(m, ctx.gold);
        let keep = moved(w.core, x, up_keeps);
        let flipped = moved(w.core, x, !up_keeps);
        out.push(span_item(
            ctx,
            ProbeKind::MonotoneNumber,
            w.start,
            w.end,
            &keep,
            ctx.gold,
            Certainty::Certain,
        ));
        out.push(span_item(
            ctx,
            ProbeKind::MonotoneNumber,
            w.start,
            w.end,
            &flipped,
            flip(ctx.gold),
            Certainty::Heuristic,
        ));
    }
    out
}

/// Numbers and dates without a monotone word, moved by ten (`46 minutes` → `56`, `1979` →
/// `1989`). ENTAIL → CONTRADICT, certain when a table cell holds the number; on CONTRADICT
/// examples the label is kept, heuristically.
pub fn plain_numbers(ctx: &HypothesisContext) -> Vec<Perturbation> {
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let table_numbers: Vec<f64> = ctx
        .table()
        .map(table_text)
        .map(|t| numbers_in(&t))
        .unwrap_or_default();
    let ws = words(ctx.hypothesis);
    let mut out = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let Some(x) = parse_number(w.core) else {
            continue;
        };
        if monotone_before(&ws, i).is_some() {
            continue;
        }
        let after = format_number(x + 10.0);
        let (expected, certainty) = match ctx.gold {
            Label::Entail if table_numbers.contains(&x) => (Label::Contradict, Certainty::Certain),
            Label::Entail => (Label::Contradict, Certainty::Heuristic),
            _ => (Label::Contradict, Certainty::Heuristic),
        };
        out.push(span_item(
            ctx,
            ProbeKind::PlainNumber,
            w.start,
            w.end,
            &after,
            expected,
            certainty,
        ));
    }
    out
}

fn table_text(t: &Table) -> String {
    match t {
        Table::KeyValue(t) => t
            .rows
            .iter()
            .flat_map(|r| r.values.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        Table::Relational(t) => t
            .rows
            .iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Named entities: a span of the hypothesis equal to a value of the example's own table is
/// replaced by a value of the same key from another table (one the table does not hold):
/// ENTAIL → CONTRADICT, certain. The table tells us the span's type (§4's parser step).
pub fn named_entities(ctx: &HypothesisContext, rng: &mut Rng) -> Vec<Perturbation> {
    let Some(Table::KeyValue(t)) = ctx.table() else {
        return Vec::new();
    };
    if ctx.gold != Label::Entail {
        return Vec::new();
    }
    let own: Vec<&String> = t.rows.iter().flat_map(|r| &r.values).collect();
    let mut out = Vec::new();
    let mut used: Vec<(usize, usize)> = Vec::new();
    for row in &t.rows {
        for v in &row.values {
            let v = v.trim();
            // Numbers belong to the number probes; very short values match by accident.
            if v.chars().count() < 3 || parse_number(v).is_some() {
                continue;
            }
            let Some((s, e)) = find_phrase(ctx.hypothesis, v) else {
                continue;
            };
            if used.iter().any(|&(a, b)| s < b && a < e) {
                continue;
            }
            let pool: Vec<&String> = ctx
                .index
                .keys
                .get(&row.key)
                .map(|srcs| {
                    srcs.iter()
                        .filter(|(id, _)| id != &t.id)
                        .flat_map(|(_, vs)| vs)
                        .filter(|x| !own.contains(x) && !x.trim().eq_ignore_ascii_case(v))
                        .collect()
                })
                .unwrap_or_default();
            if pool.is_empty() {
                continue;
            }
            let after = pool[rng.below(pool.len())].trim().to_string();
            used.push((s, e));
            out.push(span_item(
                ctx,
                ProbeKind::NamedEntity,
                s,
                e,
                &after,
                Label::Contradict,
                Certainty::Certain,
            ));
        }
    }
    out
}

const AUXILIARIES: [&str; 16] = [
    "is", "was", "are", "were", "has", "have", "had", "did", "does", "do", "can", "could", "will",
    "would", "should", "must",
];

/// Negation at the first auxiliary: insert `not`, or remove `not` / `n't`. ENTAIL →
/// CONTRADICT is certain; CONTRADICT → ENTAIL needs review (§4: annotated manually).
pub fn negation(ctx: &HypothesisContext) -> Vec<Perturbation> {
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let expected = flip(ctx.gold);
    let certainty = if ctx.gold == Label::Entail {
        Certainty::Certain
    } else {
        Certainty::Heuristic
    };
    let ws = words(ctx.hypothesis);
    for (i, w) in ws.iter().enumerate() {
        let lower = w.core.to_ascii_lowercase();
        if let Some(stem) = lower.strip_suffix("n't") {
            if AUXILIARIES.contains(&stem) || stem == "ca" || stem == "wo" {
                // `isn't` → `is`; `can't`/`won't` → `can`/`will`.
                let after = match stem {
                    "ca" => "can".to_string(),
                    "wo" => "will".to_string(),
                    _ => w.core[..w.core.len() - 3].to_string(),
                };
                return vec![span_item(
                    ctx,
                    ProbeKind::Negation,
                    w.start,
                    w.end,
                    &after,
                    expected,
                    certainty,
                )];
            }
        }
        if !AUXILIARIES.contains(&lower.as_str()) {
            continue;
        }
        let next = ws.get(i + 1);
        if let Some(n) = next.filter(|n| n.core.eq_ignore_ascii_case("not")) {
            // Remove ` not` with the space before it.
            return vec![span_item(
                ctx,
                ProbeKind::Negation,
                w.end,
                n.end,
                "",
                expected,
                certainty,
            )];
        }
        // `has 6 tracks` would read `has not 6 tracks`: only negate has/have/had as auxiliaries.
        if matches!(lower.as_str(), "has" | "have" | "had")
            && !next.is_some_and(|n| {
                let c = n.core.to_ascii_lowercase();
                c == "been" || c.ends_with("ed") || c.ends_with("en")
            })
        {
            continue;
        }
        return vec![span_item(
            ctx,
            ProbeKind::Negation,
            w.end,
            w.end,
            " not",
            expected,
            certainty,
        )];
    }
    Vec::new()
}

/// Nominal modifiers: a true single-valued fact of the table attached to the title mention
/// (`Breakfast in America, whose label is A&M, is …`): label-preserving, certain.
pub fn nominal_modifiers(ctx: &HypothesisContext, rng: &mut Rng) -> Vec<Perturbation> {
    let Some(Table::KeyValue(t)) = ctx.table() else {
        return Vec::new();
    };
    if ctx.gold == Label::Neutral {
        return Vec::new();
    }
    let Some((_, e)) = find_phrase(ctx.hypothesis, t.title.trim()) else {
        return Vec::new();
    };
    let facts: Vec<(&str, &str)> = t
        .rows
        .iter()
        .filter(|r| r.values.len() == 1 && !r.key.trim().is_empty())
        .map(|r| (r.key.trim(), r.values[0].trim()))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    if facts.is_empty() {
        return Vec::new();
    }
    let (k, v) = facts[rng.below(facts.len())];
    let modifier = format!(", whose {} is {},", k.to_lowercase(), v);
    vec![span_item(
        ctx,
        ProbeKind::NominalModifier,
        e,
        e,
        &modifier,
        ctx.gold,
        Certainty::Certain,
    )]
}

/// Quantifiers: `all`/`every`/`most`/`many` → `some` keeps ENTAIL; `some`/`many`/`most` →
/// `all` keeps CONTRADICT; `no` → `some` flips the label. These follow from the quantifiers'
/// monotonicity when the restrictor is non-empty, which INFOTABS hypotheses assume; marked
/// certain. Nothing else is generated.
pub fn quantifiers(ctx: &HypothesisContext) -> Vec<Perturbation> {
    let mut out = Vec::new();
    for w in words(ctx.hypothesis) {
        let lower = w.core.to_ascii_lowercase();
        let (after, expected) = match (ctx.gold, lower.as_str()) {
            (Label::Entail, "all" | "every" | "most" | "many") => ("some", Label::Entail),
            (Label::Contradict, "some" | "many" | "most") => ("all", Label::Contradict),
            (Label::Entail | Label::Contradict, "no") => ("some", flip(ctx.gold)),
            _ => continue,
        };
        let after = if w.core.starts_with(char::is_uppercase) {
            let mut c = after.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        } else {
            after.to_string()
        };
        out.push(span_item(
            ctx,
            ProbeKind::Quantifier,
            w.start,
            w.end,
            &after,
            expected,
            Certainty::Certain,
        ));
    }
    out
}
