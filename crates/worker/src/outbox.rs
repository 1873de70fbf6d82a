//! Posting [`Response`]s from the worker to the page: the JSON header through [`transport`],
//! byte parts transferred (not copied through JSON), a Blob passed by reference.

use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope};

use crate::protocol::Response;
use crate::transport;

/// Posts `response` alone.
pub fn post(response: &Response) {
    post_with_parts(response, &[]);
}

/// Posts `response` with byte parts (transferred, not copied through JSON).
pub fn post_with_parts(response: &Response, parts: &[&[u8]]) {
    let parts = parts.iter().map(|p| js_sys::Uint8Array::from(*p)).collect();
    post_encoded(response, parts, None);
}

/// Posts `response` with byte parts (transferred) and a trailing Blob. A worker that cannot
/// post says so on its console: the page's watch then finds it silent.
pub fn post_encoded(response: &Response, parts: Vec<js_sys::Uint8Array>, blob: Option<&Blob>) {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    match transport::encode_with_blob(response, parts, blob) {
        Ok((message, transfer)) => {
            if let Err(e) = scope.post_message_with_transfer(&message, &transfer) {
                web_sys::console::error_2(&"tabprobe worker: cannot post".into(), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&e.into()),
    }
}
