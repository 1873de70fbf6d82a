//! DeBERTa-v2 and v3 (`DebertaV2ForSequenceClassification`), in reading order: config,
//! relative positions, disentangled attention, the network, and loading with every name
//! translation. The reference is `transformers`' `modeling_deberta_v2.py`.
//!
//! What differs from BERT: attention adds to the content-to-content scores a content-to-position
//! term (`c2p`: each query against the embedding of its distance to each key) and a
//! position-to-content term (`p2c`), with distances put into log-spaced buckets beyond
//! `position_buckets / 2`; the scale is `√(head_dim × (1 + number of those terms))`; v3 has no
//! absolute positions and no token types; the head is the `ContextPooler` (`dense → gelu` on
//! `[CLS]`) then `classifier`.
//!
//! | Hugging Face tensor (`deberta.` prefix optional)                      | here                          |
//! |-----------------------------------------------------------------------|-------------------------------|
//! | `embeddings.word_embeddings.weight` `[V, E]`                          | `word`                        |
//! | `embeddings.position_embeddings.weight` `[P, E]` (if `position_biased_input`) | `position`            |
//! | `embeddings.token_type_embeddings.weight` `[T, E]` (if `type_vocab_size > 0`) | `token_type`          |
//! | `embeddings.embed_proj.weight` `[H, E]` (if E ≠ H; no bias)           | `embed_proj`                  |
//! | `embeddings.LayerNorm.*`                                              | `embed_norm`                  |
//! | `encoder.rel_embeddings.weight` `[2 × span, H]`                       | `rel_embeddings`              |
//! | `encoder.LayerNorm.*` (if `norm_rel_ebd` has `layer_norm`)            | `rel_norm`                    |
//! | `encoder.layer.{i}.attention.self.{query,key,value}_proj.*`           | `layers[i].attention`         |
//! | `encoder.layer.{i}.attention.self.pos_{key,query}_proj.*` (unshared)  | `layers[i].attention.pos_*`   |
//! | `encoder.layer.{i}.attention.output.{dense,LayerNorm}.*`              | `layers[i].attention`         |
//! | `encoder.layer.{i}.{intermediate.dense,output.dense,output.LayerNorm}.*` | `layers[i].feed_forward`   |
//! | `pooler.dense.*`, `classifier.*`                                      | `pooler`, `classifier`        |

use std::collections::BTreeMap;

use burn::prelude::*;
use burn::tensor::activation::{gelu_approximate, relu, softmax};

use crate::activation::gelu;
use burn::tensor::module::embedding;
use serde::Deserialize;

use crate::batch::{Batch, MAX_TENSOR_BYTES};
use crate::config::{
    check_layer_norm_eps, check_sizes, check_weights_len, label_count, HiddenAct, LabelMap,
    MAX_HEADS, MAX_HIDDEN_SIZE, MAX_INTERMEDIATE_SIZE, MAX_LABELS, MAX_LAYERS, MAX_POSITIONS,
    MAX_TYPE_VOCAB_SIZE, MAX_VOCAB_SIZE,
};
use crate::embeddings::{word_vectors, WordChunk};
use crate::encoder::FeedForward;
use crate::error::LoadError;
use crate::family::Family;
use crate::loader::byte_len;
use crate::names::{
    bias, layer, weight, ATTENTION_NORM, ATTENTION_OUTPUT, EMBEDDINGS_NORM, INTERMEDIATE, OUTPUT,
    OUTPUT_NORM, POSITION_EMBEDDINGS, TOKEN_TYPE_EMBEDDINGS, WORD_EMBEDDINGS,
};
use crate::nn::{Dense, LayerNorm};
use crate::shape::Shape;
use crate::weight_file::{WeightFile, WeightSource};
use crate::weights::{element_count, Tensors};

// DeBERTa's own names, written once for the shape table and the loader (the embeddings' and the
// layers' other parts are the encoder's, in `crate::names`). Layer parts sit below
// `encoder.layer.{i}.`.
/// The attention's query.
const QUERY_PROJ: &str = "attention.self.query_proj";
/// The attention's key.
const KEY_PROJ: &str = "attention.self.key_proj";
/// The attention's value.
const VALUE_PROJ: &str = "attention.self.value_proj";
/// The position key (`c2p` without shared keys).
const POS_KEY_PROJ: &str = "attention.self.pos_key_proj";
/// The position query (`p2c` without shared keys).
const POS_QUERY_PROJ: &str = "attention.self.pos_query_proj";
/// The relative-position table `[2·span, H]`.
const REL_EMBEDDINGS: &str = "encoder.rel_embeddings.weight";
/// The relative-position table's layer norm.
const REL_NORM: &str = "encoder.LayerNorm";
/// The projection from the embedding width to the hidden size (no bias).
const EMBED_PROJ: &str = "embeddings.embed_proj";
/// The head's pooler.
const POOLER: &str = "pooler.dense";
/// The head's output layer.
const CLASSIFIER: &str = "classifier";

/// `config.json` of a DeBERTa-v2/v3 checkpoint (`transformers.DebertaV2Config`, with the keys
/// the model reads through `getattr` and their defaults there).
#[derive(Debug, Clone, Deserialize)]
pub struct DebertaV2Config {
    /// Rows of the word table.
    #[serde(default = "defaults::vocab_size")]
    pub vocab_size: usize,
    /// Hidden width.
    #[serde(default = "defaults::hidden_size")]
    pub hidden_size: usize,
    /// Layers.
    #[serde(default = "defaults::num_hidden_layers")]
    pub num_hidden_layers: usize,
    /// Heads per layer.
    #[serde(default = "defaults::num_attention_heads")]
    pub num_attention_heads: usize,
    /// Feed-forward width.
    #[serde(default = "defaults::intermediate_size")]
    pub intermediate_size: usize,
    /// Feed-forward activation.
    #[serde(default)]
    pub hidden_act: HiddenAct,
    /// Rows of the absolute position table (and the relative span when
    /// `max_relative_positions < 1`).
    #[serde(default = "defaults::max_position_embeddings")]
    pub max_position_embeddings: usize,
    /// Rows of the token-type table; 0 (v3): none.
    #[serde(default)]
    pub type_vocab_size: usize,
    /// LayerNorm epsilon.
    #[serde(default = "defaults::layer_norm_eps")]
    pub layer_norm_eps: f64,
    /// Whether attention uses relative positions (`c2p`/`p2c`).
    #[serde(default)]
    pub relative_attention: bool,
    /// Relative span; `< 1` means `max_position_embeddings`.
    #[serde(default = "defaults::minus_one")]
    pub max_relative_positions: i64,
    /// Log buckets of relative distance; `≤ 0`: no bucketing.
    #[serde(default = "defaults::minus_one")]
    pub position_buckets: i64,
    /// Padding id.
    #[serde(default)]
    pub pad_token_id: Option<usize>,
    /// Whether absolute positions are added to the embeddings (v2: yes; v3: no).
    #[serde(default = "defaults::yes")]
    pub position_biased_input: bool,
    /// `["p2c", "c2p"]` or the older `"p2c|c2p"`.
    #[serde(default)]
    pub pos_att_type: Option<PosAttType>,
    /// Whether the position projections are the content ones (v3: yes).
    #[serde(default)]
    pub share_att_key: bool,
    /// `"layer_norm"` to normalise the relative embeddings (v3).
    #[serde(default = "defaults::none")]
    pub norm_rel_ebd: String,
    /// Width of the embeddings, projected to `hidden_size` when different.
    #[serde(default)]
    pub embedding_size: Option<usize>,
    /// Width of the pooler; must equal `hidden_size`.
    #[serde(default)]
    pub pooler_hidden_size: Option<usize>,
    /// The pooler's activation.
    #[serde(default)]
    pub pooler_hidden_act: HiddenAct,
    /// DeBERTa-v2-xlarge's convolution after layer 0 (not implemented: refused when > 0).
    #[serde(default)]
    pub conv_kernel_size: usize,
    /// A head width other than `hidden_size / num_attention_heads` (refused).
    #[serde(default)]
    pub attention_head_size: Option<usize>,
    /// Output index → label name.
    #[serde(default)]
    pub id2label: Option<BTreeMap<String, String>>,
    /// Number of outputs when `id2label` is absent.
    #[serde(default)]
    pub num_labels: Option<usize>,
}

/// `pos_att_type` as a list or as the older `|`-separated string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum PosAttType {
    /// `["p2c", "c2p"]`.
    List(Vec<String>),
    /// `"p2c|c2p"`.
    Joined(String),
}

mod defaults {
    pub fn vocab_size() -> usize {
        128_100
    }
    pub fn hidden_size() -> usize {
        1536
    }
    pub fn num_hidden_layers() -> usize {
        24
    }
    pub fn num_attention_heads() -> usize {
        24
    }
    pub fn intermediate_size() -> usize {
        6144
    }
    pub fn max_position_embeddings() -> usize {
        512
    }
    pub fn layer_norm_eps() -> f64 {
        1e-7
    }
    pub fn minus_one() -> i64 {
        -1
    }
    pub fn yes() -> bool {
        true
    }
    pub fn none() -> String {
        "none".into()
    }
}

impl DebertaV2Config {
    /// Parses and checks `config.json` (sizes within the crate's limits, heads dividing the
    /// width, only the attention terms and options implemented here).
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let c: Self =
            serde_json::from_slice(bytes).map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Embedding width.
    pub fn embedding_width(&self) -> usize {
        self.embedding_size.unwrap_or(self.hidden_size)
    }

    /// Whether `term` (`c2p` or `p2c`) is in `pos_att_type`.
    pub fn uses(&self, term: &str) -> bool {
        let terms: Vec<String> = match &self.pos_att_type {
            None => Vec::new(),
            Some(PosAttType::List(l)) => l.iter().map(|t| t.trim().to_lowercase()).collect(),
            Some(PosAttType::Joined(s)) => s.split('|').map(|t| t.trim().to_lowercase()).collect(),
        };
        self.relative_attention && terms.iter().any(|t| t == term)
    }

    /// The relative span `transformers` calls `max_relative_positions` (after its default).
    pub fn max_relative(&self) -> usize {
        if self.max_relative_positions < 1 {
            self.max_position_embeddings
        } else {
            self.max_relative_positions as usize
        }
    }

    /// `att_span` (`pos_ebd_size`): `position_buckets` when bucketing, else the span.
    pub fn att_span(&self) -> usize {
        if self.position_buckets > 0 {
            self.position_buckets as usize
        } else {
            self.max_relative()
        }
    }

    /// Number of classifier outputs.
    pub fn num_labels(&self) -> usize {
        label_count(self.id2label.as_ref(), self.num_labels)
    }

    /// Longest input: the position table's length (the tokenizer's `model_max_length`).
    pub fn max_tokens(&self) -> usize {
        self.max_position_embeddings
    }

    fn validate(&self) -> Result<(), LoadError> {
        let span = |v: i64| v.clamp(0, i64::MAX) as usize;
        check_sizes(
            &[
                ("vocab_size", self.vocab_size, MAX_VOCAB_SIZE),
                ("hidden_size", self.hidden_size, MAX_HIDDEN_SIZE),
                ("embedding_size", self.embedding_width(), MAX_HIDDEN_SIZE),
                ("num_hidden_layers", self.num_hidden_layers, MAX_LAYERS),
                ("num_attention_heads", self.num_attention_heads, MAX_HEADS),
                (
                    "intermediate_size",
                    self.intermediate_size,
                    MAX_INTERMEDIATE_SIZE,
                ),
                ("type_vocab_size", self.type_vocab_size, MAX_TYPE_VOCAB_SIZE),
                (
                    "max_position_embeddings",
                    self.max_position_embeddings,
                    MAX_POSITIONS,
                ),
                (
                    "max_relative_positions",
                    span(self.max_relative_positions),
                    MAX_POSITIONS,
                ),
                (
                    "position_buckets",
                    span(self.position_buckets),
                    MAX_POSITIONS,
                ),
                ("num_labels", self.num_labels.unwrap_or(0), MAX_LABELS),
                (
                    "id2label",
                    self.id2label.as_ref().map_or(0, BTreeMap::len),
                    MAX_LABELS,
                ),
            ],
            &[
                ("vocab_size", self.vocab_size),
                ("hidden_size", self.hidden_size),
                ("embedding_size", self.embedding_width()),
                ("num_hidden_layers", self.num_hidden_layers),
                ("num_attention_heads", self.num_attention_heads),
                ("intermediate_size", self.intermediate_size),
                ("max_position_embeddings", self.max_position_embeddings),
            ],
        )?;
        let unsupported = |key: &str, value: String, why: &str| LoadError::UnsupportedConfig {
            key: key.into(),
            value,
            why: why.into(),
        };
        if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return Err(unsupported(
                "num_attention_heads",
                self.num_attention_heads.to_string(),
                &format!("must divide hidden_size = {}", self.hidden_size),
            ));
        }
        if let Some(size) = self.attention_head_size {
            if size * self.num_attention_heads != self.hidden_size {
                return Err(unsupported(
                    "attention_head_size",
                    size.to_string(),
                    "only hidden_size / num_attention_heads is implemented",
                ));
            }
        }
        if self.conv_kernel_size > 0 {
            return Err(unsupported(
                "conv_kernel_size",
                self.conv_kernel_size.to_string(),
                "DeBERTa-v2-xlarge's convolution layer is not implemented",
            ));
        }
        if let Some(p) = self.pooler_hidden_size.filter(|&p| p != self.hidden_size) {
            return Err(unsupported(
                "pooler_hidden_size",
                p.to_string(),
                &format!("must equal hidden_size = {}", self.hidden_size),
            ));
        }
        if let Some(pad) = self.pad_token_id.filter(|&p| p >= self.vocab_size) {
            return Err(unsupported(
                "pad_token_id",
                pad.to_string(),
                &format!("must be below vocab_size = {}", self.vocab_size),
            ));
        }
        if self.max_tokens() < 4 {
            return Err(unsupported(
                "max_position_embeddings",
                self.max_position_embeddings.to_string(),
                "must be at least 4 to fit [CLS] P [SEP] H [SEP]",
            ));
        }
        check_layer_norm_eps(self.layer_norm_eps)
    }

    /// Every tensor the network needs, by its name without `deberta.`, in PyTorch layout.
    pub fn expected_shapes(&self) -> BTreeMap<String, Vec<usize>> {
        let (h, i, e, l) = (
            self.hidden_size,
            self.intermediate_size,
            self.embedding_width(),
            self.num_labels(),
        );
        let mut m = BTreeMap::new();
        let mut dense = |name: &str, out: usize, inp: usize| {
            m.insert(weight(name), vec![out, inp]);
            m.insert(bias(name), vec![out]);
        };
        for n in 0..self.num_hidden_layers {
            for part in [QUERY_PROJ, KEY_PROJ, VALUE_PROJ] {
                dense(&layer(n, part), h, h);
            }
            if !self.share_att_key {
                if self.uses("c2p") {
                    dense(&layer(n, POS_KEY_PROJ), h, h);
                }
                if self.uses("p2c") {
                    dense(&layer(n, POS_QUERY_PROJ), h, h);
                }
            }
            dense(&layer(n, ATTENTION_OUTPUT), h, h);
            dense(&layer(n, INTERMEDIATE), i, h);
            dense(&layer(n, OUTPUT), h, i);
        }
        dense(POOLER, h, h);
        dense(CLASSIFIER, l, h);
        let mut norms = vec![EMBEDDINGS_NORM.to_string()];
        for n in 0..self.num_hidden_layers {
            norms.push(layer(n, ATTENTION_NORM));
            norms.push(layer(n, OUTPUT_NORM));
        }
        if self.relative_attention && self.normalises_rel_embeddings() {
            norms.push(REL_NORM.into());
        }
        for name in norms {
            m.insert(weight(&name), vec![h]);
            m.insert(bias(&name), vec![h]);
        }
        m.insert(WORD_EMBEDDINGS.into(), vec![self.vocab_size, e]);
        if self.position_biased_input {
            m.insert(
                POSITION_EMBEDDINGS.into(),
                vec![self.max_position_embeddings, e],
            );
        }
        if self.type_vocab_size > 0 {
            m.insert(TOKEN_TYPE_EMBEDDINGS.into(), vec![self.type_vocab_size, e]);
        }
        if e != h {
            m.insert(weight(EMBED_PROJ), vec![h, e]);
        }
        if self.relative_attention {
            m.insert(REL_EMBEDDINGS.into(), vec![2 * self.att_span(), h]);
        }
        m
    }

    fn normalises_rel_embeddings(&self) -> bool {
        self.norm_rel_ebd
            .to_lowercase()
            .split('|')
            .any(|part| part.trim() == "layer_norm")
    }

    /// Sizes and labels as every family reports them.
    pub fn parts(&self) -> Result<(Shape, LabelMap), LoadError> {
        let labels = LabelMap::from_labels(self.id2label.as_ref(), self.num_labels)?;
        let shape = Shape {
            family: Family::DebertaV2,
            vocab_size: self.vocab_size,
            hidden_size: self.hidden_size,
            layers: self.num_hidden_layers,
            heads: self.num_attention_heads,
            intermediate_size: self.intermediate_size,
            max_tokens: self.max_tokens(),
            pad_token_id: self.pad_token_id.unwrap_or(0),
            parameters: element_count(&self.expected_shapes()),
        };
        Ok((shape, labels))
    }
}

/// `make_log_bucket_position` for one relative distance: distances within `bucket_size / 2`
/// stay as they are, longer ones map to `mid + ⌈ln(|d| / mid) / ln((max_position − 1) / mid) ×
/// (mid − 1)⌉` with the sign of `d`. Computed in f32 as `transformers` does.
pub fn log_bucket(relative: i64, bucket_size: usize, max_position: usize) -> i64 {
    let mid = (bucket_size / 2) as i64;
    let sign = relative.signum();
    let abs = if relative < mid && relative > -mid {
        mid - 1
    } else {
        relative.abs()
    };
    if abs <= mid {
        return relative;
    }
    let ratio = ((max_position as f64 - 1.0) / mid as f64) as f32;
    let log_pos =
        ((abs as f32 / mid as f32).ln() / ratio.ln() * (mid - 1) as f32).ceil() + mid as f32;
    log_pos as i64 * sign
}

/// `idx[i][j] = clamp(bucket(i − j) + span, 0, 2 span − 1)`, row-major `[seq, seq]`: the row of
/// the relative embeddings query `i` uses against key `j` in `c2p` (and, transposed through
/// the bucket's odd symmetry, in `p2c`).
pub fn relative_index(seq: usize, config: &DebertaV2Config) -> Vec<i64> {
    let span = config.att_span() as i64;
    let buckets = config.position_buckets;
    let max_relative = config.max_relative();
    let mut idx = Vec::with_capacity(seq * seq);
    for i in 0..seq as i64 {
        for j in 0..seq as i64 {
            let d = i - j;
            let bucket = if buckets > 0 && max_relative > 0 {
                log_bucket(d, buckets as usize, max_relative)
            } else {
                d
            };
            idx.push((bucket + span).clamp(0, 2 * span - 1));
        }
    }
    idx
}

/// `DisentangledSelfAttention` with its output block (`DebertaV2SelfOutput`).
#[derive(Debug, Clone)]
pub struct DisentangledAttention {
    /// `query_proj`.
    pub query: Dense,
    /// `key_proj`.
    pub key: Dense,
    /// `value_proj`.
    pub value: Dense,
    /// `pos_key_proj` (`c2p` without shared keys).
    pub pos_key: Option<Dense>,
    /// `pos_query_proj` (`p2c` without shared keys).
    pub pos_query: Option<Dense>,
    /// `attention.output.dense`.
    pub output: Dense,
    /// `attention.output.LayerNorm`.
    pub layer_norm: LayerNorm,
}

/// One layer: attention, then BERT's feed-forward block.
#[derive(Debug, Clone)]
pub struct DebertaLayer {
    /// Attention.
    pub attention: DisentangledAttention,
    /// `intermediate` + `output`.
    pub feed_forward: FeedForward,
}

/// The whole classifier, eval only.
#[derive(Debug, Clone)]
pub struct DebertaV2ForSequenceClassification {
    /// The config it was built from.
    pub config: DebertaV2Config,
    /// Word table in row chunks (see [`crate::embeddings::Embeddings::word`]).
    pub word: Vec<WordChunk>,
    /// Absolute positions (v2).
    pub position: Option<Tensor<2>>,
    /// Token types.
    pub token_type: Option<Tensor<2>>,
    /// Embedding projection (no bias).
    pub embed_proj: Option<Dense>,
    /// Embedding LayerNorm.
    pub embed_norm: LayerNorm,
    /// Relative embeddings, normalised once at load when the config says so.
    pub rel_embeddings: Option<Tensor<2>>,
    /// Layers.
    pub layers: Vec<DebertaLayer>,
    /// `pooler.dense`.
    pub pooler: Dense,
    /// `classifier`.
    pub classifier: Dense,
}

fn activate<const D: usize>(act: HiddenAct, x: Tensor<D>) -> Tensor<D> {
    match act {
        HiddenAct::Gelu => gelu(x),
        HiddenAct::GeluTanh => gelu_approximate(x),
        HiddenAct::Relu => relu(x),
    }
}

impl DebertaV2ForSequenceClassification {
    /// Logits `[rows, num_labels]` of one padded batch (padding masked as keys; positions
    /// and relative distances count from 0).
    pub fn forward(&self, batch: &Batch, device: &Device) -> Tensor<2> {
        let c = &self.config;
        let inputs = batch.inputs(device, false);
        let [rows, seq] = inputs.ids.dims();
        let mut x = word_vectors(&self.word, inputs.ids);
        if let Some(table) = &self.position {
            x = x + embedding(table.clone(), inputs.positions);
        }
        if let Some(table) = &self.token_type {
            x = x + embedding(table.clone(), inputs.types);
        }
        if let Some(project) = &self.embed_proj {
            x = project.forward(x);
        }
        let mut x = self.embed_norm.forward(x);
        let heads = c.num_attention_heads;
        let relative = self.rel_embeddings.as_ref().map(|rel| {
            let idx = Tensor::<2, Int>::from_data(
                TensorData::new(relative_index(seq, c), [seq, seq]),
                device,
            );
            let idx = idx.reshape([1, 1, seq, seq]);
            let c2p = idx.clone().expand([rows, heads, seq, seq]);
            let p2c = idx.swap_dims(2, 3).expand([rows, heads, seq, seq]);
            (rel.clone(), c2p, p2c)
        });
        for layer in &self.layers {
            x = layer
                .attention
                .forward(x, &inputs.mask_bias, relative.as_ref(), c);
            x = layer.feed_forward.forward(x);
        }
        let [_, _, width] = x.dims();
        let first = x.slice(s![.., 0..1, ..]).reshape([rows, width]);
        let pooled = activate(c.pooler_hidden_act, self.pooler.forward(first));
        self.classifier.forward(pooled)
    }
}

impl DisentangledAttention {
    /// `x: [rows, seq, hidden]`; `relative`: the (normalised) relative embeddings
    /// `[2 span, hidden]` and the `c2p` and transposed `p2c` gather indices `[rows, heads,
    /// seq, seq]`.
    fn forward(
        &self,
        x: Tensor<3>,
        mask_bias: &Tensor<4>,
        relative: Option<&(Tensor<2>, Tensor<4, Int>, Tensor<4, Int>)>,
        c: &DebertaV2Config,
    ) -> Tensor<3> {
        let [rows, seq, hidden] = x.dims();
        let heads = c.num_attention_heads;
        let head_dim = hidden / heads;
        let split =
            |t: Tensor<3>, len: usize| t.reshape([rows, len, heads, head_dim]).swap_dims(1, 2);
        let q = split(self.query.forward(x.clone()), seq);
        let k = split(self.key.forward(x.clone()), seq);
        let v = split(self.value.forward(x.clone()), seq);
        let terms = 1 + usize::from(c.uses("c2p")) + usize::from(c.uses("p2c"));
        let scale = 1.0 / ((head_dim * terms) as f64).sqrt();
        let mut scores = q.clone().matmul(k.clone().swap_dims(2, 3)) * scale;
        if let Some((rel, c2p_idx, p2c_idx)) = relative {
            let span2 = rel.dims()[0];
            // [2 span, hidden] → [rows, heads, 2 span, head_dim].
            let positions = |project: &Dense| {
                project
                    .forward(rel.clone())
                    .reshape([1, span2, heads, head_dim])
                    .swap_dims(1, 2)
                    .expand([rows, heads, span2, head_dim])
            };
            if c.uses("c2p") {
                let project = if c.share_att_key {
                    Some(&self.key)
                } else {
                    self.pos_key.as_ref()
                };
                if let Some(project) = project {
                    let c2p = q.matmul(positions(project).swap_dims(2, 3));
                    scores = scores + c2p.gather(3, c2p_idx.clone()) * scale;
                }
            }
            if c.uses("p2c") {
                let project = if c.share_att_key {
                    Some(&self.query)
                } else {
                    self.pos_query.as_ref()
                };
                if let Some(project) = project {
                    let p2c = k.matmul(positions(project).swap_dims(2, 3));
                    scores = scores + p2c.gather(3, p2c_idx.clone()).swap_dims(2, 3) * scale;
                }
            }
        }
        let probs = softmax(scores + mask_bias.clone(), 3);
        let context = probs.matmul(v).swap_dims(1, 2).reshape([rows, seq, hidden]);
        self.layer_norm.forward(self.output.forward(context) + x)
    }
}

/// Canonical name of a stored DeBERTa tensor (`None`: a buffer).
fn canonical_name(stored: &str) -> Option<String> {
    let name = stored
        .strip_prefix(Family::DebertaV2.prefix())
        .unwrap_or(stored);
    (name != "embeddings.position_ids").then(|| name.to_string())
}

/// Reads `model.safetensors` bytes into the network, checked as the other families are:
/// header and sizes first, then the expected names and shapes, then conversion.
pub fn load(
    config: DebertaV2Config,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<DebertaV2ForSequenceClassification, LoadError> {
    let file = WeightFile::open(weights)?;
    let tensors = Tensors::index(&file, canonical_name)?;
    if let Some(&[v, e]) = tensors.shape(WORD_EMBEDDINGS) {
        for (key, config_value, weights) in [
            ("vocab_size", config.vocab_size, v),
            ("embedding_size", config.embedding_width(), e),
        ] {
            if config_value != weights {
                return Err(LoadError::ConfigWeightsMismatch {
                    key: key.into(),
                    config: config_value,
                    weights,
                });
            }
        }
    }
    let expected = config.expected_shapes();
    check_weights_len(element_count(&expected), byte_len(&file))?;
    tensors.check(&expected)?;
    let eps = config.layer_norm_eps;
    let dense = |name: &str| tensors.dense(name, device);
    let norm = |name: &str| tensors.layer_norm(name, eps, device);
    let optional = |name: &str, wanted: bool| -> Result<Option<Tensor<2>>, LoadError> {
        wanted.then(|| tensors.matrix(name, device)).transpose()
    };
    let rel_embeddings = match optional(REL_EMBEDDINGS, config.relative_attention)? {
        Some(rel) if config.normalises_rel_embeddings() => {
            let n = norm(REL_NORM)?;
            Some(n.forward(rel.unsqueeze::<3>()).squeeze_dim::<2>(0))
        }
        other => other,
    };
    let mut layers = Vec::with_capacity(config.num_hidden_layers);
    for i in 0..config.num_hidden_layers {
        let part = |p: &str| layer(i, p);
        let unshared = |p: &str, term: &str| -> Result<Option<Dense>, LoadError> {
            (!config.share_att_key && config.uses(term))
                .then(|| dense(&part(p)))
                .transpose()
        };
        layers.push(DebertaLayer {
            attention: DisentangledAttention {
                query: dense(&part(QUERY_PROJ))?,
                key: dense(&part(KEY_PROJ))?,
                value: dense(&part(VALUE_PROJ))?,
                pos_key: unshared(POS_KEY_PROJ, "c2p")?,
                pos_query: unshared(POS_QUERY_PROJ, "p2c")?,
                output: dense(&part(ATTENTION_OUTPUT))?,
                layer_norm: norm(&part(ATTENTION_NORM))?,
            },
            feed_forward: FeedForward {
                intermediate: dense(&part(INTERMEDIATE))?,
                output: dense(&part(OUTPUT))?,
                layer_norm: norm(&part(OUTPUT_NORM))?,
                act: config.hidden_act,
            },
        });
    }
    Ok(DebertaV2ForSequenceClassification {
        word: tensors.word_chunks(WORD_EMBEDDINGS, MAX_TENSOR_BYTES, device)?,
        position: optional(POSITION_EMBEDDINGS, config.position_biased_input)?,
        token_type: optional(TOKEN_TYPE_EMBEDDINGS, config.type_vocab_size > 0)?,
        embed_proj: (config.embedding_width() != config.hidden_size)
            .then(|| tensors.dense_no_bias(EMBED_PROJ, device))
            .transpose()?,
        embed_norm: norm(EMBEDDINGS_NORM)?,
        rel_embeddings,
        layers,
        pooler: dense(POOLER)?,
        classifier: dense(CLASSIFIER)?,
        config,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_buckets_by_hand() {
        // bucket_size 32 → mid 16; max_position 96: ln(95/16) = 1.78116…
        // |d| ≤ 16 stays; d = 17: ⌈ln(17/16)/1.78116 × 15⌉ + 16 = ⌈0.5106⌉ + 16 = 17;
        // d = 40: ⌈ln(2.5)/1.78116 × 15⌉ + 16 = ⌈7.7160⌉ + 16 = 24;
        // d = 60: ⌈ln(3.75)/1.78116 × 15⌉ + 16 = ⌈11.131⌉ + 16 = 28.
        assert_eq!(log_bucket(5, 32, 96), 5);
        assert_eq!(log_bucket(-16, 32, 96), -16);
        assert_eq!(log_bucket(17, 32, 96), 17);
        assert_eq!(log_bucket(40, 32, 96), 24);
        assert_eq!(log_bucket(-40, 32, 96), -24);
        assert_eq!(log_bucket(60, 32, 96), 28);
    }

    #[test]
    fn pos_att_type_reads_as_a_list_or_the_older_string() {
        let parse = |json: &str| serde_json::from_str::<DebertaV2Config>(json).unwrap();
        let joined = parse(r#"{"relative_attention": true, "pos_att_type": "P2C | c2p"}"#);
        let list = parse(r#"{"relative_attention": true, "pos_att_type": ["c2p"]}"#);
        assert!(joined.uses("p2c") && joined.uses("c2p"));
        assert!(list.uses("c2p") && !list.uses("p2c"));
        // Without relative attention neither term is used, whatever the list says.
        let off = parse(r#"{"relative_attention": false, "pos_att_type": ["c2p", "p2c"]}"#);
        assert!(!off.uses("c2p") && !off.uses("p2c"));
    }

    #[test]
    fn relative_index_is_shifted_and_clamped() {
        let config: DebertaV2Config = serde_json::from_str(
            r#"{"relative_attention": true, "position_buckets": 4, "max_relative_positions": -1,
                "max_position_embeddings": 8}"#,
        )
        .unwrap();
        // span 4: idx = clamp(bucket(i - j) + 4, 0, 7).
        let idx = relative_index(3, &config);
        assert_eq!(idx[0], 4); // i = j
        assert_eq!(idx[1], 3); // i − j = −1
        assert_eq!(idx[3], 5); // i − j = 1
        assert!(idx.iter().all(|&v| (0..8).contains(&v)));
        // 2 × span rows of relative embeddings; v2's absolute positions by default.
        let shapes = config.expected_shapes();
        assert_eq!(shapes["encoder.rel_embeddings.weight"], vec![8, 1536]);
        assert!(shapes.contains_key("embeddings.position_embeddings.weight"));
    }
}
