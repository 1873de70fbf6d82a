//! An inoculation's result: the grid that was trained, the models compared (before, and the
//! kept model of every size), and every evaluated item with each model's prediction — enough
//! to recompute every table and drill down from the file alone (`tabprobe report` prints it).

use super::InoculationError;
use crate::data::json::FileError;
use serde::{Deserialize, Serialize};

use crate::data::label::Label;
use crate::inoculation::{InoculationPlan, InoculationSettings};
use crate::probe_kind::ProbeKind;
use crate::run::RunResult;
use crate::scoring::ModelId;

/// The marker in an inoculation file's `format` field.
pub const INOCULATION_FORMAT: &str = "tabprobe-inoculation";
/// The version this build writes.
pub const INOCULATION_VERSION: u32 = 1;

/// What an evaluated item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemClass {
    /// An original example (gold label), for the original test sets (Tables 9 and 11).
    Original,
    /// A held-out challenge item whose one expected label is the original's gold label.
    Preserved,
    /// A held-out challenge item whose one expected label differs from the gold label.
    Flipped,
    /// A held-out challenge item with several expected labels (evaluated, never trained on).
    Several,
}

impl ItemClass {
    /// The column heading in the challenge table.
    pub fn heading(self) -> &'static str {
        match self {
            ItemClass::Original => "Original",
            ItemClass::Preserved => "Label preserved",
            ItemClass::Flipped => "Label flipped",
            ItemClass::Several => "Several labels",
        }
    }
}

/// One evaluated input with every model's prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluatedItem {
    /// The probe item's id, or the example's id for an original.
    pub id: String,
    /// Original, or which kind of challenge item.
    pub class: ItemClass,
    /// The probe that made it (challenge items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeKind>,
    /// The original example's split (`""` when the dataset has none).
    pub split: String,
    /// The original example's gold label.
    pub gold: Label,
    /// Labels counted as correct.
    pub expected: Vec<Label>,
    /// Each model's prediction, in [`InoculationResult::models`] order.
    pub predicted: Vec<Label>,
    /// For an original: how many held-out challenge items derive from it (the challenge
    /// table's "Original" column reads the originals that have some).
    #[serde(default)]
    pub held_out_items: usize,
    /// Index of the example in the run.
    pub example: usize,
    /// Index of the item in the run (challenge items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<usize>,
}

impl EvaluatedItem {
    /// Whether model `model` got it right.
    pub fn correct(&self, model: usize) -> bool {
        self.predicted
            .get(model)
            .is_some_and(|p| self.expected.contains(p))
    }
}

/// One model compared: the loaded model (before) or the kept model of one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelEvaluation {
    /// The sample size it was fine-tuned on; 0 for the model before inoculation.
    pub size: usize,
    /// The learning rate kept for that size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning_rate: Option<f64>,
    /// Its accuracy on the dev (early-stopping) examples.
    pub dev_accuracy: f64,
    /// SHA-256 of its `model.safetensors`.
    pub weights_sha256: String,
}

impl ModelEvaluation {
    /// `0 (before)` or `n = 100`, as the tables' rows say.
    pub fn row_name(&self) -> String {
        if self.size == 0 {
            "0 (before)".to_string()
        } else {
            format!("{}", self.size)
        }
    }
}

/// One fine-tuning of the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridPoint {
    /// Sample size.
    pub size: usize,
    /// Learning rate.
    pub learning_rate: f64,
    /// Best dev accuracy reached (the checkpoint kept).
    pub dev_accuracy: f64,
    /// Epoch of that checkpoint (1-based; 0: the model before any step).
    pub best_epoch: usize,
    /// Optimisation steps run.
    pub steps: usize,
    /// Why training ended.
    pub stopped: String,
    /// Whether this learning rate was kept for its size (best dev accuracy; the first on
    /// ties).
    pub chosen: bool,
    /// Wall time of the fine-tuning, seconds.
    pub seconds: f64,
}

/// A finished inoculation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InoculationResult {
    /// Always [`INOCULATION_FORMAT`].
    pub format: String,
    /// [`INOCULATION_VERSION`].
    pub version: u32,
    /// The model that was fine-tuned.
    pub model: ModelId,
    /// The model that scored the probe run (usually the same).
    pub run_model: ModelId,
    /// The settings.
    pub settings: InoculationSettings,
    /// The early-stopping split (`None`: every original example).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev_split: Option<String>,
    /// Challenge items in all (trained, held out, evaluate-only).
    pub challenge_items: usize,
    /// Challenge items with several expected labels (never trained on).
    pub evaluate_only: usize,
    /// Items of the chosen probes left out as heuristic-unreviewed, rejected, not applicable.
    pub left_out: [usize; 3],
    /// Every fine-tuning, in the order run.
    pub grid: Vec<GridPoint>,
    /// The models compared, before first.
    pub models: Vec<ModelEvaluation>,
    /// Every evaluated input.
    pub items: Vec<EvaluatedItem>,
    /// Wall time of the whole inoculation, seconds.
    pub seconds: f64,
}

impl InoculationResult {
    /// The run pairs to score with every model, in the order [`InoculationResult::assemble`]
    /// expects their predictions: every original example's pair, then every held-out item's
    /// perturbed pair.
    pub fn evaluation_pairs(run: &RunResult, plan: &InoculationPlan) -> Vec<usize> {
        run.examples
            .iter()
            .map(|e| e.pair)
            .chain(
                plan.held_out.iter().filter_map(|&c| {
                    Some(run.items.get(plan.challenge.get(c)?.item)?.perturbed_pair)
                }),
            )
            .collect()
    }

    /// The result from the plan and, per model (before first), its predictions of
    /// [`InoculationResult::evaluation_pairs`] in order. Errors when a prediction list has
    /// the wrong length.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        run: &RunResult,
        plan: &InoculationPlan,
        model: ModelId,
        grid: Vec<GridPoint>,
        models: Vec<ModelEvaluation>,
        predictions: &[Vec<Label>],
        seconds: f64,
    ) -> Result<InoculationResult, InoculationError> {
        let pairs = InoculationResult::evaluation_pairs(run, plan);
        if predictions.len() != models.len() {
            return Err(InoculationError::PredictionLists {
                models: models.len(),
                lists: predictions.len(),
            });
        }
        if let Some(bad) = predictions.iter().find(|p| p.len() != pairs.len()) {
            return Err(InoculationError::PredictionCount {
                expected: pairs.len(),
                got: bad.len(),
            });
        }
        let of = |k: usize| predictions.iter().map(|p| p[k]).collect::<Vec<Label>>();
        let mut held_out_per_example = vec![0usize; run.examples.len()];
        let mut items = Vec::with_capacity(pairs.len());
        let mut k = run.examples.len();
        for &c in &plan.held_out {
            let Some(ch) = plan.challenge.get(c) else {
                continue;
            };
            let Some(it) = run.items.get(ch.item) else {
                continue;
            };
            let Some(ex) = run.examples.get(it.example) else {
                continue;
            };
            held_out_per_example[it.example] += 1;
            let class = match ch.train_label() {
                Some(l) if l == ex.gold => ItemClass::Preserved,
                Some(_) => ItemClass::Flipped,
                None => ItemClass::Several,
            };
            items.push(EvaluatedItem {
                id: it.id.clone(),
                class,
                probe: Some(it.probe),
                split: ex.split.clone().unwrap_or_default(),
                gold: ex.gold,
                expected: ch.expected.clone(),
                predicted: of(k),
                held_out_items: 0,
                example: it.example,
                item: Some(ch.item),
            });
            k += 1;
        }
        let originals = run
            .examples
            .iter()
            .enumerate()
            .map(|(e, ex)| EvaluatedItem {
                id: ex.id.clone(),
                class: ItemClass::Original,
                probe: None,
                split: ex.split.clone().unwrap_or_default(),
                gold: ex.gold,
                expected: vec![ex.gold],
                predicted: of(e),
                held_out_items: held_out_per_example[e],
                example: e,
                item: None,
            });
        let mut all: Vec<EvaluatedItem> = originals.collect();
        all.extend(items);
        Ok(InoculationResult {
            format: INOCULATION_FORMAT.to_string(),
            version: INOCULATION_VERSION,
            model,
            run_model: run.model.clone(),
            settings: plan.settings.clone(),
            dev_split: plan.dev_split.clone(),
            challenge_items: plan.challenge.len(),
            evaluate_only: plan.evaluate_only(),
            left_out: [plan.unreviewed, plan.rejected, plan.not_applicable],
            grid,
            models,
            items: all,
            seconds,
        })
    }

    /// Reads an inoculation file: JSON shape (with the path of the first error), format
    /// marker, version, and that every item has one prediction per model. `file` names the
    /// source in messages.
    pub fn parse(file: &str, text: &str) -> Result<InoculationResult, FileError> {
        let result: InoculationResult = crate::data::json::parse_json_at(file, text)?;
        if result.format != INOCULATION_FORMAT {
            return Err(FileError::Format {
                file: file.to_string(),
                found: result.format,
                expected: INOCULATION_FORMAT,
            });
        }
        if result.version != INOCULATION_VERSION {
            return Err(FileError::Version {
                file: file.to_string(),
                found: result.version,
                reads: INOCULATION_VERSION,
            });
        }
        let invalid = |path: String, problem: String| FileError::Invalid {
            file: file.to_string(),
            path,
            problem,
        };
        if result.models.is_empty() {
            return Err(invalid("$.models".into(), "is empty: no models".into()));
        }
        if let Some((i, item)) = result
            .items
            .iter()
            .enumerate()
            .find(|(_, it)| it.predicted.len() != result.models.len())
        {
            return Err(invalid(
                format!("$.items[{i}] ({})", item.id),
                format!(
                    "has {} predictions for {} models",
                    item.predicted.len(),
                    result.models.len()
                ),
            ));
        }
        Ok(result)
    }
}
