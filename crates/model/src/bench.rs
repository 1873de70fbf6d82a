//! Throughput measurement (examples/s), shared by `examples/bench.rs` and `tabprobe bench`:
//! synthetic inputs of an exact length, one warm-up pass, then the median of timed repeats;
//! and a random-weight checkpoint of any shape, since weight values do not change speed.
//!
//! Inputs are pre-tokenized sequences of exactly the requested length, all in one batch
//! size, so padding and tokenization play no part: the figures are the network's.

use std::time::Instant;

use safetensors::tensor::TensorView;
use safetensors::Dtype;
use tabprobe_core::scoring::ScoreError;

use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::walk::expected_shapes;
use crate::model::NliModel;
use crate::text::tokenize::EncodedPair;

/// One measured configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Throughput {
    /// Tokens per example actually run (the request, capped at the model's maximum).
    pub seq_len: usize,
    /// Examples per call (the model may split a call further to stay within its memory
    /// budget; see [`crate::text::batch::max_rows_within_budget`]).
    pub batch_size: usize,
    /// Timed repeats after the warm-up.
    pub repeats: usize,
    /// Median examples/s over the repeats.
    pub median: f64,
    /// Best examples/s over the repeats.
    pub best: f64,
}

/// A pair of exactly `seq_len` tokens (`<s> … </s>`, at least 2), with ids clear of the
/// special tokens (0–4 in RoBERTa vocabularies) and below `vocab_size`.
pub fn synthetic_pair(seq_len: usize, vocab_size: usize) -> EncodedPair {
    let seq_len = seq_len.max(2);
    // Spread over up to 1000 ordinary ids; a multiplicative step avoids runs of one token.
    let span = vocab_size.saturating_sub(5).clamp(1, 1000) as u64;
    EncodedPair {
        type_ids: Vec::new(),
        ids: (0..seq_len)
            .map(|i| match i {
                0 => 0,
                _ if i + 1 == seq_len => 2,
                _ => 5 + ((i as u64 * 7919) % span) as u32,
            })
            .collect(),
        truncated: false,
        premise_tokens_dropped: 0,
    }
}

/// Runs `batch_size` examples of `seq_len` tokens (capped at the model's maximum) once to warm
/// up (kernel compilation, allocation), then `repeats` timed times (at least 1).
pub fn measure(
    model: &mut NliModel,
    batch_size: usize,
    seq_len: usize,
    repeats: usize,
) -> Result<Throughput, ScoreError> {
    let batch_size = batch_size.max(1);
    let repeats = repeats.max(1);
    let seq_len = seq_len.min(model.shape().max_tokens).max(2);
    model.set_batch_size(batch_size);
    let inputs = vec![synthetic_pair(seq_len, model.shape().vocab_size); batch_size];
    model.score_encoded_blocking(&inputs)?;
    let mut rates = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let t = Instant::now();
        model.score_encoded_blocking(&inputs)?;
        rates.push(batch_size as f64 / t.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    Ok(Throughput {
        seq_len,
        batch_size,
        repeats,
        median: rates[rates.len() / 2],
        best: rates[rates.len() - 1],
    })
}

/// `config.json` of a roberta-base-shaped three-way NLI model (hidden 768, 12 layers, 12
/// heads, intermediate 3072, vocabulary 50265) taking `max_tokens` tokens (at least 512).
pub fn roberta_base_config_json(max_tokens: usize) -> Vec<u8> {
    serde_json::json!({
        "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
        "intermediate_size": 3072, "vocab_size": 50265, "type_vocab_size": 1,
        "max_position_embeddings": (max_tokens.max(512) + 2), "layer_norm_eps": 1e-5,
        "id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"},
    })
    .to_string()
    .into_bytes()
}

/// `model.safetensors` bytes with reproducible random f32 weights in [-0.05, 0.05) for every
/// tensor `config` needs (names with the `roberta.` prefix).
pub fn random_weights(config: &RobertaConfig) -> Result<Vec<u8>, String> {
    // xorshift: reproducible, no dependency.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, shape) in expected_shapes(config) {
        let n: usize = shape.iter().product();
        let mut data = Vec::with_capacity(n * 4);
        for _ in 0..n {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.1;
            data.extend_from_slice(&v.to_le_bytes());
        }
        tensors.push((format!("roberta.{name}"), shape, data));
    }
    let views = tensors
        .iter()
        .map(|(n, s, d)| {
            TensorView::new(Dtype::F32, s.clone(), d)
                .map(|v| (n.clone(), v))
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize(views, None).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_pairs_have_the_exact_length_and_valid_ids() {
        let p = synthetic_pair(128, 50265);
        assert_eq!(p.ids.len(), 128);
        assert_eq!((p.ids[0], p.ids[127]), (0, 2));
        assert!(p.ids[1..127].iter().all(|&id| (5..1005).contains(&id)));
        let small = synthetic_pair(64, 20);
        assert!(small.ids.iter().all(|&id| id < 20));
        assert_eq!(synthetic_pair(0, 100).ids, vec![0, 2]);
    }
}
