//! BART from `model.safetensors`: where the word table is stored (once as `shared.weight` or
//! per stack), the checks every family makes, then the network.

use burn::prelude::*;

use crate::error::LoadError;
use crate::families::bart::config::BartConfig;
use crate::families::bart::names::{DECODER, ENCODER, OWN_WORDS, SHARED_WORDS};
use crate::families::bart::network::BartForSequenceClassification;
use crate::families::bart::walk::{expected_shapes, walk, WordTables};
use crate::families::family::Family;
use crate::loading::vars::Loading;
use crate::loading::weight_file::{WeightFile, WeightSource};
use crate::loading::weights::{agree, Tensors};

/// Where the word table is stored: `shared.weight`, or each stack's own `embed_tokens`.
fn word_tables(file: &WeightFile<'_>) -> WordTables {
    let names: Vec<String> = file
        .tensors()
        .into_iter()
        .map(|(n, _)| {
            n.strip_prefix(Family::Bart.prefix())
                .map(str::to_string)
                .unwrap_or(n)
        })
        .collect();
    let pick = |stack: &str| {
        let own = format!("{stack}.{OWN_WORDS}");
        if names.contains(&own) {
            own
        } else {
            SHARED_WORDS.to_string()
        }
    };
    WordTables {
        encoder: pick(ENCODER),
        decoder: pick(DECODER),
    }
}

/// Reads `model.safetensors` bytes into the network, checked as the other families are.
pub fn load(
    config: BartConfig,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<BartForSequenceClassification, LoadError> {
    let file = WeightFile::open(weights)?;
    let words = word_tables(&file);
    let tensors = Tensors::index(&file, |stored| {
        let name = stored.strip_prefix(Family::Bart.prefix()).unwrap_or(stored);
        // A tied table may be stored under all three names; the unused spellings are skipped.
        let table = name == SHARED_WORDS || name.ends_with(&format!(".{OWN_WORDS}"));
        (!table || name == words.encoder || name == words.decoder).then(|| name.to_string())
    })?;
    if let Some(&[v, d]) = tensors.shape(&words.encoder) {
        agree("vocab_size", config.vocab_size, v)?;
        agree("d_model", config.d_model, d)?;
    }
    tensors.check_against(&expected_shapes(&config, &words))?;
    walk(&config, &words, &mut Loading::new(&tensors, device))
}
