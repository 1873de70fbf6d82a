//! The page's side of the model worker: requests and their replies ([`client`]), whether it
//! is alive and where each loaded model came from ([`health`]), and what a crash lost
//! ([`crash`]).

pub mod client;
pub mod crash;
pub mod health;
