//! Deterministic shards of a probe run (issue 14). A cluster runs one probe set as `n`
//! shards, each scoring the examples whose id hashes to it ([`assign`]); every shard writes a
//! run file restricted to its examples and stamped with where they sit in the whole run
//! ([`split`]); [`merge`] puts the shards back into the run file one process would have
//! written, byte for byte.
//!
//! Every shard builds the *whole* probe set from the dataset first (no model involved), so
//! seeded sampling and per-run caps are the same in every shard, and then scores only its part.

pub mod assign;
pub mod merge;
pub mod split;

pub use assign::{fnv1a64, shard_of, OutOfRange, ShardError, ShardSource, ShardSpec};
pub use merge::{merge_shards, MergeError};
pub use split::{restrict, ProbeSetDigest, ShardPositions, ShardStamp, ShardTotals};
