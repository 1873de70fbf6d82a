//! A weight file read for any family: `model.safetensors` a byte range at a time, its tensors
//! by canonical name with header checks and f32 conversion, and natively `pytorch_model.bin`.

// pytorch-reader opens files by path; a browser has none.
#[cfg(not(target_family = "wasm"))]
pub mod pytorch;
pub mod weight_file;
pub mod weights;
