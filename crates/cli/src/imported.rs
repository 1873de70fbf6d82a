//! A model from a scores file (`tabprobe probe --scores`, docs/scoring-elsewhere.md): the
//! scores a model tabprobe cannot run gave to the pairs `tabprobe pairs` wrote, read and
//! checked by core's `run::scores_file`, handed to the run as if a model had scored them.

use std::collections::HashMap;
use std::path::Path;

use tabprobe_core::data::label::LabelSet;
use tabprobe_core::probe::ProbeSet;
use tabprobe_core::run::scores_file::{read_scores, MAX_SCORES_FILE_BYTES};
use tabprobe_core::scoring::{ModelId, Pair, PairScore};

/// The scores of a probe set's pairs, by pair.
pub struct ImportedScorer {
    scores: HashMap<Pair, PairScore>,
    /// The model as results name it: the given name, the scores file's SHA-256.
    pub id: ModelId,
    /// Pairs scored with a label alone.
    pub label_only: usize,
}

impl ImportedScorer {
    /// Reads `path` for every pair of `set` (the whole set, before any shard is cut: a
    /// scores file covers the pairs file of the whole set). `name` defaults to the file's stem.
    pub fn read(
        path: &Path,
        name: Option<&str>,
        set: &ProbeSet,
        label_set: LabelSet,
    ) -> Result<ImportedScorer, String> {
        let bytes = crate::io::read_bytes(path, MAX_SCORES_FILE_BYTES)?;
        let file = path.display().to_string();
        let imported =
            read_scores(&file, &bytes, &set.pairs, label_set).map_err(|e| e.to_string())?;
        let name = name.map(str::to_string).unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scores".into())
        });
        let mut id = ModelId::new(name, imported.sha256, label_set);
        id.label_only = imported.label_only > 0;
        id.scores_file = true;
        Ok(ImportedScorer {
            scores: set.pairs.iter().cloned().zip(imported.scores).collect(),
            id,
            label_only: imported.label_only,
        })
    }

    /// The scores of `batch`, in its order.
    pub fn score(&self, batch: &[Pair]) -> Result<Vec<PairScore>, String> {
        batch
            .iter()
            .map(|p| {
                self.scores.get(p).cloned().ok_or_else(|| {
                    format!(
                        "the scores file has no score for the pair of hypothesis {:?}",
                        p.hypothesis
                    )
                })
            })
            .collect()
    }
}
