//! The page's side of the model worker: requests ([`client`]), the one table of what they
//! wait for and how each answer finds its request ([`pending`]), a run file arriving in pieces
//! ([`arriving`]), whether the worker is alive, where each loaded model came from and what a
//! crash lost ([`health`]), and the watch that notices a worker that stopped answering
//! ([`watch`]). What the page does after a
//! crash (reload the models) is the models' room's: `crate::models::crash`. Nothing here
//! names the rooms above it (state, models, runs, views).

pub mod arriving;
pub mod client;
pub mod health;
pub mod pending;
pub mod watch;
