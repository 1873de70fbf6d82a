//! Premise/hypothesis tokenization with the `tokenizers` crate: a pair becomes what the
//! checkpoint's own post-processor makes of it — `<s> P </s></s> H </s>` for RoBERTa and BART,
//! `[CLS] P [SEP] H [SEP]` with token types 0 then 1 for BERT-likes and DeBERTa — or the same
//! with the hypothesis first, and in both orders only the premise is truncated: token by token,
//! by the `tokenizers` crate on the encoded pair, exactly as `transformers` cuts with
//! `truncation="only_first"` (`only_second` for a hypothesis-first pair); golden test
//! `tests/truncation.rs`. A plain `truncation=True` (`longest_first`) agrees whenever the
//! hypothesis takes at most half the room left for text, and otherwise cuts the hypothesis too,
//! which tabprobe never does.

use std::collections::HashMap;

use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::processors::roberta::RobertaProcessing;
use tokenizers::{
    AddedToken, EncodeInput, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy,
};

use tabprobe_core::checkpoint::TokenizerConfig;
use tabprobe_core::scoring::PairOrder;

use crate::error::LoadError;
use crate::text::tokenizer_class;

/// The token ids of one pair, ready for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedPair {
    /// `<s> P </s></s> H </s>` (or `<s> H </s></s> P </s>`), at most the model's maximum
    /// length.
    pub ids: Vec<u32>,
    /// Token type (segment) ids, one per id, as the post-processor assigns them (BERT: 0 for
    /// the first text and its specials, 1 for the second). Empty means all 0.
    pub type_ids: Vec<u32>,
    /// Whether the premise was cut to fit.
    pub truncated: bool,
    /// How many premise tokens were cut.
    pub premise_tokens_dropped: usize,
}

/// Why a pair could not be tokenized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenizeError {
    /// Even with the whole premise dropped the hypothesis does not fit.
    #[error("the hypothesis alone is {hypothesis_tokens} tokens with special tokens; the model takes at most {max_tokens}")]
    HypothesisTooLong {
        /// Tokens of `<s></s></s> H </s>`.
        hypothesis_tokens: usize,
        /// The model's maximum.
        max_tokens: usize,
    },
    /// The tokenizer itself failed.
    #[error("tokenizer failed: {0}")]
    Tokenizer(String),
}

/// A RoBERTa tokenizer set up for NLI pairs and a model's maximum length.
#[derive(Clone)]
pub struct PairTokenizer {
    /// No truncation, no padding: tells the full length.
    plain: Tokenizer,
    /// Truncates only the first sequence (the premise), from the right.
    premise_first: Tokenizer,
    /// Truncates only the second sequence (the premise, after the hypothesis), from the right.
    hypothesis_first: Tokenizer,
    max_tokens: usize,
}

impl std::fmt::Debug for PairTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairTokenizer")
            .field("vocab_size", &self.vocab_size())
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl PairTokenizer {
    /// From the bytes of a `tokenizer.json`. Its own truncation and padding settings are
    /// replaced: length comes from the model, padding is done per batch.
    pub fn from_json_bytes(bytes: &[u8], max_tokens: usize) -> Result<Self, LoadError> {
        Self::from_json_bytes_with(bytes, max_tokens, &TokenizerConfig::default(), None)
    }

    /// From the bytes of a `tokenizer.json` beside a `tokenizer_config.json` (`config`; the
    /// default when there is none) of a model whose `config.json` says `model_type`: the
    /// tokenizer `transformers` builds from the two ([`crate::text::tokenizer_class`]).
    pub fn from_json_bytes_with(
        bytes: &[u8],
        max_tokens: usize,
        config: &TokenizerConfig,
        model_type: Option<&str>,
    ) -> Result<Self, LoadError> {
        // `tokenizers` 0.23.2 panics (`expect("Helper")`) on a syntax error inside the
        // "decoder" object, and on a string there that does not decode (a lone surrogate such
        // as "\uDFFF"), so the whole file is parsed first, strings decoded (both found by the
        // model_load fuzz target; `IgnoredAny` skipped strings without decoding them).
        serde_json::from_slice::<serde_json::Value>(bytes)
            .map_err(|e| LoadError::Tokenizer(format!("tokenizer.json is not valid JSON: {e}")))?;
        let mut tok = Tokenizer::from_bytes(bytes)
            .map_err(|e| LoadError::Tokenizer(format!("tokenizer.json: {e}")))?;
        let truncate_left = tokenizer_class::rebuild(&mut tok, config, model_type)?;
        Self::new(tok, max_tokens, truncate_left)
    }

    /// From `vocab.json` and `merges.txt` (a checkpoint without `tokenizer.json`), built as
    /// `transformers`' `RobertaTokenizerFast` does: byte-level BPE, no prefix space, RoBERTa
    /// post-processor, `<s> <pad> </s> <unk> <mask>` as special tokens.
    pub fn from_vocab_merges(
        vocab_json: &[u8],
        merges_txt: &[u8],
        max_tokens: usize,
    ) -> Result<Self, LoadError> {
        let vocab: HashMap<String, u32> = serde_json::from_slice(vocab_json)
            .map_err(|e| LoadError::Tokenizer(format!("vocab.json: {e}")))?;
        let merges_text = std::str::from_utf8(merges_txt)
            .map_err(|e| LoadError::Tokenizer(format!("merges.txt is not UTF-8: {e}")))?;
        let mut merges = Vec::new();
        for (n, line) in merges_text.lines().enumerate() {
            // The first line of a GPT-2/RoBERTa merges file is "#version: 0.2".
            if line.starts_with("#version") || line.trim().is_empty() {
                continue;
            }
            let mut parts = line.split(' ');
            match (parts.next(), parts.next(), parts.next()) {
                (Some(a), Some(b), None) => merges.push((a.to_string(), b.to_string())),
                _ => {
                    return Err(LoadError::Tokenizer(format!(
                    "merges.txt line {}: expected two tokens separated by a space, found {line:?}",
                    n + 1
                )))
                }
            }
        }
        let id = |t: &str| {
            vocab
                .get(t)
                .copied()
                .ok_or_else(|| LoadError::Tokenizer(format!("vocab.json has no {t:?} token")))
        };
        let (cls, sep) = (id("<s>")?, id("</s>")?);
        let specials: Vec<AddedToken> = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
            .into_iter()
            .filter(|t| vocab.contains_key(*t))
            .map(|t| {
                let token = AddedToken::from(t, true);
                // RoBERTa's <mask> swallows the space before it.
                if t == "<mask>" {
                    token.lstrip(true)
                } else {
                    token
                }
            })
            .collect();
        let bpe = BPE::builder()
            .vocab_and_merges(vocab.into_iter().collect::<Vocab>(), merges)
            .build()
            .map_err(|e| LoadError::Tokenizer(format!("vocab.json/merges.txt: {e}")))?;
        let mut tok = Tokenizer::new(bpe);
        tok.with_pre_tokenizer(Some(ByteLevel::default().add_prefix_space(false)))
            .with_decoder(Some(ByteLevel::default()))
            .with_post_processor(Some(
                RobertaProcessing::new(("</s>".into(), sep), ("<s>".into(), cls))
                    .trim_offsets(true)
                    .add_prefix_space(false),
            ));
        tok.add_special_tokens(specials)
            .map_err(|e| LoadError::Tokenizer(format!("special tokens: {e}")))?;
        Self::new(tok, max_tokens, false)
    }

    /// The tokenizer with its truncating variants: the premise is cut from its end, or from
    /// its start when `truncate_left` (`tokenizer_config.json`'s `truncation_side`).
    fn new(
        mut plain: Tokenizer,
        max_tokens: usize,
        truncate_left: bool,
    ) -> Result<Self, LoadError> {
        plain.with_padding(None);
        plain
            .with_truncation(None)
            .map_err(|e| LoadError::Tokenizer(e.to_string()))?;
        let truncating = |strategy| -> Result<Tokenizer, LoadError> {
            let mut t = plain.clone();
            t.with_truncation(Some(TruncationParams {
                direction: match truncate_left {
                    true => TruncationDirection::Left,
                    false => TruncationDirection::Right,
                },
                max_length: max_tokens,
                strategy,
                stride: 0,
            }))
            .map_err(|e| LoadError::Tokenizer(e.to_string()))?;
            Ok(t)
        };
        Ok(Self {
            premise_first: truncating(TruncationStrategy::OnlyFirst)?,
            hypothesis_first: truncating(TruncationStrategy::OnlySecond)?,
            plain,
            max_tokens,
        })
    }

    /// Vocabulary size including added tokens: the smallest embedding table that covers every
    /// id this tokenizer can produce.
    pub fn vocab_size(&self) -> usize {
        self.plain.get_vocab_size(true)
    }

    /// The largest id this tokenizer can emit, with its token: over the vocabulary with added
    /// tokens, and over the special tokens the post-processor inserts (seen by encoding a
    /// short pair and a single text, the two forms scoring uses; a probe the tokenizer cannot
    /// encode is skipped — scoring then reports that error). `None` for an empty tokenizer.
    pub fn largest_id(&self) -> Option<(u32, String)> {
        let vocab = self.plain.get_vocab(true).into_iter();
        let inserted = [
            self.plain.encode(("a", "b"), true),
            self.plain.encode("a", true),
        ]
        .into_iter()
        .flatten()
        .flat_map(|e| {
            e.get_ids()
                .iter()
                .copied()
                .zip(e.get_tokens().iter().cloned())
                .collect::<Vec<_>>()
        })
        .map(|(id, token)| (token, id));
        // Ties (two tokens with one id) go to the smaller token, so the message is stable.
        vocab
            .chain(inserted)
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
            .map(|(token, id)| (id, token))
    }

    /// The longest sequence this tokenizer emits.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Encodes `premise` and `hypothesis` as a pair, premise first, cutting the premise from
    /// the right when the pair is longer than the model allows.
    pub fn encode(&self, premise: &str, hypothesis: &str) -> Result<EncodedPair, TokenizeError> {
        self.encode_ordered(premise, hypothesis, PairOrder::PremiseFirst)
    }

    /// Encodes a pair in `order`, cutting the premise (whichever segment it is) from the right
    /// when the pair is longer than the model allows; the hypothesis is never cut. As in
    /// `transformers`, a hypothesis-first pair with an empty premise is `<s> H </s>`.
    pub fn encode_ordered(
        &self,
        premise: &str,
        hypothesis: &str,
        order: PairOrder,
    ) -> Result<EncodedPair, TokenizeError> {
        let err = |e: tokenizers::Error| TokenizeError::Tokenizer(e.to_string());
        // The segment (sequence id) the premise lands in, and the tokenizer that cuts only it.
        let (premise_segment, cutting) = match order {
            PairOrder::PremiseFirst => (0, &self.premise_first),
            PairOrder::HypothesisFirst => (1, &self.hypothesis_first),
        };
        let texts = || -> EncodeInput<'_> {
            match order {
                PairOrder::PremiseFirst => (premise, hypothesis).into(),
                // `transformers` drops an empty second text (`tokenizer(h, "")` is
                // `<s> H </s>`), so a hypothesis-only pair does the same here.
                PairOrder::HypothesisFirst if premise.is_empty() => hypothesis.into(),
                PairOrder::HypothesisFirst => (hypothesis, premise).into(),
            }
        };
        let full = self.plain.encode(texts(), true).map_err(err)?;
        let full_len = full.get_ids().len();
        if full_len <= self.max_tokens {
            return Ok(EncodedPair {
                ids: full.get_ids().to_vec(),
                type_ids: full.get_type_ids().to_vec(),
                truncated: false,
                premise_tokens_dropped: 0,
            });
        }
        let premise_tokens = full
            .get_sequence_ids()
            .iter()
            .filter(|s| **s == Some(premise_segment))
            .count();
        if full_len - premise_tokens > self.max_tokens {
            return Err(TokenizeError::HypothesisTooLong {
                hypothesis_tokens: full_len - premise_tokens,
                max_tokens: self.max_tokens,
            });
        }
        let cut = cutting.encode(texts(), true).map_err(err)?;
        let ids = cut.get_ids().to_vec();
        Ok(EncodedPair {
            type_ids: cut.get_type_ids().to_vec(),
            premise_tokens_dropped: full_len - ids.len(),
            truncated: true,
            ids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_that_does_not_decode_inside_the_decoder_is_an_error_not_a_panic() {
        // A lone surrogate escape: valid JSON syntax, not a Unicode string.
        let json = br#"{"decoder": {"type": "Metaspace", "replacement": "\uDFFF"}}"#;
        let e = PairTokenizer::from_json_bytes(json, 8).unwrap_err();
        assert!(
            matches!(&e, LoadError::Tokenizer(m) if m.contains("tokenizer.json")),
            "{e}"
        );
    }

    #[test]
    fn a_syntax_error_inside_the_decoder_is_an_error_not_a_panic() {
        // A raw control character inside a string of the "decoder" object.
        let json = b"{\"decoder\": {\"type\": \"Byte\x01Level\"}}";
        let e = PairTokenizer::from_json_bytes(json, 8).unwrap_err();
        assert!(
            matches!(&e, LoadError::Tokenizer(m) if m.contains("tokenizer.json")),
            "{e}"
        );
    }
}
