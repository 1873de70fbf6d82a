//! Scores files imported as models (docs/scoring-elsewhere.md): the user picks a scores file
//! a model tabprobe cannot run made for an exported pairs file, names it, and the worker keeps
//! it in a model slot (`tabprobe_worker::imported`), checked line by line. It is then a model
//! like any other — side by side with a network in probe runs, named by the user, identified
//! by the file's SHA-256 in run files, reports, share links and merges. A refused file leaves
//! the slot's model in place, and the error names the file, the count and the first line.
//! The picked file is kept while the page is open, so a crashed worker gets it back.

use std::cell::RefCell;

use leptos::prelude::*;
use tabprobe_worker::protocol::Slot;

use crate::models::load::Ticket;
use crate::state::{AppState, ModelStatus};
use crate::worker::client::client;
use crate::worker::health::ModelSource;

thread_local! {
    /// Per slot, the scores file imported last and the name given to it.
    static PICKED: RefCell<[Option<(web_sys::File, String)>; 2]> = const { RefCell::new([None, None]) };
}

/// Imports the scores file `file` into `slot` as the model `name` (empty: the file's name
/// without its extension).
pub async fn import_scores_into(state: AppState, slot: Slot, file: web_sys::File, name: String) {
    let ticket = Ticket::new(state, slot);
    let Some(label_set) = state
        .dataset
        .with_untracked(|d| d.as_ref().map(|d| d.dataset.label_set))
    else {
        ticket.status(ModelStatus::Failed(format!(
            "{}: load a dataset first — a scores file's labels are the dataset's",
            file.name()
        )));
        return;
    };
    ticket.status(ModelStatus::Loading(format!(
        "reading the scores in {}…",
        file.name()
    )));
    let result = match client() {
        Ok(c) => c.import_scores(slot, name.clone(), &file, label_set).await,
        Err(e) => Err(e),
    };
    if !ticket.current() {
        return;
    }
    match result {
        Ok(info) => {
            PICKED.with(|p| p.borrow_mut()[slot.index()] = Some((file, name)));
            state.model_loaded(slot, info, ModelSource::Scores);
            ticket.status(ModelStatus::Idle);
        }
        Err(message) => ticket.status(ModelStatus::Failed(message)),
    }
}

/// Imports again the scores file last imported into `slot` (after the worker crashed).
pub async fn reimport_scores(state: AppState, slot: Slot) {
    let picked = PICKED.with(|p| p.borrow()[slot.index()].clone());
    if let Some((file, name)) = picked {
        import_scores_into(state, slot, file, name).await;
    }
}
