//! What scores a slot's pairs: a network (on this worker and its helpers) or an imported
//! scores file ([`crate::imported`]). Probe runs and scoring jobs go through this one type, so
//! their chunk loops do not care which.

use std::rc::Rc;

use tabprobe_core::probe::ProbeSet;
use tabprobe_core::scoring::{ModelId, Pair, PairScore};
use tabprobe_model::NliModel;

use crate::imported::ImportedScorer;
use crate::outputs::locate;
use crate::pool::Pool;

/// Batches per chunk between two progress messages (and cancel checks): one, so progress
/// moves and a cancel lands after every forward pass. (Four batches of 8 made the page sit at
/// 0 for the time of 32 pairs, then jump by 32.)
pub const BATCHES_PER_CHUNK: usize = 1;

/// Pairs per chunk from a scores file: lookups cost microseconds, so a chunk is sized for the
/// messages (one progress message and one of scores per chunk), not for the time.
pub const IMPORTED_CHUNK: usize = 2048;

/// The scorer of one slot.
pub enum Scorer {
    /// A loaded network and its helper workers.
    Network {
        /// The model.
        model: Rc<NliModel>,
        /// Its helpers (none on WebGPU).
        pool: Rc<Pool>,
    },
    /// An imported scores file.
    Imported(Rc<ImportedScorer>),
}

impl Scorer {
    /// The model as results name it.
    pub fn id(&self) -> &ModelId {
        match self {
            Scorer::Network { model, .. } => model.id(),
            Scorer::Imported(imported) => imported.id(),
        }
    }

    /// Workers that score together (1 for a scores file).
    pub fn workers(&self) -> usize {
        match self {
            Scorer::Network { pool, .. } => pool.workers(),
            Scorer::Imported(_) => 1,
        }
    }

    /// Pairs handed out per chunk of a long job.
    pub fn chunk(&self) -> usize {
        match self {
            Scorer::Network { model, pool } => {
                (model.batch_size() * BATCHES_PER_CHUNK * pool.workers()).max(1)
            }
            Scorer::Imported(_) => IMPORTED_CHUNK,
        }
    }

    /// Checks, before a probe run scores anything, that the scorer can score all of `set`
    /// (a scores file must have been made for it; a network can).
    pub fn check_set(&self, set: &ProbeSet) -> Result<(), String> {
        match self {
            Scorer::Network { .. } => Ok(()),
            Scorer::Imported(imported) => imported.check_set(set),
        }
    }

    /// The scores of `pairs` (the pairs from `offset` on of `set`, when a probe run scores
    /// them: an error then names the example and item the pair belongs to).
    pub async fn score(
        &self,
        pairs: &[Pair],
        offset: usize,
        set: Option<&ProbeSet>,
    ) -> Result<Vec<PairScore>, String> {
        match self {
            Scorer::Network { model, pool } => pool
                .score(model, pairs)
                .await
                .map_err(|e| locate(e, offset, set)),
            Scorer::Imported(imported) => imported.score(pairs),
        }
    }
}
