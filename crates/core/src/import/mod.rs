//! Importers from published formats into the product's dataset. Each names the file and the
//! line (or JSON path) of anything it cannot read.

pub mod infotabs;

/// A located problem in an input file that an importer could not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{location}: {message}")]
pub struct ImportError {
    /// The file name as given.
    pub file: String,
    /// `line N` or a JSON path.
    pub location: String,
    /// What was wrong and what was expected.
    pub message: String,
}

impl ImportError {
    pub(crate) fn new(
        file: &str,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> ImportError {
        ImportError {
            file: file.to_string(),
            location: location.into(),
            message: message.into(),
        }
    }
}
