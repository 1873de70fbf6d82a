//! The manifest of the site's bundled demo models, `models/index.json`:
//! `{"format":"tabprobe-models","version":1,"models":[{"id","name","path","role","linearization","card"}]}`.
//! The site loads the `default` model into slot 0 on start and offers the `second` one (a
//! hypothesis-only model) as the second model.

use crate::data::json::FileError;
use serde::{Deserialize, Serialize};

use crate::linearize::LinearizeSettings;

/// The marker in a manifest's `format` field.
pub const MODELS_FORMAT: &str = "tabprobe-models";

/// What a bundled model is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelRole {
    /// Loaded into slot 0 on start.
    Default,
    /// Offered as the second model (slot 1), e.g. a hypothesis-only model for Table 8.
    Second,
}

/// A linearization as a manifest may give it: a strategy name (`"infotabs_compat"`) or full
/// settings (`{"strategy": …, "order": …}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ManifestLinearization {
    /// Strategy and pair order.
    Settings(LinearizeSettings),
    /// A strategy name; premise first.
    Name(String),
}

/// One bundled model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundledModel {
    /// Short id (its folder name).
    pub id: String,
    /// Human name.
    pub name: String,
    /// Folder relative to the site root, holding `config.json`, `model.safetensors`,
    /// `tokenizer.json`.
    pub path: String,
    /// Default or second.
    pub role: ModelRole,
    /// The linearization it was trained with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linearization: Option<ManifestLinearization>,
    /// A short description (data, training, accuracy), shown to the user.
    #[serde(default)]
    pub card: serde_json::Value,
}

impl BundledModel {
    /// The linearization settings to use with it, `None` when absent or unknown.
    pub fn linearize_settings(&self) -> Option<LinearizeSettings> {
        match self.linearization.as_ref()? {
            ManifestLinearization::Settings(s) => Some(*s),
            ManifestLinearization::Name(n) => LinearizeSettings::from_name(n),
        }
    }

    /// The card as one line of text (a string card as is; an object's fields `key: value`).
    pub fn card_text(&self) -> String {
        match &self.card {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Object(m) => m
                .iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(s) => format!("{k}: {s}"),
                    other => format!("{k}: {other}"),
                })
                .collect::<Vec<_>>()
                .join(" · "),
            other => other.to_string(),
        }
    }
}

/// The whole manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelsManifest {
    /// Always [`MODELS_FORMAT`].
    pub format: String,
    /// 1.
    pub version: u32,
    /// The models.
    pub models: Vec<BundledModel>,
}

impl ModelsManifest {
    /// The first model with `role`.
    pub fn with_role(&self, role: ModelRole) -> Option<&BundledModel> {
        self.models.iter().find(|m| m.role == role)
    }
}

/// Parses a manifest; the error names `file`, the JSON path and what was expected.
pub fn parse_models_manifest(file: &str, text: &str) -> Result<ModelsManifest, FileError> {
    let m: ModelsManifest = crate::data::json::parse_json_at(file, text)?;
    if m.format != MODELS_FORMAT {
        return Err(FileError::Format {
            file: file.to_string(),
            found: m.format,
            expected: MODELS_FORMAT,
        });
    }
    if m.version != 1 {
        return Err(FileError::Version {
            file: file.to_string(),
            found: m.version,
            reads: 1,
        });
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linearize::{Linearization, PremiseMode};
    use crate::scoring::PairOrder;

    #[test]
    fn reads_roles_linearizations_and_cards() {
        let text = r#"{"format":"tabprobe-models","version":1,"models":[
            {"id":"a","name":"A","path":"models/a/","role":"default","linearization":"paragraph","card":{"data":"INFOTABS","dev_accuracy":0.61}},
            {"id":"h","name":"H","path":"models/h/","role":"second",
             "linearization":{"strategy":"horizontal_template","order":"hypothesis_first"},"card":"hypothesis only"}]}"#;
        let m = parse_models_manifest("index.json", text).unwrap();
        let d = m.with_role(ModelRole::Default).unwrap();
        assert_eq!(d.path, "models/a/");
        assert_eq!(
            d.linearize_settings().unwrap().strategy,
            Linearization::Paragraph
        );
        assert_eq!(d.card_text(), "data: INFOTABS · dev_accuracy: 0.61");
        let s = m.with_role(ModelRole::Second).unwrap();
        let ls = s.linearize_settings().unwrap();
        assert_eq!(
            (ls.strategy, ls.order),
            (
                Linearization::HorizontalTemplate,
                PairOrder::HypothesisFirst
            )
        );
        assert_eq!(s.card_text(), "hypothesis only");
        assert_eq!(ls.premise, PremiseMode::Full);
    }

    #[test]
    fn the_linearization_none_reads_no_premise() {
        let text = r#"{"format":"tabprobe-models","version":1,"models":[
            {"id":"h","name":"H","path":"models/h/","role":"second","linearization":"none"}]}"#;
        let m = parse_models_manifest("index.json", text).unwrap();
        let ls = m.models[0].linearize_settings().unwrap();
        assert_eq!(ls.premise, PremiseMode::HypothesisOnly);
        assert_eq!(ls.pair("a premise", "H").premise, "");
    }

    #[test]
    fn errors_name_the_file_and_path() {
        let err = parse_models_manifest(
            "models/index.json",
            r#"{"format":"tabprobe-models","version":1,"models":[{"id":"a","name":"A","path":"p","role":"main"}]}"#,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("models/index.json: at models[0].role"),
            "{err}"
        );
        let err = parse_models_manifest("i.json", r#"{"format":"x","version":1,"models":[]}"#)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "i.json: $.format is \"x\"; expected \"tabprobe-models\""
        );
    }
}
