//! The UI ↔ worker seam (docs/ARCHITECTURE.md#the-seam-between-page-and-worker): the page never runs a model. It sends [`protocol`]
//! messages over [`transport`] to a dedicated Web Worker whose [`host`] owns the device and
//! the loaded models — the only code that touches the model crate. The page side (the client)
//! lives in the app, `src/worker/client.rs`.

pub mod outputs;
pub mod protocol;
pub mod transport;

#[cfg(feature = "host")]
pub mod blob_source;
#[cfg(feature = "host")]
pub mod devices;
#[cfg(feature = "host")]
pub mod digest;
#[cfg(feature = "host")]
pub mod host;
#[cfg(feature = "host")]
pub mod imported;
#[cfg(feature = "host")]
pub mod job;
#[cfg(feature = "host")]
pub mod outbox;
#[cfg(feature = "host")]
pub mod pool;
#[cfg(feature = "host")]
pub mod scorer;
