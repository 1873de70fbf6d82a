//! BART from `model.safetensors`: where the word table is stored (once as `shared.weight` or
//! per stack), the checks every family makes, then the network.

use burn::prelude::*;

use crate::blocks::classifier::{ClassificationHead, HeadAct};
use crate::blocks::embeddings::WordChunk;
use crate::blocks::encoder::{Attention, FeedForward};
use crate::error::LoadError;
use crate::families::bart::config::{BartConfig, LAYER_NORM_EPS};
use crate::families::bart::names::*;
use crate::families::bart::network::{BartForSequenceClassification, BartLayer, Stack};
use crate::families::family::Family;
use crate::families::limits::check_weights_len;
use crate::loading::weight_file::{byte_len, WeightFile, WeightSource};
use crate::loading::weights::{element_count, Tensors};
use crate::text::batch::MAX_TENSOR_BYTES;

/// Where the word table is stored: `shared.weight`, or each stack's own `embed_tokens`.
fn word_table_names(file: &WeightFile<'_>) -> (String, String) {
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
    (pick(ENCODER), pick(DECODER))
}

/// Reads `model.safetensors` bytes into the network, checked as the other families are.
pub fn load(
    config: BartConfig,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<BartForSequenceClassification, LoadError> {
    let file = WeightFile::open(weights)?;
    let (encoder_words, decoder_words) = word_table_names(&file);
    let tied = encoder_words == decoder_words;
    let tensors = Tensors::index(&file, |stored| {
        let name = stored.strip_prefix(Family::Bart.prefix()).unwrap_or(stored);
        // A tied table may be stored under all three names; the unused spellings are skipped.
        let table = name == SHARED_WORDS || name.ends_with(&format!(".{OWN_WORDS}"));
        (!table || name == encoder_words || name == decoder_words).then(|| name.to_string())
    })?;
    let mut expected = config.expected_shapes();
    if let Some(shape) = expected.remove(SHARED_WORDS) {
        expected.insert(encoder_words.clone(), shape.clone());
        expected.insert(decoder_words.clone(), shape);
    }
    if let Some(&[v, d]) = tensors.shape(&encoder_words) {
        for (key, config_value, weights) in [
            ("vocab_size", config.vocab_size, v),
            ("d_model", config.d_model, d),
        ] {
            if config_value != weights {
                return Err(LoadError::ConfigWeightsMismatch {
                    key: key.into(),
                    config: config_value,
                    weights,
                });
            }
        }
    }
    check_weights_len(element_count(&config.expected_shapes()), byte_len(&file))?;
    tensors.check(&expected)?;
    let dense = |name: &str| tensors.dense(name, device);
    let norm = |name: &str| tensors.layer_norm(name, LAYER_NORM_EPS, device);
    let attention = |stack: &str, n: usize, a: &str, heads: usize| {
        let [q, k, v, out] = ATTENTION_PARTS.map(|part| layer(stack, n, &format!("{a}.{part}")));
        Ok::<_, LoadError>(Attention {
            query: dense(&q)?,
            key: dense(&k)?,
            value: dense(&v)?,
            output: dense(&out)?,
            layer_norm: norm(&layer(stack, n, &attention_norm(a)))?,
            heads,
        })
    };
    let encoder_word = tensors.word_chunks(&encoder_words, MAX_TENSOR_BYTES, device)?;
    let decoder_word = if tied {
        encoder_word.clone()
    } else {
        tensors.word_chunks(&decoder_words, MAX_TENSOR_BYTES, device)?
    };
    let stack = |stack: &str, layers: usize, heads: usize, word: Vec<WordChunk>| {
        let mut built = Vec::with_capacity(layers);
        for n in 0..layers {
            built.push(BartLayer {
                self_attention: attention(stack, n, SELF_ATTENTION, heads)?,
                cross_attention: (stack == DECODER)
                    .then(|| attention(stack, n, CROSS_ATTENTION, heads))
                    .transpose()?,
                feed_forward: FeedForward {
                    intermediate: dense(&layer(stack, n, FC1))?,
                    output: dense(&layer(stack, n, FC2))?,
                    layer_norm: norm(&layer(stack, n, FINAL_NORM))?,
                    act: config.activation_function,
                },
            });
        }
        Ok::<_, LoadError>(Stack {
            word,
            positions: tensors.matrix(&format!("{stack}.{POSITIONS}"), device)?,
            embed_norm: norm(&format!("{stack}.{EMBED_NORM}"))?,
            layers: built,
        })
    };
    let encoder = stack(
        ENCODER,
        config.encoder_layers,
        config.encoder_attention_heads,
        encoder_word,
    )?;
    let decoder = stack(
        DECODER,
        config.decoder_layers,
        config.decoder_attention_heads,
        decoder_word,
    )?;
    Ok(BartForSequenceClassification {
        head: ClassificationHead {
            dense: dense(HEAD_DENSE)?,
            out_proj: dense(HEAD_OUT)?,
            act: HeadAct::Tanh,
        },
        config,
        encoder,
        decoder,
    })
}
