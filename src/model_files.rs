//! Sorting the files a user picked (or a folder's contents) into a Hugging Face checkpoint:
//! `config.json`, `model.safetensors`, and `tokenizer.json` or `vocab.json` + `merges.txt`.
//! Pure, so its rules are testable without a browser.

/// Which of the picked files play which part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointLayout {
    /// Index of `config.json`.
    pub config: usize,
    /// Index of `model.safetensors`.
    pub weights: usize,
    /// The tokenizer file(s).
    pub tokenizer: TokenizerLayout,
}

/// Tokenizer files by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenizerLayout {
    /// `tokenizer.json`.
    Json(usize),
    /// `vocab.json`, `merges.txt`.
    VocabMerges(usize, usize),
}

/// Finds the checkpoint files among `names` (base names or relative paths). The error says
/// what is missing and what to pick.
pub fn sort_checkpoint_files(names: &[String]) -> Result<CheckpointLayout, String> {
    let find = |wanted: &str| {
        names
            .iter()
            .position(|n| n.rsplit('/').next() == Some(wanted))
    };
    let config = find("config.json");
    let weights = find("model.safetensors");
    let tokenizer = match (
        find("tokenizer.json"),
        find("vocab.json"),
        find("merges.txt"),
    ) {
        (Some(t), _, _) => Some(TokenizerLayout::Json(t)),
        (None, Some(v), Some(m)) => Some(TokenizerLayout::VocabMerges(v, m)),
        _ => None,
    };
    let mut missing = Vec::new();
    if config.is_none() {
        missing.push("config.json");
    }
    if weights.is_none() {
        missing.push(if find("pytorch_model.bin").is_some() {
            "model.safetensors (pytorch_model.bin cannot be read in the browser: burn's PyTorch reader opens files on disk only; convert the folder once with `tabprobe convert-weights FOLDER`)"
        } else {
            "model.safetensors"
        });
    }
    if tokenizer.is_none() {
        missing.push(
            if find("spm.model").is_some() || find("vocab.txt").is_some() {
                "tokenizer.json (spm.model and vocab.txt alone cannot be read here: the tokenizers \
             library reads tokenizer.json; write one with transformers: \
             AutoTokenizer.from_pretrained(folder).save_pretrained(folder))"
            } else {
                "tokenizer.json (or vocab.json and merges.txt)"
            },
        );
    }
    match (config, weights, tokenizer) {
        (Some(config), Some(weights), Some(tokenizer)) => Ok(CheckpointLayout {
            config,
            weights,
            tokenizer,
        }),
        _ => Err(format!(
            "the picked files ({}) are not a complete checkpoint: missing {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            },
            missing.join(", ")
        )),
    }
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
            sort_checkpoint_files(&n),
            Ok(CheckpointLayout {
                config: 3,
                weights: 1,
                tokenizer: TokenizerLayout::Json(2)
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
            sort_checkpoint_files(&n).map(|l| l.tokenizer),
            Ok(TokenizerLayout::VocabMerges(1, 2))
        );
        assert_eq!(checkpoint_name(&n), "roberta-nli");
        assert_eq!(checkpoint_name(&names(&["config.json"])), "model");
    }

    #[test]
    fn a_sentencepiece_or_wordpiece_vocabulary_alone_is_explained() {
        for alone in ["spm.model", "vocab.txt"] {
            let e = sort_checkpoint_files(&names(&["config.json", "model.safetensors", alone]))
                .unwrap_err();
            assert!(
                e.contains("spm.model and vocab.txt alone cannot be read here"),
                "{e}"
            );
            assert!(e.contains("save_pretrained(folder)"), "{e}");
        }
    }

    #[test]
    fn says_what_is_missing() {
        let e = sort_checkpoint_files(&names(&["config.json", "pytorch_model.bin", "vocab.json"]))
            .unwrap_err();
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
    }
}
