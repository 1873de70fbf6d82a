//! A Hugging Face checkpoint folder — `config.json`, the weights, and `tokenizer.json` or
//! `vocab.json` + `merges.txt` — as one type and one rule shared by the page (picked files),
//! the worker (their bytes) and the CLI (a folder on disk). `B` stands for one file: its index
//! among picked names, its bytes, or a borrowed slice of them.

use serde::{Deserialize, Serialize};

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
}

impl<B> CheckpointFiles<B> {
    /// The same files, each mapped by `f`.
    pub fn map<C>(self, mut f: impl FnMut(B) -> C) -> CheckpointFiles<C> {
        CheckpointFiles {
            config_json: f(self.config_json),
            weights: f(self.weights),
            tokenizer: self.tokenizer.map(f),
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
        })
    }

    /// Borrows the files.
    pub fn as_ref(&self) -> CheckpointFiles<&B> {
        CheckpointFiles {
            config_json: &self.config_json,
            weights: &self.weights,
            tokenizer: self.tokenizer.as_ref(),
        }
    }

    /// Each file with its name in a folder: config, weights (as `model.safetensors`), then
    /// the tokenizer's file(s).
    pub fn named(self) -> Vec<(&'static str, B)> {
        let mut files = vec![(CONFIG_JSON, self.config_json), (SAFETENSORS, self.weights)];
        files.extend(self.tokenizer.named());
        files
    }

    /// The files in the order a worker message carries them (that of
    /// [`CheckpointFiles::named`]) and which tokenizer files they are.
    pub fn into_parts(self) -> (TokenizerKind, Vec<B>) {
        let kind = self.tokenizer.kind();
        (kind, self.named().into_iter().map(|(_, f)| f).collect())
    }

    /// The inverse of [`CheckpointFiles::into_parts`]; the error says how many parts came and
    /// how many `kind` needs.
    pub fn from_parts(kind: TokenizerKind, parts: Vec<B>) -> Result<Self, String> {
        let needed = match kind {
            TokenizerKind::Json => 3,
            TokenizerKind::VocabMerges => 4,
        };
        let got = parts.len();
        let mut it = parts.into_iter();
        match (it.next(), it.next(), it.next(), it.next(), it.next()) {
            (Some(config_json), Some(weights), Some(t), None, None)
                if kind == TokenizerKind::Json =>
            {
                Ok(CheckpointFiles {
                    config_json,
                    weights,
                    tokenizer: TokenizerFiles::Json(t),
                })
            }
            (Some(config_json), Some(weights), Some(vocab_json), Some(merges_txt), None)
                if kind == TokenizerKind::VocabMerges =>
            {
                Ok(CheckpointFiles {
                    config_json,
                    weights,
                    tokenizer: TokenizerFiles::VocabMerges {
                        vocab_json,
                        merges_txt,
                    },
                })
            }
            _ => Err(format!(
                "a checkpoint with {kind:?} tokenizer files has {needed} file parts (config, \
                 weights, tokenizer); this one has {got}"
            )),
        }
    }
}

impl<B> CheckpointFiles<B> {
    /// The small files apart from the weights (the browser sends and keeps the weights as a
    /// `Blob`, read a tensor at a time, while config and tokenizer travel as bytes).
    pub fn split_weights(self) -> (SmallFiles<B>, B) {
        let small = SmallFiles {
            config_json: self.config_json,
            tokenizer: self.tokenizer,
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
}

impl<B> SmallFiles<B> {
    /// The whole checkpoint, with `weights`.
    pub fn with_weights<'a>(&'a self, weights: &'a B) -> CheckpointFiles<&'a B> {
        CheckpointFiles {
            config_json: &self.config_json,
            weights,
            tokenizer: self.tokenizer.as_ref(),
        }
    }

    /// The files in the order a worker message carries them: config, then the tokenizer's
    /// file(s) ([`CheckpointFiles::into_parts`] without the weights).
    pub fn into_parts(self) -> (TokenizerKind, Vec<B>) {
        let kind = self.tokenizer.kind();
        let mut parts = vec![self.config_json];
        parts.extend(self.tokenizer.named().into_iter().map(|(_, f)| f));
        (kind, parts)
    }

    /// The inverse of [`SmallFiles::into_parts`]; the error says how many parts came and how
    /// many `kind` needs.
    pub fn from_parts(kind: TokenizerKind, parts: Vec<B>) -> Result<Self, String> {
        let got = parts.len();
        let mut it = parts.into_iter();
        let small = match (kind, it.next(), it.next(), it.next(), it.next()) {
            (TokenizerKind::Json, Some(config_json), Some(t), None, None) => Some(SmallFiles {
                config_json,
                tokenizer: TokenizerFiles::Json(t),
            }),
            (
                TokenizerKind::VocabMerges,
                Some(config_json),
                Some(vocab_json),
                Some(merges_txt),
                None,
            ) => Some(SmallFiles {
                config_json,
                tokenizer: TokenizerFiles::VocabMerges {
                    vocab_json,
                    merges_txt,
                },
            }),
            _ => None,
        };
        small.ok_or_else(|| {
            let needed = match kind {
                TokenizerKind::Json => 2,
                TokenizerKind::VocabMerges => 3,
            };
            format!(
                "a checkpoint with {kind:?} tokenizer files has {needed} small file parts \
                 (config, tokenizer) beside its weights; this one has {got}"
            )
        })
    }
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
    pub fn find(names: &[String], pytorch_bin: PytorchBin) -> Result<Self, String> {
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
        Err(format!("missing {}", missing.join(", ")))
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let e = SmallFiles::from_parts(TokenizerKind::Json, vec!["c"]).unwrap_err();
        assert!(
            e.contains("has 2 small file parts") && e.contains("this one has 1"),
            "{e}"
        );
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
                tokenizer: TokenizerFiles::Json(2)
            })
        );
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
            .unwrap_err();
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
        let e = CheckpointFiles::find(&n, PytorchBin::Refuse).unwrap_err();
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
            Err("missing model.safetensors (or pytorch_model.bin)".to_string())
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
            .unwrap_err();
        assert!(
            e.contains("has 4 file parts") && e.contains("this one has 3"),
            "{e}"
        );
        assert!(
            CheckpointFiles::from_parts(TokenizerKind::Json, vec!["c", "w", "t", "x"]).is_err()
        );
    }
}
