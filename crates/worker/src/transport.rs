//! Putting a [`Request`](super::protocol::Request) or [`Response`](super::protocol::Response)
//! on the wire: `[json header, Uint8Array…, Blob?]`, with the byte parts' buffers
//! transferred. A trailing `Blob` (a finished run's pieces, see
//! [`Response::RunFinished`](super::protocol::Response::RunFinished)) is passed by reference:
//! the receiving thread neither copies nor parses it.

use js_sys::{Array, Uint8Array};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Blob;

/// Builds the message array and the transfer list for `header` and `parts`.
pub fn encode<T: Serialize>(header: &T, parts: Vec<Uint8Array>) -> Result<(Array, Array), String> {
    encode_with_blob(header, parts, None)
}

/// [`encode`] with a trailing `blob`.
pub fn encode_with_blob<T: Serialize>(
    header: &T,
    parts: Vec<Uint8Array>,
    blob: Option<&Blob>,
) -> Result<(Array, Array), String> {
    let json = serde_json::to_string(header).map_err(|e| format!("cannot encode message: {e}"))?;
    let message = Array::new();
    let transfer = Array::new();
    message.push(&JsValue::from_str(&json));
    for part in parts {
        transfer.push(&part.buffer());
        message.push(&part);
    }
    if let Some(blob) = blob {
        message.push(blob);
    }
    Ok((message, transfer))
}

/// A message read back: its header, byte parts and trailing Blob.
pub struct Decoded<T> {
    /// The JSON header.
    pub header: T,
    /// The byte parts, in order.
    pub parts: Vec<Vec<u8>>,
    /// The trailing Blob, if the message has one.
    pub blob: Option<Blob>,
}

/// Reads a message array back into its header, byte parts and trailing Blob.
pub fn decode<T: DeserializeOwned>(data: &JsValue) -> Result<Decoded<T>, String> {
    let array: &Array = data.dyn_ref().ok_or("message is not an array")?;
    let json = array
        .get(0)
        .as_string()
        .ok_or("message header is not a string")?;
    let header = serde_json::from_str(&json).map_err(|e| format!("bad message header: {e}"))?;
    let mut parts = Vec::new();
    let mut blob = None;
    let last = array.length().saturating_sub(1);
    for i in 1..array.length() {
        let value = array.get(i);
        if i == last && value.is_instance_of::<Blob>() {
            blob = value.dyn_into().ok();
            break;
        }
        let bytes: Uint8Array = value
            .dyn_into()
            .map_err(|_| format!("message part {i} is not bytes"))?;
        parts.push(bytes.to_vec());
    }
    Ok(Decoded {
        header,
        parts,
        blob,
    })
}
