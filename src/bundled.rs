//! The site's bundled demo models: `models/index.json` is fetched on start; a missing
//! manifest (404) means the site ships none. The `default` model is loaded into slot 0 with
//! its linearization unless the user has already started a load; the `second` one is offered
//! in the model bar.

use leptos::prelude::*;
use tabprobe_core::models_manifest::{parse_models_manifest, BundledModel, ModelRole};

use crate::model_load::{auto_load_model_url, load_model_url_into};
use crate::state::AppState;

/// Where the manifest is served (copied from `public/models/` by Trunk).
pub const MANIFEST_URL: &str = "models/index.json";

/// Fetches the manifest, records it, and auto-loads the default model.
pub async fn load_bundled_models(state: AppState) {
    let text = async {
        let response = gloo::net::http::Request::get(MANIFEST_URL)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        match response.status() {
            200 => response.text().await.map(Some).map_err(|e| e.to_string()),
            // No manifest, or a dev server's index.html fallback: the site bundles no model.
            404 => Ok(None),
            s => Err(format!(
                "the server answered {s} {}",
                response.status_text()
            )),
        }
    }
    .await;
    let text = match text {
        Ok(Some(t)) if !t.trim_start().starts_with('<') => t,
        Ok(_) => return,
        Err(e) => {
            web_sys::console::warn_1(&format!("tabprobe: {MANIFEST_URL}: {e}").into());
            return;
        }
    };
    let manifest = match parse_models_manifest(MANIFEST_URL, &text) {
        Ok(m) => m,
        Err(e) => {
            web_sys::console::warn_1(&format!("tabprobe: bundled models ignored: {e}").into());
            return;
        }
    };
    let default = manifest.with_role(ModelRole::Default).cloned();
    state.bundled.set(Some(manifest));
    if let Some(model) = default {
        if let Some(l) = model.linearize_settings() {
            state.linearization.set(l);
        }
        auto_load_model_url(state, 0, model.path.clone()).await;
    }
}

/// Loads a bundled model into `slot` on the user's request (and applies its linearization
/// when it goes into slot 0).
pub async fn load_bundled_into(state: AppState, slot: u32, model: BundledModel) {
    if slot == 0 {
        if let Some(l) = model.linearize_settings() {
            state.linearization.set(l);
        }
    }
    load_model_url_into(state, slot, model.path.clone()).await;
}
