//! Text to tensors: the checkpoint's tokenizer (rebuilt as its `tokenizer_config.json` says),
//! pair encoding with premise-only truncation, and length-sorted padded batches.

pub mod batch;
pub mod tokenize;
pub mod tokenizer_class;
