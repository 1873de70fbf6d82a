//! The building blocks the families' networks are made of, as plain tensors (eval only), in
//! reading order: dense layer and LayerNorm, activations, the BERT-style embeddings, encoder
//! layers and classification head.

pub mod activation;
pub mod classifier;
pub mod cores;
pub mod dispatch;
pub mod embeddings;
pub mod encoder;
pub mod host_layer;
pub mod int8;
#[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
pub mod madd;
pub mod nn;
pub mod packed;
#[cfg(all(target_arch = "x86_64", feature = "fast-cpu"))]
pub mod vnni;
