//! All dataset I/O of the page: the bundled demo (fetched from `public/`), files the user picks
//! or drops (one dataset JSON, several files, a folder, a zip), and exports. A load either
//! replaces the dataset or reports problems; never both. Imports of published formats run in
//! the model worker (core's importers, off the page's thread), are summarised first and only
//! replace (or merge into) the dataset when the user accepts; so is a dataset JSON that would
//! replace a dataset holding work done in the page. A dataset JSON over
//! [`PAGE_PARSE_MAX_BYTES`] is parsed in the worker too.

use std::sync::Arc;

use gloo::file::futures::read_as_bytes;
use leptos::prelude::*;
use tabprobe_core::data::import::{
    decode_text, detect, too_large, Format, ImportError, ImportReport, InputFile,
    MAX_FILE_BYTES as CORE_MAX_FILE_BYTES, MAX_TOTAL_BYTES,
};
use tabprobe_core::{parse_dataset, Dataset};
use wasm_bindgen::JsCast;

use crate::state::{AppState, LoadProblem, LoadedDataset};
use crate::timing::{timed, Slices};
use crate::worker::client::client;

/// Where the bundled demo dataset is served (copied from `public/demo/` by Trunk).
pub const DEMO_URL: &str = "demo/dataset.json";

/// Files larger than this are refused before they are read: the browser would hold the text,
/// the parsed JSON and the typed dataset at once. (100 MiB, the importers' per-file limit; a
/// zip's entries are held to it too, and all files together to 300 MiB.)
pub const MAX_FILE_BYTES: f64 = CORE_MAX_FILE_BYTES as f64;

/// Dataset JSON larger than this is parsed in the model worker, not on the page's thread:
/// the strict loader parses about 30 ms per megabyte there (measured: the INFOTABS dev split's
/// 200 tables and 1,800 examples, 442 KB, in 13 ms; all 2,719 tables with them, 4.2 MB, took
/// one task of 378 ms, parsing and drawing), so a file up to this size stays well under 50 ms
/// and keeps its full list of problems; a larger one is read by the worker's importer, which
/// names the first problem and counts the others.
pub const PAGE_PARSE_MAX_BYTES: usize = 512 * 1024;

/// Validates `text` and either replaces the dataset or records the problems.
pub fn accept_text(state: AppState, file: &str, text: &str) {
    match timed("dataset-parse", || parse_dataset(file, text)) {
        Ok(dataset) => {
            state.set_loaded(LoadedDataset::new(file, dataset), false);
            state.problem.set(None);
        }
        Err(e) => state.problem.set(Some(LoadProblem::Invalid(e))),
    }
}

/// Fetches and loads the bundled demo dataset, unless the user loads data meanwhile (theirs
/// is never replaced by the demo arriving late).
pub async fn load_demo(state: AppState) {
    load_demo_since(state, state.load_generation_data.get_value()).await
}

/// [`load_demo`] for a start that began when the data-load counter stood at `generation`
/// (a user's load since then wins, even one started before the demo fetch).
pub async fn load_demo_since(state: AppState, generation: u64) {
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
    if state.load_generation_data.get_value() != generation {
        // The user started a load meanwhile: it owns the status line, and a dataset it put
        // on screen stays.
        if state.dataset.with_untracked(Option::is_some) {
            return;
        }
    } else {
        state.loading.set(None);
    }
    match result.map(|text| timed("dataset-parse", || parse_dataset(DEMO_URL, &text))) {
        Ok(Ok(dataset)) => {
            let loaded = LoadedDataset::new(DEMO_URL, dataset);
            // The untouched demo needs no keeping: it is loaded again when nothing is kept.
            state.kept.persisted.set_value(Some(loaded.dataset.clone()));
            state.set_loaded(loaded, false);
            state.problem.set(None);
        }
        Ok(Err(e)) => state.problem.set(Some(LoadProblem::Invalid(e))),
        Err(message) => state.problem.set(Some(LoadProblem::Unreadable {
            file: DEMO_URL.to_string(),
            message: format!("cannot fetch the bundled demo dataset: {message}"),
        })),
    }
}

/// An import read and summarised, waiting for the user to accept or cancel it.
#[derive(Clone)]
pub struct PendingImport {
    /// What the user gave, e.g. `infotabs.zip` or `5 files`.
    pub label: String,
    /// The imported dataset.
    pub dataset: Arc<Dataset>,
    /// What was found, counted and skipped.
    pub report: Arc<ImportReport>,
}

impl PendingImport {
    /// A tabprobe dataset JSON waiting for the user's choice, with the counts an import
    /// summary shows.
    pub fn of_dataset(file: &str, dataset: Dataset) -> PendingImport {
        let summary = tabprobe_core::data::summary::DatasetSummary::of(&dataset);
        let per_split = summary
            .by_split
            .iter()
            .map(|(split, c)| {
                let n = [
                    c.get(tabprobe_core::Label::Entail),
                    c.get(tabprobe_core::Label::Neutral),
                    c.get(tabprobe_core::Label::Contradict),
                ];
                let name = tabprobe_core::data::summary::split_name(split.as_deref());
                (name.to_string(), n)
            })
            .collect();
        let report = ImportReport {
            files: vec![tabprobe_core::data::import::report::FileReport {
                name: file.to_string(),
                format: Format::ProductJson,
                detail: format!(
                    "{} tables, {} examples",
                    dataset.tables.len(),
                    dataset.examples.len()
                ),
            }],
            tables: dataset.tables.len(),
            examples: dataset.examples.len(),
            per_split,
            ..ImportReport::default()
        };
        PendingImport {
            label: file.to_string(),
            dataset: Arc::new(dataset),
            report: Arc::new(report),
        }
    }
}

/// The name a file goes by: its path inside a picked folder (`webkitRelativePath`), else its
/// name.
fn file_name(file: &web_sys::File) -> String {
    js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

/// What picked files are called: the imported dataset's name and the label the page shows for
/// them. One file goes by its name; a picked folder by the folder; several loose files by the
/// first one — its name without the extension for the dataset, `T1.json and 4 more files` for
/// the label (a count alone, `5 files`, said nothing a user could recognise).
fn names_of(names: &[String]) -> (String, String) {
    let first = names.first().map(String::as_str).unwrap_or("files");
    if names.len() <= 1 {
        return (first.to_string(), first.to_string());
    }
    if let Some((folder, _)) = first.split_once('/') {
        let prefix = format!("{folder}/");
        if names.iter().all(|n| n.starts_with(&prefix)) {
            return (folder.to_string(), folder.to_string());
        }
    }
    let base = first.rsplit('/').next().unwrap_or(first);
    let stem = match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => base,
    };
    let more = names.len() - 1;
    let files = if more == 1 { "file" } else { "files" };
    (stem.to_string(), format!("{base} and {more} more {files}"))
}

/// Reads the files the user gave. One tabprobe dataset JSON loads at once (every problem
/// listed); anything else goes through the importers and, when it reads, waits in `pending`
/// for the user's choice. Sizes are checked before anything is read; a failure leaves the
/// loaded dataset alone.
pub async fn load_files(
    state: AppState,
    files: Vec<web_sys::File>,
    pending: RwSignal<Option<PendingImport>>,
) {
    if files.is_empty() {
        return;
    }
    state.user_load_started();
    let names: Vec<String> = files.iter().map(file_name).collect();
    let fail = |e: ImportError| state.problem.set(Some(LoadProblem::Import(e)));
    // The picker's event has done its work (taking 201 files out of a FileList took 27 ms):
    // the rest starts in a task of its own.
    gloo::timers::future::TimeoutFuture::new(0).await;
    let mut total = 0.0;
    // In slices: for files handed to the page by a path, each `size` can go to the disk
    // (the INFOTABS dev split's 201 files took 30 ms of the page's thread, asked once each).
    let mut slices = Slices::new();
    for (file, name) in files.iter().zip(&names) {
        let size = file.size();
        if size > MAX_FILE_BYTES {
            fail(too_large(name, size as u64, CORE_MAX_FILE_BYTES));
            return;
        }
        total += size;
        slices.pause().await;
    }
    if total > MAX_TOTAL_BYTES as f64 {
        fail(ImportError {
            file: format!("{} files", files.len()),
            location: "size".into(),
            message: format!(
                "the files come to {} together; the limit is {}",
                tabprobe_core::display::bytes(total as u64),
                tabprobe_core::display::bytes(MAX_TOTAL_BYTES)
            ),
        });
        return;
    }
    let (dataset_name, label) = names_of(&names);
    state.loading.set(Some(label.clone()));
    let mut inputs = Vec::with_capacity(files.len());
    for (file, name) in files.into_iter().zip(names) {
        let blob = gloo::file::Blob::from(file);
        match read_as_bytes(&blob).await {
            Ok(bytes) => inputs.push(InputFile::new(name, bytes)),
            Err(e) => {
                state.loading.set(None);
                fail(ImportError {
                    file: name,
                    location: "file".into(),
                    message: format!("cannot read the file: {e}"),
                });
                return;
            }
        }
    }
    // One small dataset JSON: the strict loader, which lists every problem at once.
    let one_json = match inputs.as_slice() {
        [one] => detect(&one.name, &one.bytes) == Format::ProductJson,
        _ => false,
    };
    if let [one] = inputs.as_slice() {
        if one_json && one.bytes.len() <= PAGE_PARSE_MAX_BYTES {
            match decode_text(&one.name, &one.bytes) {
                // Work done in the page is never replaced without asking.
                Ok(text) if state.edited.get_untracked() => {
                    match timed("dataset-parse", || parse_dataset(&one.name, text)) {
                        Ok(dataset) => {
                            state.problem.set(None);
                            pending.set(Some(PendingImport::of_dataset(&one.name, dataset)));
                        }
                        Err(e) => state.problem.set(Some(LoadProblem::Invalid(e))),
                    }
                }
                Ok(text) => accept_text(state, &one.name, text),
                Err(e) => fail(e),
            }
            state.loading.set(None);
            return;
        }
    }
    // Core's importers run in the worker: a large import (or a large dataset JSON) never
    // blocks the page.
    let (names, bytes): (Vec<String>, Vec<Vec<u8>>) =
        inputs.into_iter().map(|f| (f.name, f.bytes)).unzip();
    let result = match client() {
        Ok(c) => c.import(names, bytes, dataset_name).await,
        Err(e) => Err(ImportError {
            file: label.clone(),
            location: "import".into(),
            message: e,
        }),
    };
    match result {
        // A dataset JSON loads at once, as from the page's own loader, unless work done in
        // the page would be replaced.
        Ok(imported) if one_json && !state.edited.get_untracked() => {
            let (dataset, _) = *imported;
            state.set_loaded(LoadedDataset::new(label, dataset), false);
            state.problem.set(None);
        }
        Ok(imported) => {
            let (dataset, report) = *imported;
            state.problem.set(None);
            pending.set(Some(PendingImport {
                label,
                dataset: Arc::new(dataset),
                report: Arc::new(report),
            }));
        }
        Err(e) => fail(e),
    }
    state.loading.set(None);
}

/// Puts an accepted import on screen: in place of the loaded dataset, or merged into it.
///
/// In three tasks — the click's (which closes the summary), the dataset's (merge or copy, its
/// summary), the views' (everything that shows the dataset) — so that none blocks the page:
/// in one, the INFOTABS dev split's held it for 58 ms.
pub async fn accept_import(state: AppState, import: PendingImport, merge: bool) {
    gloo::timers::future::TimeoutFuture::new(0).await;
    let current = state.dataset.get_untracked();
    // Merging keeps the work the loaded dataset holds; replacing drops it.
    let edited = merge && current.is_some() && state.edited.get_untracked();
    let dataset = match (merge, current) {
        (true, Some(loaded)) => {
            match tabprobe_core::data::import::merge(
                &loaded.dataset,
                (*import.dataset).clone(),
                &import.label,
            ) {
                Ok(d) => d,
                Err(e) => {
                    state.problem.set(Some(LoadProblem::Import(e)));
                    return;
                }
            }
        }
        _ => (*import.dataset).clone(),
    };
    let file = if merge {
        format!("merged with {}", import.label)
    } else {
        import.label.clone()
    };
    // What is put on screen is kept in the browser and must load back from there.
    if let Err(e) = tabprobe_core::data::validate::check_reloads(&file, &dataset) {
        state.problem.set(Some(LoadProblem::Invalid(e)));
        return;
    }
    let loaded = crate::timing::timed("dataset-summary", || LoadedDataset::new(file, dataset));
    gloo::timers::future::TimeoutFuture::new(0).await;
    crate::timing::timed("dataset-views", || state.set_loaded(loaded, edited));
    state.problem.set(None);
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) {
    let blob = gloo::file::Blob::new_with_options(text, Some(mime));
    let url = gloo::file::ObjectUrl::from(blob);
    let anchor = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok());
    if let Some(a) = anchor {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    // Revoke the URL a little later: some browsers read it after the click returns.
    gloo::timers::callback::Timeout::new(10_000, move || drop(url)).forget();
}
