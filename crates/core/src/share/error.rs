//! Why a share link or result file could not be read (one error type for the codec and the
//! limits, so neither depends on the other).

/// Why a link or result file could not be read. Every message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareError {
    /// The text does not start like a share link at all.
    #[error(
        "this is not a tabprobe share link (it should start with v1.); copy the whole link again"
    )]
    NotALink,
    /// A link from a newer (or unknown) version of tabprobe.
    #[error("this link was made by a different version of tabprobe (link format v{found}; this site reads v{supported}); open it on the site that made it")]
    WrongVersion {
        /// The version in the link.
        found: String,
        /// The version this build reads.
        supported: u32,
    },
    /// The link is shorter than it says it is: part of it was cut off.
    #[error("this link is truncated: it holds {have} of its {want} bytes; copy the whole link again (some apps cut long links)")]
    Truncated {
        /// Bytes present.
        have: usize,
        /// Bytes declared.
        want: usize,
    },
    /// The link's data does not match its checksum: a character was changed.
    #[error("this link is damaged: its checksum does not match (a character was changed or lost); copy the whole link again")]
    ChecksumMismatch,
    /// The link's data is damaged in a way the checksum could not catch, or is not a result.
    #[error("this link is corrupted: {0}; copy the whole link again")]
    Corrupted(String),
    /// A link longer than any result within the share limits needs: refused before any of it
    /// is decoded.
    #[error(
        "this link is too long to open: {chars} characters, more than the {limit} any result \
         within the share limits can need; it was not decoded"
    )]
    TooLong {
        /// The link text's length (after `#/share/`), in bytes.
        chars: usize,
        /// The longest link a result within the limits can need.
        limit: usize,
    },
    /// Data that inflates past the JSON any result within the share limits is written as:
    /// refused while inflating.
    #[error(
        "this result is too large to open: its data expands past {}, more than any result \
         within the share limits takes",
        crate::display::bytes(*.limit as u64)
    )]
    Expands {
        /// The most JSON a result within the limits takes, in bytes.
        limit: usize,
    },
    /// JSON with more values than any result within the share limits holds: refused before
    /// it is parsed.
    #[error(
        "this result is too large to open: its JSON holds {found} values, more than the \
         {limit} any result within the share limits holds"
    )]
    TooManyValues {
        /// The values the JSON holds.
        found: usize,
        /// The most a result within the limits holds.
        limit: usize,
    },
    /// A result file that is not valid.
    #[error("{file}: {message}")]
    BadFile {
        /// The file name.
        file: String,
        /// What is wrong, with the JSON path.
        message: String,
    },
    /// The result carries more than the share page opens (see [`super::limits`]).
    #[error("this result is too large to open: {what} holds {found} {unit}, more than the {limit} a shared result may hold")]
    TooLarge {
        /// What is too large, e.g. `the edited table`.
        what: String,
        /// How much it holds (counting may stop early for characters of all texts).
        found: usize,
        /// The limit.
        limit: usize,
        /// `rows`, `cells`, `characters` or `labels`.
        unit: &'static str,
    },
    /// A prediction that no model outputs: a probability outside [0, 1], or three that do
    /// not sum to 1.
    #[error("this result's {which} is not a model's output: {reason}")]
    BadPrediction {
        /// Which prediction (`the prediction on the original`).
        which: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A table or text that a dataset file could not hold (the dataset validator's rules):
    /// opened, it could be saved into the working dataset, which would then not load back.
    #[error("this result's {which} breaks a dataset rule ({rule}) at {at}: {message}; it was not opened, so it cannot enter your dataset")]
    BadInput {
        /// Which input (`the original`, `the edited item`).
        which: String,
        /// The rule (`row length`).
        rule: &'static str,
        /// Where, e.g. `table.rows[0]`.
        at: String,
        /// What was expected and found.
        message: String,
    },
    /// Encoding failed (cannot happen for a well-formed result; reported rather than hidden).
    #[error("cannot encode the result: {0}")]
    Encode(String),
}
