//! The share-link text: `v1.` + base64url (no padding) of an 8-byte header — the length of
//! the compressed body and its CRC-32, both big-endian u32 — followed by the body: the
//! [`SharedResult`] as JSON, raw-deflated. The header lets a damaged link say *how* it is
//! damaged: shorter than declared is truncated, a wrong CRC is corruption.

use std::io::Write;

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use flate2::write::DeflateEncoder;
use flate2::Compression;

use super::budget::{
    JsonScan, RowsArray, FILE_ROWS_PATH, HEADER_BYTES, LINK_ROWS_PATH, MAX_FILE_JSON_VALUES,
    MAX_JSON_VALUES, MAX_LINK_JSON_BYTES, MAX_LINK_TEXT_CHARS, MAX_RESULT_FILE_BYTES,
};
use super::error::ShareError;
use super::SharedResult;
use crate::data::table::Table;

/// The link format version this build writes and reads (the `v1.` prefix).
pub const LINK_VERSION: u32 = 1;
/// The `format` marker of a result file (the fallback for results too large for a link).
pub const FILE_FORMAT: &str = "tabprobe-share";
/// URL-safe base64 without padding; trailing bits tolerated so a cut link reports
/// "truncated" rather than a base64 technicality.
const B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// The link text (what follows `#/share/`) for `result`.
pub fn encode(result: &SharedResult) -> Result<String, ShareError> {
    let json = serde_json::to_vec(result).map_err(|e| ShareError::Encode(e.to_string()))?;
    let mut deflater = DeflateEncoder::new(Vec::new(), Compression::best());
    deflater
        .write_all(&json)
        .map_err(|e| ShareError::Encode(e.to_string()))?;
    let body = deflater
        .finish()
        .map_err(|e| ShareError::Encode(e.to_string()))?;
    let len =
        u32::try_from(body.len()).map_err(|_| ShareError::Encode("result too large".into()))?;
    let mut bytes = Vec::with_capacity(8 + body.len());
    bytes.extend_from_slice(&len.to_be_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    bytes.extend_from_slice(&body);
    Ok(format!("v{LINK_VERSION}.{}", B64.encode(bytes)))
}

/// Reads link text: what follows `#/share/`, or a whole pasted URL containing it, in one go
/// ([`Decoding::link`] run to its end).
pub fn decode(text: &str) -> Result<SharedResult, ShareError> {
    Decoding::link(text)?.finish()
}

/// Input bytes one [`Decoding::step`] works through (characters checked, base64 decoded,
/// checksummed, inflated, scanned, or rows parsed): about 6 ms of the page's thread in wasm
/// (measured: a MiB of a link at the share limits inflated in 24 ms), so that a slice of
/// steps stays well under 50 ms on a machine three times slower.
pub const STEP_BYTES: usize = 1 << 18;

/// A link or result file being decoded one step at a time, so the page can give its thread
/// back between steps: each step works through at most [`STEP_BYTES`] of input, except
/// parsing, which happens in one step on a text whose size and count of values
/// ([`super::budget`]) have been checked — the work of a result within the share limits.
pub struct Decoding {
    stage: Stage,
}

/// Where a [`Decoding`] stands.
enum Stage {
    /// Checking a link's characters: `data` is the base64 text, `prefix` what came before it
    /// (`v1.`), `at` how far it is checked.
    Characters {
        data: String,
        prefix: usize,
        at: usize,
    },
    /// Decoding a link's base64 text, `at` characters so far.
    Base64 {
        data: String,
        at: usize,
        bytes: Vec<u8>,
    },
    /// Checksumming a link's body (`bytes` after the header), `at` bytes so far.
    Checksum {
        bytes: Vec<u8>,
        at: usize,
        hasher: crc32fast::Hasher,
        crc: u32,
    },
    /// Inflating a link's body, `at` bytes of it so far, into `json`.
    Inflate {
        bytes: Vec<u8>,
        at: usize,
        inflater: Box<flate2::Decompress>,
        json: Vec<u8>,
    },
    /// Counting the JSON's values and finding its tables' rows, `at` bytes so far.
    Scan {
        json: Vec<u8>,
        at: usize,
        scan: JsonScan,
        of: Source,
    },
    /// Parsing the JSON, checked for size and values, without its tables' rows (cut out of
    /// the text): one step.
    Parse {
        json: Vec<u8>,
        rows: Vec<RowsArray>,
        of: Source,
    },
    /// Parsing the tables' rows into `result`, a slice of them per step: element `next` of
    /// `rows[array]` comes next.
    Rows {
        json: Vec<u8>,
        rows: Vec<RowsArray>,
        array: usize,
        next: usize,
        result: Box<SharedResult>,
        of: Source,
    },
    /// Checking the result against the share limits.
    Check {
        result: Box<SharedResult>,
        of: Source,
    },
    /// Finished (the result was handed out).
    Done,
}

/// What is being decoded, for the last steps.
enum Source {
    Link,
    /// A result file, by its name (its errors name it).
    File(String),
}

impl Decoding {
    /// Starts decoding link text: what follows `#/share/`, or a whole pasted URL containing
    /// it. Its form and length are checked at once: a link longer than any result within
    /// the share limits needs ([`MAX_LINK_TEXT_CHARS`]) is refused before any decoding.
    pub fn link(text: &str) -> Result<Decoding, ShareError> {
        let text = text.trim();
        let text = match text.find("#/share/") {
            Some(i) => &text[i + "#/share/".len()..],
            None => text,
        };
        let (version, data) = text.split_once('.').ok_or(ShareError::NotALink)?;
        let digits = version.strip_prefix('v').ok_or(ShareError::NotALink)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ShareError::NotALink);
        }
        if digits != LINK_VERSION.to_string() {
            return Err(ShareError::WrongVersion {
                found: digits.chars().take(12).collect(),
                supported: LINK_VERSION,
            });
        }
        if text.len() > MAX_LINK_TEXT_CHARS {
            return Err(ShareError::TooLong {
                chars: text.len(),
                limit: MAX_LINK_TEXT_CHARS,
            });
        }
        Ok(Decoding {
            stage: Stage::Characters {
                data: data.to_string(),
                prefix: version.len() + 1,
                at: 0,
            },
        })
    }

    /// Starts reading a result file written by [`to_file`] (`text`, named `file` in errors):
    /// a file larger than any result within the share limits needs
    /// ([`MAX_RESULT_FILE_BYTES`]) is refused at once.
    pub fn file(file: &str, text: &str) -> Result<Decoding, ShareError> {
        check_file_size(file, text.len() as u64)?;
        Ok(Decoding {
            stage: Stage::Scan {
                json: text.as_bytes().to_vec(),
                at: 0,
                scan: JsonScan::finding_rows(FILE_ROWS_PATH),
                of: Source::File(file.to_string()),
            },
        })
    }

    /// What the next step does (`characters`, `base64`, `checksum`, `inflate`, `scan`,
    /// `parse`, `done`), for timings.
    pub fn stage(&self) -> &'static str {
        match self.stage {
            Stage::Characters { .. } => "characters",
            Stage::Base64 { .. } => "base64",
            Stage::Checksum { .. } => "checksum",
            Stage::Inflate { .. } => "inflate",
            Stage::Scan { .. } => "scan",
            Stage::Parse { .. } => "parse",
            Stage::Rows { .. } => "rows",
            Stage::Check { .. } => "check",
            Stage::Done => "done",
        }
    }

    /// Does the next step: `None` while there is more to do, then the result or why there
    /// is none (once; a finished decoding answers `None`).
    pub fn step(&mut self) -> Option<Result<SharedResult, ShareError>> {
        match self.advance() {
            Ok(Some(result)) => Some(Ok(result)),
            Ok(None) => None,
            Err(e) => {
                self.stage = Stage::Done;
                Some(Err(e))
            }
        }
    }

    /// Every step to the end.
    pub fn finish(mut self) -> Result<SharedResult, ShareError> {
        loop {
            if let Some(result) = self.step() {
                return result;
            }
        }
    }

    fn advance(&mut self) -> Result<Option<SharedResult>, ShareError> {
        match std::mem::replace(&mut self.stage, Stage::Done).step()? {
            Stepped::Next(stage) => {
                self.stage = stage;
                Ok(None)
            }
            Stepped::Finished(result) => Ok(Some(result)),
        }
    }
}

/// What one step of decoding gives: the next stage, or the result.
enum Stepped {
    Next(Stage),
    Finished(SharedResult),
}

impl Stage {
    /// This stage's next slice of work (at most about [`STEP_BYTES`]).
    fn step(self) -> Result<Stepped, ShareError> {
        use Stepped::Next;
        match self {
            Stage::Characters { data, prefix, at } => check_characters(data, prefix, at).map(Next),
            Stage::Base64 { data, at, bytes } => decode_base64(data, at, bytes).map(Next),
            Stage::Checksum {
                bytes,
                at,
                hasher,
                crc,
            } => checksum(bytes, at, hasher, crc).map(Next),
            Stage::Inflate {
                bytes,
                at,
                inflater,
                json,
            } => inflate_body(bytes, at, inflater, json).map(Next),
            Stage::Scan { json, at, scan, of } => scan_json(json, at, scan, of).map(Next),
            Stage::Parse { json, rows, of } => parse_skeleton(json, rows, of).map(Next),
            Stage::Rows {
                json,
                rows,
                array,
                next,
                result,
                of,
            } => read_rows(json, rows, (array, next), result, of).map(Next),
            Stage::Check { result, of } => {
                super::limits::check(&result).map_err(|e| of.error(e))?;
                Ok(Stepped::Finished(*result))
            }
            Stage::Done => Ok(Next(Stage::Done)),
        }
    }
}

/// Checks a link's characters from `at` on (base64url only); `prefix` is the length of what
/// came before them, for the position an error names.
fn check_characters(data: String, prefix: usize, at: usize) -> Result<Stage, ShareError> {
    let end = (at + STEP_BYTES).min(data.len());
    if let Some(i) = data.as_bytes()[at..end]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_'))
    {
        // Every byte before is ASCII, so a character starts here.
        let c = data[at + i..].chars().next().unwrap_or('?');
        let shown: String = c.escape_debug().collect();
        return Err(ShareError::Corrupted(format!(
            "character '{shown}' at position {} cannot occur in a link",
            // 1-based, after `v<digits>.`.
            prefix.saturating_add(at + i).saturating_add(1)
        )));
    }
    Ok(if end < data.len() {
        Stage::Characters {
            data,
            prefix,
            at: end,
        }
    } else {
        Stage::Base64 {
            data,
            at: 0,
            bytes: Vec::new(),
        }
    })
}

/// Decodes a link's base64 text from `at` on into `bytes`.
fn decode_base64(data: String, at: usize, mut bytes: Vec<u8>) -> Result<Stage, ShareError> {
    // A base64 string of length 4k+1 ends in a character that carries no whole byte: only a
    // cut link looks like that. Drop it and let the length check report the truncation.
    let usable = if data.len() % 4 == 1 {
        data.len() - 1
    } else {
        data.len()
    };
    // Whole groups of four characters per step, so each decodes on its own.
    let end = (at + STEP_BYTES / 4 * 4).min(usable);
    B64.decode_vec(&data.as_bytes()[at..end], &mut bytes)
        .map_err(|e| ShareError::Corrupted(e.to_string()))?;
    if end < usable {
        Ok(Stage::Base64 {
            data,
            at: end,
            bytes,
        })
    } else {
        checksum_stage(bytes)
    }
}

/// Checksums a link's body from `at` on; at its end, compares with the header's `crc`.
fn checksum(
    bytes: Vec<u8>,
    at: usize,
    mut hasher: crc32fast::Hasher,
    crc: u32,
) -> Result<Stage, ShareError> {
    let end = (at + STEP_BYTES).min(bytes.len());
    hasher.update(&bytes[at..end]);
    if end < bytes.len() {
        Ok(Stage::Checksum {
            bytes,
            at: end,
            hasher,
            crc,
        })
    } else if hasher.finalize() != crc {
        Err(ShareError::ChecksumMismatch)
    } else {
        Ok(Stage::Inflate {
            bytes,
            at: HEADER_BYTES,
            inflater: Box::new(flate2::Decompress::new(false)),
            json: Vec::new(),
        })
    }
}

/// Inflates a link's body from `at` on into `json`.
fn inflate_body(
    bytes: Vec<u8>,
    at: usize,
    mut inflater: Box<flate2::Decompress>,
    mut json: Vec<u8>,
) -> Result<Stage, ShareError> {
    let end = (at + STEP_BYTES).min(bytes.len());
    let (taken, done) = inflate(&mut inflater, &bytes[at..end], &mut json)?;
    let at = at + taken;
    if done {
        Ok(Stage::Scan {
            json,
            at: 0,
            scan: JsonScan::finding_rows(LINK_ROWS_PATH),
            of: Source::Link,
        })
    } else if at >= bytes.len() {
        Err(ShareError::Corrupted(
            "its data does not decompress (it ends before its last block)".into(),
        ))
    } else {
        Ok(Stage::Inflate {
            bytes,
            at,
            inflater,
            json,
        })
    }
}

/// Counts the JSON's values from `at` on and finds its tables' rows; at its end, holds the
/// count to the source's limit.
fn scan_json(
    json: Vec<u8>,
    at: usize,
    mut scan: JsonScan,
    of: Source,
) -> Result<Stage, ShareError> {
    let end = (at + STEP_BYTES).min(json.len());
    scan.feed(&json[at..end]);
    let limit = match of {
        Source::Link => MAX_JSON_VALUES,
        Source::File(_) => MAX_FILE_JSON_VALUES,
    };
    if scan.values() > limit && end == json.len() {
        return Err(of.error(ShareError::TooManyValues {
            found: scan.values(),
            limit,
        }));
    }
    Ok(if end < json.len() {
        Stage::Scan {
            json,
            at: end,
            scan,
            of,
        }
    } else {
        Stage::Parse {
            json,
            rows: scan.rows_arrays(),
            of,
        }
    })
}

/// Parses the JSON without its tables' rows (they are read in the steps after).
fn parse_skeleton(json: Vec<u8>, rows: Vec<RowsArray>, of: Source) -> Result<Stage, ShareError> {
    let skeleton = without_rows(&json, &rows);
    let result = Box::new(match &of {
        Source::Link => parse_link_json(&skeleton)?,
        Source::File(file) => parse_file_json(file, &skeleton)?,
    });
    Ok(Stage::Rows {
        json,
        rows,
        array: 0,
        next: 0,
        result,
        of,
    })
}

/// Reads a slice of the tables' rows into `result`, from element `next` of `rows[array]` on.
fn read_rows(
    json: Vec<u8>,
    rows: Vec<RowsArray>,
    (array, next): (usize, usize),
    mut result: Box<SharedResult>,
    of: Source,
) -> Result<Stage, ShareError> {
    let Some(found) = rows.get(array) else {
        return Ok(Stage::Check { result, of });
    };
    let elements = found.elements(&json);
    let mut read = 0;
    let mut i = next;
    while i < elements.len() && read < STEP_BYTES {
        let element = &json[elements[i].clone()];
        add_row(&mut result, found, i, element).map_err(|(at, what)| of.bad_at(&at, &what))?;
        read += element.len();
        i += 1;
    }
    let (array, next) = match i < elements.len() {
        true => (array, i),
        false => (array + 1, 0),
    };
    Ok(Stage::Rows {
        json,
        rows,
        array,
        next,
        result,
        of,
    })
}

impl Source {
    /// Content that is not a result, at the JSON path `at`, as this source reports it.
    fn bad_at(&self, at: &str, what: &str) -> ShareError {
        match self {
            Source::Link => ShareError::Corrupted(format!(
                "its content is not a tabprobe result (at {at}: {what})"
            )),
            Source::File(file) => ShareError::BadFile {
                file: file.clone(),
                message: format!("at {at}: {what}"),
            },
        }
    }

    /// `e` as this source reports it: a result file's errors name the file.
    fn error(&self, e: ShareError) -> ShareError {
        match self {
            Source::Link => e,
            Source::File(file) => ShareError::BadFile {
                file: file.clone(),
                message: e.to_string(),
            },
        }
    }
}

/// `json` with the elements of its tables' `rows` arrays cut out (`[]` left).
fn without_rows(json: &[u8], rows: &[RowsArray]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let mut from = 0;
    for r in rows {
        out.extend_from_slice(&json[from..=r.open]);
        from = r.close;
    }
    out.extend_from_slice(&json[from..]);
    out
}

/// Parses `element`, row `i` of the table whose `rows` array `found` is, and adds it to
/// that table of `result`; the error is the JSON path and what is wrong there.
fn add_row(
    result: &mut SharedResult,
    found: &RowsArray,
    i: usize,
    element: &[u8],
) -> Result<(), (String, String)> {
    let path = found.keys.join(".");
    let table = match found.keys.iter().rev().nth(2).map(String::as_str) {
        Some("before") => result.before.table.as_mut(),
        _ => result.after.table.as_mut(),
    };
    let located = |e: serde_path_to_error::Error<serde_json::Error>| {
        let inner = e.path().to_string();
        let at = match inner.as_str() {
            "." => format!("{path}[{i}]"),
            _ if inner.starts_with('[') => format!("{path}[{i}]{inner}"),
            _ => format!("{path}[{i}].{inner}"),
        };
        (at, e.inner().to_string())
    };
    let de = &mut serde_json::Deserializer::from_slice(element);
    match table {
        Some(Table::KeyValue(t)) => t
            .rows
            .push(serde_path_to_error::deserialize(de).map_err(located)?),
        Some(Table::Relational(t)) => t
            .rows
            .push(serde_path_to_error::deserialize(de).map_err(located)?),
        None => return Err((path, "rows of no table".to_string())),
    }
    Ok(())
}

/// The checksum stage for a link's decoded bytes: the header read, the body's length checked
/// against it.
fn checksum_stage(bytes: Vec<u8>) -> Result<Stage, ShareError> {
    if bytes.len() < HEADER_BYTES {
        return Err(ShareError::Truncated {
            have: bytes.len(),
            want: HEADER_BYTES,
        });
    }
    let want = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let crc = u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    let body = bytes.len() - HEADER_BYTES;
    if body < want {
        // Checked: on wasm32 `usize` is 32 bits, so a declared length near u32::MAX plus the
        // header would wrap in a release build (which has no overflow checks).
        return Err(match want.checked_add(HEADER_BYTES) {
            Some(want) => ShareError::Truncated {
                have: bytes.len(),
                want,
            },
            None => ShareError::Corrupted(format!(
                "it declares {want} bytes of data, more than a link can hold"
            )),
        });
    }
    if body > want {
        return Err(ShareError::Corrupted(format!(
            "it holds {} bytes more than it declares",
            body - want
        )));
    }
    Ok(Stage::Checksum {
        bytes,
        at: HEADER_BYTES,
        hasher: crc32fast::Hasher::new(),
        crc,
    })
}

/// Inflates from `input` (the next part of a link's body) into `json` until the stream
/// ends, the input is used up or [`STEP_BYTES`] more JSON came: how much of `input` it took
/// and whether the stream ended. More JSON than [`MAX_LINK_JSON_BYTES`] is an error, found
/// within 64 KiB of passing it.
fn inflate(
    inflater: &mut flate2::Decompress,
    input: &[u8],
    json: &mut Vec<u8>,
) -> Result<(usize, bool), ShareError> {
    let mut out = vec![0u8; 64 * 1024];
    let (start_in, start_len) = (inflater.total_in(), json.len());
    loop {
        let taken = (inflater.total_in() - start_in) as usize;
        if json.len() - start_len >= STEP_BYTES {
            return Ok((taken, false));
        }
        let before_out = inflater.total_out();
        let status = inflater
            .decompress(&input[taken..], &mut out, flate2::FlushDecompress::None)
            .map_err(|e| ShareError::Corrupted(format!("its data does not decompress ({e})")))?;
        let made = (inflater.total_out() - before_out) as usize;
        json.extend_from_slice(&out[..made]);
        if json.len() > MAX_LINK_JSON_BYTES {
            return Err(ShareError::Expands {
                limit: MAX_LINK_JSON_BYTES,
            });
        }
        let taken = (inflater.total_in() - start_in) as usize;
        match status {
            flate2::Status::StreamEnd => return Ok((taken, true)),
            // The input used up and the output not full: the next part is needed.
            _ if taken == input.len() && made < out.len() => return Ok((taken, false)),
            _ => {}
        }
    }
}

/// A link's JSON as a result; the error gives the JSON path of what is wrong.
fn parse_link_json(json: &[u8]) -> Result<SharedResult, ShareError> {
    let de = &mut serde_json::Deserializer::from_slice(json);
    serde_path_to_error::deserialize(de)
        .map_err(|e| Source::Link.bad_at(&e.path().to_string(), &e.inner().to_string()))
}

/// The fallback for results too large for a link: a small JSON file a person can read.
pub fn to_file(result: &SharedResult) -> Result<String, ShareError> {
    let file = serde_json::json!({
        "format": FILE_FORMAT,
        "version": LINK_VERSION,
        "result": result,
    });
    serde_json::to_string_pretty(&file).map_err(|e| ShareError::Encode(e.to_string()))
}

/// Reads a result file written by [`to_file`] in one go ([`Decoding::file`] run to its
/// end); errors name the file and the JSON path.
pub fn from_file(file: &str, text: &str) -> Result<SharedResult, ShareError> {
    Decoding::file(file, text)?.finish()
}

/// Whether a result file of `size` bytes (named `file` in the error) may be read: one larger
/// than any result within the share limits needs ([`MAX_RESULT_FILE_BYTES`]) is refused
/// before it is read.
pub fn check_file_size(file: &str, size: u64) -> Result<(), ShareError> {
    if size <= MAX_RESULT_FILE_BYTES {
        return Ok(());
    }
    Err(ShareError::BadFile {
        file: file.to_string(),
        message: format!(
            "the file holds {}, more than the {} a result within the share limits ({}) needs",
            crate::display::bytes(size),
            crate::display::bytes(MAX_RESULT_FILE_BYTES),
            super::budget::limits_in_words()
        ),
    })
}

/// A result file's JSON as a result: `format` and `version` checked first, then the result;
/// errors name the file and the JSON path.
fn parse_file_json(file: &str, json: &[u8]) -> Result<SharedResult, ShareError> {
    /// The file's head, its result skipped.
    #[derive(serde::Deserialize)]
    struct Head {
        format: String,
        version: u32,
        #[allow(dead_code)]
        result: serde::de::IgnoredAny,
    }
    #[derive(serde::Deserialize)]
    struct ResultFile {
        result: SharedResult,
    }
    /// `json` as a `T`, the error naming the file and the JSON path.
    fn parse<'a, T: serde::Deserialize<'a>>(file: &str, json: &'a [u8]) -> Result<T, ShareError> {
        let de = &mut serde_json::Deserializer::from_slice(json);
        serde_path_to_error::deserialize(de).map_err(|e| {
            Source::File(file.to_string()).bad_at(&e.path().to_string(), &e.inner().to_string())
        })
    }
    let head: Head = parse(file, json)?;
    let bad = |message: String| ShareError::BadFile {
        file: file.to_string(),
        message,
    };
    if head.format != FILE_FORMAT {
        return Err(bad(format!(
            "at format: expected \"{FILE_FORMAT}\", found {:?}",
            head.format
        )));
    }
    if head.version != LINK_VERSION {
        return Err(bad(format!(
            "at version: this site reads version {LINK_VERSION}, the file is version {}",
            head.version
        )));
    }
    parse::<ResultFile>(file, json).map(|f| f.result)
}
