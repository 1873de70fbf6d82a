//! Requests about files and sets that answer once: importing a dataset, counting (and
//! checking) a probe set, exporting an inoculated checkpoint or a pairs file, and building a
//! saved run's report. Exports that cannot be made answer [`Response::JobFailed`].

use tabprobe_core::data::import::{
    import_files, ImportError, ImportOptions, ImportReport, InputFile,
};
use tabprobe_core::report::FullReport;
use tabprobe_core::run::pairs_file::{pair_lines, pairs_jsonl};
use tabprobe_core::run::pieces::{piece_ranges, RunAssembler};
use tabprobe_core::run::RunResult;
use tabprobe_core::Dataset;
use web_sys::Blob;

use super::{post_failure, SharedHost};
use crate::outbox::{post, post_with_parts};
use crate::protocol::{JobError, ProbeRequest, Request, Response};

/// Answers [`Request::Import`], [`Request::CountProbeSet`], [`Request::ExportInoculated`],
/// [`Request::ExportPairs`] and [`Request::BuildReport`]; other requests are not routed here.
pub(super) fn handle(host: SharedHost, request: Request, parts: Vec<Vec<u8>>, blob: Option<Blob>) {
    match request {
        Request::Import {
            request,
            names,
            dataset_name,
        } => {
            let result = import(names, parts, dataset_name);
            post(&Response::Imported { request, result });
        }
        Request::CountProbeSet {
            request,
            probe,
            scores_of,
        } => {
            let imported = scores_of.and_then(|slot| host.borrow().imported.get(&slot).cloned());
            let counts = probe.build().and_then(|set| {
                if let Some(imported) = imported {
                    imported.check_set(&set)?;
                }
                Ok(set.counts())
            });
            post(&Response::ProbeCounts { request, counts });
        }
        Request::ExportInoculated { request, job, size } => {
            export_inoculated(&host, request, job, size)
        }
        Request::ExportPairs {
            request,
            probe,
            file,
        } => match pairs_file(*probe) {
            Ok(text) => post_with_parts(
                &Response::CheckpointFiles {
                    request,
                    names: vec![file],
                },
                &[text.as_bytes()],
            ),
            Err(message) => post_failure(&host, request, JobError::Failed(message)),
        },
        Request::BuildReport {
            request,
            piece_bytes,
        } => wasm_bindgen_futures::spawn_local(async move {
            let report = build_report(piece_bytes, parts, blob).await;
            post(&Response::Report { request, report });
        }),
        _ => {}
    }
}

/// Posts the Hugging Face files of the checkpoint inoculation `job` kept for `size`, as the
/// answer to request `request`.
fn export_inoculated(host: &SharedHost, request: u64, job: u64, size: usize) {
    let h = host.borrow();
    let found = h.inoculated.get(&job).and_then(|i| {
        let (_, weights) = i.checkpoints.iter().find(|(n, _)| *n == size)?;
        Some(i.base.with_bytes(weights))
    });
    let Some(files) = found else {
        drop(h);
        return post_failure(
            host,
            request,
            JobError::Failed(format!(
                "this page no longer holds the n = {size} checkpoint (fine-tuned weights \
                 live until the page is closed or the worker restarts)"
            )),
        );
    };
    let (names, parts): (Vec<String>, Vec<&[u8]>) = files
        .named()
        .into_iter()
        .map(|(name, bytes)| (name.to_string(), bytes))
        .unzip();
    post_with_parts(&Response::CheckpointFiles { request, names }, &parts)
}

/// The pairs file (docs/scoring-elsewhere.md) of the probe set `probe` describes.
fn pairs_file(probe: ProbeRequest) -> Result<String, String> {
    let linearization = probe.settings.linearization.name();
    let set = probe
        .build()
        .map_err(|e| format!("the probe set cannot be built: {e}"))?;
    pairs_jsonl(&pair_lines(&set, linearization))
        .map_err(|e| format!("cannot write the pairs: {e}"))
}

/// The whole report (core's [`FullReport`]) of the run files in pieces: in `blob`, cut at
/// `piece_bytes`, or without a Blob in `parts`. Errors say which piece does not read.
async fn build_report(
    piece_bytes: Vec<usize>,
    parts: Vec<Vec<u8>>,
    blob: Option<Blob>,
) -> Result<Box<FullReport>, String> {
    let mut assembler = RunAssembler::new("the saved run's files");
    match blob {
        Some(blob) => {
            let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer())
                .await
                .map_err(|e| format!("cannot read the saved run's files: {e:?}"))?;
            // The worker can hold the run twice: one copy into its memory, then cut.
            let all = js_sys::Uint8Array::new(&buffer).to_vec();
            for range in piece_ranges("the saved run's files", &piece_bytes, all.len())? {
                assembler.push(&all[range]).map_err(|e| e.to_string())?;
            }
        }
        None => {
            for part in &parts {
                assembler.push(part).map_err(|e| e.to_string())?;
            }
        }
    }
    let runs = assembler.finish().map_err(|e| e.to_string())?;
    let refs: Vec<&RunResult> = runs.iter().collect();
    Ok(Box::new(FullReport::build(&refs)))
}

/// Core's importers on the files (names and bytes in the same order), with the page's limits.
fn import(
    names: Vec<String>,
    parts: Vec<Vec<u8>>,
    dataset_name: String,
) -> Result<Box<(Dataset, ImportReport)>, ImportError> {
    if names.len() != parts.len() {
        return Err(ImportError {
            file: format!("{} files", names.len()),
            location: "message".into(),
            message: format!("{} names came with {} files", names.len(), parts.len()),
        });
    }
    let files = names
        .into_iter()
        .zip(parts)
        .map(|(name, bytes)| InputFile::new(name, bytes))
        .collect();
    let options = ImportOptions {
        name: Some(dataset_name),
        ..ImportOptions::default()
    };
    import_files(files, &options).map(Box::new)
}
