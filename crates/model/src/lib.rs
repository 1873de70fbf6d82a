//! RoBERTa-family NLI sequence classifier in burn, generic over the device (CPU `flex`,
//! WebGPU/Vulkan `wgpu`): Hugging Face checkpoints loaded from bytes, pair tokenization with
//! premise-first truncation, and batched scoring behind `tabprobe_core`'s [`PairScorer`].
//!
//! The reference implementation is `transformers`' `RobertaForSequenceClassification`; the
//! golden tests in `tests/golden.rs` hold this crate to it.
//!
//! [`PairScorer`]: tabprobe_core::scoring::PairScorer

pub mod batch;
pub mod classifier;
pub mod config;
pub mod embeddings;
pub mod encoder;
pub mod error;
pub mod loader;
pub mod model;
pub mod nn;
pub mod tokenize;

pub use burn::tensor::Device;
pub use config::{HiddenAct, LabelMap, RobertaConfig};
pub use error::LoadError;
pub use model::{ModelFiles, NliModel, TokenizerFiles, DEFAULT_BATCH_SIZE};
pub use tokenize::{EncodedPair, PairTokenizer, TokenizeError};
