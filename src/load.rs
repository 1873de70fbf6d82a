//! All dataset I/O of the page: the bundled demo (fetched from `public/`) and files the user
//! picks or drops. A load either replaces the dataset or reports problems; never both.

use gloo::file::futures::read_as_text;
use leptos::prelude::*;
use tabprobe_core::parse_dataset;

use crate::state::{AppState, LoadProblem, LoadedDataset};

/// Where the bundled demo dataset is served (copied from `public/demo/` by Trunk).
pub const DEMO_URL: &str = "demo/dataset.json";

/// Files larger than this are refused before they are read: the browser would hold the text,
/// the parsed JSON and the typed dataset at once.
pub const MAX_FILE_BYTES: f64 = 100.0 * 1024.0 * 1024.0;

/// Validates `text` and either replaces the dataset or records the problems.
pub fn accept_text(state: AppState, file: &str, text: &str) {
    match parse_dataset(file, text) {
        Ok(dataset) => {
            state.dataset.set(Some(LoadedDataset::new(file, dataset)));
            state.problem.set(None);
        }
        Err(e) => state.problem.set(Some(LoadProblem::Invalid(e))),
    }
}

/// Fetches and loads the bundled demo dataset.
pub async fn load_demo(state: AppState) {
    state.loading.set(Some(DEMO_URL.to_string()));
    let result = async {
        let response = gloo::net::http::Request::get(DEMO_URL)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !response.ok() {
            return Err(format!(
                "the server answered {} {}",
                response.status(),
                response.status_text()
            ));
        }
        response.text().await.map_err(|e| e.to_string())
    }
    .await;
    match result {
        Ok(text) => accept_text(state, "demo/dataset.json", &text),
        Err(message) => state.problem.set(Some(LoadProblem::Unreadable {
            file: DEMO_URL.to_string(),
            message: format!("cannot fetch the bundled demo dataset: {message}"),
        })),
    }
    state.loading.set(None);
}

/// Reads one user file (from the picker or a drop) and loads it.
pub async fn load_file(state: AppState, file: web_sys::File) {
    let name = file.name();
    if file.size() > MAX_FILE_BYTES {
        state.problem.set(Some(LoadProblem::Unreadable {
            file: name,
            message: format!(
                "the file is {:.1} MB; the limit is {:.0} MB. Split it, or convert it with `tabprobe` on the command line.",
                file.size() / 1e6,
                MAX_FILE_BYTES / 1e6
            ),
        }));
        return;
    }
    state.loading.set(Some(name.clone()));
    match read_as_text(&gloo::file::Blob::from(file)).await {
        Ok(text) => accept_text(state, &name, &text),
        Err(e) => state.problem.set(Some(LoadProblem::Unreadable {
            file: name,
            message: format!("cannot read the file: {e}"),
        })),
    }
    state.loading.set(None);
}
