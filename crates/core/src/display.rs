//! How people read the names of probes, operations and settings: the snake_case names of run
//! files, links and the command line with spaces (`row_deletion` → `row deletion`). The page's
//! labels and the report's headings all come from here.

/// `name` as people read it: `_` as a space.
pub fn readable(name: &str) -> String {
    name.replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underscores_read_as_spaces() {
        assert_eq!(readable("relevant_row_deletion"), "relevant row deletion");
        assert_eq!(readable("derived"), "derived");
    }
}
