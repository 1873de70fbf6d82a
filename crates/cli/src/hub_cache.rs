//! `--model org/name`: a model named as researchers name it, found offline in the local
//! Hugging Face cache that `transformers` (through `huggingface_hub`) fills when it downloads a
//! model. Nothing is downloaded here: the CLI never reaches the network.
//!
//! The cache's layout (huggingface_hub's `file_download.py`):
//!
//! ```text
//! <cache>/models--<org>--<name>/refs/<revision>     the commit hash the revision points at
//! <cache>/models--<org>--<name>/snapshots/<hash>/   the files of that commit (links to blobs/)
//! ```
//!
//! `<cache>` is `HF_HUB_CACHE`, else `HUGGINGFACE_HUB_CACHE` (its older name), else
//! `HF_HOME/hub`, else `XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub` —
//! the order `huggingface_hub` uses. The revision is `main` unless the name ends in `@rev`
//! (a branch, a tag, or a 40-digit commit hash).

use std::path::{Path, PathBuf};

use tabprobe_core::checkpoint::HubName;

/// The cache folders to look in, first first, from the environment `var` reads.
pub fn cache_roots(var: impl Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = set("HF_HUB_CACHE").or_else(|| set("HUGGINGFACE_HUB_CACHE")) {
        return vec![p];
    }
    if let Some(home) = set("HF_HOME") {
        return vec![home.join("hub")];
    }
    if let Some(xdg) = set("XDG_CACHE_HOME") {
        return vec![xdg.join("huggingface").join("hub")];
    }
    match set("HOME") {
        Some(home) => vec![home.join(".cache").join("huggingface").join("hub")],
        None => Vec::new(),
    }
}

/// The snapshot folder of `name` in the first of `roots` that has it. The error lists every
/// place looked at and what was missing there.
pub fn resolve(name: &HubName, roots: &[PathBuf]) -> Result<PathBuf, String> {
    let mut looked = Vec::new();
    for root in roots {
        let model = root.join(cache_folder(name));
        if !model.is_dir() {
            looked.push(format!("{} (no such folder)", model.display()));
            continue;
        }
        let commit = if is_commit_hash(&name.revision) {
            name.revision.clone()
        } else {
            let reference = model.join("refs").join(&name.revision);
            match read_ref(&reference) {
                Ok(c) => c,
                Err(why) => {
                    looked.push(format!("{} ({why})", reference.display()));
                    continue;
                }
            }
        };
        let snapshot = model.join("snapshots").join(&commit);
        if snapshot.is_dir() {
            return Ok(snapshot);
        }
        looked.push(format!("{} (no such folder)", snapshot.display()));
    }
    if looked.is_empty() {
        looked.push("nowhere: HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME are all unset".into());
    }
    Err(format!(
        "{}@{} is not in the local Hugging Face cache (tabprobe never downloads; fetch it once \
         with transformers, e.g. `AutoModelForSequenceClassification.from_pretrained({:?})` and \
         `AutoTokenizer.from_pretrained({:?})`, or pass a checkpoint folder). Looked at: {}",
        name.repo,
        name.revision,
        name.repo,
        name.repo,
        looked.join("; ")
    ))
}

/// The model's folder name in the cache: `models--org--name`.
pub fn cache_folder(name: &HubName) -> String {
    format!("models--{}", name.repo.replace('/', "--"))
}

/// A 40-digit lower-case hex commit hash.
fn is_commit_hash(s: &str) -> bool {
    s.len() == 40
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The commit a `refs/<revision>` file names (one line).
fn read_ref(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|_| "no such file".to_string())?;
    // A ref is 40 characters; anything much larger is not one (and is not read whole).
    if meta.len() > 1024 {
        return Err(format!("{} bytes; a ref holds one commit hash", meta.len()));
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let commit = text.trim();
    if is_commit_hash(commit) {
        Ok(commit.to_string())
    } else {
        Err(format!("holds {commit:?}, not a 40-digit commit hash"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_has_its_cache_folder() {
        let n = HubName::parse("ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli").unwrap();
        assert_eq!(
            cache_folder(&n),
            "models--ynie--roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli"
        );
        assert_eq!(
            cache_folder(&HubName::parse("roberta-large-mnli").unwrap()),
            "models--roberta-large-mnli"
        );
    }

    #[test]
    fn the_cache_root_follows_huggingface_hubs_order() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        const ALL: [(&str, &str); 4] = [
            ("HF_HUB_CACHE", "/a"),
            ("HF_HOME", "/b"),
            ("XDG_CACHE_HOME", "/c"),
            ("HOME", "/d"),
        ];
        let all: &'static [(&str, &str)] = &ALL;
        assert_eq!(cache_roots(env(all)), [PathBuf::from("/a")]);
        assert_eq!(cache_roots(env(&all[1..])), [PathBuf::from("/b/hub")]);
        assert_eq!(
            cache_roots(env(&all[2..])),
            [PathBuf::from("/c/huggingface/hub")]
        );
        assert_eq!(
            cache_roots(env(&all[3..])),
            [PathBuf::from("/d/.cache/huggingface/hub")]
        );
        assert!(cache_roots(env(&[])).is_empty());
    }
}
