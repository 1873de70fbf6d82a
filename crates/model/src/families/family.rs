//! Which architecture a checkpoint is: read from `config.json`'s `model_type` (or, when that
//! is absent, its `architectures`), before anything else in the file is trusted.

use serde::Deserialize;

use crate::error::LoadError;

/// A supported `…ForSequenceClassification` family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Family {
    /// `roberta` (and `camembert`): positions counted after the padding id, head on `<s>`.
    #[default]
    Roberta,
    /// `xlm-roberta`: RoBERTa's network under another name (and a SentencePiece vocabulary).
    XlmRoberta,
    /// `bert`: positions from 0, token types for the pair, pooler `dense → tanh` on `[CLS]`.
    Bert,
    /// `electra`: BERT's encoder, embeddings projected when narrower, head `dense → gelu`.
    Electra,
    /// `distilbert`: no token types, head `pre_classifier → ReLU → classifier`.
    DistilBert,
    /// `deberta-v2` (DeBERTa-v2 and v3): disentangled attention over relative positions.
    DebertaV2,
    /// `bart`: encoder–decoder; the head reads the decoder's state at the last `</s>`.
    Bart,
}

/// `model_type` values this crate runs, for error messages.
pub const SUPPORTED: &str =
    "roberta, xlm-roberta, camembert, bert, electra, distilbert, deberta-v2 (DeBERTa-v2/v3), bart";

/// The two keys that name the architecture.
#[derive(Deserialize)]
struct Names {
    #[serde(default)]
    model_type: Option<String>,
    #[serde(default)]
    architectures: Option<Vec<String>>,
}

impl Family {
    /// The family of a `config.json`. A config without `model_type` is named by its first
    /// `architectures` entry; one with neither is taken for RoBERTa (older tabprobe configs).
    pub fn detect(config_json: &[u8]) -> Result<Self, LoadError> {
        let names: Names = serde_json::from_slice(config_json)
            .map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        let architecture = names
            .architectures
            .as_ref()
            .and_then(|a| a.first())
            .cloned();
        let key = match (&names.model_type, &architecture) {
            (Some(t), _) => t.clone(),
            (None, Some(a)) => Self::model_type_of_class(a).unwrap_or(a).to_string(),
            (None, None) => return Ok(Self::Roberta),
        };
        Self::from_model_type(&key).ok_or_else(|| LoadError::UnsupportedArchitecture {
            found: match architecture {
                Some(a) if names.model_type.is_some() => format!("model_type {key:?} ({a})"),
                _ => format!("{key:?}"),
            },
            supported: SUPPORTED.to_string(),
        })
    }

    fn from_model_type(model_type: &str) -> Option<Self> {
        Some(match model_type {
            "roberta" | "camembert" => Self::Roberta,
            "xlm-roberta" => Self::XlmRoberta,
            "bert" => Self::Bert,
            "electra" => Self::Electra,
            "distilbert" => Self::DistilBert,
            "deberta-v2" => Self::DebertaV2,
            "bart" => Self::Bart,
            _ => return None,
        })
    }

    /// `model_type` of a `transformers` class name such as `BertForSequenceClassification`.
    fn model_type_of_class(class: &str) -> Option<&'static str> {
        [
            ("XLMRoberta", "xlm-roberta"),
            ("Camembert", "camembert"),
            ("Roberta", "roberta"),
            ("DistilBert", "distilbert"),
            ("Bert", "bert"),
            ("Electra", "electra"),
            ("DebertaV2", "deberta-v2"),
            ("Bart", "bart"),
        ]
        .into_iter()
        .find(|(prefix, _)| class.starts_with(prefix))
        .map(|(_, t)| t)
    }

    /// The `transformers` class whose outputs this crate reproduces.
    pub fn class_name(self) -> &'static str {
        match self {
            Self::Roberta => "RobertaForSequenceClassification",
            Self::XlmRoberta => "XLMRobertaForSequenceClassification",
            Self::Bert => "BertForSequenceClassification",
            Self::Electra => "ElectraForSequenceClassification",
            Self::DistilBert => "DistilBertForSequenceClassification",
            Self::DebertaV2 => "DebertaV2ForSequenceClassification",
            Self::Bart => "BartForSequenceClassification",
        }
    }

    /// A short name for the model bar and the CLI (`RoBERTa`, `BERT`, …).
    pub fn display_name(self) -> &'static str {
        match self {
            Self::Roberta => "RoBERTa",
            Self::XlmRoberta => "XLM-RoBERTa",
            Self::Bert => "BERT",
            Self::Electra => "ELECTRA",
            Self::DistilBert => "DistilBERT",
            Self::DebertaV2 => "DeBERTa-v2/v3",
            Self::Bart => "BART",
        }
    }

    /// The prefix `…ForSequenceClassification` puts before the base model's tensor names.
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Roberta | Self::XlmRoberta => "roberta.",
            Self::Bert => "bert.",
            Self::Electra => "electra.",
            Self::DistilBert => "distilbert.",
            Self::DebertaV2 => "deberta.",
            Self::Bart => "model.",
        }
    }

    /// Whether position ids count from `pad_token_id + 1` (RoBERTa's rule) rather than from 0.
    pub fn positions_after_padding(self) -> bool {
        matches!(self, Self::Roberta | Self::XlmRoberta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_type_wins_and_architectures_stand_in_for_it() {
        let d = |json: &str| Family::detect(json.as_bytes());
        assert_eq!(d(r#"{"model_type": "bert"}"#), Ok(Family::Bert));
        assert_eq!(d(r#"{"model_type": "camembert"}"#), Ok(Family::Roberta));
        assert_eq!(
            d(r#"{"architectures": ["XLMRobertaForSequenceClassification"]}"#),
            Ok(Family::XlmRoberta)
        );
        assert_eq!(
            d(r#"{"architectures": ["DistilBertForSequenceClassification"]}"#),
            Ok(Family::DistilBert)
        );
        assert_eq!(d("{}"), Ok(Family::Roberta));
    }

    #[test]
    fn an_unsupported_family_names_what_is_supported() {
        let e =
            Family::detect(br#"{"model_type": "t5", "architectures": ["T5Model"]}"#).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("t5") && text.contains("T5Model"), "{text}");
        assert!(
            text.contains("deberta-v2") && text.contains("bart"),
            "{text}"
        );
    }
}
