//! The page's side of the model worker: requests and their replies ([`client`]), whether it
//! is alive and where each loaded model came from ([`health`]), what a crash lost
//! ([`crash`]), and the watch that notices a worker that stopped answering ([`watch`]).

pub mod client;
pub mod crash;
pub mod health;
pub mod watch;
