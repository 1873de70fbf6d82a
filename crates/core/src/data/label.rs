//! NLI labels (docs/data-formats.md#labels): the three canonical labels and the label sets a dataset can use.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// One NLI label. Two-way (TabFact) datasets use `Entail` for ENTAILED and `Contradict` for
/// REFUTED, so every metric speaks of the same three nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Label {
    /// The hypothesis follows from the premise.
    Entail,
    /// The premise neither supports nor refutes the hypothesis.
    Neutral,
    /// The premise refutes the hypothesis.
    Contradict,
}

/// The prefix of the message a bad label produces; the validator uses it to classify the problem.
pub(crate) const UNKNOWN_LABEL_PREFIX: &str = "unknown label";

impl Label {
    /// All labels in the canonical order used by tables and graphs.
    pub const ALL: [Label; 3] = [Label::Entail, Label::Neutral, Label::Contradict];

    /// The canonical name written in the product's dataset JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Entail => "ENTAIL",
            Label::Neutral => "NEUTRAL",
            Label::Contradict => "CONTRADICT",
        }
    }

    /// Parses the canonical name only (the product format is strict).
    pub fn from_canonical(name: &str) -> Option<Label> {
        Label::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// Maps the names other datasets and model configs use, case-insensitively (docs/data-formats.md#labels):
    /// `entailment`, `entail`, `E`, `entailed` → ENTAIL; `contradiction`, `contradict`, `C`,
    /// `refuted` → CONTRADICT; `neutral`, `N` → NEUTRAL.
    pub fn from_alias(name: &str) -> Option<Label> {
        match name.trim().to_ascii_lowercase().as_str() {
            "entailment" | "entail" | "e" | "entailed" => Some(Label::Entail),
            "contradiction" | "contradict" | "c" | "refuted" => Some(Label::Contradict),
            "neutral" | "n" => Some(Label::Neutral),
            _ => None,
        }
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Label::from_canonical(&name).ok_or_else(|| {
            let hint = Label::from_alias(&name)
                .map(|l| format!(" (did you mean {l}?)"))
                .unwrap_or_default();
            serde::de::Error::custom(format!(
                "{UNKNOWN_LABEL_PREFIX} {name:?}; expected one of ENTAIL, NEUTRAL, CONTRADICT{hint}"
            ))
        })
    }
}

/// Which labels a dataset uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LabelSet {
    /// ENTAIL / NEUTRAL / CONTRADICT (INFOTABS, MNLI, SNLI).
    #[default]
    ThreeWay,
    /// ENTAILED / REFUTED (TabFact), stored as ENTAIL / CONTRADICT; NEUTRAL is not allowed.
    TwoWay,
}

impl LabelSet {
    /// The labels this set allows, in canonical order.
    pub fn labels(self) -> &'static [Label] {
        match self {
            LabelSet::ThreeWay => &Label::ALL,
            LabelSet::TwoWay => &[Label::Entail, Label::Contradict],
        }
    }

    /// The name a person reads for `label` in this set (TabFact says ENTAILED / REFUTED).
    pub fn display_name(self, label: Label) -> &'static str {
        match (self, label) {
            (LabelSet::TwoWay, Label::Entail) => "ENTAILED",
            (LabelSet::TwoWay, Label::Contradict) => "REFUTED",
            (_, l) => l.as_str(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_map_case_insensitively() {
        for (name, want) in [
            ("entailment", Label::Entail),
            ("E", Label::Entail),
            ("Entailed", Label::Entail),
            ("REFUTED", Label::Contradict),
            ("c", Label::Contradict),
            ("contradiction", Label::Contradict),
            ("N", Label::Neutral),
            ("Neutral", Label::Neutral),
        ] {
            assert_eq!(Label::from_alias(name), Some(want), "{name}");
        }
        assert_eq!(Label::from_alias("maybe"), None);
    }

    #[test]
    fn canonical_is_strict_and_hints_aliases() {
        assert_eq!(
            serde_json::from_str::<Label>("\"CONTRADICT\"").ok(),
            Some(Label::Contradict)
        );
        let err = serde_json::from_str::<Label>("\"entailment\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown label \"entailment\""), "{err}");
        assert!(err.contains("did you mean ENTAIL?"), "{err}");
    }

    #[test]
    fn two_way_names() {
        assert_eq!(LabelSet::TwoWay.display_name(Label::Contradict), "REFUTED");
        assert_eq!(
            LabelSet::TwoWay.labels(),
            &[Label::Entail, Label::Contradict]
        );
        assert_eq!(LabelSet::ThreeWay.display_name(Label::Neutral), "NEUTRAL");
    }
}
