//! A weight file read for any family: `model.safetensors` a byte range at a time, its tensors
//! by canonical name with header checks and f32 conversion, natively `pytorch_model.bin`, and
//! the [`vars::Vars`] a family's one walk of its parameters asks.

// pytorch-reader opens files by path; a browser has none.
#[cfg(not(target_family = "wasm"))]
pub mod pytorch;
pub mod vars;
pub mod weight_file;
pub mod weights;
