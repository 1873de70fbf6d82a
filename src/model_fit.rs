//! Whether a checkpoint fits the model worker's memory on the CPU path, said before its
//! weights are read.
//!
//! A WebAssembly worker addresses at most 4 GiB. While it holds a model on the CPU it keeps
//! the weights file (for moves between backends and for fine-tuning) beside the weights
//! widened to f32 — so an f16 or bf16 file takes three times its size: a 1.4 GB f16
//! checkpoint, below the file limit, needs 4.2 GB, which leaves less than 0.1 GB of the
//! worker's 4.29 GB for its code, the tokenizer and a batch (estimated, not run out of memory
//! on purpose). (On WebGPU each tensor goes to the GPU as it is widened: the file and one
//! tensor.)
//! The safetensors header (its first bytes) says how many elements each tensor has: that is
//! enough to tell, with the numbers, before anything else is read.

use safetensors::tensor::Metadata;

/// The most a wasm32 worker can address.
pub const WORKER_MEMORY_BYTES: u64 = 4 << 30;

/// Left free for the worker's code, the tokenizer and a batch's activations (roberta-large at
/// batch 8 and 512 tokens: about 0.2 GB of attention scores and feed-forward activations).
pub const WORKING_BYTES: u64 = 512 << 20;

/// Bytes before a safetensors header: its length, a little-endian u64.
pub const LENGTH_BYTES: u64 = 8;

/// The longest header read (the safetensors crate's own limit).
pub const MAX_HEADER_BYTES: u64 = 100_000_000;

/// The header's length from the file's first [`LENGTH_BYTES`] bytes, checked against the
/// file's size and [`MAX_HEADER_BYTES`].
pub fn header_len(name: &str, first: &[u8], file_bytes: u64) -> Result<u64, String> {
    let bytes: [u8; 8] = first
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            format!(
                "{name}: not a safetensors file: {} bytes, fewer than the 8 of a header length",
                first.len()
            )
        })?;
    let n = u64::from_le_bytes(bytes);
    if n > MAX_HEADER_BYTES {
        return Err(format!(
            "{name}: not a safetensors file: its header would be {n} bytes long (at most {MAX_HEADER_BYTES})"
        ));
    }
    if LENGTH_BYTES + n > file_bytes {
        return Err(format!(
            "{name}: not a safetensors file: its header would be {n} bytes long, but the file has {file_bytes} bytes"
        ));
    }
    Ok(n)
}

/// The bytes of the weights once widened to f32 (every F32, F16 and BF16 tensor at 4 bytes an
/// element; other tensors are not widened), from the header's JSON. The tensors must fill the
/// file exactly, as the loader will require.
pub fn widened_bytes(name: &str, header: &[u8], file_bytes: u64) -> Result<u64, String> {
    let metadata: Metadata = serde_json::from_slice(header)
        .map_err(|e| format!("{name}: the safetensors header does not read: {e}"))?;
    let data = metadata.data_len() as u64;
    let expected = LENGTH_BYTES + header.len() as u64 + data;
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

/// Refuses a model whose weights file and widened weights together leave less than
/// [`WORKING_BYTES`] of [`WORKER_MEMORY_BYTES`], saying how much it needs and why.
pub fn check_fits(name: &str, file_bytes: u64, widened: u64) -> Result<(), String> {
    let need = file_bytes.saturating_add(widened);
    if need <= WORKER_MEMORY_BYTES - WORKING_BYTES {
        return Ok(());
    }
    let gb = |b: u64| b as f64 / 1e9;
    Err(format!(
        "{name} does not fit in a browser tab: it needs about {:.2} GB in the model worker \
         ({:.2} GB of weights file, kept for moves and fine-tuning, and {:.2} GB of weights \
         widened to f32), and a worker addresses at most {:.2} GB, {:.2} GB of which are kept \
         for the tokenizer and a batch's work. The CLI (tabprobe probe) runs it without \
         that limit",
        gb(need),
        gb(file_bytes),
        gb(widened),
        gb(WORKER_MEMORY_BYTES),
        gb(WORKING_BYTES),
    ))
}

/// [`header_len`], [`widened_bytes`] and [`check_fits`] on a whole file in memory (a
/// downloaded checkpoint).
pub fn check_bytes(name: &str, file: &[u8]) -> Result<(), String> {
    let size = file.len() as u64;
    let n = header_len(name, file, size)?;
    let header = file
        .get(LENGTH_BYTES as usize..(LENGTH_BYTES + n) as usize)
        .ok_or_else(|| format!("{name}: the safetensors header is cut short"))?;
    check_fits(name, size, widened_bytes(name, header, size)?)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        huge[..8].copy_from_slice(&(MAX_HEADER_BYTES + 1).to_le_bytes());
        assert!(header_len("m", &huge, u64::MAX)
            .unwrap_err()
            .contains("at most"));
    }

    #[test]
    fn roberta_large_in_f32_fits_and_the_same_size_in_f16_does_not() {
        // roberta-large: 355,362,819 parameters, 1,421,451,276 bytes in f32 (measured to load
        // and score in the page, README). Need: file + widened = 2.84 GB ≤ 3.76 GB.
        let f32_bytes = 355_362_819u64 * 4;
        assert_eq!(check_fits("large", f32_bytes, f32_bytes), Ok(()));
        // An f16 file of 1.4 GB (700 M parameters): 1.4 + 2.8 = 4.2 GB > 4.29 − 0.54 GB.
        let params = 700_000_000u64;
        let e = check_fits("big-f16", params * 2, params * 4).unwrap_err();
        assert!(
            e.starts_with("big-f16 does not fit in a browser tab: it needs about 4.20 GB"),
            "{e}"
        );
        assert!(
            e.contains("1.40 GB of weights file") && e.contains("2.80 GB of weights widened"),
            "{e}"
        );
        // The limit itself: exactly 4 GiB − 512 MiB fits, one byte more does not.
        let limit = WORKER_MEMORY_BYTES - WORKING_BYTES;
        assert!(check_fits("x", limit / 2, limit - limit / 2).is_ok());
        assert!(check_fits("x", limit / 2, limit - limit / 2 + 1).is_err());
    }

    #[test]
    fn check_bytes_reads_a_whole_file() {
        let (mut bytes, size) = file(&[("a", "F16", 4, 2)]);
        bytes.resize(size as usize, 0);
        assert_eq!(check_bytes("m", &bytes), Ok(()));
        bytes.pop();
        assert!(check_bytes("m", &bytes).unwrap_err().contains("describes"));
    }
}
