//! The probe run in progress, kept in IndexedDB as it runs (store `work` of database
//! `tabprobe`, see [`crate::storage::idb`]) so that a reload, a crash of the tab or of the model
//! worker, or a closed laptop lid loses at most the last few seconds of scoring — the page's
//! counterpart of the CLI's `--checkpoint-every` and `--resume`. Each tab keeps its own run
//! (two tabs may run at once, docs/browser-storage.md#two-tabs), under [`PREFIX`]`@<tab id>`;
//! a tab that finds no run of its own takes over one kept by a tab that is closed (its Web
//! Lock is gone, [`crate::storage::tabs::open_tabs`]), or one kept before tabs had their own.
//! Three kinds of entry, under that key:
//!
//! - `run-in-progress@<tab>` — the [`KeptRun`]: when it started, its models (slot, name, weights
//!   hash, pairs kept) and how many score records follow; rewritten with every record;
//! - `run-in-progress@<tab>/requests` — what each model's probe set is built from (dataset,
//!   settings, rules), written once when the run starts, so later edits to the working
//!   dataset do not change the run being resumed;
//! - `run-in-progress@<tab>/scores/N` — the N-th record: chunks of scores as the worker posted them
//!   ([`KeptChunk`]), written at most every [`FLUSH_EVERY_MS`] with the header in one
//!   transaction, so the header never counts a record that is not there.
//!
//! A resumed run hands the worker each model's kept scores with the chunk size they were
//! scored in; the worker hands out the same chunks, so the finished run file is the one an
//! uninterrupted run writes, to the byte. The entries are removed when the run ends by itself
//! (finished, cancelled, or stopped by its model's error); a crash or reload leaves them.

use serde::{Deserialize, Serialize};
use tabprobe_core::scoring::{PairScore, Precision};
use tabprobe_worker::protocol::{ProbeRequest, RunResume, Slot};

use crate::storage::idb::{self, StoreError, WORK};

/// Every key of the run in progress starts so.
pub const PREFIX: &str = "run-in-progress";
/// The least time between two writes of scores, ms: what a crash may lose.
pub const FLUSH_EVERY_MS: f64 = 2_000.0;

/// This tab's run's header key (its other entries are under it and `/`).
fn header_key() -> String {
    format!("{PREFIX}@{}", crate::storage::tabs::tab_id())
}

fn requests_key() -> String {
    format!("{}/requests", header_key())
}

fn record_key(n: usize) -> String {
    format!("{}/scores/{n}", header_key())
}

/// The tab a header key belongs to: `Some("")` for a run kept before tabs had their own,
/// `None` for a key that is not a header.
fn header_tab(key: &str) -> Option<&str> {
    match key.strip_prefix(PREFIX)? {
        "" => Some(""),
        rest => rest.strip_prefix('@').filter(|tab| !tab.contains('/')),
    }
}

/// A model of the kept run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptModel {
    /// The slot it ran in.
    pub slot: Slot,
    /// Its name, for the user.
    pub name: String,
    /// The SHA-256 of its weights: only this model may go on with the run.
    pub weights_sha256: String,
    /// The precision it ran at: only the same precision may go on with it (absent in runs
    /// kept before precisions existed, which ran in f32).
    #[serde(default, skip_serializing_if = "Precision::is_f32")]
    pub precision: Precision,
    /// Pairs whose scores are kept.
    pub kept: usize,
    /// Pairs in its probe set, once the worker said (0 until then).
    pub total: usize,
}

/// The header of the kept run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptRun {
    /// When the run was first started, ms since the Unix epoch.
    pub started_ms: f64,
    /// The dataset file it runs on (for the user).
    pub dataset: String,
    /// Its models, in run order.
    pub models: Vec<KeptModel>,
    /// Score records written.
    pub records: usize,
}

impl KeptRun {
    /// Pairs kept over all models.
    pub fn kept(&self) -> usize {
        self.models.iter().map(|m| m.kept).sum()
    }

    /// One line for the user: what ran and how far it got.
    pub fn summary(&self) -> String {
        let models: Vec<String> = self
            .models
            .iter()
            .map(|m| {
                if m.total > 0 {
                    format!("{} {} of {} pairs", m.name, m.kept, m.total)
                } else {
                    format!("{} {} pairs", m.name, m.kept)
                }
            })
            .collect();
        format!("on {}: {}", self.dataset, models.join(", "))
    }

    /// Records a chunk's scores as kept (the header of the next write).
    fn count(&mut self, chunk: &KeptChunk) {
        if let Some(m) = self.models.get_mut(chunk.model) {
            m.kept = m.kept.max(chunk.from + chunk.scores.len());
        }
    }
}

/// One chunk of scores of one model, as the worker posted it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptChunk {
    /// The model's position in [`KeptRun::models`].
    pub model: usize,
    /// Pairs per chunk of that model's run.
    pub chunk: usize,
    /// The first pair's position in the probe set.
    pub from: usize,
    /// The scores.
    pub scores: Vec<PairScore>,
}

/// Each model's kept scores as a resume for the worker: `None` for a model with none. The
/// records must continue each other without a gap or an overlap and keep one chunk size per
/// model; anything else is an error naming the record.
pub fn resumes(
    models: usize,
    records: Vec<Vec<KeptChunk>>,
) -> Result<Vec<Option<RunResume>>, String> {
    let mut out: Vec<Option<RunResume>> = vec![None; models];
    for (n, record) in records.into_iter().enumerate() {
        for c in record {
            let Some(slot) = out.get_mut(c.model) else {
                return Err(format!(
                    "record {n} holds scores of model {} but the run has {models}",
                    c.model + 1
                ));
            };
            let resume = slot.get_or_insert_with(|| RunResume {
                chunk: c.chunk,
                scores: Vec::new(),
            });
            if c.from != resume.scores.len() || c.chunk != resume.chunk {
                return Err(format!(
                    "record {n} goes on at pair {} in chunks of {}, but the kept scores of model {} end at pair {} in chunks of {}",
                    c.from + 1,
                    c.chunk,
                    c.model + 1,
                    resume.scores.len(),
                    resume.chunk
                ));
            }
            resume.scores.extend(c.scores);
        }
    }
    Ok(out)
}

/// Removes every entry of the kept run.
pub async fn discard() -> Result<(), StoreError> {
    idb::delete_prefix(
        WORK,
        &header_key(),
        "cannot remove the kept run in progress",
    )
    .await
}

/// Starts keeping `run` (no records yet): removes an earlier kept run, then writes the header
/// and the requests.
pub async fn begin(run: &KeptRun, requests: &[ProbeRequest]) -> Result<(), StoreError> {
    discard().await?;
    let encode = |what: &str, e: serde_json::Error| StoreError {
        message: format!("cannot encode the run in progress ({what}): {e}"),
        quota: false,
    };
    let header = serde_json::to_string(run).map_err(|e| encode("header", e))?;
    let requests = serde_json::to_string(requests).map_err(|e| encode("requests", e))?;
    idb::put_all(
        &[
            (WORK, &header_key(), &header),
            (WORK, &requests_key(), &requests),
        ],
        "cannot keep the run in progress",
    )
    .await
}

/// Writes `chunks` as the next record, with `run`'s header counting it (one transaction);
/// returns the header as written.
pub async fn append(mut run: KeptRun, chunks: &[KeptChunk]) -> Result<KeptRun, StoreError> {
    for c in chunks {
        run.count(c);
    }
    let n = run.records;
    run.records += 1;
    let encode = |e: serde_json::Error| StoreError {
        message: format!("cannot encode the run in progress: {e}"),
        quota: false,
    };
    let header = serde_json::to_string(&run).map_err(encode)?;
    let record = serde_json::to_string(chunks).map_err(encode)?;
    idb::put_all(
        &[
            (WORK, &record_key(n), &record),
            (WORK, &header_key(), &header),
        ],
        "cannot keep the scores of the run in progress",
    )
    .await?;
    Ok(run)
}

/// The kept run's header: this tab's, else one a closed tab left (taken over: moved under
/// this tab's key); `Ok(None)` when none is kept.
pub async fn load() -> Result<Option<KeptRun>, String> {
    let what = "cannot read the kept run in progress";
    let mine = header_key();
    if idb::get_text(WORK, &mine, what).await?.is_none() {
        adopt_orphan(&mine, what).await?;
    }
    let Some(text) = idb::get_text(WORK, &mine, what).await? else {
        return Ok(None);
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        format!("browser storage (IndexedDB) {WORK}/{mine}: not a kept run in progress: {e}")
    })
}

/// Moves a run kept by a tab that is no longer open (or before tabs had their own) under this
/// tab's key `mine`. Without Web Locks the open tabs are unknown: only a run of no tab moves.
async fn adopt_orphan(mine: &str, what: &str) -> Result<(), String> {
    let keys = idb::keys_with_prefix(WORK, PREFIX, what).await?;
    let open = crate::storage::tabs::open_tabs().await;
    let orphan = keys.iter().find(|k| match header_tab(k) {
        Some("") => true,
        Some(tab) => open
            .as_ref()
            .is_some_and(|open| !open.iter().any(|o| o == tab)),
        None => false,
    });
    if let Some(orphan) = orphan {
        idb::move_entries(
            WORK,
            orphan,
            mine,
            "cannot take over the kept run in progress",
        )
        .await?;
    }
    Ok(())
}

/// What resuming `run` needs: each model's request and kept scores.
pub async fn load_all(
    run: &KeptRun,
) -> Result<(Vec<ProbeRequest>, Vec<Option<RunResume>>), String> {
    let what = "cannot read the kept run in progress";
    let key = requests_key();
    let text = idb::get_text(WORK, &key, what)
        .await?
        .ok_or_else(|| format!("browser storage (IndexedDB) {WORK}/{key} is missing"))?;
    let requests: Vec<ProbeRequest> = serde_json::from_str(&text)
        .map_err(|e| format!("browser storage (IndexedDB) {WORK}/{key}: {e}"))?;
    if requests.len() != run.models.len() {
        return Err(format!(
            "browser storage (IndexedDB) {WORK}/{key}: {} requests for {} models",
            requests.len(),
            run.models.len()
        ));
    }
    let mut records = Vec::with_capacity(run.records);
    for n in 0..run.records {
        let key = record_key(n);
        let text = idb::get_text(WORK, &key, what)
            .await?
            .ok_or_else(|| format!("browser storage (IndexedDB) {WORK}/{key} is missing"))?;
        records.push(
            serde_json::from_str(&text)
                .map_err(|e| format!("browser storage (IndexedDB) {WORK}/{key}: {e}"))?,
        );
    }
    Ok((requests, resumes(run.models.len(), records)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(p: f32) -> PairScore {
        PairScore {
            probs: [p, 1.0 - p, 0.0],
            logits: vec![p, -p, 0.0],
            truncated: false,
            premise_tokens_dropped: 0,
        }
    }

    fn chunk(model: usize, from: usize, n: usize) -> KeptChunk {
        KeptChunk {
            model,
            chunk: 4,
            from,
            scores: (from..from + n).map(|i| score(i as f32 / 100.0)).collect(),
        }
    }

    #[test]
    fn records_join_into_each_models_scores_in_order() {
        // Model 0 kept 4 + 4 + 2 pairs over two records, model 1 four.
        let records = vec![
            vec![chunk(0, 0, 4), chunk(0, 4, 4)],
            vec![chunk(0, 8, 2), chunk(1, 0, 4)],
        ];
        let r = resumes(3, records).unwrap();
        let first = r[0].as_ref().unwrap();
        assert_eq!(first.chunk, 4);
        assert_eq!(first.scores.len(), 10);
        assert_eq!(first.scores[9], score(0.09));
        assert_eq!(r[1].as_ref().unwrap().scores.len(), 4);
        assert!(r[2].is_none());
    }

    #[test]
    fn a_gap_an_overlap_or_another_chunk_size_is_named() {
        let gap = resumes(1, vec![vec![chunk(0, 0, 4)], vec![chunk(0, 8, 4)]]).unwrap_err();
        assert_eq!(
            gap,
            "record 1 goes on at pair 9 in chunks of 4, but the kept scores of model 1 end at pair 4 in chunks of 4"
        );
        assert!(resumes(1, vec![vec![chunk(0, 0, 4), chunk(0, 2, 4)]]).is_err());
        let mut other = chunk(0, 4, 4);
        other.chunk = 8;
        assert!(resumes(1, vec![vec![chunk(0, 0, 4), other]]).is_err());
        assert_eq!(
            resumes(1, vec![vec![chunk(1, 0, 4)]]).unwrap_err(),
            "record 0 holds scores of model 2 but the run has 1"
        );
    }

    #[test]
    fn the_header_counts_what_its_records_hold() {
        let mut run = KeptRun {
            started_ms: 0.0,
            dataset: "d.json".into(),
            models: vec![
                KeptModel {
                    slot: Slot::Main,
                    name: "a".into(),
                    weights_sha256: "x".into(),
                    precision: Precision::F32,
                    kept: 0,
                    total: 20,
                },
                KeptModel {
                    slot: Slot::Second,
                    name: "b".into(),
                    weights_sha256: "y".into(),
                    precision: Precision::F32,
                    kept: 0,
                    total: 0,
                },
            ],
            records: 0,
        };
        run.count(&chunk(0, 0, 4));
        run.count(&chunk(0, 4, 4));
        run.count(&chunk(1, 0, 3));
        assert_eq!(run.kept(), 11);
        assert_eq!(run.summary(), "on d.json: a 8 of 20 pairs, b 3 pairs");
    }
}
