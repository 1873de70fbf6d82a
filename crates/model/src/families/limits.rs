//! The limits every family's config is held to before any size is used (arithmetic, shape
//! tables, allocation), and the checks that refuse what is past them.

use crate::error::LoadError;

/// Largest `hidden_size` accepted (roberta-large and deberta-v3-large: 1024; xlm-roberta-xxl:
/// 4096).
pub const MAX_HIDDEN_SIZE: usize = 8_192;
/// Largest `num_hidden_layers` accepted (large models: 24; xlm-roberta-xxl: 48).
pub const MAX_LAYERS: usize = 128;
/// Largest `num_attention_heads` accepted (large models: 16; xlm-roberta-xxl: 32).
pub const MAX_HEADS: usize = 256;
/// Largest `intermediate_size` accepted (large models: 4096; xlm-roberta-xxl: 16384).
pub const MAX_INTERMEDIATE_SIZE: usize = 65_536;
/// Most classifier outputs accepted in `num_labels` or `id2label` (NLI models have 2 or 3).
pub const MAX_LABELS: usize = 64;
/// Largest `vocab_size` accepted (roberta: 50,265; xlm-roberta-large: 250,002).
pub const MAX_VOCAB_SIZE: usize = 1_048_576;
/// Largest `max_position_embeddings` accepted (roberta: 514; long-input variants: 4098).
pub const MAX_POSITIONS: usize = 65_536;
/// Largest `type_vocab_size` accepted (roberta: 1; bert: 2).
pub const MAX_TYPE_VOCAB_SIZE: usize = 1_024;
/// Bytes per parameter of the narrowest dtype the loader accepts (F16/BF16): a config implies
/// at least `parameters × 2` bytes of weights.
pub const MIN_BYTES_PER_PARAMETER: u64 = 2;

/// Refuses the first `(key, value, limit)` whose value is over its limit, then the first
/// `(key, value)` that is 0: every family's config checks its sizes with these before any
/// arithmetic or allocation uses them.
pub fn check_sizes(
    limits: &[(&str, usize, usize)],
    positive: &[(&str, usize)],
) -> Result<(), LoadError> {
    for &(key, value, limit) in limits {
        if value > limit {
            return Err(LoadError::ConfigOverLimit {
                key: key.to_string(),
                value: value as u64,
                limit: limit as u64,
            });
        }
    }
    for &(key, value) in positive {
        if value == 0 {
            return Err(LoadError::UnsupportedConfig {
                key: key.to_string(),
                value: "0".into(),
                why: "must be positive".into(),
            });
        }
    }
    Ok(())
}

/// Refuses a LayerNorm epsilon that is not a positive number.
pub fn check_layer_norm_eps(eps: f64) -> Result<(), LoadError> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(LoadError::UnsupportedConfig {
            key: "layer_norm_eps".into(),
            value: eps.to_string(),
            why: "must be a positive number".into(),
        })
    }
}

/// Refuses weights smaller than `parameters` at [`MIN_BYTES_PER_PARAMETER`] bytes each.
pub fn check_weights_len(parameters: Option<u64>, weights_len: usize) -> Result<(), LoadError> {
    let implied = parameters.and_then(|n| n.checked_mul(MIN_BYTES_PER_PARAMETER));
    match implied {
        Some(bytes) if bytes <= weights_len as u64 => Ok(()),
        _ => Err(LoadError::WeightsTooSmall {
            parameters,
            implied_bytes: implied,
            file_bytes: weights_len as u64,
        }),
    }
}
