//! The share-link text: `v1.` + base64url (no padding) of an 8-byte header — the length of
//! the compressed body and its CRC-32, both big-endian u32 — followed by the body: the
//! [`SharedResult`] as JSON, raw-deflated. The header lets a damaged link say *how* it is
//! damaged: shorter than declared is truncated, a wrong CRC is corruption.

use std::io::{Read, Write};

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;

use super::error::ShareError;
use super::SharedResult;

/// The link format version this build writes and reads (the `v1.` prefix).
pub const LINK_VERSION: u32 = 1;
/// The `format` marker of a result file (the fallback for results too large for a link).
pub const FILE_FORMAT: &str = "tabprobe-share";
/// A link whose data inflates past this many bytes of JSON is refused while inflating (a
/// crafted link must not exhaust memory); [`super::limits`] then bounds what the JSON holds.
pub const MAX_JSON_BYTES: u64 = 16 * 1024 * 1024;
/// A result file larger than this is refused before it is parsed (the same bound as a
/// link's inflated JSON).
pub const MAX_RESULT_FILE_BYTES: u64 = MAX_JSON_BYTES;

/// The link header: compressed length and CRC-32, big-endian u32 each.
const HEADER_BYTES: usize = 8;

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

/// Reads link text: what follows `#/share/`, or a whole pasted URL containing it.
pub fn decode(text: &str) -> Result<SharedResult, ShareError> {
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
    if let Some((i, c)) = data
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        let shown: String = c.escape_debug().collect();
        return Err(ShareError::Corrupted(format!(
            "character '{shown}' at position {} cannot occur in a link",
            // 1-based position after `v<digits>.`; saturating, so no overflow check is needed.
            version.len().saturating_add(i).saturating_add(2)
        )));
    }
    // A base64 string of length 4k+1 ends in a character that carries no whole byte: only a
    // cut link looks like that. Drop it and let the length check report the truncation.
    let data = if data.len() % 4 == 1 {
        &data[..data.len() - 1]
    } else {
        data
    };
    let bytes = B64
        .decode(data)
        .map_err(|e| ShareError::Corrupted(e.to_string()))?;
    if bytes.len() < HEADER_BYTES {
        return Err(ShareError::Truncated {
            have: bytes.len(),
            want: HEADER_BYTES,
        });
    }
    let want = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let crc = u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    let body = &bytes[HEADER_BYTES..];
    if body.len() < want {
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
    if body.len() > want {
        return Err(ShareError::Corrupted(format!(
            "it holds {} bytes more than it declares",
            body.len() - want
        )));
    }
    if crc32fast::hash(body) != crc {
        return Err(ShareError::ChecksumMismatch);
    }
    let mut json = Vec::new();
    DeflateDecoder::new(body)
        .take(MAX_JSON_BYTES + 1)
        .read_to_end(&mut json)
        .map_err(|e| ShareError::Corrupted(format!("its data does not decompress ({e})")))?;
    if json.len() as u64 > MAX_JSON_BYTES {
        return Err(ShareError::Corrupted(format!(
            "it expands to more than {} MB",
            MAX_JSON_BYTES / (1024 * 1024)
        )));
    }
    let de = &mut serde_json::Deserializer::from_slice(&json);
    let result: SharedResult = serde_path_to_error::deserialize(de).map_err(|e| {
        ShareError::Corrupted(format!(
            "its content is not a tabprobe result (at {}: {})",
            e.path(),
            e.inner()
        ))
    })?;
    super::limits::check(&result)?;
    Ok(result)
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

/// Reads a result file written by [`to_file`]; errors name the file and the JSON path.
pub fn from_file(file: &str, text: &str) -> Result<SharedResult, ShareError> {
    #[derive(serde::Deserialize)]
    struct ResultFile {
        format: String,
        version: u32,
        result: serde_json::Value,
    }
    let bad = |message: String| ShareError::BadFile {
        file: file.to_string(),
        message,
    };
    if text.len() as u64 > MAX_RESULT_FILE_BYTES {
        return Err(bad(format!(
            "the file is {} bytes, more than the {MAX_RESULT_FILE_BYTES} a result file may be",
            text.len()
        )));
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    let f: ResultFile = serde_path_to_error::deserialize(de)
        .map_err(|e| bad(format!("at {}: {}", e.path(), e.inner())))?;
    if f.format != FILE_FORMAT {
        return Err(bad(format!(
            "at format: expected \"{FILE_FORMAT}\", found {:?}",
            f.format
        )));
    }
    if f.version != LINK_VERSION {
        return Err(bad(format!(
            "at version: this site reads version {LINK_VERSION}, the file is version {}",
            f.version
        )));
    }
    let result: SharedResult = serde_path_to_error::deserialize(f.result)
        .map_err(|e| bad(format!("at result.{}: {}", e.path(), e.inner())))?;
    super::limits::check(&result).map_err(|e| bad(e.to_string()))?;
    Ok(result)
}
