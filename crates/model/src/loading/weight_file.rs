//! A `model.safetensors` file read a byte range at a time: its header is parsed and checked
//! first, then each tensor's bytes are read only when that tensor is converted. The file can
//! be in memory (`&[u8]`, natively and in tests) or anywhere else a [`WeightSource`] reads
//! from — the browser's model worker reads slices of a `Blob` that stays outside its wasm
//! memory, so a checkpoint's bytes are never all held by the worker at once.

use std::borrow::Cow;

use safetensors::tensor::{Metadata, TensorInfo};
use sha2::{Digest, Sha256};

use crate::error::LoadError;

use tabprobe_core::checkpoint::{safetensors_header_len, SAFETENSORS_LENGTH_BYTES as LENGTH_BYTES};

/// Bytes a [`weights_sha256_of`] read takes at a time.
pub const HASH_CHUNK_BYTES: u64 = 16 * 1024 * 1024;

/// Where the bytes of a weight file come from.
pub trait WeightSource {
    /// The file's length in bytes.
    fn byte_len(&self) -> u64;

    /// Bytes `start..end` of the file (`start <= end <= byte_len()`); an error says why they
    /// could not be read (a file changed or removed since it was picked, say).
    fn read(&self, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String>;
}

/// Bytes `start..end` of `bytes`, borrowed.
fn in_memory(bytes: &[u8], start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
    usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(s, e)| bytes.get(s..e))
        .map(Cow::Borrowed)
        .ok_or_else(|| {
            format!(
                "bytes {start}..{end} are past the end ({} bytes)",
                bytes.len()
            )
        })
}

impl WeightSource for &[u8] {
    fn byte_len(&self) -> u64 {
        self.len() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
        in_memory(self, start, end)
    }
}

impl WeightSource for Vec<u8> {
    fn byte_len(&self) -> u64 {
        self.len() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
        in_memory(self, start, end)
    }
}

/// A safetensors file whose header has been read and checked: every tensor's offsets are
/// contiguous, its byte length matches its dtype and shape, and the data ends where the file
/// does (the same checks as `SafeTensors::deserialize`, without reading the data).
pub struct WeightFile<'a> {
    source: &'a dyn WeightSource,
    /// Where the data (tensor offset 0) starts in the file.
    data_start: u64,
    metadata: Metadata,
}

impl<'a> WeightFile<'a> {
    /// Reads and checks the header of the file `source` holds.
    pub fn open(source: &'a dyn WeightSource) -> Result<Self, LoadError> {
        let len = source.byte_len();
        let parse = |why: String| LoadError::WeightsParse(why);
        if len < LENGTH_BYTES {
            return Err(parse(format!(
                "{len} bytes, fewer than the {LENGTH_BYTES} of a safetensors header length"
            )));
        }
        let first = read_exactly(source, 0, LENGTH_BYTES).map_err(LoadError::WeightsRead)?;
        let length: [u8; 8] = first.as_ref().try_into().map_err(|_| {
            LoadError::WeightsRead(format!("{} bytes where 8 were asked for", first.len()))
        })?;
        let n = safetensors_header_len(&length, len)
            .map_err(|e| parse(format!("{e}: not a safetensors file?")))?;
        let data_start = LENGTH_BYTES + n;
        let header =
            read_exactly(source, LENGTH_BYTES, data_start).map_err(LoadError::WeightsRead)?;
        // `Metadata`'s deserializer checks the offsets, dtypes and shapes (safetensors' own
        // validation); what is left is that the data fills the rest of the file exactly.
        let metadata: Metadata = serde_json::from_slice(&header)
            .map_err(|e| parse(format!("the header does not read: {e}")))?;
        let data = metadata.data_len() as u64;
        if data_start + data != len {
            return Err(parse(format!(
                "the header describes {} bytes, but the file has {len} (cut short or padded?)",
                data_start + data
            )));
        }
        Ok(Self {
            source,
            data_start,
            metadata,
        })
    }

    /// The file's length in bytes.
    pub fn byte_len(&self) -> u64 {
        self.source.byte_len()
    }

    /// Every tensor's stored name and header entry, in file order.
    pub fn tensors(&self) -> Vec<(String, TensorInfo)> {
        self.metadata
            .offset_keys()
            .into_iter()
            .filter_map(|name| {
                let info = self.metadata.info(&name)?.clone();
                Some((name, info))
            })
            .collect()
    }

    /// Bytes `start..end` of the data of the tensor `info` describes (`stored` names it in
    /// errors).
    pub fn read(
        &self,
        stored: &str,
        info: &TensorInfo,
        start: u64,
        end: u64,
    ) -> Result<Cow<'_, [u8]>, LoadError> {
        let (begin, finish) = (info.data_offsets.0 as u64, info.data_offsets.1 as u64);
        if start > end || begin + end > finish {
            return Err(LoadError::WeightsParse(format!(
                "tensor {stored:?} is truncated"
            )));
        }
        let at = self.data_start + begin;
        read_exactly(self.source, at + start, at + end)
            .map_err(|e| LoadError::WeightsRead(format!("tensor {stored:?}: {e}")))
    }
}

/// `source.read(start, end)`, refused unless it gave exactly `end - start` bytes (a source
/// that gave fewer would otherwise make a tensor of the wrong size).
fn read_exactly(source: &dyn WeightSource, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
    let bytes = source.read(start, end)?;
    if bytes.len() as u64 != end - start {
        return Err(format!(
            "{} bytes where {} were asked for (bytes {start}..{end})",
            bytes.len(),
            end - start
        ));
    }
    Ok(bytes)
}

/// The file's length as a `usize` (saturating: a file past `usize::MAX` is large enough for
/// any config the size check compares it with).
pub fn byte_len(file: &WeightFile<'_>) -> usize {
    usize::try_from(file.byte_len()).unwrap_or(usize::MAX)
}

/// Lower-case hex of a digest.
fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Lower-case hex SHA-256 of the weight file, the model's identity in results and share links.
pub fn weights_sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex SHA-256 of the whole file `source` holds, read [`HASH_CHUNK_BYTES`] at a
/// time: the same digest as [`weights_sha256`] of the bytes.
pub fn weights_sha256_of(source: &dyn WeightSource) -> Result<String, LoadError> {
    let mut hash = Sha256::new();
    let len = source.byte_len();
    let mut at = 0;
    while at < len {
        let end = (at + HASH_CHUNK_BYTES).min(len);
        hash.update(read_exactly(source, at, end).map_err(LoadError::WeightsRead)?);
        at = end;
    }
    Ok(hex(&hash.finalize()))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use safetensors::{serialize, tensor::TensorView, Dtype};

    use super::*;

    /// Two f32 tensors: `a` = [1, 2, 3] and `b` = [[4, 5], [6, 7]].
    fn file() -> Vec<u8> {
        let a: Vec<u8> = [1f32, 2., 3.]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let b: Vec<u8> = [4f32, 5., 6., 7.]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let views = HashMap::from([
            ("a", TensorView::new(Dtype::F32, vec![3], &a).expect("a")),
            ("b", TensorView::new(Dtype::F32, vec![2, 2], &b).expect("b")),
        ]);
        serialize(views, None).expect("serialize")
    }

    #[test]
    fn a_tensor_is_read_from_its_own_bytes_only() {
        let bytes = file();
        let source = bytes.as_slice();
        let f = WeightFile::open(&source).expect("opens");
        let tensors = f.tensors();
        assert_eq!(tensors.len(), 2);
        let (name, b) = tensors.iter().find(|(n, _)| n == "b").expect("b");
        // The second f32 of `b` (bytes 4..8 of its data; `a`'s 12 bytes come first) is 5.
        let got = f.read(name, b, 4, 8).expect("reads");
        assert_eq!(f32::from_le_bytes([got[0], got[1], got[2], got[3]]), 5.0);
        // A range past the tensor's own bytes is refused, not read from the next tensor.
        let e = f.read(name, b, 12, 20).err().expect("past b");
        assert!(e.to_string().contains("\"b\" is truncated"), "{e}");
    }

    #[test]
    fn a_file_cut_short_or_padded_is_refused_from_its_header() {
        let mut bytes = file();
        bytes.pop();
        let cut = bytes.as_slice();
        let e = WeightFile::open(&cut).err().expect("refused");
        assert!(e.to_string().contains("cut short or padded"), "{e}");
        let short: &[u8] = &[1, 2, 3];
        let e = WeightFile::open(&short).err().expect("refused");
        assert!(e.to_string().contains("3 bytes"), "{e}");
        let huge = u64::MAX.to_le_bytes().to_vec();
        let e = WeightFile::open(&huge).err().expect("refused");
        assert!(e.to_string().contains("at most 100000000"), "{e}");
    }

    #[test]
    fn a_source_that_gives_fewer_bytes_than_asked_is_refused() {
        /// Gives one byte less than asked.
        struct Short(Vec<u8>);
        impl WeightSource for Short {
            fn byte_len(&self) -> u64 {
                self.0.len() as u64
            }
            fn read(&self, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
                Ok(Cow::Borrowed(&self.0[start as usize..end as usize - 1]))
            }
        }
        let e = WeightFile::open(&Short(file())).err().expect("refused");
        assert_eq!(
            e.to_string(),
            "model.safetensors could not be read from its source: 7 bytes where 8 were asked \
             for (bytes 0..8)"
        );
    }

    #[test]
    fn the_chunked_hash_equals_the_hash_of_the_bytes() {
        let bytes = file();
        assert_eq!(
            weights_sha256_of(&bytes).expect("hash"),
            weights_sha256(&bytes)
        );
        // Hand-worked: SHA-256 of no bytes.
        let none: &[u8] = &[];
        assert_eq!(
            weights_sha256_of(&none).expect("hash"),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn sha256_is_lower_hex() {
        assert_eq!(
            weights_sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
