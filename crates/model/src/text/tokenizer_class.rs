//! A checkpoint's tokenizer as `transformers` (5.x) builds it when the checkpoint carries a
//! `tokenizer_config.json`: its tokenizer class (`tokenizer_class`, else the one
//! `AutoTokenizer` maps the config's `model_type` to) takes the vocabulary (and merges) from
//! `tokenizer.json` and builds the normalizer, pre-tokenizer and post-processor again from the
//! file's settings and the class's defaults — lowercasing, accents, prefix space, punctuation
//! splitting, the special tokens of a pair (added to the vocabulary when it lacks them) and extra
//! special tokens; `truncation_side` says which end of the premise is cut. Here the same is done
//! to the tokenizer `tokenizer.json` describes, so that it is what Python builds — with `tokenizers`' own typed parts (`BertNormalizer`, `ByteLevel`, `Metaspace`,
//! `TemplateProcessing`, `AddedToken`, …) set on the tokenizer `tokenizer.json` gave. Classes rebuilt: `BertTokenizer` (BERT, DistilBERT, ELECTRA), `RobertaTokenizer`
//! (RoBERTa, BART), `DebertaV2Tokenizer`, `XLMRobertaTokenizer`; any other class keeps
//! `tokenizer.json`'s pipeline and only gains missing special tokens and the truncation side.
//! Golden test: `tests/tokenizer_config.rs` (made by `golden/make_golden_tokenizer_config.py`).

use std::collections::HashSet;

use serde_json::{Map, Value};
use tabprobe_core::checkpoint::TokenizerConfig;
use tokenizers::models::ModelWrapper;
use tokenizers::normalizers::replace::ReplacePattern;
use tokenizers::normalizers::{
    BertNormalizer, Lowercase, NormalizerWrapper, Precompiled, Replace, Sequence, Strip, NFC,
};
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use tokenizers::pre_tokenizers::punctuation::Punctuation;
use tokenizers::pre_tokenizers::sequence::Sequence as PreSequence;
use tokenizers::pre_tokenizers::whitespace::WhitespaceSplit;
use tokenizers::processors::roberta::RobertaProcessing;
use tokenizers::processors::template::{Piece, Sequence as Input, Template, TemplateProcessing};
use tokenizers::{AddedToken, Model, SplitDelimiterBehavior, Tokenizer, TruncationDirection};

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

/// The error of a typed part `tokenizers` refused.
fn refused(e: impl std::fmt::Display) -> LoadError {
    LoadError::Tokenizer(format!("tokenizer.json: {e}"))
}

/// The text and id of the named special token `key` (after the missing ones were added).
fn special(
    tokenizer: &Tokenizer,
    named: &[(&str, String)],
    key: &str,
) -> Result<(String, u32), LoadError> {
    let text = named
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, t)| t.clone())
        .ok_or_else(|| {
            LoadError::Tokenizer(format!(
                "tokenizer_config.json: {key} is null, but the tokenizer's class puts it in every pair"
            ))
        })?;
    let id = tokenizer.token_to_id(&text).unwrap_or(0);
    Ok((text, id))
}

/// A `TemplateProcessing` post-processor: `first A last` for one text, `first A last B last`
/// for a pair (`first A last last B last` when `doubled`), with the pair's type ids.
fn template(
    first: (String, u32),
    last: (String, u32),
    pair_types: (u32, u32),
    doubled: bool,
) -> Result<TemplateProcessing, LoadError> {
    let special = |t: &str, type_id| Piece::SpecialToken {
        id: t.to_string(),
        type_id,
    };
    let seq = |id, type_id| Piece::Sequence { id, type_id };
    let (a, b) = pair_types;
    let mut pair = vec![special(&first.0, a), seq(Input::A, a), special(&last.0, a)];
    if doubled {
        pair.push(special(&last.0, a));
    }
    pair.extend([seq(Input::B, b), special(&last.0, b)]);
    let single = vec![special(&first.0, 0), seq(Input::A, 0), special(&last.0, 0)];
    TemplateProcessing::builder()
        .single(pieces(single)?)
        .pair(pieces(pair)?)
        .special_tokens(vec![first, last])
        .build()
        .map_err(refused)
}

/// A [`Template`] of typed pieces. `tokenizers` builds one only by parsing `"[CLS]:0 $A:0"`
/// text (which a token holding `:` or a space, or starting with `$`, would break) or through
/// serde, so the pieces go through serde: the template's one JSON step, with no key written
/// here.
fn pieces(pieces: Vec<Piece>) -> Result<Template, LoadError> {
    serde_json::to_value(pieces)
        .and_then(serde_json::from_value)
        .map_err(refused)
}

/// The named special tokens a pair is built from: `(setting, text)`, in [`NAMED`]'s order.
type Named = Vec<(&'static str, String)>;

/// The file's named special tokens (else the class's defaults) and its extra special tokens.
fn special_tokens(
    settings: &Map<String, Value>,
    class: Option<Class>,
) -> Result<(Named, Vec<String>), LoadError> {
    let mut named = Vec::new();
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
    Ok((named, extra))
}

/// Adds the special tokens the tokenizer lacks after its vocabulary, in this order (each once;
/// one already there keeps its id and settings).
fn add_missing(tokenizer: &mut Tokenizer, tokens: Vec<String>) -> Result<(), LoadError> {
    let mut seen = HashSet::new();
    let missing: Vec<AddedToken> = tokens
        .into_iter()
        .filter(|t| tokenizer.token_to_id(t).is_none() && seen.insert(t.clone()))
        .map(|t| AddedToken::from(t, true))
        .collect();
    if !missing.is_empty() {
        tokenizer.add_special_tokens(missing).map_err(refused)?;
    }
    Ok(())
}

/// `tokenizer` (read from `tokenizer.json`) made what `transformers` builds with `config`;
/// `model_type` is `config.json`'s. Without a `tokenizer_config.json` (empty settings) nothing
/// changes. Returns whether the premise is cut from its start (`truncation_side: "left"`).
pub fn rebuild(
    tokenizer: &mut Tokenizer,
    config: &TokenizerConfig,
    model_type: Option<&str>,
) -> Result<bool, LoadError> {
    let settings = &config.settings;
    let truncate_left = match settings.get("truncation_side") {
        None | Some(Value::Null) => tokenizer
            .get_truncation()
            .is_some_and(|t| t.direction == TruncationDirection::Left),
        Some(Value::String(s)) if s == "right" => false,
        Some(Value::String(s)) if s == "left" => true,
        Some(v) => return Err(bad("truncation_side", "\"left\" or \"right\"", v)),
    };
    if settings.is_empty() {
        return Ok(truncate_left);
    }
    let class = Class::of(settings, model_type);
    let (named, extra) = special_tokens(settings, class)?;
    let texts = named.iter().map(|(_, t)| t.clone()).chain(extra).collect();
    add_missing(tokenizer, texts)?;
    match class {
        Some(Class::Bert) => bert(tokenizer, settings, &named)?,
        Some(Class::Roberta) => roberta(tokenizer, settings, &named)?,
        Some(Class::DebertaV2) => deberta_v2(tokenizer, settings, &named)?,
        Some(Class::XlmRoberta) => xlm_roberta(tokenizer, settings, &named)?,
        None => {}
    }
    Ok(truncate_left)
}

/// `BertTokenizer`: BERT's normalizer and pre-tokenizer, WordPiece's unknown token,
/// `[CLS] A [SEP] B [SEP]` with token types 0 and 1.
fn bert(
    tokenizer: &mut Tokenizer,
    settings: &Map<String, Value>,
    named: &[(&str, String)],
) -> Result<(), LoadError> {
    let strip_accents = match settings.get("strip_accents") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(v) => return Err(bad("strip_accents", "true, false or null", v)),
    };
    let normalizer = BertNormalizer::new(
        true,
        flag(settings, "tokenize_chinese_chars", true)?,
        strip_accents,
        flag(settings, "do_lower_case", true)?,
    );
    tokenizer
        .with_normalizer(Some(normalizer))
        .map_err(refused)?;
    tokenizer.with_pre_tokenizer(Some(BertPreTokenizer));
    // WordPiece is built with the unknown token from the vocabulary proper (an added token
    // does not count), as transformers' BertTokenizer builds it.
    let (unk, _) = special(tokenizer, named, "unk_token")?;
    let mut model = tokenizer.get_model().clone();
    if !model.get_vocab().contains_key(&unk) {
        return Err(LoadError::Tokenizer(format!(
            "tokenizer_config.json: unk_token {unk:?} is not in tokenizer.json's vocabulary"
        )));
    }
    match &mut model {
        ModelWrapper::WordPiece(m) => m.unk_token = unk,
        ModelWrapper::BPE(m) => m.unk_token = Some(unk),
        ModelWrapper::WordLevel(m) => m.unk_token = unk,
        // Unigram names its unknown token by id, which stays.
        ModelWrapper::Unigram(_) => {}
    }
    tokenizer.with_model(model);
    let (cls, sep) = (
        special(tokenizer, named, "cls_token")?,
        special(tokenizer, named, "sep_token")?,
    );
    tokenizer.with_post_processor(Some(template(cls, sep, (0, 1), false)?));
    Ok(())
}

/// `RobertaTokenizer` (and BART's): byte-level BPE without a normalizer, `<s> A </s></s> B </s>`.
fn roberta(
    tokenizer: &mut Tokenizer,
    settings: &Map<String, Value>,
    named: &[(&str, String)],
) -> Result<(), LoadError> {
    let prefix = flag(settings, "add_prefix_space", false)?;
    let trim = flag(settings, "trim_offsets", true)?;
    tokenizer
        .with_normalizer(None::<NormalizerWrapper>)
        .map_err(refused)?;
    tokenizer.with_pre_tokenizer(Some(ByteLevel::new(prefix, true, true)));
    let sep = special(tokenizer, named, "sep_token")?;
    let cls = special(tokenizer, named, "cls_token")?;
    let processor = RobertaProcessing::new(sep, cls)
        .trim_offsets(trim)
        .add_prefix_space(prefix);
    tokenizer.with_post_processor(Some(processor));
    Ok(())
}

/// `DebertaV2Tokenizer`: whitespace folded, NFC, trailing space stripped, Metaspace,
/// `[CLS] A [SEP] B [SEP]` with token types 0 and 1.
fn deberta_v2(
    tokenizer: &mut Tokenizer,
    settings: &Map<String, Value>,
    named: &[(&str, String)],
) -> Result<(), LoadError> {
    let mut normalizers: Vec<NormalizerWrapper> = Vec::new();
    if flag(settings, "do_lower_case", false)? {
        normalizers.push(Lowercase.into());
    }
    let spaces = ReplacePattern::Regex("\\s{2,}|[\\n\\r\\t]".into());
    normalizers.push(Replace::new(spaces, " ").map_err(refused)?.into());
    normalizers.extend([NFC.into(), Strip::new(false, true).into()]);
    tokenizer
        .with_normalizer(Some(Sequence::new(normalizers)))
        .map_err(refused)?;
    let mut pre = Vec::new();
    if flag(settings, "split_by_punct", false)? {
        pre.push(Punctuation::new(SplitDelimiterBehavior::Isolated).into());
    }
    let scheme = match flag(settings, "add_prefix_space", true)? {
        true => PrependScheme::Always,
        false => PrependScheme::First,
    };
    pre.push(Metaspace::new('\u{2581}', scheme, true).into());
    tokenizer.with_pre_tokenizer(Some(PreSequence::new(pre)));
    let (cls, sep) = (
        special(tokenizer, named, "cls_token")?,
        special(tokenizer, named, "sep_token")?,
    );
    tokenizer.with_post_processor(Some(template(cls, sep, (0, 1), false)?));
    Ok(())
}

/// `XLMRobertaTokenizer`: only a precompiled SentencePiece character map survives from
/// `tokenizer.json`'s normalizer (transformers extracts it and builds nothing else); whitespace
/// split, Metaspace, `<s> A </s></s> B </s>`.
fn xlm_roberta(
    tokenizer: &mut Tokenizer,
    settings: &Map<String, Value>,
    named: &[(&str, String)],
) -> Result<(), LoadError> {
    let precompiled = |n: &NormalizerWrapper| match n {
        NormalizerWrapper::Precompiled(p) => Some(p.clone()),
        _ => None,
    };
    let kept: Option<Precompiled> = match tokenizer.get_normalizer() {
        Some(NormalizerWrapper::Sequence(s)) => s.as_ref().iter().find_map(precompiled),
        Some(n) => precompiled(n),
        None => None,
    };
    tokenizer.with_normalizer(kept).map_err(refused)?;
    let scheme = match flag(settings, "add_prefix_space", true)? {
        true => PrependScheme::Always,
        false => PrependScheme::Never,
    };
    tokenizer.with_pre_tokenizer(Some(PreSequence::new(vec![
        WhitespaceSplit.into(),
        Metaspace::new('\u{2581}', scheme, true).into(),
    ])));
    let (bos, eos) = (
        special(tokenizer, named, "bos_token")?,
        special(tokenizer, named, "eos_token")?,
    );
    tokenizer.with_post_processor(Some(template(bos, eos, (0, 0), true)?));
    Ok(())
}
