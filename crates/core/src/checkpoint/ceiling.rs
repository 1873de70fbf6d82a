//! How large each file of a checkpoint may be, by its kind: one rule for the page (picked
//! files, URL and Hub downloads, cached entries), the worker (the bytes it is handed) and the
//! CLI (a folder on disk, the Hugging Face cache). A `config.json` is a few kilobytes; without
//! its own ceiling one that never ends, or a gzip bomb, was read up to the weights' 2 GiB
//! before anything refused it. The reasons for each figure are in docs/limits.md.

use crate::display::bytes;

use super::{
    CONFIG_JSON, MERGES_TXT, PYTORCH_BIN, SAFETENSORS, TOKENIZER_CONFIG_JSON, TOKENIZER_JSON,
    VOCAB_JSON,
};

/// `special_tokens_map.json`, which `save_pretrained` writes beside the tokenizer.
pub const SPECIAL_TOKENS_MAP_JSON: &str = "special_tokens_map.json";
/// `vocab.txt`, a WordPiece vocabulary (BERT-style checkpoints without `tokenizer.json`).
pub const VOCAB_TXT: &str = "vocab.txt";

const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;

/// The weights' ceiling in the page: what the worker's 4 GiB address space and a 32-bit
/// safetensors reader allow with room to spare (bart-large-mnli's 1.63 GB and
/// deberta-v3-large's 1.74 GB in f32 are below it).
pub const BROWSER_MAX_WEIGHTS_BYTES: u64 = 2 * GIB;
/// The weights' ceiling on the command line: RoBERTa-large is 1.4 GB in f32; a file past this
/// is refused before it fills memory.
pub const CLI_MAX_WEIGHTS_BYTES: u64 = 4 * GIB;

/// Who reads a checkpoint: the two differ only in the weights' ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The page and its model worker ([`BROWSER_MAX_WEIGHTS_BYTES`]).
    Browser,
    /// The command line ([`CLI_MAX_WEIGHTS_BYTES`]).
    CommandLine,
}

/// What a checkpoint file is, as far as its size goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `config.json`: the network's sizes and labels, a few kilobytes.
    Config,
    /// `tokenizer_config.json`: the tokenizer's settings, which may list its added tokens.
    TokenizerConfig,
    /// `special_tokens_map.json`: a handful of special tokens.
    SpecialTokensMap,
    /// `tokenizer.json`: the whole tokenizer, vocabulary and merges included.
    Tokenizer,
    /// `vocab.json`, `vocab.txt` or `merges.txt`: one part of a vocabulary.
    Vocabulary,
    /// A SentencePiece model (`spm.model`, `sentencepiece.bpe.model`, `tokenizer.model`).
    SentencePiece,
    /// `model.safetensors` or `pytorch_model.bin`.
    Weights,
}

impl FileKind {
    /// The kind of the file `name` (a base name or a path, read by its base name); `None`
    /// for a file no checkpoint reader reads.
    pub fn of(name: &str) -> Option<FileKind> {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        Some(match base {
            CONFIG_JSON => FileKind::Config,
            TOKENIZER_CONFIG_JSON => FileKind::TokenizerConfig,
            SPECIAL_TOKENS_MAP_JSON => FileKind::SpecialTokensMap,
            TOKENIZER_JSON => FileKind::Tokenizer,
            VOCAB_JSON | VOCAB_TXT | MERGES_TXT => FileKind::Vocabulary,
            SAFETENSORS | PYTORCH_BIN => FileKind::Weights,
            other if other.ends_with(".model") => FileKind::SentencePiece,
            _ => return None,
        })
    }

    /// The most bytes a file of this kind may hold when `reader` reads it.
    pub const fn ceiling(self, reader: Reader) -> u64 {
        match self {
            // The largest NLI configs are a few kilobytes; a config that lists tens of
            // thousands of labels still fits.
            FileKind::Config | FileKind::SpecialTokensMap => MIB,
            // Some list thousands of added tokens (`added_tokens_decoder`).
            FileKind::TokenizerConfig => 4 * MIB,
            // XLM-R's is 17 MB (250,002 pieces); tokenizers of 256k-piece vocabularies are
            // about twice that.
            FileKind::Tokenizer => 64 * MIB,
            // RoBERTa's vocab.json is 0.9 MB, multilingual BERT's vocab.txt 1.0 MB.
            FileKind::Vocabulary => 16 * MIB,
            // XLM-R's sentencepiece.bpe.model is 5.1 MB, deberta-v3's spm.model 2.5 MB.
            FileKind::SentencePiece => 32 * MIB,
            FileKind::Weights => match reader {
                Reader::Browser => BROWSER_MAX_WEIGHTS_BYTES,
                Reader::CommandLine => CLI_MAX_WEIGHTS_BYTES,
            },
        }
    }
}

/// The ceiling of the file `name` when `reader` reads it; `None` for a file no checkpoint
/// reader reads.
pub fn ceiling(name: &str, reader: Reader) -> Option<u64> {
    FileKind::of(name).map(|k| k.ceiling(reader))
}

/// What was found past a ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A server's `Content-Length`, before anything is read.
    Announced(u64),
    /// The file's size (a picked file, a file on disk, bytes already held).
    Size(u64),
    /// Bytes a download delivered, after the browser's decompression, when it was stopped.
    Downloaded(u64),
    /// Bytes read from a pipe or device, which has no size, when reading stopped.
    Streamed(u64),
}

impl Found {
    /// The byte count found.
    pub fn bytes(self) -> u64 {
        match self {
            Found::Announced(n) | Found::Size(n) | Found::Downloaded(n) | Found::Streamed(n) => n,
        }
    }
}

/// A checkpoint file over its kind's ceiling. Its message names the file (as its reader
/// calls it: a path, or the file and its URL), the ceiling, and what was announced or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.sentence())]
pub struct FileTooLarge {
    /// The file as the reader names it, e.g. `config.json (https://…/config.json)`.
    pub file: String,
    /// Its base name, e.g. `config.json`.
    pub name: String,
    /// Its kind's ceiling for the reader.
    pub ceiling: u64,
    /// What passed it.
    pub found: Found,
    /// Who read it (the weights' ceiling depends on it).
    pub reader: Reader,
}

impl FileTooLarge {
    fn sentence(&self) -> String {
        let file = &self.file;
        let most = format!(
            "a {} is at most {}{}",
            self.name,
            bytes(self.ceiling),
            match (FileKind::of(&self.name), self.reader) {
                (Some(FileKind::Weights), Reader::Browser) => " in a browser tab",
                (Some(FileKind::Weights), Reader::CommandLine) => " on the command line",
                _ => "",
            }
        );
        match self.found {
            Found::Announced(n) => format!("{file}: the server announces {}; {most}", bytes(n)),
            Found::Size(n) => format!("{file} holds {}; {most}", bytes(n)),
            Found::Downloaded(n) => format!(
                "{file}: stopped after reading {}: {most} (a body that never ends, or a \
                 compressed one that inflates past it)",
                bytes(n)
            ),
            Found::Streamed(n) => format!(
                "{file}: stopped after reading {}: {most} (a pipe or device that does not end?)",
                bytes(n)
            ),
        }
    }
}

/// Checks `found` for the checkpoint file `name` (named `file` in the error) against its
/// ceiling when `reader` reads it: more than the ceiling is an error. A file no checkpoint
/// reader reads has no ceiling here.
pub fn check_size(
    name: &str,
    file: &str,
    found: Found,
    reader: Reader,
) -> Result<(), FileTooLarge> {
    match ceiling(name, reader) {
        Some(ceiling) if found.bytes() > ceiling => Err(FileTooLarge {
            file: file.to_string(),
            name: name.rsplit(['/', '\\']).next().unwrap_or(name).to_string(),
            ceiling,
            found,
            reader,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_ceiling() {
        let page = |n: &str| ceiling(n, Reader::Browser);
        assert_eq!(page("config.json"), Some(1 << 20));
        assert_eq!(page("m/tokenizer_config.json"), Some(4 << 20));
        assert_eq!(page("special_tokens_map.json"), Some(1 << 20));
        assert_eq!(page("tokenizer.json"), Some(64 << 20));
        for vocabulary in ["vocab.json", "vocab.txt", "merges.txt"] {
            assert_eq!(page(vocabulary), Some(16 << 20), "{vocabulary}");
        }
        for spm in ["spm.model", "sentencepiece.bpe.model", "tokenizer.model"] {
            assert_eq!(page(spm), Some(32 << 20), "{spm}");
        }
        assert_eq!(page("model.safetensors"), Some(2 << 30));
        assert_eq!(
            ceiling("pytorch_model.bin", Reader::CommandLine),
            Some(4 << 30)
        );
        // Only the weights differ between the page and the CLI.
        assert_eq!(ceiling("config.json", Reader::CommandLine), Some(1 << 20));
        assert_eq!(page("README.md"), None);
        assert_eq!(page("config.json.bak"), None);
    }

    #[test]
    fn a_file_past_its_ceiling_is_named_with_what_was_found() {
        let url = "config.json (http://h/m/config.json)";
        assert_eq!(
            check_size(
                "config.json",
                url,
                Found::Announced(1 << 20),
                Reader::Browser
            ),
            Ok(()),
            "the ceiling itself is allowed"
        );
        let e = |found| {
            check_size("config.json", url, found, Reader::Browser)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e(Found::Announced(3_200_000_000)),
            "config.json (http://h/m/config.json): the server announces 3.20 GB; a config.json \
             is at most 1.0 MB"
        );
        assert_eq!(
            e(Found::Downloaded((1 << 20) + 65_536)),
            "config.json (http://h/m/config.json): stopped after reading 1.1 MB: a config.json \
             is at most 1.0 MB (a body that never ends, or a compressed one that inflates past \
             it)"
        );
        let picked = check_size(
            "m/tokenizer_config.json",
            "m/tokenizer_config.json",
            Found::Size(5_000_000),
            Reader::Browser,
        )
        .unwrap_err();
        assert_eq!(
            picked.to_string(),
            "m/tokenizer_config.json holds 5.0 MB; a tokenizer_config.json is at most 4.2 MB"
        );
        assert_eq!(picked.name, "tokenizer_config.json");
        let weights = check_size(
            "model.safetensors",
            "/m/model.safetensors",
            Found::Streamed((4 << 30) + 1),
            Reader::CommandLine,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            weights,
            "/m/model.safetensors: stopped after reading 4.29 GB: a model.safetensors is at most \
             4.29 GB on the command line (a pipe or device that does not end?)"
        );
    }
}
