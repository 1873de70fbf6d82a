//! `pytorch_model.bin` (what `torch.save(model.state_dict())` writes: a zip of pickled
//! tensors), for checkpoints published before safetensors. Native only: the reader
//! (`pytorch-reader`, the one behind burn-store's `PytorchStore`) opens checkpoints from a file
//! path, and a browser has none — there the page asks for `model.safetensors` and names the
//! conversion.
//!
//! The file is converted to safetensors bytes in memory, with the tensors in name order, so
//! the rest of loading (and the model's identity, the SHA-256 of those bytes) is the same as
//! for a `model.safetensors`.

use std::path::Path;

use pytorch_reader::{DType, PytorchReader};
use safetensors::tensor::TensorView;
use safetensors::Dtype;

use crate::error::LoadError;

/// Reads `path` (a `pytorch_model.bin`) and returns the same tensors as `model.safetensors`
/// bytes. Float tensors keep their dtype (F32, F16, BF16; F64 is refused by the loader
/// later, naming the tensor); integer buffers such as `position_ids` are kept as I64.
pub fn safetensors_from_pytorch_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    let shown = path.display();
    let reader =
        PytorchReader::new(path).map_err(|e| LoadError::WeightsParse(format!("{shown}: {e}")))?;
    let mut tensors: Vec<_> = reader.tensors().iter().collect();
    tensors.sort_by(|a, b| a.0.cmp(b.0));
    let mut owned = Vec::with_capacity(tensors.len());
    for (name, tensor) in tensors {
        let dtype = match tensor.dtype() {
            DType::F32 => Dtype::F32,
            DType::F16 => Dtype::F16,
            DType::BF16 => Dtype::BF16,
            DType::F64 => Dtype::F64,
            DType::I64 => Dtype::I64,
            DType::I32 => Dtype::I32,
            DType::U8 | DType::Bool => Dtype::U8,
            other => {
                return Err(LoadError::UnsupportedDtype {
                    name: name.clone(),
                    dtype: format!("{other:?} (in {shown})"),
                })
            }
        };
        let bytes = tensor
            .read()
            .map_err(|e| LoadError::WeightsParse(format!("{shown}: {e}")))?;
        owned.push((name.clone(), dtype, tensor.shape().to_vec(), bytes));
    }
    let views = owned
        .iter()
        .map(|(name, dtype, shape, bytes)| {
            TensorView::new(*dtype, shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| LoadError::WeightsParse(format!("{shown}: tensor {name:?}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize(views, None)
        .map_err(|e| LoadError::WeightsParse(format!("{shown}: {e}")))
}
