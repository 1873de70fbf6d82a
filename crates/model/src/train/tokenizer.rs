//! Trains a RoBERTa-style tokenizer on the project's own text: byte-level BPE from the
//! `tokenizers` crate's trainer, `<s> <pad> </s> <unk> <mask>` as ids 0–4, the RoBERTa
//! post-processor — the same layout as `roberta-base`'s `tokenizer.json`, so
//! [`crate::PairTokenizer`] and `transformers`' `RobertaTokenizerFast` both load it.

use tokenizers::models::bpe::{BpeTrainerBuilder, BPE};
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::processors::roberta::RobertaProcessing;
use tokenizers::{AddedToken, Model, TokenizerBuilder, TokenizerImpl};

/// RoBERTa's special tokens in id order.
pub const SPECIAL_TOKENS: [&str; 5] = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"];

/// Trains a byte-level BPE tokenizer with `vocab_size` entries (specials and the 256 byte
/// symbols included) on `texts`, keeping merges seen at least `min_frequency` times, and
/// returns its `tokenizer.json` text.
pub fn train_tokenizer(
    texts: &[String],
    vocab_size: usize,
    min_frequency: u64,
) -> Result<String, String> {
    let specials: Vec<AddedToken> = SPECIAL_TOKENS
        .iter()
        .map(|t| {
            let token = AddedToken::from(*t, true);
            // RoBERTa's <mask> swallows the space before it.
            if *t == "<mask>" {
                token.lstrip(true)
            } else {
                token
            }
        })
        .collect();
    let mut trainer = BpeTrainerBuilder::new()
        .vocab_size(vocab_size)
        .min_frequency(min_frequency)
        .show_progress(false)
        .special_tokens(specials)
        .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
        .build();
    let mut tokenizer: TokenizerImpl<
        BPE,
        NormalizerWrapper,
        ByteLevel,
        RobertaProcessing,
        ByteLevel,
    > = TokenizerBuilder::new()
        .with_model(BPE::default())
        .with_normalizer(None)
        .with_pre_tokenizer(Some(ByteLevel::default().add_prefix_space(false)))
        .with_post_processor(Some(
            RobertaProcessing::new(("</s>".into(), 2), ("<s>".into(), 0))
                .trim_offsets(true)
                .add_prefix_space(false),
        ))
        .with_decoder(Some(ByteLevel::default().add_prefix_space(false)))
        .build()
        .map_err(|e| format!("cannot build the tokenizer: {e}"))?;
    tokenizer
        .train(&mut trainer, texts.iter())
        .map_err(|e| format!("tokenizer training failed: {e}"))?;
    for (id, token) in SPECIAL_TOKENS.iter().enumerate() {
        if tokenizer.get_model().token_to_id(token) != Some(id as u32) {
            return Err(format!(
                "the trained vocabulary does not give {token} the id {id}"
            ));
        }
    }
    tokenizer
        .to_string(true)
        .map_err(|e| format!("cannot serialise the tokenizer: {e}"))
}
