//! How much text a link or result file can need, derived from what a result may hold
//! ([`super::limits`]): the most JSON a result within the limits is written as, the most
//! values that JSON holds, the longest link and the largest result file that carry it. A link
//! or file past these is refused before it is decoded or parsed — not after 16 MiB of JSON
//! has been parsed on the page's thread (issue 47 item 5: a 15 MB link held it for 1.1 s).
//! [`JsonScan`] counts a JSON text's values a slice at a time, so a text within the byte
//! bound but built of hundreds of thousands of tiny rows is refused before serde allocates
//! them. `crates/core/tests/share_budget.rs` writes the largest result the limits allow and
//! checks that it fits each bound.

use super::limits::{MAX_SHARE_CELLS, MAX_SHARE_CHARS, MAX_SHARE_ROWS};

/// Most bytes one character of a text takes in the JSON `serde_json` writes: a control
/// character is escaped as `\u00XX`; anything else is at most 4 bytes of UTF-8.
pub const MAX_BYTES_PER_CHAR: usize = 6;

/// Most bytes one JSON value takes beyond the characters of a text, as `serde_json` writes
/// it: two quotes and a separator, plus the longest object key (`premise_tokens_dropped`,
/// 24 bytes quoted, and its `:`), the longest enum name (`irrelevant_row_deletion`), a number
/// (an f32 such as `-1.1754944e-38`, a 20-digit count) or a bracket pair and its comma.
pub const MAX_BYTES_PER_VALUE: usize = 32;

/// Values of one table besides its cells and rows: the table object, its keys (`kind`,
/// `id`, `title` or `caption`, `rows`, `header`), their values and the arrays.
const TABLE_VALUES: usize = 16;

/// Values of one key-value row besides its cells: the row object, its two keys (`key`,
/// `values`) and the values array. A relational row is one array.
const ROW_VALUES: usize = 4;

/// Values of a result besides its two tables: its fields and their keys, the rule, the
/// expectation, the model and its predictions, and those of up to eight other models (the
/// largest such result holds 381: `crates/core/tests/share_budget.rs`).
const OTHER_VALUES: usize = 1024;

/// Most JSON values (strings and object keys, numbers, literals, objects, arrays) a result
/// within the limits holds: its two tables at the cell and row limits, and the rest.
pub const MAX_JSON_VALUES: usize =
    2 * (MAX_SHARE_CELLS + ROW_VALUES * MAX_SHARE_ROWS + TABLE_VALUES) + OTHER_VALUES;

/// Most bytes of JSON a result within the limits is written as by [`super::encode`]: every
/// character of its texts at its widest, and every value at its widest. A link whose data
/// inflates past this is refused while inflating.
pub const MAX_LINK_JSON_BYTES: usize =
    MAX_BYTES_PER_CHAR * MAX_SHARE_CHARS + MAX_BYTES_PER_VALUE * MAX_JSON_VALUES;

/// The most bytes deflate writes for `n` bytes of input (zlib's `deflateBound` for a raw
/// stream): incompressible data goes into stored blocks of at most 65,535 bytes with a few
/// bytes of header each; the extra terms bound smaller blocks and the final block.
pub const fn deflate_bound(n: usize) -> usize {
    n + (n >> 12) + (n >> 14) + (n >> 25) + 7
}

/// The link header's bytes (see [`super::codec`]).
pub(super) const HEADER_BYTES: usize = 8;

/// The longest link text (`v1.` and its base64 data) a result within the limits can need:
/// [`MAX_LINK_JSON_BYTES`] deflated at its worst, with the header, in base64 (4 characters
/// per 3 bytes). A longer link is refused before any of it is decoded.
pub const MAX_LINK_TEXT_CHARS: usize =
    "v1.".len() + (4 * (HEADER_BYTES + deflate_bound(MAX_LINK_JSON_BYTES))).div_ceil(3);

/// Values a result file adds around its result: the file object, `format`, `version` and
/// `result` and their values.
const FILE_VALUES: usize = 8;

/// The deepest a value sits in a result file (file → result → edited item → table → rows →
/// row → values → a cell is 7), with room.
const MAX_FILE_DEPTH: usize = 10;

/// Most whitespace `serde_json`'s pretty printer puts around one value: a line break and two
/// spaces per level before it, the space after a key's `:`, and the same again before a
/// container's closing bracket.
const MAX_WHITESPACE_PER_VALUE: usize = 2 * (1 + 2 * MAX_FILE_DEPTH) + 1;

/// Most values of a result file's JSON ([`MAX_JSON_VALUES`] and the file's own).
pub const MAX_FILE_JSON_VALUES: usize = MAX_JSON_VALUES + FILE_VALUES;

/// The largest result file a result within the limits can need, as [`super::to_file`]
/// writes it (pretty-printed). A larger file is refused before it is read.
pub const MAX_RESULT_FILE_BYTES: u64 = (MAX_BYTES_PER_CHAR * MAX_SHARE_CHARS
    + (MAX_BYTES_PER_VALUE + MAX_WHITESPACE_PER_VALUE) * MAX_FILE_JSON_VALUES)
    as u64;

/// The limits a result is held to, in words, for messages about the bounds above.
pub fn limits_in_words() -> String {
    format!(
        "{MAX_SHARE_ROWS} rows and {MAX_SHARE_CELLS} cells per table, {MAX_SHARE_CHARS} \
         characters in all"
    )
}

/// Counts the values of a JSON text fed a slice at a time: every string (object keys
/// included), number, literal, object and array. Exact for valid JSON; for anything else an
/// estimate that the parser then refuses. Linear; allocation-free unless it also finds the
/// tables' rows ([`JsonScan::finding_rows`]).
#[derive(Debug, Default, Clone)]
pub struct JsonScan {
    in_string: bool,
    escaped: bool,
    in_scalar: bool,
    values: usize,
    /// Bytes fed so far.
    pos: usize,
    /// The keys from the root to the tables' `rows` arrays, when they are looked for.
    path: Option<&'static [&'static [&'static str]]>,
    /// The containers open around the current byte.
    stack: Vec<Frame>,
    /// The string being read is an object key (kept in `key`, cut at [`MAX_KEY_BYTES`]).
    in_key: bool,
    key: Vec<u8>,
    rows: Vec<RowsArray>,
}

/// Keys longer than this are not on any path looked for (`before`, `table`, `rows`, …).
const MAX_KEY_BYTES: usize = 16;

/// An object or array open at a point of the text.
#[derive(Debug, Clone)]
struct Frame {
    array: bool,
    /// Keys from the root to here.
    depth: usize,
    /// Every key from the root to here is on the path.
    on_path: bool,
    /// An object whose next string is a key.
    expect_key: bool,
    /// The key just read is on the path (the value that follows may continue it).
    key_on_path: Option<String>,
    /// The keys from the root to here, where on the path.
    keys: Vec<String>,
    /// Which of [`JsonScan::rows_arrays`] this array is.
    rows: Option<usize>,
}

/// A `rows` array of a table found in the text: where it opens and closes and where its
/// elements are separated (byte offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowsArray {
    /// The keys from the root to it, e.g. `["before", "table", "rows"]`.
    pub keys: Vec<String>,
    /// Its `[`.
    pub open: usize,
    /// The commas between its elements.
    pub commas: Vec<usize>,
    /// Its `]` (0 until it closes).
    pub close: usize,
}

impl RowsArray {
    /// Its elements as byte ranges of the text, blanks trimmed; none for `[]`.
    pub fn elements(&self, text: &[u8]) -> Vec<std::ops::Range<usize>> {
        let bounds = std::iter::once(self.open)
            .chain(self.commas.iter().copied())
            .chain(std::iter::once(self.close));
        let cuts: Vec<usize> = bounds.collect();
        let trimmed = cuts.windows(2).map(|w| {
            let (mut a, mut b) = (w[0] + 1, w[1]);
            while a < b && text[a].is_ascii_whitespace() {
                a += 1;
            }
            while b > a && text[b - 1].is_ascii_whitespace() {
                b -= 1;
            }
            a..b
        });
        let all: Vec<_> = trimmed.collect();
        match all.as_slice() {
            [only] if only.is_empty() => Vec::new(),
            _ => all,
        }
    }
}

/// The path of a link's tables' rows: `before` or `after`, `table`, `rows`.
pub const LINK_ROWS_PATH: &[&[&str]] = &[&["before", "after"], &["table"], &["rows"]];
/// The path of a result file's tables' rows: the same under `result`.
pub const FILE_ROWS_PATH: &[&[&str]] = &[&["result"], &["before", "after"], &["table"], &["rows"]];

impl JsonScan {
    /// A scan that also finds the `rows` arrays at `path` (one set of allowed keys per
    /// level): [`JsonScan::rows_arrays`].
    pub fn finding_rows(path: &'static [&'static [&'static str]]) -> JsonScan {
        JsonScan {
            path: Some(path),
            ..JsonScan::default()
        }
    }

    /// Reads the next slice of the text.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            let at = self.pos;
            self.pos += 1;
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.in_key {
                        self.end_key();
                    }
                    continue;
                }
                if self.in_key && self.key.len() <= MAX_KEY_BYTES {
                    self.key.push(b);
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.in_scalar = false;
                    self.values += 1;
                    if self.path.is_some() {
                        self.in_key = self.stack.last().is_some_and(|f| f.expect_key);
                        self.key.clear();
                    }
                }
                b'{' | b'[' => {
                    self.in_scalar = false;
                    self.values += 1;
                    if self.path.is_some() {
                        self.open(b == b'[', at);
                    }
                }
                b'}' | b']' => {
                    self.in_scalar = false;
                    if let Some(i) = self.stack.pop().and_then(|f| f.rows) {
                        self.rows[i].close = at;
                    }
                }
                b':' => {
                    self.in_scalar = false;
                    if let Some(f) = self.stack.last_mut() {
                        f.expect_key = false;
                    }
                }
                b',' => {
                    self.in_scalar = false;
                    if let Some(f) = self.stack.last_mut() {
                        f.expect_key = !f.array;
                        if let Some(i) = f.rows {
                            self.rows[i].commas.push(at);
                        }
                    }
                }
                // Numbers and literals: a run of these is one value.
                b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => {
                    if !self.in_scalar {
                        self.in_scalar = true;
                        self.values += 1;
                    }
                }
                _ => self.in_scalar = false,
            }
        }
    }

    /// A key ends: whether it continues the path.
    fn end_key(&mut self) {
        self.in_key = false;
        let path = self.path.unwrap_or_default();
        if let Some(f) = self.stack.last_mut() {
            let allowed = path.get(f.depth).copied().unwrap_or_default();
            f.key_on_path = (f.on_path && allowed.iter().any(|k| k.as_bytes() == self.key))
                .then(|| String::from_utf8_lossy(&self.key).into_owned());
        }
    }

    /// An object or array opens at `at`: a `rows` array at the end of the path is recorded.
    fn open(&mut self, array: bool, at: usize) {
        let path = self.path.unwrap_or_default();
        let (depth, on_path, keys) = match self.stack.last() {
            None => (0, true, Vec::new()),
            Some(p) if !p.array => match &p.key_on_path {
                Some(k) => {
                    let mut keys = p.keys.clone();
                    keys.push(k.clone());
                    (p.depth + 1, true, keys)
                }
                None => (p.depth + 1, false, Vec::new()),
            },
            Some(p) => (p.depth, false, Vec::new()),
        };
        let rows = (array && on_path && depth == path.len()).then(|| {
            self.rows.push(RowsArray {
                keys: keys.clone(),
                open: at,
                commas: Vec::new(),
                close: 0,
            });
            self.rows.len() - 1
        });
        self.stack.push(Frame {
            array,
            depth,
            on_path,
            expect_key: !array,
            key_on_path: None,
            keys,
            rows,
        });
    }

    /// The values counted so far.
    pub fn values(&self) -> usize {
        self.values
    }

    /// The `rows` arrays found on the path, whole (closed) ones only.
    pub fn rows_arrays(self) -> Vec<RowsArray> {
        self.rows.into_iter().filter(|r| r.close > r.open).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(text: &str) -> usize {
        let mut s = JsonScan::default();
        // Fed in slices of 3 bytes: a string, an escape or a number may span slices.
        for part in text.as_bytes().chunks(3) {
            s.feed(part);
        }
        s.values()
    }

    #[test]
    fn values_are_counted_by_hand() {
        assert_eq!(count("{}"), 1);
        // The object, two keys, a string, an array, a number, a literal, an exponent.
        assert_eq!(count(r#"{"a": "x", "b": [1.5e-3, true]}"#), 7);
        // Escaped quotes and brackets inside strings are text.
        assert_eq!(count(r#"["a\"[{b", "\\", "c"]"#), 4);
        assert_eq!(count("[1,2 , -3,null]"), 5);
        assert_eq!(count("  "), 0);
    }

    #[test]
    fn the_tables_rows_are_found_on_their_path_only() {
        let text = r#"{"origin":"[x]","before":{"table":{"kind":"key_value","rows":[ {"key":"a","values":["1,2"]} , {"key":"b","values":[]} ]},"rows":[1]},"after":{"table":{"rows":[]}},"other":{"table":{"rows":[3]}}}"#;
        let mut scan = JsonScan::finding_rows(LINK_ROWS_PATH);
        for part in text.as_bytes().chunks(5) {
            scan.feed(part);
        }
        let rows = scan.rows_arrays();
        let keys: Vec<String> = rows.iter().map(|r| r.keys.join(".")).collect();
        assert_eq!(keys, ["before.table.rows", "after.table.rows"]);
        let elements: Vec<&str> = rows[0]
            .elements(text.as_bytes())
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(
            elements,
            [
                r#"{"key":"a","values":["1,2"]}"#,
                r#"{"key":"b","values":[]}"#
            ]
        );
        assert_eq!(rows[1].elements(text.as_bytes()), vec![]);
        // Under `result` for a file; nothing found elsewhere.
        let mut scan = JsonScan::finding_rows(FILE_ROWS_PATH);
        scan.feed(br#"{"result":{"after":{"table":{"rows":[["a"],["b"]]}}}}"#);
        let rows = scan.rows_arrays();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].keys, ["result", "after", "table", "rows"]);
        assert_eq!(rows[0].commas.len(), 1);
    }

    #[test]
    fn the_bounds_follow_from_the_limits() {
        assert_eq!(MAX_JSON_VALUES, 2 * (20_000 + 4_000 + 16) + 1_024);
        assert_eq!(MAX_LINK_JSON_BYTES, 6_000_000 + 32 * 49_056);
        assert_eq!(deflate_bound(65_536), 65_536 + 16 + 4 + 7);
        // `v1.` and 4/3 of the header and the deflated JSON (7,569,792 + 1,848 + 462 + 7).
        assert_eq!(
            MAX_LINK_TEXT_CHARS,
            3 + (4 * (8 + 7_572_109_usize)).div_ceil(3)
        );
        assert_eq!(MAX_LINK_TEXT_CHARS, 10_096_159);
        // The texts at their widest, and (32 + 43) bytes for each of 49,064 values.
        assert_eq!(MAX_RESULT_FILE_BYTES, 6_000_000 + 75 * 49_064);
    }
}
