//! Reading JSON files with errors a user can act on: the file, the JSON path and the line and
//! column of the first problem, and what was expected.

use serde::de::DeserializeOwned;

/// Parses `text` into `T`; the error reads `<file>: at <path> (line L, column C): <what>`.
pub fn parse_json_at<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, String> {
    // Tracking the path costs about a third of the parse (a finished run's pieces on the
    // page): read without it, and only a text that fails is read again to say where.
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let inner = e.inner();
        format!(
            "{file}: at {} (line {}, column {}): {inner}",
            e.path(),
            inner.line(),
            inner.column()
        )
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
        assert!(err.starts_with("f.json: at a[1] (line 2, column"), "{err}");
    }
}
