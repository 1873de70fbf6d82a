//! A checkpoint's tokenizer as `transformers` (5.x) builds it when the checkpoint carries a
//! `tokenizer_config.json`: its tokenizer class (`tokenizer_class`, else the one
//! `AutoTokenizer` maps the config's `model_type` to) takes the vocabulary (and merges) from
//! `tokenizer.json` and builds the normalizer, pre-tokenizer and post-processor again from the
//! file's settings and the class's defaults — lowercasing, accents, prefix space, punctuation
//! splitting, the special tokens of a pair (added to the vocabulary when it lacks them) and extra
//! special tokens; `truncation_side` says which end of the premise is cut. Here the same is done
//! to `tokenizer.json`'s own description, so the `tokenizers` crate then builds what Python
//! does. Classes rebuilt: `BertTokenizer` (BERT, DistilBERT, ELECTRA), `RobertaTokenizer`
//! (RoBERTa, BART), `DebertaV2Tokenizer`, `XLMRobertaTokenizer`; any other class keeps
//! `tokenizer.json`'s pipeline and only gains missing special tokens and the truncation side.
//! Golden test: `tests/tokenizer_config.rs` (made by `golden/make_golden_tokenizer_config.py`).

use serde_json::{json, Map, Value};
use tabprobe_core::checkpoint::TokenizerConfig;

use crate::error::LoadError;

/// The tokenizer classes rebuilt here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Bert,
    Roberta,
    DebertaV2,
    XlmRoberta,
}

/// The named special tokens in the order `transformers` adds the missing ones
/// (`SPECIAL_TOKENS_ATTRIBUTES`).
const NAMED: [&str; 7] = [
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
];

impl Class {
    /// The class `transformers` builds: the file's `tokenizer_class` (a `…Fast` name is the
    /// same class in 5.x), else `AutoTokenizer`'s choice for `model_type`. `None` for a class
    /// not rebuilt here.
    fn of(settings: &Map<String, Value>, model_type: Option<&str>) -> Option<Class> {
        match settings.get("tokenizer_class").and_then(Value::as_str) {
            Some(name) => match name.strip_suffix("Fast").unwrap_or(name) {
                "BertTokenizer" | "DistilBertTokenizer" | "ElectraTokenizer" => Some(Class::Bert),
                "RobertaTokenizer" | "BartTokenizer" => Some(Class::Roberta),
                "DebertaV2Tokenizer" => Some(Class::DebertaV2),
                "XLMRobertaTokenizer" => Some(Class::XlmRoberta),
                _ => None,
            },
            None => match model_type? {
                "bert" | "distilbert" | "electra" => Some(Class::Bert),
                "roberta" | "bart" => Some(Class::Roberta),
                "deberta-v2" => Some(Class::DebertaV2),
                "xlm-roberta" => Some(Class::XlmRoberta),
                _ => None,
            },
        }
    }

    /// The class's default for a named special token (`None`: the class has none).
    fn default_token(self, key: &str) -> Option<&'static str> {
        let (bos, eos, unk, sep, pad, cls, mask) = match self {
            Class::Bert => (None, None, "[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"),
            Class::Roberta | Class::XlmRoberta => (
                Some("<s>"),
                Some("</s>"),
                "<unk>",
                "</s>",
                "<pad>",
                "<s>",
                "<mask>",
            ),
            Class::DebertaV2 => (
                Some("[CLS]"),
                Some("[SEP]"),
                "[UNK]",
                "[SEP]",
                "[PAD]",
                "[CLS]",
                "[MASK]",
            ),
        };
        match key {
            "bos_token" => bos,
            "eos_token" => eos,
            "unk_token" => Some(unk),
            "sep_token" => Some(sep),
            "pad_token" => Some(pad),
            "cls_token" => Some(cls),
            "mask_token" => Some(mask),
            _ => None,
        }
    }
}

/// What [`rebuild`] gives: `tokenizer.json` as the class would have it, and whether the
/// premise is cut from its start (`truncation_side: "left"`).
#[derive(Debug)]
pub struct Rebuilt {
    /// The tokenizer's description for `tokenizers`.
    pub tokenizer: Value,
    /// Truncate from the left.
    pub truncate_left: bool,
}

fn bad(key: &str, expected: &str, found: &Value) -> LoadError {
    LoadError::Tokenizer(format!(
        "tokenizer_config.json: {key} is {found}; expected {expected}"
    ))
}

/// A boolean setting: the file's value, or the class's `default`.
fn flag(settings: &Map<String, Value>, key: &str, default: bool) -> Result<bool, LoadError> {
    match settings.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(bad(key, "true or false", v)),
    }
}

/// The most extra special tokens a file may name: far more than any tokenizer carries, and few
/// enough that adding them one by one (each looked up among those before) stays quick.
const MAX_EXTRA_TOKENS: usize = 10_000;

/// A token named by the file: non-empty text, or an added-token object with its `content`.
fn token_text(key: &str, v: &Value) -> Result<Option<String>, LoadError> {
    let text = match v {
        Value::Null => return Ok(None),
        Value::String(s) => s,
        Value::Object(o) => match o.get("content") {
            Some(Value::String(s)) => s,
            _ => return Err(bad(key, "a token (text, or an object with its content)", v)),
        },
        _ => return Err(bad(key, "a token (text, or an object with its content)", v)),
    };
    // An empty token would match between every two characters of the text.
    if text.is_empty() {
        return Err(bad(key, "a token of at least one character", v));
    }
    Ok(Some(text.clone()))
}

/// The id of `token` in `tokenizer.json`, as `token_to_id` finds it: the added tokens first,
/// then the model's vocabulary.
fn id_of(tokenizer: &Value, token: &str) -> Option<u64> {
    let added = tokenizer["added_tokens"].as_array();
    if let Some(a) = added.and_then(|a| a.iter().find(|t| t["content"] == token)) {
        return a["id"].as_u64();
    }
    match &tokenizer["model"]["vocab"] {
        Value::Object(m) => m.get(token).and_then(Value::as_u64),
        // Unigram: [token, score] pairs, the id being the position.
        Value::Array(list) => list.iter().position(|e| e[0] == token).map(|i| i as u64),
        _ => None,
    }
}

/// The id the next added token gets: the vocabulary's size with the added tokens
/// (`get_vocab_size(with_added_tokens=True)`).
fn next_id(tokenizer: &Value) -> u64 {
    let vocab = match &tokenizer["model"]["vocab"] {
        Value::Object(m) => m
            .values()
            .filter_map(Value::as_u64)
            .map(|i| i.saturating_add(1))
            .max(),
        Value::Array(list) => Some(list.len() as u64),
        _ => None,
    }
    .unwrap_or(0);
    let added = tokenizer["added_tokens"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .filter_map(|t| t["id"].as_u64())
                .map(|i| i + 1)
                .max()
        })
        .unwrap_or(0);
    vocab.max(added)
}

/// The text and id of the named special token `key` (after the missing ones were added).
fn special(
    tokenizer: &Value,
    named: &[(&str, String)],
    key: &str,
) -> Result<(String, u64), LoadError> {
    let text = named
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, t)| t.clone())
        .ok_or_else(|| {
            LoadError::Tokenizer(format!(
                "tokenizer_config.json: {key} is null, but the tokenizer's class puts it in every pair"
            ))
        })?;
    let id = id_of(tokenizer, &text).unwrap_or(0);
    Ok((text, id))
}

/// A `TemplateProcessing` post-processor: `first A last` for one text, `first A last B last`
/// for a pair (`first A last last B last` when `doubled`), with the pair's type ids.
fn template(
    first: (String, u64),
    last: (String, u64),
    pair_types: (u8, u8),
    doubled: bool,
) -> Value {
    let special = |t: &str, type_id: u8| json!({"SpecialToken": {"id": t, "type_id": type_id}});
    let seq = |id: &str, type_id: u8| json!({"Sequence": {"id": id, "type_id": type_id}});
    let (a, b) = pair_types;
    let mut pair = vec![special(&first.0, a), seq("A", a), special(&last.0, a)];
    if doubled {
        pair.push(special(&last.0, a));
    }
    pair.extend([seq("B", b), special(&last.0, b)]);
    let mut specials = Map::new();
    for (t, id) in [&first, &last] {
        specials.insert(t.clone(), json!({"id": t, "ids": [id], "tokens": [t]}));
    }
    json!({
        "type": "TemplateProcessing",
        "single": [special(&first.0, 0), seq("A", 0), special(&last.0, 0)],
        "pair": pair,
        "special_tokens": specials,
    })
}

/// `tokenizer.json` (already parsed) as `transformers` builds it with `config`; `model_type`
/// is `config.json`'s. Without a `tokenizer_config.json` (empty settings) nothing changes.
pub fn rebuild(
    mut tokenizer: Value,
    config: &TokenizerConfig,
    model_type: Option<&str>,
) -> Result<Rebuilt, LoadError> {
    let settings = &config.settings;
    let truncate_left = match settings.get("truncation_side") {
        None | Some(Value::Null) => tokenizer["truncation"]["direction"] == "Left",
        Some(Value::String(s)) if s == "right" => false,
        Some(Value::String(s)) if s == "left" => true,
        Some(v) => return Err(bad("truncation_side", "\"left\" or \"right\"", v)),
    };
    if settings.is_empty() {
        return Ok(Rebuilt {
            tokenizer,
            truncate_left,
        });
    }
    let class = Class::of(settings, model_type);
    // The named special tokens: the file's, else the class's defaults.
    let mut named: Vec<(&str, String)> = Vec::new();
    for key in NAMED {
        let text = match settings.get(key) {
            Some(v) => token_text(key, v)?,
            None => class.and_then(|c| c.default_token(key)).map(str::to_string),
        };
        if let Some(t) = text {
            named.push((key, t));
        }
    }
    let mut extra = Vec::new();
    for key in ["extra_special_tokens", "additional_special_tokens"] {
        match settings.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(list)) => {
                for v in list {
                    extra.extend(token_text(key, v)?);
                }
            }
            // A map of names to tokens: its keys are the tokens added (as transformers reads it).
            Some(Value::Object(m)) => extra.extend(m.keys().cloned()),
            Some(v) => return Err(bad(key, "a list of tokens", v)),
        }
    }
    if extra.len() > MAX_EXTRA_TOKENS {
        return Err(LoadError::Tokenizer(format!(
            "tokenizer_config.json names {} extra special tokens, more than the {MAX_EXTRA_TOKENS} tabprobe reads",
            extra.len()
        )));
    }
    // Missing special tokens are added after the vocabulary, in this order.
    for text in named.iter().map(|(_, t)| t.clone()).chain(extra) {
        if id_of(&tokenizer, &text).is_some() {
            continue;
        }
        let id = next_id(&tokenizer);
        let added = json!({
            "id": id, "content": text, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true,
        });
        match tokenizer["added_tokens"].as_array_mut() {
            Some(list) => list.push(added),
            None => tokenizer["added_tokens"] = json!([added]),
        }
    }
    let Some(class) = class else {
        return Ok(Rebuilt {
            tokenizer,
            truncate_left,
        });
    };
    match class {
        Class::Bert => {
            let strip_accents = match settings.get("strip_accents") {
                None | Some(Value::Null) => Value::Null,
                Some(Value::Bool(b)) => Value::Bool(*b),
                Some(v) => return Err(bad("strip_accents", "true, false or null", v)),
            };
            tokenizer["normalizer"] = json!({
                "type": "BertNormalizer",
                "clean_text": true,
                "handle_chinese_chars": flag(settings, "tokenize_chinese_chars", true)?,
                "strip_accents": strip_accents,
                "lowercase": flag(settings, "do_lower_case", true)?,
            });
            tokenizer["pre_tokenizer"] = json!({"type": "BertPreTokenizer"});
            // WordPiece is built with the unknown token from the vocabulary proper (an added
            // token does not count), as transformers' BertTokenizer builds it.
            let (unk, _) = special(&tokenizer, &named, "unk_token")?;
            if tokenizer["model"]["vocab"].get(&unk).is_none() {
                return Err(LoadError::Tokenizer(format!(
                    "tokenizer_config.json: unk_token {unk:?} is not in tokenizer.json's vocabulary"
                )));
            }
            tokenizer["model"]["unk_token"] = json!(unk);
            let (cls, sep) = (
                special(&tokenizer, &named, "cls_token")?,
                special(&tokenizer, &named, "sep_token")?,
            );
            tokenizer["post_processor"] = template(cls, sep, (0, 1), false);
        }
        Class::Roberta => {
            let prefix = flag(settings, "add_prefix_space", false)?;
            let trim = flag(settings, "trim_offsets", true)?;
            tokenizer["normalizer"] = Value::Null;
            tokenizer["pre_tokenizer"] = json!({
                "type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": true, "use_regex": true,
            });
            let (sep, sep_id) = special(&tokenizer, &named, "sep_token")?;
            let (cls, cls_id) = special(&tokenizer, &named, "cls_token")?;
            tokenizer["post_processor"] = json!({
                "type": "RobertaProcessing", "sep": [sep, sep_id], "cls": [cls, cls_id],
                "trim_offsets": trim, "add_prefix_space": prefix,
            });
        }
        Class::DebertaV2 => {
            let mut normalizers = Vec::new();
            if flag(settings, "do_lower_case", false)? {
                normalizers.push(json!({"type": "Lowercase"}));
            }
            normalizers.extend([
                json!({"type": "Replace", "pattern": {"Regex": "\\s{2,}|[\\n\\r\\t]"}, "content": " "}),
                json!({"type": "NFC"}),
                json!({"type": "Strip", "strip_left": false, "strip_right": true}),
            ]);
            tokenizer["normalizer"] = json!({"type": "Sequence", "normalizers": normalizers});
            let mut pre = Vec::new();
            if flag(settings, "split_by_punct", false)? {
                pre.push(json!({"type": "Punctuation", "behavior": "Isolated"}));
            }
            let scheme = match flag(settings, "add_prefix_space", true)? {
                true => "always",
                false => "first",
            };
            pre.push(json!({"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": scheme, "split": true}));
            tokenizer["pre_tokenizer"] = json!({"type": "Sequence", "pretokenizers": pre});
            let (cls, sep) = (
                special(&tokenizer, &named, "cls_token")?,
                special(&tokenizer, &named, "sep_token")?,
            );
            tokenizer["post_processor"] = template(cls, sep, (0, 1), false);
        }
        Class::XlmRoberta => {
            // Only a precompiled SentencePiece character map survives from tokenizer.json's
            // normalizer (transformers extracts it and builds nothing else).
            let normalizer = &tokenizer["normalizer"];
            let precompiled = match normalizer["type"].as_str() {
                Some("Precompiled") => Some(normalizer.clone()),
                Some("Sequence") => normalizer["normalizers"]
                    .as_array()
                    .and_then(|l| l.iter().find(|n| n["type"] == "Precompiled").cloned()),
                _ => None,
            };
            tokenizer["normalizer"] = precompiled.unwrap_or(Value::Null);
            let scheme = match flag(settings, "add_prefix_space", true)? {
                true => "always",
                false => "never",
            };
            tokenizer["pre_tokenizer"] = json!({"type": "Sequence", "pretokenizers": [
                {"type": "WhitespaceSplit"},
                {"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": scheme, "split": true},
            ]});
            let (bos, eos) = (
                special(&tokenizer, &named, "bos_token")?,
                special(&tokenizer, &named, "eos_token")?,
            );
            tokenizer["post_processor"] = template(bos, eos, (0, 0), true);
        }
    }
    Ok(Rebuilt {
        tokenizer,
        truncate_left,
    })
}
