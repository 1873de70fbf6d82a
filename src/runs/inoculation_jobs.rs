//! Which worker job holds the fine-tuned checkpoints of each inoculation result made in this
//! page session: the weights live in the model worker, not in storage, so a result reopened
//! after a reload can show its figures but not load or export its checkpoints.

use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// Saved result id → the worker job that holds its fine-tuned checkpoints.
    static SESSION_JOBS: RefCell<HashMap<String, u64>> = RefCell::new(HashMap::new());
}

/// The worker job holding the checkpoints of saved result `id`, if this page made it.
pub fn session_job(id: &str) -> Option<u64> {
    SESSION_JOBS.with(|j| j.borrow().get(id).copied())
}

/// Notes that worker job `job` holds the checkpoints of saved result `id`.
pub fn remember(id: &str, job: u64) {
    SESSION_JOBS.with(|j| j.borrow_mut().insert(id.to_string(), job));
}
