//! Whether a checkpoint fits the model worker's memory on the CPU path, said before its
//! weights are read.
//!
//! A WebAssembly worker addresses at most 4 GiB. The weights file itself stays with the
//! browser (a `Blob` the worker reads a tensor at a time), so on the CPU the worker's memory
//! holds the weights widened to f32 — twice the file for f16 or bf16 — beside its code, the
//! tokenizer and a batch's work. (On WebGPU each tensor goes to the GPU as it is widened: the
//! worker holds one tensor at a time.)
//! The safetensors header (its first bytes) says how many elements each tensor has: that is
//! enough to tell, with the numbers, before anything else is read.

use safetensors::tensor::Metadata;

/// The most a wasm32 worker can address.
pub const WORKER_MEMORY_BYTES: u64 = 4 << 30;

/// Left free for the worker's code, the tokenizer and a batch's activations (roberta-large at
/// batch 8 and 512 tokens: about 0.2 GB of attention scores and feed-forward activations).
pub const WORKING_BYTES: u64 = 512 << 20;

use tabprobe_core::checkpoint::SAFETENSORS_LENGTH_BYTES;

/// The header's length from the file's first [`SAFETENSORS_LENGTH_BYTES`] bytes, checked against the
/// file's size and [`SAFETENSORS_MAX_HEADER_BYTES`](tabprobe_core::checkpoint::SAFETENSORS_MAX_HEADER_BYTES) (core's reading, named by the file).
pub fn header_len(name: &str, first: &[u8], file_bytes: u64) -> Result<u64, String> {
    tabprobe_core::checkpoint::safetensors_header_len(first, file_bytes)
        .map_err(|e| format!("{name}: not a safetensors file: {e}"))
}

/// The bytes of the weights once widened to f32 (every F32, F16 and BF16 tensor at 4 bytes an
/// element; other tensors are not widened), from the header's JSON. The tensors must fill the
/// file exactly, as the loader will require.
pub fn widened_bytes(name: &str, header: &[u8], file_bytes: u64) -> Result<u64, String> {
    let metadata: Metadata = serde_json::from_slice(header)
        .map_err(|e| format!("{name}: the safetensors header does not read: {e}"))?;
    let data = metadata.data_len() as u64;
    let expected = SAFETENSORS_LENGTH_BYTES + header.len() as u64 + data;
    if expected != file_bytes {
        return Err(format!(
            "{name}: the safetensors header describes {expected} bytes, but the file has {file_bytes} (cut short or padded?)"
        ));
    }
    use safetensors::Dtype;
    metadata
        .tensors()
        .values()
        .filter(|t| matches!(t.dtype, Dtype::F32 | Dtype::F16 | Dtype::BF16))
        .try_fold(0u64, |sum, t| {
            let elements = t
                .shape
                .iter()
                .try_fold(1u64, |n, &d| n.checked_mul(d as u64))?;
            sum.checked_add(elements.checked_mul(4)?)
        })
        .ok_or_else(|| format!("{name}: the safetensors header's tensor sizes overflow"))
}

/// Refuses a model whose weights, widened to f32, leave less than [`WORKING_BYTES`] of
/// [`WORKER_MEMORY_BYTES`], saying how much it needs and why.
pub fn check_fits(name: &str, file_bytes: u64, widened: u64) -> Result<(), String> {
    if widened <= WORKER_MEMORY_BYTES - WORKING_BYTES {
        return Ok(());
    }
    let gb = tabprobe_core::display::bytes;
    Err(format!(
        "{name} does not fit in a browser tab: its {} of weights take {} once \
         widened to f32 for the CPU, and a model worker addresses at most {}, {} \
         of which are kept for its code, the tokenizer and a batch's work. On WebGPU, or with \
         the CLI (tabprobe probe), it runs without that limit",
        gb(file_bytes),
        gb(widened),
        gb(WORKER_MEMORY_BYTES),
        gb(WORKING_BYTES),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabprobe_core::checkpoint::SAFETENSORS_MAX_HEADER_BYTES;

    /// A safetensors file of the given tensors (name, dtype, element count), data zeros.
    fn file(tensors: &[(&str, &str, u64, u64)]) -> (Vec<u8>, u64) {
        let mut entries = Vec::new();
        let mut offset = 0u64;
        for (name, dtype, elements, width) in tensors {
            let end = offset + elements * width;
            entries.push(format!(
                "\"{name}\":{{\"dtype\":\"{dtype}\",\"shape\":[{elements}],\"data_offsets\":[{offset},{end}]}}"
            ));
            offset = end;
        }
        let header = format!(
            "{{\"__metadata__\":{{\"format\":\"pt\"}},{}}}",
            entries.join(",")
        );
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        let size = bytes.len() as u64 + offset;
        (bytes, size)
    }

    #[test]
    fn widened_bytes_count_every_float_at_four_bytes() {
        // 10 f32 (40 bytes) + 6 f16 (12 bytes → 24 widened) + 3 bf16 (6 → 12) + 5 i64 (40, not widened).
        let (bytes, size) = file(&[
            ("a", "F32", 10, 4),
            ("b", "F16", 6, 2),
            ("c", "BF16", 3, 2),
            ("d", "I64", 5, 8),
        ]);
        let n = header_len("m", &bytes, size).unwrap();
        let header = &bytes[8..8 + n as usize];
        assert_eq!(widened_bytes("m", header, size), Ok(40 + 24 + 12));
    }

    #[test]
    fn a_file_the_header_does_not_describe_is_refused() {
        let (bytes, size) = file(&[("a", "F32", 10, 4)]);
        let header = &bytes[8..];
        let e = widened_bytes("model.safetensors", header, size - 1).unwrap_err();
        assert!(
            e.contains("describes") && e.contains("model.safetensors"),
            "{e}"
        );
        let e = header_len("model.safetensors", &bytes[..5], size).unwrap_err();
        assert!(e.contains("fewer than the 8"), "{e}");
        // A header length past the file's end.
        let mut long = bytes.clone();
        long[..8].copy_from_slice(&(size).to_le_bytes());
        assert!(header_len("m", &long, size)
            .unwrap_err()
            .contains("but the file has"));
        let mut huge = bytes;
        huge[..8].copy_from_slice(&(SAFETENSORS_MAX_HEADER_BYTES + 1).to_le_bytes());
        assert!(header_len("m", &huge, u64::MAX)
            .unwrap_err()
            .contains("at most"));
    }

    #[test]
    fn roberta_large_fits_in_f32_and_in_f16_and_a_larger_f16_file_does_not() {
        // roberta-large: 355,362,819 parameters, 1,421,451,276 bytes in f32 (measured to load
        // and score in the page, docs/limits.md#model-memory). Need: widened = 1.42 GB ≤ 4.29 − 0.54 = 3.76 GB.
        let f32_bytes = 355_362_819u64 * 4;
        assert_eq!(check_fits("large", f32_bytes, f32_bytes), Ok(()));
        // The same model in f16: a 0.71 GB file, 1.42 GB widened.
        assert_eq!(check_fits("large-f16", f32_bytes / 2, f32_bytes), Ok(()));
        // 1 B parameters in f16: a 2.00 GB file, 4.00 GB widened > 3.76 GB.
        let params = 1_000_000_000u64;
        let e = check_fits("big-f16", params * 2, params * 4).unwrap_err();
        assert!(
            e.starts_with(
                "big-f16 does not fit in a browser tab: its 2.00 GB of weights take 4.00 GB"
            ),
            "{e}"
        );
        assert!(e.contains("at most 4.29 GB, 536.9 MB of which"), "{e}");
        // The limit itself: exactly 4 GiB − 512 MiB fits, one byte more does not.
        let limit = WORKER_MEMORY_BYTES - WORKING_BYTES;
        assert!(check_fits("x", limit / 2, limit).is_ok());
        assert!(check_fits("x", limit / 2, limit + 1).is_err());
    }
}
