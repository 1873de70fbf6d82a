//! The SHA-256 of a weights file — a model's identity in results and share links — computed
//! by the browser's Web Crypto where the worker has it: native code, where the model crate's
//! `sha2` runs in software in wasm at about 29 MB/s (49 s of a 1.42 GB checkpoint's 53 s load,
//! measured in Chromium on a 2-core VM). Web Crypto's `subtle` exists only in secure contexts
//! (https, localhost); elsewhere the worker hashes with `sha2` (the same digest) after the
//! checkpoint has loaded, so one that fails its checks costs no hashing.

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, SubtleCrypto, WorkerGlobalScope};

/// A digest Web Crypto is computing: started by [`start_web_crypto_sha256`], read with
/// [`PendingSha256::hex`]. The browser computes it off the worker's thread, so the worker can
/// load the model meanwhile.
pub struct PendingSha256(JsFuture);

impl PendingSha256 {
    /// The digest as lower-case hex, as [`tabprobe_model::loading::weight_file::weights_sha256`] writes it;
    /// `None` if Web Crypto failed or answered with something that is not a SHA-256.
    pub async fn hex(self) -> Option<String> {
        let digest = Uint8Array::new(&self.0.await.ok()?).to_vec();
        // A SHA-256 is 32 bytes; anything else is not one, and the caller hashes in wasm.
        (digest.len() == 32).then(|| digest.iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// Starts `crypto.subtle.digest("SHA-256", bytes)`; `None` where the worker has no Web Crypto
/// (insecure contexts) or it refuses (the caller then hashes in wasm). The browser copies
/// `bytes` when called, so the wasm memory may change while the digest is pending.
pub fn start_web_crypto_sha256(bytes: &[u8]) -> Option<PendingSha256> {
    let scope: WorkerGlobalScope = js_sys::global().dyn_into().ok()?;
    if !scope.is_secure_context() {
        return None;
    }
    let promise = scope
        .crypto()
        .ok()?
        .subtle()
        .digest_with_str_and_u8_array("SHA-256", bytes)
        .ok()?;
    Some(PendingSha256(JsFuture::from(promise)))
}

/// The digest of a `Blob` Web Crypto will compute: started by
/// [`start_web_crypto_sha256_of_blob`], read with [`PendingBlobSha256::hex`].
pub struct PendingBlobSha256 {
    /// The Blob's bytes, read by the browser into an `ArrayBuffer` outside wasm memory.
    buffer: JsFuture,
    subtle: SubtleCrypto,
}

impl PendingBlobSha256 {
    /// The digest as lower-case hex; `None` if reading the Blob or Web Crypto failed.
    pub async fn hex(self) -> Option<String> {
        let buffer: js_sys::Object = self.buffer.await.ok()?.dyn_into().ok()?;
        let promise = self
            .subtle
            .digest_with_str_and_buffer_source("SHA-256", &buffer)
            .ok()?;
        PendingSha256(JsFuture::from(promise)).hex().await
    }
}

/// Starts reading `blob` for Web Crypto's SHA-256 (the browser reads it off this thread while
/// the model loads; the digest itself starts when [`PendingBlobSha256::hex`] is awaited, as a
/// synchronous load leaves no turn of the event loop to start it earlier). `None` where the
/// worker has no Web Crypto (insecure contexts): the caller hashes the Blob in pieces in wasm.
/// The bytes are held by the browser, never in the worker's wasm memory.
pub fn start_web_crypto_sha256_of_blob(blob: &Blob) -> Option<PendingBlobSha256> {
    let scope: WorkerGlobalScope = js_sys::global().dyn_into().ok()?;
    if !scope.is_secure_context() {
        return None;
    }
    let subtle = scope.crypto().ok()?.subtle();
    Some(PendingBlobSha256 {
        buffer: JsFuture::from(blob.array_buffer()),
        subtle,
    })
}

/// [`start_web_crypto_sha256`], awaited.
pub async fn web_crypto_sha256(bytes: &[u8]) -> Option<String> {
    start_web_crypto_sha256(bytes)?.hex().await
}
