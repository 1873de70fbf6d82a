//! NLI sequence classifiers in burn — RoBERTa, XLM-RoBERTa, BERT, ELECTRA, DistilBERT,
//! DeBERTa-v2/v3 and BART ([`Family`]) — generic over the device (CPU `flex`, WebGPU/Vulkan
//! `wgpu`): Hugging Face checkpoints loaded from bytes, pair tokenization with premise-only
//! truncation in either pair order, and batched scoring behind `tabprobe_core`'s
//! [`PairScorer`].
//!
//! The reference implementation is each family's `…ForSequenceClassification` in
//! `transformers`; the golden tests in `tests/golden.rs` (RoBERTa) and `tests/families.rs`
//! (the others) hold this crate to it.
//!
//! In the browser (a Web Worker), everything goes through [`NliModel`]:
//!
//! ```no_run
//! # async fn demo(config: &[u8], weights: &[u8], tokenizer: &[u8])
//! #     -> Result<(), Box<dyn std::error::Error>> {
//! use tabprobe_core::scoring::{Pair, PairOrder};
//! use tabprobe_model::{Device, ModelFiles, NliModel, TokenizerFiles};
//!
//! // Once, before any tensor work; fall back to the CPU when there is no WebGPU.
//! let device = match Device::wgpu_options().init_async().await {
//!     Ok(device) => device,
//!     Err(_) => Device::flex(),
//! };
//! let files = ModelFiles {
//!     config_json: config,
//!     weights,
//!     tokenizer: TokenizerFiles::Json(tokenizer),
//!     tokenizer_config: None, // or Some(bytes of tokenizer_config.json)
//! };
//! let model = NliModel::load("folder-name", files, &device)?; // LoadError says what to fix
//! model.warm_up().await?;
//! let pair = Pair {
//!     premise: "The Genre of X is Pop.".into(),
//!     hypothesis: "X is a pop album.".into(),
//!     order: PairOrder::PremiseFirst, // the premise is truncated in either order
//! };
//! let scores = model.score_async(&[pair]).await?; // probs in E, N, C order; logits; truncation
//! let id = model.id(); // name, weights_sha256, label_set
//! # let _ = (scores, id);
//! # Ok(())
//! # }
//! ```
//!
//! [`PairScorer`]: tabprobe_core::scoring::PairScorer

// One `unsafe` block in the crate: the call into the int8 product's AVX-512 VNNI kernel
// (`blocks/vnni.rs`), after the CPU has reported the features; everything else is safe.
#![deny(unsafe_code)]

pub mod blocks;
// Benchmarks need native device initialisation (`WgpuOptions::init` does not exist in wasm).
#[cfg(not(target_family = "wasm"))]
pub mod bench;
pub mod devices;
pub mod error;
pub mod families;
pub mod loading;
pub mod model;
pub mod network;
pub mod shape;
pub mod text;
// Training needs burn's autodiff and optimizers; only the native cli enables it.
#[cfg(feature = "train")]
pub mod train;

pub use blocks::activation::HiddenAct;
pub use blocks::classifier::RobertaForSequenceClassification;
pub use burn::tensor::Device;
pub use error::LoadError;
pub use families::encoder::config::RobertaConfig;
pub use families::labels::LabelMap;
pub use families::Family;
pub use loading::weight_file::{WeightFile, WeightSource};
pub use model::{
    ModelFiles, ModelSources, NliModel, PrecisionError, TokenizerFiles, Unhashed,
    DEFAULT_BATCH_SIZE,
};
pub use network::{Network, Shape};
pub use tabprobe_core::scoring::Precision;
pub use text::tokenize::{EncodedPair, PairTokenizer, TokenizeError};
