//! Training (feature `train`, native): a tokenizer from the project's own text, a freshly
//! initialised or loaded checkpoint trained on labelled pairs with burn's autodiff and AdamW,
//! and the result written back as a Hugging Face `model.safetensors`.
//!
//! The network is the inference one ([`crate::RobertaForSequenceClassification`], plain
//! tensors): on an autodiff device with every tensor marked `require_grad`, the same forward
//! pass records the graph, so training and inference cannot drift apart.

pub mod fit;
pub mod init;
pub mod optimize;
pub mod params;
pub mod tokenizer;

pub use fit::{
    accuracy, epoch_batches, predict, train, Event, LabelledPair, TrainOptions, TrainOutcome,
};
pub use init::initial_weights;
pub use params::to_safetensors;
pub use tokenizer::{train_tokenizer, SPECIAL_TOKENS};
