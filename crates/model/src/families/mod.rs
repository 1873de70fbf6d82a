//! The supported architectures: which one a `config.json` names ([`Family`]), each family's
//! config, network and loading, and what they share (label map, size limits).

pub mod bart;
pub mod deberta;
pub mod encoder;
pub mod family;
pub mod labels;
pub mod limits;

pub use family::Family;
