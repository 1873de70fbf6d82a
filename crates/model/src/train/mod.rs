//! Training (feature `train`, native): a tokenizer from the project's own text, a freshly
//! initialised or loaded checkpoint trained on labelled pairs with burn's autodiff and AdamW,
//! and the result written back as a Hugging Face `model.safetensors`.
//!
//! The network is the inference one ([`crate::RobertaForSequenceClassification`], plain
//! tensors): on an autodiff device with every tensor marked `require_grad`, the same forward
//! pass records the graph, so training and inference cannot drift apart.

pub mod fit;
pub mod init;
pub mod inoculate;
pub mod optimize;
pub mod params;
pub mod tokenizer;

pub use fit::{
    accuracy, epoch_batches, predict_async, Event, LabelledPair, TrainOptions, TrainOutcome,
    Trainer,
};
#[cfg(not(target_family = "wasm"))]
pub use fit::{native_clock, predict, train};
pub use init::initial_weights;
#[cfg(not(target_family = "wasm"))]
pub use params::to_safetensors;
pub use params::{to_safetensors_async, Params};
pub use tokenizer::{train_tokenizer, SPECIAL_TOKENS};
