//! A Hugging Face checkpoint folder — `config.json`, the weights, `tokenizer.json` or
//! `vocab.json` + `merges.txt`, and `tokenizer_config.json` where the folder has one — as one
//! type and one rule shared by the page (picked files), the worker (their bytes) and the CLI (a
//! folder on disk). `B` stands for one file: its index among picked names, its bytes, or a
//! borrowed slice of them.

use serde::{Deserialize, Serialize};

mod ceiling;

pub use ceiling::{
    ceiling, check_size, FileKind, FileTooLarge, Found, Reader, BROWSER_MAX_WEIGHTS_BYTES,
    CLI_MAX_WEIGHTS_BYTES, SPECIAL_TOKENS_MAP_JSON, VOCAB_TXT,
};

/// The tokenizer file(s) of a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenizerFiles<B> {
    /// `tokenizer.json`.
    Json(B),
    /// `vocab.json` and `merges.txt`, for checkpoints without `tokenizer.json`.
    VocabMerges {
        /// `vocab.json`.
        vocab_json: B,
        /// `merges.txt`.
        merges_txt: B,
    },
}

/// Which tokenizer files a checkpoint has, without the files (a worker message names it and
/// carries the files as transferred buffers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenizerKind {
    /// One file: `tokenizer.json`.
    Json,
    /// Two files: `vocab.json`, then `merges.txt`.
    VocabMerges,
}

impl TokenizerKind {
    /// How many files the tokenizer is.
    pub fn file_count(self) -> usize {
        match self {
            TokenizerKind::Json => 1,
            TokenizerKind::VocabMerges => 2,
        }
    }
}

impl<B> TokenizerFiles<B> {
    /// The same files, each mapped by `f`.
    pub fn map<C>(self, mut f: impl FnMut(B) -> C) -> TokenizerFiles<C> {
        match self {
            TokenizerFiles::Json(t) => TokenizerFiles::Json(f(t)),
            TokenizerFiles::VocabMerges {
                vocab_json,
                merges_txt,
            } => TokenizerFiles::VocabMerges {
                vocab_json: f(vocab_json),
                merges_txt: f(merges_txt),
            },
        }
    }

    /// Borrows the files.
    pub fn as_ref(&self) -> TokenizerFiles<&B> {
        match self {
            TokenizerFiles::Json(t) => TokenizerFiles::Json(t),
            TokenizerFiles::VocabMerges {
                vocab_json,
                merges_txt,
            } => TokenizerFiles::VocabMerges {
                vocab_json,
                merges_txt,
            },
        }
    }

    /// Which files these are.
    pub fn kind(&self) -> TokenizerKind {
        match self {
            TokenizerFiles::Json(_) => TokenizerKind::Json,
            TokenizerFiles::VocabMerges { .. } => TokenizerKind::VocabMerges,
        }
    }

    /// Each file with its name in the folder, in folder order.
    pub fn named(self) -> Vec<(&'static str, B)> {
        match self {
            TokenizerFiles::Json(t) => vec![(TOKENIZER_JSON, t)],
            TokenizerFiles::VocabMerges {
                vocab_json,
                merges_txt,
            } => vec![(VOCAB_JSON, vocab_json), (MERGES_TXT, merges_txt)],
        }
    }
}

/// The files of a checkpoint folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointFiles<B> {
    /// `config.json`.
    pub config_json: B,
    /// `model.safetensors` (or, where [`PytorchBin::Accept`] allowed it, `pytorch_model.bin`).
    pub weights: B,
    /// The tokenizer.
    pub tokenizer: TokenizerFiles<B>,
    /// `tokenizer_config.json`, which `save_pretrained` writes beside the tokenizer: its
    /// `model_max_length` is where `transformers` truncates ([`TokenizerConfig`]). Optional.
    pub tokenizer_config: Option<B>,
}

impl<B> CheckpointFiles<B> {
    /// The same files, each mapped by `f`.
    pub fn map<C>(self, mut f: impl FnMut(B) -> C) -> CheckpointFiles<C> {
        CheckpointFiles {
            config_json: f(self.config_json),
            weights: f(self.weights),
            tokenizer: self.tokenizer.map(&mut f),
            tokenizer_config: self.tokenizer_config.map(f),
        }
    }

    /// The same files, each mapped by `f`, stopping at the first error.
    pub fn try_map<C, E>(
        self,
        mut f: impl FnMut(B) -> Result<C, E>,
    ) -> Result<CheckpointFiles<C>, E> {
        Ok(CheckpointFiles {
            config_json: f(self.config_json)?,
            weights: f(self.weights)?,
            tokenizer: match self.tokenizer {
                TokenizerFiles::Json(t) => TokenizerFiles::Json(f(t)?),
                TokenizerFiles::VocabMerges {
                    vocab_json,
                    merges_txt,
                } => TokenizerFiles::VocabMerges {
                    vocab_json: f(vocab_json)?,
                    merges_txt: f(merges_txt)?,
                },
            },
            tokenizer_config: self.tokenizer_config.map(f).transpose()?,
        })
    }

    /// Borrows the files.
    pub fn as_ref(&self) -> CheckpointFiles<&B> {
        CheckpointFiles {
            config_json: &self.config_json,
            weights: &self.weights,
            tokenizer: self.tokenizer.as_ref(),
            tokenizer_config: self.tokenizer_config.as_ref(),
        }
    }

    /// Each file with its name in a folder: config, weights (as `model.safetensors`), the
    /// tokenizer's file(s), then `tokenizer_config.json` where there is one.
    pub fn named(self) -> Vec<(&'static str, B)> {
        let mut files = vec![(CONFIG_JSON, self.config_json), (SAFETENSORS, self.weights)];
        files.extend(self.tokenizer.named());
        files.extend(self.tokenizer_config.map(|t| (TOKENIZER_CONFIG_JSON, t)));
        files
    }

    /// The files in the order a worker message carries them (that of
    /// [`CheckpointFiles::named`]) and which tokenizer files they are.
    pub fn into_parts(self) -> (TokenizerKind, Vec<B>) {
        let kind = self.tokenizer.kind();
        (kind, self.named().into_iter().map(|(_, f)| f).collect())
    }

    /// The inverse of [`CheckpointFiles::into_parts`]; the error says how many parts came and
    /// how many `kind` needs. One part more than `kind` needs is `tokenizer_config.json`.
    pub fn from_parts(kind: TokenizerKind, parts: Vec<B>) -> Result<Self, CheckpointError> {
        let got = parts.len();
        let mut it = parts.into_iter();
        let whole = match (it.next(), it.next()) {
            (Some(config_json), Some(weights)) => {
                let rest: Vec<B> = it.collect();
                SmallFiles::from_parts(kind, std::iter::once(config_json).chain(rest).collect())
                    .ok()
                    .map(|small| CheckpointFiles {
                        config_json: small.config_json,
                        weights,
                        tokenizer: small.tokenizer,
                        tokenizer_config: small.tokenizer_config,
                    })
            }
            _ => None,
        };
        whole.ok_or(CheckpointError::Parts {
            kind,
            needed: kind.file_count() + 2,
            got,
        })
    }
}

impl<B> CheckpointFiles<B> {
    /// The small files apart from the weights (the browser sends and keeps the weights as a
    /// `Blob`, read a tensor at a time, while config and tokenizer travel as bytes).
    pub fn split_weights(self) -> (SmallFiles<B>, B) {
        let small = SmallFiles {
            config_json: self.config_json,
            tokenizer: self.tokenizer,
            tokenizer_config: self.tokenizer_config,
        };
        (small, self.weights)
    }
}

/// A checkpoint's files but its weights: `config.json` and the tokenizer's file(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmallFiles<B> {
    /// `config.json`.
    pub config_json: B,
    /// The tokenizer.
    pub tokenizer: TokenizerFiles<B>,
    /// `tokenizer_config.json`, where the checkpoint has one.
    pub tokenizer_config: Option<B>,
}

impl<B> SmallFiles<B> {
    /// The whole checkpoint, with `weights`.
    pub fn with_weights<'a>(&'a self, weights: &'a B) -> CheckpointFiles<&'a B> {
        CheckpointFiles {
            config_json: &self.config_json,
            weights,
            tokenizer: self.tokenizer.as_ref(),
            tokenizer_config: self.tokenizer_config.as_ref(),
        }
    }

    /// The files in the order a worker message carries them: config, the tokenizer's file(s),
    /// then `tokenizer_config.json` where there is one ([`CheckpointFiles::into_parts`]
    /// without the weights).
    pub fn into_parts(self) -> (TokenizerKind, Vec<B>) {
        let kind = self.tokenizer.kind();
        let mut parts = vec![self.config_json];
        parts.extend(self.tokenizer.named().into_iter().map(|(_, f)| f));
        parts.extend(self.tokenizer_config);
        (kind, parts)
    }

    /// The inverse of [`SmallFiles::into_parts`]; the error says how many parts came and how
    /// many `kind` needs. One part more than `kind` needs is `tokenizer_config.json`.
    pub fn from_parts(kind: TokenizerKind, parts: Vec<B>) -> Result<Self, CheckpointError> {
        let got = parts.len();
        let needed = kind.file_count() + 1;
        let wrong = CheckpointError::SmallParts { kind, needed, got };
        if got != needed && got != needed + 1 {
            return Err(wrong);
        }
        let mut it = parts.into_iter();
        let mut next = || it.next().ok_or_else(|| wrong.clone());
        let config_json = next()?;
        let tokenizer = match kind {
            TokenizerKind::Json => TokenizerFiles::Json(next()?),
            TokenizerKind::VocabMerges => TokenizerFiles::VocabMerges {
                vocab_json: next()?,
                merges_txt: next()?,
            },
        };
        let tokenizer_config = next().ok();
        Ok(SmallFiles {
            config_json,
            tokenizer,
            tokenizer_config,
        })
    }

    /// Each file with its name in a folder: config, the tokenizer's file(s), then
    /// `tokenizer_config.json` where there is one.
    pub fn named(&self) -> Vec<(&'static str, &B)> {
        let mut files = vec![(CONFIG_JSON, &self.config_json)];
        files.extend(self.tokenizer.as_ref().named());
        files.extend(
            self.tokenizer_config
                .as_ref()
                .map(|t| (TOKENIZER_CONFIG_JSON, t)),
        );
        files
    }
}

impl<B: AsRef<[u8]>> SmallFiles<B> {
    /// Checks each file's bytes against its kind's ceiling ([`FileKind::ceiling`]): the model
    /// worker's own check of what it is handed, whoever sent it.
    pub fn check_ceilings(&self, reader: Reader) -> Result<(), FileTooLarge> {
        self.named().into_iter().try_for_each(|(name, bytes)| {
            check_size(name, name, Found::Size(bytes.as_ref().len() as u64), reader)
        })
    }
}

/// Why a checkpoint's files cannot be read as one. Each says what was found and what was
/// expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// A message carried the wrong number of file parts for a whole checkpoint.
    #[error(
        "a checkpoint with {kind:?} tokenizer files has {needed} file parts (config, weights, \
         tokenizer), or {with_config} with tokenizer_config.json; this one has {got}",
        with_config = needed + 1
    )]
    Parts {
        /// Which tokenizer files it has.
        kind: TokenizerKind,
        /// The parts `kind` needs without `tokenizer_config.json`.
        needed: usize,
        /// The parts that came.
        got: usize,
    },
    /// A message carried the wrong number of file parts beside the weights.
    #[error(
        "a checkpoint with {kind:?} tokenizer files has {needed} small file parts (config, \
         tokenizer) beside its weights, or {with_config} with tokenizer_config.json; this one \
         has {got}",
        with_config = needed + 1
    )]
    SmallParts {
        /// Which tokenizer files it has.
        kind: TokenizerKind,
        /// The parts `kind` needs without `tokenizer_config.json`.
        needed: usize,
        /// The parts that came.
        got: usize,
    },
    /// Files a folder lacks, each with what to do where something else is there instead.
    #[error("missing {}", .0.join(", "))]
    Missing(Vec<String>),
    /// A file past its kind's size ceiling.
    #[error(transparent)]
    TooLarge(#[from] FileTooLarge),
    /// `tokenizer_config.json` is not JSON.
    #[error("{TOKENIZER_CONFIG_JSON} is not JSON: {0}")]
    TokenizerConfigNotJson(String),
    /// `tokenizer_config.json` is JSON but not an object.
    #[error("{TOKENIZER_CONFIG_JSON}: expected a JSON object")]
    TokenizerConfigNotObject,
    /// `model_max_length` is not a whole number of tokens.
    #[error(
        "{TOKENIZER_CONFIG_JSON}: model_max_length is {0}; expected a whole number of tokens, at \
         least 1"
    )]
    ModelMaxLength(String),
}

/// `config.json`.
pub const CONFIG_JSON: &str = "config.json";
/// `model.safetensors`.
pub const SAFETENSORS: &str = "model.safetensors";
/// `pytorch_model.bin`, the weights of checkpoints from before safetensors.
pub const PYTORCH_BIN: &str = "pytorch_model.bin";
/// `tokenizer.json`.
pub const TOKENIZER_JSON: &str = "tokenizer.json";
/// `vocab.json` (BPE vocabulary, with [`MERGES_TXT`]).
pub const VOCAB_JSON: &str = "vocab.json";
/// `merges.txt`.
pub const MERGES_TXT: &str = "merges.txt";
/// `tokenizer_config.json`.
pub const TOKENIZER_CONFIG_JSON: &str = "tokenizer_config.json";

/// Whether `pytorch_model.bin` may stand in for `model.safetensors`: the CLI converts it in
/// memory; the browser cannot read it (burn's PyTorch reader opens files on disk only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PytorchBin {
    /// Only `model.safetensors`; a folder with `pytorch_model.bin` alone is told how to
    /// convert it.
    Refuse,
    /// `pytorch_model.bin` when there is no `model.safetensors`.
    Accept,
}

impl CheckpointFiles<usize> {
    /// Finds each part of a checkpoint among `names` (base names or relative paths, matched by
    /// base name): `tokenizer.json` is preferred to `vocab.json` + `merges.txt`. The error
    /// lists every missing file, with what to do where a file that cannot be read is present
    /// instead (`pytorch_model.bin` in the browser, `spm.model` or `vocab.txt` anywhere).
    pub fn find(names: &[String], pytorch_bin: PytorchBin) -> Result<Self, CheckpointError> {
        let find = |wanted: &str| {
            names
                .iter()
                .position(|n| n.rsplit('/').next() == Some(wanted))
        };
        let config = find(CONFIG_JSON);
        let weights = match (find(SAFETENSORS), pytorch_bin) {
            (Some(w), _) => Some(w),
            (None, PytorchBin::Accept) => find(PYTORCH_BIN),
            (None, PytorchBin::Refuse) => None,
        };
        let tokenizer = match (find(TOKENIZER_JSON), find(VOCAB_JSON), find(MERGES_TXT)) {
            (Some(t), _, _) => Some(TokenizerFiles::Json(t)),
            (None, Some(vocab_json), Some(merges_txt)) => Some(TokenizerFiles::VocabMerges {
                vocab_json,
                merges_txt,
            }),
            _ => None,
        };
        if let (Some(config_json), Some(weights), Some(tokenizer)) = (config, weights, tokenizer) {
            return Ok(CheckpointFiles {
                config_json,
                weights,
                tokenizer,
                tokenizer_config: find(TOKENIZER_CONFIG_JSON),
            });
        }
        let mut missing = Vec::new();
        if config.is_none() {
            missing.push(CONFIG_JSON.to_string());
        }
        if weights.is_none() {
            missing.push(match (pytorch_bin, find(PYTORCH_BIN)) {
                (PytorchBin::Refuse, Some(_)) => format!(
                    "{SAFETENSORS} ({PYTORCH_BIN} cannot be read in the browser: burn's PyTorch \
                     reader opens files on disk only; convert the folder once with \
                     `tabprobe convert-weights FOLDER`)"
                ),
                (PytorchBin::Refuse, None) => SAFETENSORS.to_string(),
                (PytorchBin::Accept, _) => format!("{SAFETENSORS} (or {PYTORCH_BIN})"),
            });
        }
        if tokenizer.is_none() {
            missing.push(
                if find("spm.model").is_some() || find("vocab.txt").is_some() {
                    format!(
                        "{TOKENIZER_JSON} (spm.model and vocab.txt alone cannot be read here: \
                         the tokenizers library reads {TOKENIZER_JSON}; write one with \
                         transformers: \
                         AutoTokenizer.from_pretrained(folder).save_pretrained(folder))"
                    )
                } else {
                    format!("{TOKENIZER_JSON} (or {VOCAB_JSON} and {MERGES_TXT})")
                },
            );
        }
        Err(CheckpointError::Missing(missing))
    }
}

/// `tokenizer_config.json`: where `transformers` truncates, and the settings its tokenizer
/// class builds the tokenizer from (the model crate's `tokenizer_class` applies them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenizerConfig {
    /// `model_max_length`, the most tokens `transformers` gives the model (it truncates there
    /// when asked to truncate with no other length). `None` when absent, `null`, or at least
    /// 10^18 — `transformers` writes `int(1e30)` for "no limit" — so the network's own limit
    /// (its position table) stands, as without the file.
    pub model_max_length: Option<usize>,
    /// Every key of the file (`do_lower_case`, `add_prefix_space`, the special tokens,
    /// `truncation_side`, …), as written; empty without the file.
    pub settings: serde_json::Map<String, serde_json::Value>,
}

/// At or above this a `model_max_length` means "no limit" (`transformers`' VERY_LARGE_INTEGER
/// is 10^30; no network has 10^18 positions).
const NO_LIMIT: f64 = 1e18;

impl TokenizerConfig {
    /// Reads `tokenizer_config.json`: `model_max_length` checked here, the other keys kept as
    /// written for the tokenizer's class. The error names the file, the key and what was
    /// expected.
    pub fn parse(bytes: &[u8]) -> Result<TokenizerConfig, CheckpointError> {
        let value: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| CheckpointError::TokenizerConfigNotJson(e.to_string()))?;
        let Some(object) = value.as_object() else {
            return Err(CheckpointError::TokenizerConfigNotObject);
        };
        let model_max_length = match object.get("model_max_length") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => match v.as_f64() {
                Some(n) if n >= NO_LIMIT => None,
                Some(n) if n >= 1.0 && n.fract() == 0.0 => Some(n as usize),
                _ => return Err(CheckpointError::ModelMaxLength(v.to_string())),
            },
        };
        Ok(TokenizerConfig {
            model_max_length,
            settings: object.clone(),
        })
    }

    /// The most tokens a pair may take: `network_max` (what the position table holds),
    /// lowered to `model_max_length` where that is smaller — as `transformers` truncates.
    pub fn max_tokens(&self, network_max: usize) -> usize {
        self.model_max_length
            .map_or(network_max, |m| m.min(network_max))
    }
}

/// A model named as the Hugging Face Hub names it, `org/name[@revision]`: the CLI finds it in
/// the local Hugging Face cache, the page downloads it from the Hub's `resolve` URLs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubName {
    /// `org/name`, or `name` for the Hub's older un-namespaced models (`roberta-large-mnli`).
    pub repo: String,
    /// The branch, tag or commit; `main` unless given.
    pub revision: String,
}

impl HubName {
    /// Reads `org/name[@revision]`; `None` when `spec` cannot be a Hub name (more than one
    /// `/`, an empty part, or characters the Hub does not allow), so it is taken as a path.
    pub fn parse(spec: &str) -> Option<HubName> {
        let (repo, revision) = match spec.split_once('@') {
            Some((_, "")) => return None,
            Some((r, rev)) => (r, rev),
            None => (spec, "main"),
        };
        let parts: Vec<&str> = repo.split('/').collect();
        let allowed = |p: &str| {
            !p.is_empty()
                && p != "."
                && p != ".."
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        let bad_revision =
            revision.contains("..") || revision.starts_with('/') || revision.contains('\\');
        if parts.len() > 2 || !parts.iter().all(|p| allowed(p)) || bad_revision {
            return None;
        }
        Some(HubName {
            repo: repo.to_string(),
            revision: revision.to_string(),
        })
    }

    /// The URL of `file` at this revision under the Hub at `endpoint` (`https://huggingface.co`,
    /// or a mirror's address, as `HF_ENDPOINT` sets it for `huggingface_hub`): the
    /// `resolve` path the Hub answers with the file or a redirect to where it is stored.
    pub fn resolve_url(&self, endpoint: &str, file: &str) -> String {
        format!(
            "{}/{}/resolve/{}/{file}",
            endpoint.trim_end_matches('/'),
            self.repo,
            self.revision.replace('/', "%2F")
        )
    }
}

/// Whether a dropped file named `name` marks a checkpoint rather than a dataset: a config or
/// weights file (`tokenizer.json` and the like alone could belong to anything).
pub fn marks_checkpoint(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    [CONFIG_JSON, SAFETENSORS, PYTORCH_BIN].contains(&base)
}

/// The model's name: the folder of the files when they came from a folder, else `model`.
pub fn checkpoint_name(names: &[String]) -> String {
    names
        .iter()
        .find_map(|n| {
            n.rsplit_once('/')
                .map(|(dir, _)| dir.rsplit('/').next().unwrap_or(dir).to_string())
        })
        .unwrap_or_else(|| "model".to_string())
}

/// Bytes before a safetensors header: its length, a little-endian `u64`.
pub const SAFETENSORS_LENGTH_BYTES: u64 = 8;

/// The longest safetensors header read (the safetensors crate's own limit, 100 MB).
pub const SAFETENSORS_MAX_HEADER_BYTES: u64 = 100_000_000;

/// Why a file's first bytes are not a safetensors header length.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderLenError {
    /// The file is shorter than the length itself.
    #[error("{got} bytes, fewer than the 8 of a header length")]
    Short {
        /// Bytes there were.
        got: usize,
    },
    /// Longer than [`SAFETENSORS_MAX_HEADER_BYTES`].
    #[error("its header would be {len} bytes long (at most {SAFETENSORS_MAX_HEADER_BYTES})")]
    TooLong {
        /// The length the file states.
        len: u64,
    },
    /// Past the end of the file.
    #[error("its header would be {len} bytes long, but the file has {file_bytes} bytes")]
    PastEnd {
        /// The length the file states.
        len: u64,
        /// The file's size.
        file_bytes: u64,
    },
}

/// The header length a safetensors file of `file_bytes` bytes states in its `first` bytes
/// (at least [`SAFETENSORS_LENGTH_BYTES`] of them), checked against the file's size and
/// [`SAFETENSORS_MAX_HEADER_BYTES`]: what the page checks before it reads a header, and the
/// model crate before it parses one.
pub fn safetensors_header_len(first: &[u8], file_bytes: u64) -> Result<u64, HeaderLenError> {
    let bytes: [u8; 8] = first
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or(HeaderLenError::Short { got: first.len() })?;
    let len = u64::from_le_bytes(bytes);
    if len > SAFETENSORS_MAX_HEADER_BYTES {
        return Err(HeaderLenError::TooLong { len });
    }
    if SAFETENSORS_LENGTH_BYTES + len > file_bytes {
        return Err(HeaderLenError::PastEnd { len, file_bytes });
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_safetensors_header_length_is_read_and_bounded() {
        // 0x10 = 16 header bytes, little-endian, in a file of 8 + 16 + 4 bytes.
        let first = [16, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(safetensors_header_len(&first, 28), Ok(16));
        assert_eq!(safetensors_header_len(&first, 24), Ok(16));
        assert_eq!(
            safetensors_header_len(&first, 23),
            Err(HeaderLenError::PastEnd {
                len: 16,
                file_bytes: 23
            })
        );
        assert_eq!(
            safetensors_header_len(&first[..5], 28),
            Err(HeaderLenError::Short { got: 5 })
        );
        let huge = (SAFETENSORS_MAX_HEADER_BYTES + 1).to_le_bytes();
        assert_eq!(
            safetensors_header_len(&huge, u64::MAX)
                .unwrap_err()
                .to_string(),
            "its header would be 100000001 bytes long (at most 100000000)"
        );
        // u64::MAX: no overflow when the 8 length bytes are added.
        let max = u64::MAX.to_le_bytes();
        assert!(matches!(
            safetensors_header_len(&max, u64::MAX),
            Err(HeaderLenError::TooLong { .. })
        ));
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// A checkpoint with a BPE vocabulary and merges, each file's "bytes" its initial.
    fn vocab_merges_files() -> CheckpointFiles<&'static str> {
        CheckpointFiles {
            config_json: "c",
            weights: "w",
            tokenizer: TokenizerFiles::VocabMerges {
                vocab_json: "v",
                merges_txt: "m",
            },
            tokenizer_config: None,
        }
    }

    #[test]
    fn small_files_travel_apart_from_the_weights_and_come_back_whole() {
        let files = vocab_merges_files();
        let (small, weights) = files.split_weights();
        assert_eq!(weights, "w");
        let (kind, parts) = small.clone().into_parts();
        assert_eq!(parts, vec!["c", "v", "m"]);
        let back = SmallFiles::from_parts(kind, parts).expect("three parts");
        assert_eq!(back, small);
        let whole = back.with_weights(&weights);
        assert_eq!(
            whole.named(),
            vec![
                (CONFIG_JSON, &"c"),
                (SAFETENSORS, &"w"),
                (VOCAB_JSON, &"v"),
                (MERGES_TXT, &"m")
            ]
        );
        let e = SmallFiles::from_parts(TokenizerKind::Json, vec!["c"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("has 2 small file parts") && e.contains("this one has 1"),
            "{e}"
        );
    }

    #[test]
    fn the_worker_refuses_small_files_past_their_ceilings() {
        let small = |config: usize, merges: usize, tokenizer_config: Option<usize>| SmallFiles {
            config_json: vec![b' '; config],
            tokenizer: TokenizerFiles::VocabMerges {
                vocab_json: b"{}".to_vec(),
                merges_txt: vec![b' '; merges],
            },
            tokenizer_config: tokenizer_config.map(|n| vec![b' '; n]),
        };
        let mib = 1 << 20;
        assert_eq!(
            small(mib, 16 * mib, Some(4 * mib)).check_ceilings(Reader::Browser),
            Ok(())
        );
        let e = |s: SmallFiles<Vec<u8>>| s.check_ceilings(Reader::Browser).unwrap_err();
        let config = e(small(mib + 1, 1, None));
        assert_eq!(
            (config.name.as_str(), config.ceiling),
            ("config.json", mib as u64)
        );
        assert_eq!(
            e(small(3_000_000, 1, None)).to_string(),
            "config.json holds 3.0 MB; a config.json is at most 1.0 MB"
        );
        assert_eq!(e(small(1, 16 * mib + 1, None)).name, "merges.txt");
        assert_eq!(
            e(small(1, 1, Some(4 * mib + 1))).name,
            "tokenizer_config.json"
        );
        // As a checkpoint error, the same sentence.
        let as_checkpoint: CheckpointError = config.into();
        assert!(as_checkpoint.to_string().starts_with("config.json holds"));
    }

    #[test]
    fn finds_json_tokenizer_and_prefers_it() {
        let n = names(&[
            "vocab.json",
            "model.safetensors",
            "tokenizer.json",
            "config.json",
            "merges.txt",
        ]);
        assert_eq!(
            CheckpointFiles::find(&n, PytorchBin::Refuse),
            Ok(CheckpointFiles {
                config_json: 3,
                weights: 1,
                tokenizer: TokenizerFiles::Json(2),
                tokenizer_config: None,
            })
        );
    }

    #[test]
    fn names_parse_as_the_hub_spells_them() {
        let n = HubName::parse("ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli").unwrap();
        assert_eq!(n.revision, "main");
        assert_eq!(
            n.resolve_url("https://huggingface.co/", "config.json"),
            "https://huggingface.co/ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli/resolve/main/config.json"
        );
        let n = HubName::parse("roberta-large-mnli@v1.0").unwrap();
        assert_eq!(
            (n.repo.as_str(), n.revision.as_str()),
            ("roberta-large-mnli", "v1.0")
        );
        assert_eq!(
            n.resolve_url("http://127.0.0.1:9/hub", "model.safetensors"),
            "http://127.0.0.1:9/hub/roberta-large-mnli/resolve/v1.0/model.safetensors"
        );
        // Paths are paths.
        for path in [
            "./model",
            "/abs/model",
            "a/b/c",
            "../x",
            "a//b",
            "",
            "a/b@",
            "a@../b",
        ] {
            assert_eq!(HubName::parse(path), None, "{path}");
        }
    }

    #[test]
    fn tokenizer_config_is_found_carried_and_read() {
        let n = names(&[
            "m/config.json",
            "m/tokenizer_config.json",
            "m/model.safetensors",
            "m/tokenizer.json",
        ]);
        let found = CheckpointFiles::find(&n, PytorchBin::Refuse).unwrap();
        assert_eq!(found.tokenizer_config, Some(1));
        assert_eq!(
            found.named().last(),
            Some(&(TOKENIZER_CONFIG_JSON, 1)),
            "named last"
        );
        // Through a worker message and back, with and without it.
        let (kind, parts) = found.into_parts();
        assert_eq!(parts, vec![0, 2, 3, 1]);
        assert_eq!(CheckpointFiles::from_parts(kind, parts), Ok(found));
        let (small, _) = found.split_weights();
        let (kind, parts) = small.clone().into_parts();
        assert_eq!(parts, vec![0, 3, 1]);
        assert_eq!(SmallFiles::from_parts(kind, parts), Ok(small));
        let e = SmallFiles::from_parts(TokenizerKind::Json, vec![0, 3, 1, 9])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("or 3 with tokenizer_config.json; this one has 4"),
            "{e}"
        );
        // What transformers' save_pretrained writes.
        let read = |t: &str| TokenizerConfig::parse(t.as_bytes());
        let c = read(r#"{"model_max_length": 96, "tokenizer_class": "BertTokenizer"}"#).unwrap();
        assert_eq!(c.model_max_length, Some(96));
        assert_eq!(c.max_tokens(104), 96);
        assert_eq!(
            c.max_tokens(64),
            64,
            "the network's limit is never exceeded"
        );
        // int(1e30), transformers' "no limit", and an absent key: the network's limit.
        let huge = read(r#"{"model_max_length": 1000000000000000019884624838656}"#).unwrap();
        assert_eq!(huge.max_tokens(512), 512);
        assert_eq!(read("{}").unwrap().max_tokens(512), 512);
        assert_eq!(
            read(r#"{"model_max_length": null}"#)
                .unwrap()
                .model_max_length,
            None
        );
        for bad in [
            r#"{"model_max_length": 0}"#,
            r#"{"model_max_length": 9.5}"#,
            r#"{"model_max_length": "96"}"#,
        ] {
            let e = read(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("tokenizer_config.json: model_max_length is"),
                "{e}"
            );
        }
        assert!(read("[]")
            .unwrap_err()
            .to_string()
            .contains("expected a JSON object"));
        assert!(read("{")
            .unwrap_err()
            .to_string()
            .starts_with("tokenizer_config.json is not JSON"));
    }

    #[test]
    fn falls_back_to_vocab_and_merges_in_a_folder() {
        let n = names(&[
            "roberta-nli/config.json",
            "roberta-nli/vocab.json",
            "roberta-nli/merges.txt",
            "roberta-nli/model.safetensors",
        ]);
        assert_eq!(
            CheckpointFiles::find(&n, PytorchBin::Refuse).map(|l| l.tokenizer),
            Ok(TokenizerFiles::VocabMerges {
                vocab_json: 1,
                merges_txt: 2
            })
        );
        assert_eq!(checkpoint_name(&n), "roberta-nli");
        assert_eq!(checkpoint_name(&names(&["config.json"])), "model");
    }

    #[test]
    fn a_sentencepiece_or_wordpiece_vocabulary_alone_is_explained() {
        for alone in ["spm.model", "vocab.txt"] {
            let e = CheckpointFiles::find(
                &names(&["config.json", "model.safetensors", alone]),
                PytorchBin::Accept,
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("spm.model and vocab.txt alone cannot be read here"),
                "{e}"
            );
            assert!(e.contains("save_pretrained(folder)"), "{e}");
        }
    }

    #[test]
    fn pytorch_weights_are_taken_only_where_they_can_be_converted() {
        let n = names(&["config.json", "pytorch_model.bin", "vocab.json"]);
        let e = CheckpointFiles::find(&n, PytorchBin::Refuse)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "missing model.safetensors (pytorch_model.bin cannot be read in the browser"
            ),
            "{e}"
        );
        assert!(
            e.contains("tokenizer.json (or vocab.json and merges.txt)"),
            "{e}"
        );
        let n = names(&["config.json", "pytorch_model.bin", "tokenizer.json"]);
        assert_eq!(
            CheckpointFiles::find(&n, PytorchBin::Accept).map(|l| l.weights),
            Ok(1)
        );
        let n = names(&["config.json", "tokenizer.json"]);
        assert_eq!(
            CheckpointFiles::find(&n, PytorchBin::Accept),
            Err(CheckpointError::Missing(vec![
                "model.safetensors (or pytorch_model.bin)".to_string()
            ]))
        );
    }

    #[test]
    fn config_and_weights_mark_a_checkpoint_and_a_dataset_does_not() {
        assert!(marks_checkpoint("config.json"));
        assert!(marks_checkpoint("roberta/model.safetensors"));
        assert!(marks_checkpoint("pytorch_model.bin"));
        assert!(!marks_checkpoint("tokenizer.json"));
        assert!(!marks_checkpoint("infotabs_dev.tsv"));
        assert!(!marks_checkpoint("config.json.bak"));
    }

    #[test]
    fn parts_round_trip_and_a_short_message_is_named() {
        let files = vocab_merges_files();
        let (kind, parts) = files.into_parts();
        assert_eq!(kind, TokenizerKind::VocabMerges);
        assert_eq!(parts, vec!["c", "w", "v", "m"]);
        assert_eq!(CheckpointFiles::from_parts(kind, parts), Ok(files));
        let e = CheckpointFiles::from_parts(TokenizerKind::VocabMerges, vec!["c", "w", "v"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("has 4 file parts") && e.contains("this one has 3"),
            "{e}"
        );
        // One part more is tokenizer_config.json; two more is an error.
        assert_eq!(
            CheckpointFiles::from_parts(TokenizerKind::Json, vec!["c", "w", "t", "x"])
                .map(|f| f.tokenizer_config),
            Ok(Some("x"))
        );
        assert!(
            CheckpointFiles::from_parts(TokenizerKind::Json, vec!["c", "w", "t", "x", "y"])
                .is_err()
        );
    }
}
