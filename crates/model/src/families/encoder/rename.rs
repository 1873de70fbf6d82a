//! The encoder families' stored tensor names translated to RoBERTa's (the canonical names of
//! [`crate::families::encoder::names`]; prefix `bert.`, `electra.`, `distilbert.` optional):
//!
//!
//! | family     | stored                                                   | canonical                          |
//! |------------|----------------------------------------------------------|------------------------------------|
//! | BERT       | `pooler.dense.*`, `classifier.*`                         | `classifier.dense.*`, `classifier.out_proj.*` |
//! | ELECTRA    | `embeddings_project.*`                                   | `embeddings.project.*`             |
//! | DistilBERT | `transformer.layer.{i}.attention.{q,k,v}_lin.*`          | `encoder.layer.{i}.attention.self.{query,key,value}.*` |
//! | DistilBERT | `….attention.out_lin.*`, `….sa_layer_norm.*`             | `….attention.output.dense.*`, `….attention.output.LayerNorm.*` |
//! | DistilBERT | `….ffn.lin1.*`, `….ffn.lin2.*`, `….output_layer_norm.*`  | `….intermediate.dense.*`, `….output.dense.*`, `….output.LayerNorm.*` |
//!
//! Every family also loses its prefix, and the TF-era `LayerNorm.gamma/beta` become
//! `weight/bias`; buffers and RoBERTa's unused pooler are skipped.

use crate::families::encoder::names::{
    ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_PROJECTION, HEAD_DENSE, HEAD_OUT, INTERMEDIATE,
    KEY, LAYERS, OUTPUT, OUTPUT_NORM, QUERY, VALUE,
};
use crate::families::family::Family;

/// Stored tensors (canonical names) that are not weights of the network, skipped silently.
const BUFFERS: &[&str] = &["embeddings.position_ids", "embeddings.token_type_ids"];

/// DistilBERT's names inside `transformer.layer.{i}.`, and their canonical counterparts.
const DISTILBERT_LAYER: &[(&str, &str)] = &[
    ("attention.q_lin", QUERY),
    ("attention.k_lin", KEY),
    ("attention.v_lin", VALUE),
    ("attention.out_lin", ATTENTION_OUTPUT),
    ("sa_layer_norm", ATTENTION_NORM),
    ("ffn.lin1", INTERMEDIATE),
    ("ffn.lin2", OUTPUT),
    ("output_layer_norm", OUTPUT_NORM),
];

/// Translates a stored name of `family` to the canonical one (`None`: not a weight of the
/// network): drops the family's prefix, maps its names to RoBERTa's (see the module table) and
/// the TF-era `LayerNorm.gamma/beta` to `weight/bias`.
pub fn canonical_name(stored: &str, family: Family) -> Option<String> {
    let name = stored.strip_prefix(family.prefix()).unwrap_or(stored);
    let name = if let Some(base) = name.strip_suffix("LayerNorm.gamma") {
        format!("{base}LayerNorm.weight")
    } else if let Some(base) = name.strip_suffix("LayerNorm.beta") {
        format!("{base}LayerNorm.bias")
    } else {
        name.to_string()
    };
    if BUFFERS.contains(&name.as_str()) {
        return None;
    }
    // `{from}.{rest}` → `{to}.{rest}`.
    let replace_start = |from: &str, to: &str| {
        let rest = name.strip_prefix(from)?.strip_prefix('.')?;
        Some(format!("{to}.{rest}"))
    };
    let translated = match family {
        // RoBERTa's pooler is not part of its classifier.
        Family::Roberta | Family::XlmRoberta if name.starts_with("pooler.") => return None,
        Family::Roberta | Family::XlmRoberta => None,
        Family::Bert => replace_start("pooler.dense", HEAD_DENSE)
            .or_else(|| replace_start("classifier", HEAD_OUT)),
        Family::Electra => replace_start("embeddings_project", EMBEDDINGS_PROJECTION),
        Family::DistilBert => replace_start("pre_classifier", HEAD_DENSE)
            .or_else(|| replace_start("classifier", HEAD_OUT))
            .or_else(|| distilbert_layer_name(&name)),
        Family::DebertaV2 | Family::Bart => None,
    };
    Some(translated.unwrap_or(name))
}

/// `transformer.layer.{i}.{part}` → `encoder.layer.{i}.{canonical part}`.
fn distilbert_layer_name(name: &str) -> Option<String> {
    let rest = name.strip_prefix("transformer.layer.")?;
    let (index, part) = rest.split_once('.')?;
    let canonical = DISTILBERT_LAYER.iter().find_map(|(from, to)| {
        let tail = part.strip_prefix(from)?.strip_prefix('.')?;
        Some(format!("{to}.{tail}"))
    })?;
    Some(format!("{LAYERS}{index}.{canonical}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_prefix_and_legacy_layer_norm_spelling() {
        let c = |name: &str| canonical_name(name, Family::Roberta);
        assert_eq!(
            c("roberta.embeddings.LayerNorm.gamma").as_deref(),
            Some("embeddings.LayerNorm.weight")
        );
        assert_eq!(
            c("encoder.layer.3.output.LayerNorm.beta").as_deref(),
            Some("encoder.layer.3.output.LayerNorm.bias")
        );
        assert_eq!(
            c("classifier.out_proj.weight").as_deref(),
            Some("classifier.out_proj.weight")
        );
        assert_eq!(c("roberta.pooler.dense.weight"), None);
        assert_eq!(c("roberta.embeddings.position_ids"), None);
    }

    #[test]
    fn other_families_names_become_robertas() {
        let cases = [
            (
                Family::Bert,
                "bert.pooler.dense.weight",
                "classifier.dense.weight",
            ),
            (Family::Bert, "classifier.bias", "classifier.out_proj.bias"),
            (
                Family::Bert,
                "bert.encoder.layer.1.output.dense.bias",
                "encoder.layer.1.output.dense.bias",
            ),
            (
                Family::Electra,
                "electra.embeddings_project.weight",
                "embeddings.project.weight",
            ),
            (
                Family::Electra,
                "classifier.out_proj.weight",
                "classifier.out_proj.weight",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.0.attention.q_lin.weight",
                "encoder.layer.0.attention.self.query.weight",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.5.sa_layer_norm.bias",
                "encoder.layer.5.attention.output.LayerNorm.bias",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.1.ffn.lin2.weight",
                "encoder.layer.1.output.dense.weight",
            ),
            (
                Family::DistilBert,
                "distilbert.transformer.layer.1.output_layer_norm.weight",
                "encoder.layer.1.output.LayerNorm.weight",
            ),
            (
                Family::DistilBert,
                "pre_classifier.weight",
                "classifier.dense.weight",
            ),
            (
                Family::DistilBert,
                "classifier.weight",
                "classifier.out_proj.weight",
            ),
        ];
        for (family, stored, canonical) in cases {
            assert_eq!(
                canonical_name(stored, family).as_deref(),
                Some(canonical),
                "{family:?} {stored}"
            );
        }
    }
}
