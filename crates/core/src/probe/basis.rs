//! Why an item's expectation is certain, or what a reviewer has to decide when it is not
//! (docs/probes-and-metrics.md#why-an-item-is-certain): one typed reason per item, shown in
//! one line wherever the item's expected label is shown (item lists, the probe-item panel,
//! share links).

use serde::{Deserialize, Serialize};

use super::Certainty;

/// The rule that made an item's expectation certain, or the question a reviewer must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    // --- certain ---
    /// Table probes: the model's own transition is judged by the operation's rule.
    TransitionRule,
    /// A counterfactual shipped with the dataset: its author's label.
    ShippedLabel,
    /// A counterfactual table made from the human-annotated relevant rows.
    RelevantRowsMoved,
    /// Title swap: the title and the hypothesis's title mention change together.
    TitleMoved,
    /// Word order: the premise's facts are unchanged, so the gold label stands.
    WordOrder,
    /// Monotone number moved the way its bound keeps the claim's truth.
    Bound,
    /// Plain number: a number the table holds, moved by ten, in a plain claim.
    FactFalsified,
    /// Named entity: a single-valued row's value, not the sentence's subject, replaced by
    /// another value of that key from a table of the same kind.
    EntityReplaced,
    /// Negation of the main claim's auxiliary.
    ClaimNegated,
    /// Nominal modifier: a true single-valued fact of the table attached to the title.
    TrueFactAdded,
    // --- heuristic: what a reviewer decides ---
    /// A quantifier replaced along its monotonicity: heuristic, since whether the word is a
    /// determiner and the result English is beyond word shapes (issue 43's adjudications).
    QuantifierMonotone,
    /// Counterfactual rows chosen by the hypothesis's words, not by annotated relevance.
    RowsGuessed,
    /// Monotone number moved against its bound: does the new number pass the true value?
    ReverseStep,
    /// A closeness word or another negation around the bound.
    BoundUnclear,
    /// `over` before a duration may mean "throughout" (`took place over 16 days`).
    Duration,
    /// A negation in the sentence: its scope decides the label.
    Negated,
    /// A hedge (`since`, `about`, `between`, a range's end) around the number.
    Hedged,
    /// No table cell holds the number.
    NumberNotInTable,
    /// The number is part of a name (`the 2016 Olympics`).
    NumberInName,
    /// The number counts a ranked set (`the first 20 elements`).
    RankedSet,
    /// A year that indexes a figure (`deaths in 2018`), not the date of an event.
    YearAsIndex,
    /// A quantity in the sentence may be a total over all of the quantified things.
    Collective,
    /// The number restricts the subject (`Consoles with 128 bytes of RAM …`).
    RestrictsSubject,
    /// A number under `before`/`after` that is not a year.
    NotAYear,
    /// The hypothesis was false already: does it stay false?
    AlreadyFalse,
    /// The swapped span is what the sentence is about: it may now describe another entity.
    Subject,
    /// A name row (birth name, also known as): the new name may be another entity's.
    NameRow,
    /// A value of a list row: is the replacement a synonym, or is the list open?
    ListRow,
    /// The replacement comes from a table of another kind: does the key mean the same?
    OtherKindOfTable,
    /// The sentence does not state the row's relation in words: another value may be true.
    OtherRelation,
    /// The replacement shares words with the table or the hypothesis.
    Overlaps,
    /// An existential subject or a subordinate clause before the auxiliary.
    WeakSubject,
    /// Another verb follows: the auxiliary may belong to a relative clause.
    RelativeClause,
    /// A negated count: exactly, or at least?
    CountNegated,
    /// CONTRADICT → ENTAIL by negation (the paper annotates these by hand).
    FlipToEntail,
    /// `no` → `some`: the flip holds only when the `no` phrase carries the claim.
    NoToSome,
    /// A negation in an earlier clause may or may not scope over the quantifier.
    EarlierNegation,
}

impl Basis {
    /// Whether this basis makes an item certain.
    pub fn certainty(self) -> Certainty {
        use Basis::*;
        match self {
            TransitionRule | ShippedLabel | RelevantRowsMoved | TitleMoved | WordOrder | Bound
            | FactFalsified | EntityReplaced | ClaimNegated | TrueFactAdded => Certainty::Certain,
            _ => Certainty::Heuristic,
        }
    }

    /// One line for the item: the rule (certain) or the reviewer's question (heuristic).
    pub fn line(self) -> &'static str {
        use Basis::*;
        match self {
            TransitionRule => "certain: the model's own transition is judged by the operation's validity rule",
            ShippedLabel => "certain: a counterfactual shipped with the dataset, judged by its author's label",
            RelevantRowsMoved => "certain: the annotated relevant rows move with the hypothesis, so the label stays",
            TitleMoved => "certain: the table's title and the hypothesis's mention of it change together, so the label stays",
            WordOrder => "certain: only word order changed, and the paper expects the gold label to stand",
            Bound => "certain: the number sits under a bound (over, at least, before …) and moves the way that keeps the claim's truth",
            FactFalsified => "certain: a number the table holds, moved by ten in a plain claim with no hedge or negation, makes the claim false",
            EntityReplaced => "certain: a single-valued row's value (not the sentence's subject) replaced by another table's value of the same kind makes the claim false",
            ClaimNegated => "certain: the main claim's auxiliary negated, with no other negation, count or subordinate clause around it",
            TrueFactAdded => "certain: a true single-valued fact of the table attached to the title leaves the claim's truth unchanged",
            QuantifierMonotone => "review: a quantifier replaced along its monotonicity (all → some keeps truth) — is it a determiner here, and is the sentence still English?",
            RowsGuessed => "review: the moved rows were chosen from the hypothesis's words, not annotated relevance — are they the evidence?",
            ReverseStep => "review: the number moved against its bound — does the new number pass the true value?",
            BoundUnclear => "review: a closeness word or another negation around the bound — which way does it point?",
            Duration => "review: 'over' before a duration may mean 'throughout', not 'more than'",
            Negated => "review: a negation in the sentence — does it scope over the edited words?",
            Hedged => "review: a hedge (since, about, between, a range's end) — is the number still a plain fact?",
            NumberNotInTable => "review: no table cell holds this number — does moving it make the claim false?",
            NumberInName => "review: the number is part of a name — does the new name denote another entity?",
            RankedSet => "review: the number counts a ranked set (the first 20) — a larger one may keep the claim true",
            YearAsIndex => "review: the year indexes a figure rather than dating an event — does the table say anything about the new year?",
            Collective => "review: a quantity in the sentence may be a total over all of them — is it true of some?",
            RestrictsSubject => "review: the number restricts the sentence's subject — is the new sentence about other things the table does not describe?",
            NotAYear => "review: a number under before/after that is not a year — is it still a bound?",
            AlreadyFalse => "review: the hypothesis was false already — does it stay false?",
            Subject => "review: the swapped words are what the sentence is about — it may now describe another entity (NEUTRAL)",
            NameRow => "review: a name row's value swapped — the new name may belong to another entity (NEUTRAL)",
            ListRow => "review: a list row's value swapped — is the replacement a synonym, or is the list open?",
            OtherKindOfTable => "review: the replacement comes from a table of another kind — does the key mean the same there?",
            OtherRelation => "review: the sentence relates the value by other words than the row's key — is another value really false?",
            Overlaps => "review: the replacement shares words with the table or the sentence — is the claim still true?",
            WeakSubject => "review: an existential subject or a subordinate clause — does negating the auxiliary negate the claim?",
            RelativeClause => "review: another verb follows — the negated auxiliary may belong to a relative clause",
            CountNegated => "review: a negated count — read as exactly or as at least?",
            FlipToEntail => "review: CONTRADICT → ENTAIL by negation — the paper annotates these by hand",
            NoToSome => "review: 'no' → 'some' flips the label only when the 'no' phrase carries the claim (not inside an 'or …')",
            EarlierNegation => "review: a negation in an earlier clause — does it scope over the quantifier?",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certain_lines_say_certain_and_heuristic_lines_ask() {
        for b in [Basis::Bound, Basis::EntityReplaced, Basis::TransitionRule] {
            assert_eq!(b.certainty(), Certainty::Certain);
            assert!(b.line().starts_with("certain: "));
        }
        for b in [Basis::Subject, Basis::Duration, Basis::CountNegated] {
            assert_eq!(b.certainty(), Certainty::Heuristic);
            assert!(b.line().starts_with("review: "));
        }
    }
}
