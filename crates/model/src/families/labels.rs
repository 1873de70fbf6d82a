//! How a model's outputs map to tabprobe's canonical labels (`id2label` → ENTAIL / NEUTRAL /
//! CONTRADICT), for every family alike.

use std::collections::BTreeMap;

use tabprobe_core::data::label::{Label, LabelSet};

use crate::error::LoadError;

/// Number of classifier outputs: `id2label`'s size, else `num_labels`, else 2 (`transformers`'
/// default).
pub fn label_count(
    id2label: Option<&BTreeMap<String, String>>,
    num_labels: Option<usize>,
) -> usize {
    match (id2label, num_labels) {
        (Some(m), _) if !m.is_empty() => m.len(),
        (_, Some(n)) => n,
        _ => 2,
    }
}

/// How the model's outputs map to tabprobe's canonical labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelMap {
    /// For each model output, in the model's own order, its canonical label.
    pub labels: Vec<Label>,
    /// The model's own label names, in its order.
    pub names: Vec<String>,
    /// Three-way, or two-way (ENTAILED / REFUTED: never NEUTRAL).
    pub label_set: LabelSet,
}

impl LabelMap {
    /// [`LabelMap::from_config`] from any family's `id2label` and `num_labels`.
    pub fn from_labels(
        id2label: Option<&BTreeMap<String, String>>,
        num_labels: Option<usize>,
    ) -> Result<Self, LoadError> {
        let n = label_count(id2label, num_labels);
        let names: Vec<String> = match id2label {
            Some(map) if !map.is_empty() => {
                let mut names = vec![None; map.len()];
                for (key, name) in map {
                    let idx: usize = key.trim().parse().map_err(|_| {
                        LoadError::ConfigParse(format!("id2label key {key:?} is not an integer"))
                    })?;
                    let slot = names.get_mut(idx).ok_or_else(|| {
                        LoadError::ConfigParse(format!(
                            "id2label key {idx} is out of range for {} labels",
                            map.len()
                        ))
                    })?;
                    *slot = Some(name.clone());
                }
                // Keys are distinct and in range, so every slot is filled.
                names.into_iter().flatten().collect()
            }
            _ => (0..n).map(|i| format!("LABEL_{i}")).collect(),
        };
        let unmapped = |why: String| LoadError::UnmappedLabels {
            labels: names.clone(),
            why,
        };
        let mut labels = Vec::with_capacity(names.len());
        for name in &names {
            match Label::from_alias(name) {
                Some(l) => labels.push(l),
                None => return Err(unmapped(format!("{name:?} is not a known label name"))),
            }
        }
        let count = |l: Label| labels.iter().filter(|&&x| x == l).count();
        let label_set = match labels.len() {
            3 if Label::ALL.iter().all(|&l| count(l) == 1) => LabelSet::ThreeWay,
            2 if count(Label::Entail) == 1 && count(Label::Contradict) == 1 => LabelSet::TwoWay,
            3 => return Err(unmapped("each of the three labels must appear once".into())),
            2 => {
                return Err(unmapped(
                    "a two-label model must have one entail and one contradict/refuted label"
                        .into(),
                ))
            }
            k => return Err(unmapped(format!("{k} outputs; expected 2 or 3"))),
        };
        Ok(Self {
            labels,
            names,
            label_set,
        })
    }

    /// Canonical-order probabilities (ENTAIL, NEUTRAL, CONTRADICT) from probabilities in the
    /// model's order; a two-way model leaves NEUTRAL at 0.
    pub fn to_canonical(&self, model_order: &[f32]) -> [f32; 3] {
        let mut out = [0.0; 3];
        for (label, &p) in self.labels.iter().zip(model_order) {
            // Label::ALL is the canonical order, so the position is the output slot.
            if let Some(slot) = Label::ALL.iter().position(|l| l == label) {
                out[slot] = p;
            }
        }
        out
    }
}
