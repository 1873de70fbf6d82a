//! Offering text or bytes to the user as a file download (an object URL on a hidden link).

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) {
    offer(name, gloo::file::Blob::new_with_options(text, Some(mime)));
}

/// Offers `bytes` as a file download named `name`.
pub fn download_bytes(name: &str, bytes: &[u8]) {
    offer(
        name,
        gloo::file::Blob::new_with_options(bytes, Some("application/octet-stream")),
    );
}

fn offer(name: &str, blob: gloo::file::Blob) {
    use wasm_bindgen::JsCast;
    let url = gloo::file::ObjectUrl::from(blob);
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let _ = a.set_attribute("href", &url);
    let _ = a.set_attribute("download", name);
    if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
        a.click();
    }
    // Keep the object URL alive until the download has surely started.
    gloo::timers::callback::Timeout::new(60_000, move || drop(url)).forget();
}
