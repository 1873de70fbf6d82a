//! Human relevant-row annotations as CSV, one line per annotator and example:
//! `table_id,hypothesis,annotator,votes`, where `votes` holds one `0`/`1` per table row in
//! order (`0110`: rows 2 and 3 marked relevant; spaces are ignored). A row is relevant when a
//! strict majority of the example's annotators marked it, as in the paper (§5.2): with 3
//! annotators, 2 votes; with 4, 3.

use super::ImportError;

/// One annotator's votes for one example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelevanceVote {
    /// 1-based line.
    pub line: usize,
    /// The table id.
    pub table: String,
    /// The hypothesis, as in the examples.
    pub hypothesis: String,
    /// Who voted.
    pub annotator: String,
    /// One vote per table row, in row order.
    pub votes: Vec<bool>,
}

/// Reads a votes CSV.
pub fn parse(file: &str, text: &str) -> Result<Vec<RelevanceVote>, ImportError> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| ImportError::new(file, "line 1", format!("cannot read the header: {e}")))?
        .clone();
    let expected = ["table_id", "hypothesis", "annotator", "votes"];
    if !header.iter().map(str::trim).eq(expected) {
        return Err(ImportError::new(
            file,
            "line 1",
            format!("expected the header {:?}", expected.join(",")),
        ));
    }
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            ImportError::new(
                file,
                format!("line {line}"),
                format!("malformed row: {e}; expected 4 comma-separated columns"),
            )
        })?;
        let line = record.position().map(|p| p.line() as usize).unwrap_or(0);
        let at = format!("line {line}");
        let votes = record
            .get(3)
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| match c {
                '0' => Ok(false),
                '1' => Ok(true),
                other => Err(ImportError::new(
                    file,
                    &at,
                    format!("vote {other:?}: expected one 0 or 1 per table row"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(RelevanceVote {
            line,
            table: record.get(0).unwrap_or("").to_string(),
            hypothesis: record.get(1).unwrap_or("").to_string(),
            annotator: record.get(2).unwrap_or("").to_string(),
            votes,
        });
    }
    Ok(out)
}

/// The 0-based rows a strict majority of `ballots` marked relevant. All ballots have the
/// same length (the caller checks it against the table).
pub fn majority(ballots: &[&[bool]]) -> Vec<usize> {
    let rows = ballots.iter().map(|b| b.len()).max().unwrap_or(0);
    (0..rows)
        .filter(|&r| {
            let yes = ballots.iter().filter(|b| b.get(r) == Some(&true)).count();
            2 * yes > ballots.len()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_majority_by_hand() {
        // Three annotators over four rows: row 0 has 3 votes, row 1 has 2, row 2 has 1, row 3 none.
        let a = [true, true, false, false];
        let b = [true, true, true, false];
        let c = [true, false, false, false];
        assert_eq!(majority(&[&a, &b, &c]), vec![0, 1]);
        // Two annotators: a 1–1 tie is not a majority.
        assert_eq!(majority(&[&a, &c]), vec![0]);
    }
}
