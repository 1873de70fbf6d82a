//! Reading JSON files with errors a user can act on: the file, the JSON path and the line and
//! column of the first problem, and what was expected.

use serde::de::DeserializeOwned;

/// Where a JSON text does not have the shape expected, and what serde expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: at {path} (line {line}, column {column}): {message}")]
pub struct JsonError {
    /// The source, as the user knows it (a path, `saved run x, piece 2`).
    pub file: String,
    /// The JSON path of the first problem (`examples[0].label`).
    pub path: String,
    /// Its line (1-based).
    pub line: usize,
    /// Its column (1-based).
    pub column: usize,
    /// What serde expected.
    pub message: String,
}

/// Why a file tabprobe writes (a models manifest, an inoculation result) cannot be read: JSON
/// of another shape, another format or version, or contents that do not hold together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// JSON of another shape.
    #[error(transparent)]
    Shape(#[from] JsonError),
    /// Not the format expected: its `$.format` marker is another.
    #[error("{file}: $.format is {found:?}; expected {expected:?}")]
    Format {
        /// The source.
        file: String,
        /// The marker found.
        found: String,
        /// The marker expected.
        expected: &'static str,
    },
    /// Another version of the format.
    #[error("{file}: $.version is {found}; this build reads version {reads}")]
    Version {
        /// The source.
        file: String,
        /// The version found.
        found: u32,
        /// The version this build reads.
        reads: u32,
    },
    /// Contents that do not hold together, at `path`.
    #[error("{file}: {path} {problem}")]
    Invalid {
        /// The source.
        file: String,
        /// The JSON path at fault.
        path: String,
        /// What is wrong there.
        problem: String,
    },
}

/// Parses `text` into `T`; the error reads `<file>: at <path> (line L, column C): <what>`.
pub fn parse_json_at<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, JsonError> {
    // Tracking the path costs about a third of the parse (a finished run's pieces on the
    // page): read without it, and only a text that fails is read again to say where.
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let inner = e.inner();
        JsonError {
            file: file.to_string(),
            path: e.path().to_string(),
            line: inner.line(),
            column: inner.column(),
            message: inner.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_file_path_line_and_column() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            a: Vec<u32>,
        }
        let err = super::parse_json_at::<T>("f.json", "{\n \"a\": [1, \"x\"]}").unwrap_err();
        assert_eq!((err.path.as_str(), err.line), ("a[1]", 2));
        assert!(
            err.to_string()
                .starts_with("f.json: at a[1] (line 2, column"),
            "{err}"
        );
    }
}
