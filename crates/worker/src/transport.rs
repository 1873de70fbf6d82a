//! Putting a [`Request`](super::protocol::Request) or [`Response`](super::protocol::Response)
//! on the wire: `[json header, Uint8Array…]`, with the byte parts' buffers transferred.

use js_sys::{Array, Uint8Array};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

/// Builds the message array and the transfer list for `header` and `parts`.
pub fn encode<T: Serialize>(header: &T, parts: Vec<Uint8Array>) -> Result<(Array, Array), String> {
    let json = serde_json::to_string(header).map_err(|e| format!("cannot encode message: {e}"))?;
    let message = Array::new();
    let transfer = Array::new();
    message.push(&JsValue::from_str(&json));
    for part in parts {
        transfer.push(&part.buffer());
        message.push(&part);
    }
    Ok((message, transfer))
}

/// Reads a message array back into its header and byte parts.
pub fn decode<T: DeserializeOwned>(data: &JsValue) -> Result<(T, Vec<Vec<u8>>), String> {
    let array: &Array = data.dyn_ref().ok_or("message is not an array")?;
    let json = array
        .get(0)
        .as_string()
        .ok_or("message header is not a string")?;
    let header = serde_json::from_str(&json).map_err(|e| format!("bad message header: {e}"))?;
    let mut parts = Vec::new();
    for i in 1..array.length() {
        let bytes: Uint8Array = array
            .get(i)
            .dyn_into()
            .map_err(|_| format!("message part {i} is not bytes"))?;
        parts.push(bytes.to_vec());
    }
    Ok((header, parts))
}
