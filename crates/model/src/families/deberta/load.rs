//! DeBERTa-v2/v3 from `model.safetensors`: the names (only the `deberta.` prefix and a buffer
//! to drop), the checks every family makes, then the network.

use burn::prelude::*;

use crate::error::LoadError;
use crate::families::deberta::config::DebertaV2Config;
use crate::families::deberta::network::DebertaV2ForSequenceClassification;
use crate::families::deberta::walk::{expected_shapes, walk};
use crate::families::encoder::names::WORD_EMBEDDINGS;
use crate::families::family::Family;
use crate::loading::vars::Loading;
use crate::loading::weight_file::{WeightFile, WeightSource};
use crate::loading::weights::{agree, Tensors};

/// Canonical name of a stored DeBERTa tensor (`None`: a buffer).
fn canonical_name(stored: &str) -> Option<String> {
    let name = stored
        .strip_prefix(Family::DebertaV2.prefix())
        .unwrap_or(stored);
    (name != "embeddings.position_ids").then(|| name.to_string())
}

/// Reads `model.safetensors` bytes into the network, checked as the other families are:
/// header and sizes first, then the expected names and shapes, then conversion.
pub fn load(
    config: DebertaV2Config,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<DebertaV2ForSequenceClassification, LoadError> {
    let file = WeightFile::open(weights)?;
    let tensors = Tensors::index(&file, canonical_name)?;
    if let Some(&[v, e]) = tensors.shape(WORD_EMBEDDINGS) {
        agree("vocab_size", config.vocab_size, v)?;
        agree("embedding_size", config.embedding_width(), e)?;
    }
    tensors.check_against(&expected_shapes(&config))?;
    walk(&config, &mut Loading::new(&tensors, device))
}
