//! The site's bundled demo models: `models/index.json` is fetched on start; a missing
//! manifest (404) means the site ships none. The `default` model is loaded as the main model with
//! its linearization unless the user has already started a load; the `second` one is offered
//! in the model bar.

use leptos::prelude::*;
use tabprobe_core::run::models_manifest::{parse_models_manifest, BundledModel, ModelRole};
use tabprobe_worker::protocol::Slot;

use crate::models::load::load_bundled_url;
use crate::state::{AppState, ModelStatus, SlotState};

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
        apply_linearization(state, Slot::Main, &model);
        load_bundled_url(state, Slot::Main, model.clone(), true).await;
        if reads_no_premise(&model) {
            mark_hypothesis_only(state, Slot::Main);
        }
    }
}

/// Loads a bundled model into `slot` on the user's request (and applies its linearization
/// when it goes into the main slot).
pub async fn load_bundled_into(state: AppState, slot: Slot, model: BundledModel) {
    apply_linearization(state, slot, &model);
    load_bundled_url(state, slot, model.clone(), false).await;
    if reads_no_premise(&model) {
        mark_hypothesis_only(state, slot);
    }
}

/// The model bar's linearization becomes the main model's from the manifest (strategy and
/// order). Whether a model reads a premise at all is the model's, not the bar's: it is
/// recorded per model ([`mark_hypothesis_only`]) so loading another model later does not
/// inherit it.
fn apply_linearization(state: AppState, slot: Slot, model: &BundledModel) {
    if slot != Slot::Main {
        return;
    }
    if let Some(l) = model.linearize_settings() {
        if !l.hypothesis_only() {
            state.linearization.set(l);
        }
    }
}

/// Records the model now in `slot` as one that reads the hypothesis alone, unless the load
/// failed (the slot then still holds the previous model).
fn mark_hypothesis_only(state: AppState, slot: Slot) {
    let SlotState {
        model: loaded,
        status,
        ..
    } = state.slot(slot);
    if matches!(status.get_untracked(), ModelStatus::Failed(_)) {
        return;
    }
    if let Some(hash) = loaded.with_untracked(|m| m.as_ref().map(|m| m.id.weights_sha256.clone())) {
        state.hypothesis_only_weights.update(|w| {
            if !w.contains(&hash) {
                w.push(hash);
            }
        });
    }
}

/// Whether the manifest says the model was trained with an empty premise (core's premise
/// mode; the manifest names it `none`).
fn reads_no_premise(model: &BundledModel) -> bool {
    model
        .linearize_settings()
        .is_some_and(|l| l.hypothesis_only())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabprobe_core::linearize::{Linearization, PremiseMode};
    use tabprobe_core::run::models_manifest::parse_models_manifest;

    fn manifest() -> Vec<BundledModel> {
        parse_models_manifest(
            "index.json",
            r#"{"format":"tabprobe-models","version":1,"models":[
                {"id":"full","name":"F","path":"models/full/","role":"default","linearization":"paragraph"},
                {"id":"hypo","name":"H","path":"models/hypo/","role":"second","linearization":"none"}]}"#,
        )
        .unwrap()
        .models
    }

    #[test]
    fn a_manifest_model_reads_no_premise_when_core_says_none_means_so() {
        let m = manifest();
        assert!(!reads_no_premise(&m[0]));
        assert!(reads_no_premise(&m[1]));
    }

    #[test]
    fn the_bar_takes_a_main_models_strategy_but_never_its_empty_premise() {
        let m = manifest();
        let state = AppState::new();
        apply_linearization(state, Slot::Main, &m[0]);
        assert_eq!(
            state.linearization.get_untracked().strategy,
            Linearization::Paragraph
        );
        // A hypothesis-only model in the main slot leaves the bar as it was: the next model
        // loaded must not inherit "no premise"; the model itself is marked instead.
        apply_linearization(state, Slot::Main, &m[1]);
        let bar = state.linearization.get_untracked();
        assert_eq!(
            (bar.strategy, bar.premise),
            (Linearization::Paragraph, PremiseMode::Full)
        );
        // The second slot never sets the bar.
        let state = AppState::new();
        apply_linearization(state, Slot::Second, &m[0]);
        assert_eq!(state.linearization.get_untracked(), Default::default());
    }
}
