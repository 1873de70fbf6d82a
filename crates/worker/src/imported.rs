//! A model slot that holds a scores file instead of a network (docs/scoring-elsewhere.md): the
//! scores a model tabprobe cannot run gave to the pairs of an exported pairs file. It is read
//! and checked line by line when imported (core's `run::scores_file::parse_scores`); a probe
//! run checks before scoring anything that the file was made for its probe set (every pair
//! scored, no line naming another pair), and a single pair (a live prediction) is looked up by
//! its id. The model is named by the user and identified by the file's SHA-256.

use js_sys::Uint8Array;
use tabprobe_core::data::label::LabelSet;
use tabprobe_core::probe::ProbeSet;
use tabprobe_core::run::scores_file::{parse_scores, ScoresIndex, MAX_SCORES_FILE_BYTES};
use tabprobe_core::scoring::{ModelId, Pair, PairScore};
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use crate::protocol::{Backend, ImportedInfo, ModelInfo};

/// An imported scores file, ready to score the pairs it holds.
pub struct ImportedScorer {
    /// The file's name, for errors.
    file: String,
    index: ScoresIndex,
    id: ModelId,
}

impl ImportedScorer {
    /// Reads the scores file `file` (the Blob `blob`) over `label_set` as the model `name`;
    /// the model bar's description comes with it. Refused, with core's named error, when the
    /// file is too large or any line breaks a rule.
    pub async fn read(
        name: String,
        file: String,
        blob: &Blob,
        label_set: LabelSet,
        started_ms: f64,
    ) -> Result<(ImportedScorer, ModelInfo), String> {
        let size = blob.size();
        // Refused before reading: a Blob's size is known without its bytes.
        if size > MAX_SCORES_FILE_BYTES as f64 {
            return Err(format!(
                "{file}: {} bytes, more than the {MAX_SCORES_FILE_BYTES} a scores file may hold",
                size as u64
            ));
        }
        let buffer = JsFuture::from(blob.array_buffer())
            .await
            .map_err(|e| format!("{file}: cannot be read: {e:?}"))?;
        let bytes = Uint8Array::new(&buffer).to_vec();
        let index = parse_scores(&file, &bytes, label_set).map_err(|e| e.to_string())?;
        let name = if name.trim().is_empty() {
            default_name(&file)
        } else {
            name.trim().to_string()
        };
        let mut id = ModelId::new(name, index.sha256.clone(), label_set);
        id.label_only = index.label_only() > 0;
        id.scores_file = true;
        let info = ModelInfo {
            id: id.clone(),
            labels: label_set
                .labels()
                .iter()
                .map(|l| l.as_str().to_string())
                .collect(),
            architecture: "imported scores".into(),
            parameters: None,
            max_tokens: 0,
            layers: 0,
            hidden_size: 0,
            backend: Backend::ScoresFile,
            backend_note: format!(
                "{file}: scores computed elsewhere and imported; nothing runs in this browser"
            ),
            precision_note: "as the scores file gives them".into(),
            workers: 1,
            load_ms: js_sys::Date::now() - started_ms,
            memory_bytes: None,
            imported: Some(ImportedInfo {
                file: file.clone(),
                bytes: bytes.len() as u64,
                pairs: index.lines,
                label_only: index.label_only(),
            }),
        };
        Ok((ImportedScorer { file, index, id }, info))
    }

    /// The model as results name it.
    pub fn id(&self) -> &ModelId {
        &self.id
    }

    /// Checks the file was made for `set`: a score for each of its pairs and no line naming
    /// another pair (core's named errors, with counts and the first offending line or pair).
    pub fn check_set(&self, set: &ProbeSet) -> Result<(), String> {
        self.index
            .for_pairs(&self.file, &set.pairs)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// The scores of `pairs`, in order; a pair the file does not hold is an error naming it
    /// (an edited table or hypothesis is a pair no pairs file had).
    pub fn score(&self, pairs: &[Pair]) -> Result<Vec<PairScore>, String> {
        pairs
            .iter()
            .map(|pair| {
                self.index.get(pair).cloned().ok_or_else(|| {
                    format!(
                        "{}: no score for the pair of hypothesis {:?} (id {}): a scores file \
                         holds only the pairs of the pairs file it was made from; an edited \
                         table or hypothesis is a new pair — export its pairs and score them",
                        self.file,
                        pair.hypothesis,
                        tabprobe_core::run::pairs_file::pair_id(pair)
                    )
                })
            })
            .collect()
    }
}

/// A model name from a file name: the name without its extension(s) (`llama3.scores.jsonl`
/// → `llama3`).
pub fn default_name(file: &str) -> String {
    let stem = file.split('.').next().unwrap_or(file);
    if stem.is_empty() {
        "scores".to_string()
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_names_the_model() {
        assert_eq!(default_name("llama3.scores.jsonl"), "llama3");
        assert_eq!(default_name("gpt.jsonl"), "gpt");
        assert_eq!(default_name(".jsonl"), "scores");
    }
}
