//! A weights file the worker holds as a `Blob` (a picked file, a download, a fine-tuned
//! checkpoint): the browser keeps its bytes outside the worker's wasm memory, and the model
//! crate reads it a range at a time through `FileReaderSync` (synchronous reads, which only
//! workers have). Loading a 1.42 GB checkpoint therefore never holds the whole file in wasm
//! memory: on WebGPU the host holds one tensor at a time, on the CPU the model's own tensors.

use std::borrow::Cow;

use js_sys::Uint8Array;
use tabprobe_model::WeightSource;
use web_sys::{Blob, FileReaderSync};

/// A `Blob` read with `FileReaderSync`.
pub struct BlobSource {
    blob: Blob,
    reader: FileReaderSync,
}

impl BlobSource {
    /// A reader of `blob`; an error where the thread has no `FileReaderSync` (not a worker).
    pub fn new(blob: Blob) -> Result<Self, String> {
        let reader = FileReaderSync::new()
            .map_err(|e| format!("this thread cannot read files synchronously: {e:?}"))?;
        Ok(Self { blob, reader })
    }

    /// The whole file in memory (fine-tuning reads every weight and writes them back).
    pub fn read_all(&self) -> Result<Vec<u8>, String> {
        Ok(self.read(0, self.byte_len())?.into_owned())
    }
}

impl WeightSource for BlobSource {
    fn byte_len(&self) -> u64 {
        // A Blob's size is a whole number of bytes, far below 2^53.
        self.blob.size() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
        let part = self
            .blob
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(|e| format!("cannot cut bytes {start}..{end}: {e:?}"))?;
        let buffer = self
            .reader
            .read_as_array_buffer(&part)
            .map_err(|e| format!("cannot read bytes {start}..{end} (was the file changed or removed since it was picked?): {e:?}"))?;
        let bytes = Uint8Array::new(&buffer);
        if u64::from(bytes.length()) != end - start {
            return Err(format!(
                "bytes {start}..{end}: read {} bytes (was the file changed since it was picked?)",
                bytes.length()
            ));
        }
        Ok(Cow::Owned(bytes.to_vec()))
    }
}

/// A Blob of `bytes` (copied out of wasm memory into the browser's).
pub fn blob_of(bytes: &[u8]) -> Result<Blob, String> {
    let parts = js_sys::Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).map_err(|e| format!("cannot make a Blob: {e:?}"))
}
