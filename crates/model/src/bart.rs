//! BART (`BartForSequenceClassification`, e.g. `facebook/bart-large-mnli`), in reading order:
//! config, network, loading. The reference is `transformers`' `modeling_bart.py`.
//!
//! The pair `<s> P </s></s> H </s>` runs through the encoder; the decoder reads the same ids
//! shifted one place right (starting with `decoder_start_token_id`) with causal self-attention
//! and cross-attention to the encoder; the head (`dense → tanh → out_proj`) reads the
//! decoder's state at the last `</s>` of each row. Layers are post-LayerNorm (eps 1e-5) and
//! learned positions are offset by 2, as in `BartLearnedPositionalEmbedding`.
//!
//! | Hugging Face tensor (`model.` prefix optional)                         | here                        |
//! |------------------------------------------------------------------------|-----------------------------|
//! | `shared.weight` / `{encoder,decoder}.embed_tokens.weight` `[V, D]`     | `encoder.word`, `decoder.word` (tied: one table) |
//! | `{encoder,decoder}.embed_positions.weight` `[P + 2, D]`                | `….positions`               |
//! | `{encoder,decoder}.layernorm_embedding.*`                              | `….embed_norm`              |
//! | `…layers.{i}.self_attn.{q,k,v,out}_proj.*`, `self_attn_layer_norm.*`   | `….layers[i].self_attention` |
//! | `decoder.layers.{i}.encoder_attn.*`, `encoder_attn_layer_norm.*`       | `decoder.layers[i].cross_attention` |
//! | `…layers.{i}.{fc1,fc2,final_layer_norm}.*`                             | `….layers[i].feed_forward`  |
//! | `classification_head.{dense,out_proj}.*`                               | `head`                      |

use std::collections::BTreeMap;

use burn::prelude::*;
use burn::tensor::module::embedding;
use serde::Deserialize;

use crate::batch::{Batch, MAX_TENSOR_BYTES};
use crate::classifier::{ClassificationHead, HeadAct, MASK_BIAS};
use crate::config::{
    check_sizes, check_weights_len, label_count, HiddenAct, LabelMap, MAX_HEADS, MAX_HIDDEN_SIZE,
    MAX_INTERMEDIATE_SIZE, MAX_LABELS, MAX_LAYERS, MAX_POSITIONS, MAX_VOCAB_SIZE,
};
use crate::embeddings::{word_vectors, WordChunk};
use crate::encoder::{Attention, FeedForward};
use crate::error::LoadError;
use crate::family::Family;
use crate::loader::byte_len;
use crate::names::{bias, weight};
use crate::nn::LayerNorm;
use crate::shape::Shape;
use crate::weight_file::{WeightFile, WeightSource};
use crate::weights::{element_count, Tensors};

// BART's tensor names, written once for the shape table and the loader. A stack is `encoder`
// or `decoder`; a layer's parts sit below `{stack}.layers.{i}.`.
/// The encoder stack.
const ENCODER: &str = "encoder";
/// The decoder stack.
const DECODER: &str = "decoder";
/// Self-attention (each layer's parts below it: [`ATTENTION_PARTS`]).
const SELF_ATTENTION: &str = "self_attn";
/// The decoder's cross-attention to the encoder.
const CROSS_ATTENTION: &str = "encoder_attn";
/// An attention's query, key, value and output projections.
const ATTENTION_PARTS: [&str; 4] = ["q_proj", "k_proj", "v_proj", "out_proj"];
/// The feed-forward layer's first dense layer.
const FC1: &str = "fc1";
/// The feed-forward layer's second dense layer.
const FC2: &str = "fc2";
/// The layer norm after the feed-forward layer.
const FINAL_NORM: &str = "final_layer_norm";
/// A stack's embeddings' layer norm (below `{stack}.`).
const EMBED_NORM: &str = "layernorm_embedding";
/// A stack's position table (below `{stack}.`).
const POSITIONS: &str = "embed_positions.weight";
/// A stack's own word table (below `{stack}.`), when not stored once as [`SHARED_WORDS`].
const OWN_WORDS: &str = "embed_tokens.weight";
/// The word table both stacks share.
const SHARED_WORDS: &str = "shared.weight";
/// The head's first dense layer.
const HEAD_DENSE: &str = "classification_head.dense";
/// The head's output layer.
const HEAD_OUT: &str = "classification_head.out_proj";

/// `{stack}.layers.{n}.{part}`.
fn layer(stack: &str, n: usize, part: &str) -> String {
    format!("{stack}.layers.{n}.{part}")
}

/// The layer norm after attention `attention`: `{attention}_layer_norm`.
fn attention_norm(attention: &str) -> String {
    format!("{attention}_layer_norm")
}

/// LayerNorm epsilon of every BART norm (`nn.LayerNorm`'s default; not a config key).
pub const LAYER_NORM_EPS: f64 = 1e-5;
/// `BartLearnedPositionalEmbedding`'s offset: position `t` reads row `t + 2`.
pub const POSITION_OFFSET: usize = 2;

/// `config.json` of a BART checkpoint (`transformers.BartConfig`), with its defaults.
#[derive(Debug, Clone, Deserialize)]
pub struct BartConfig {
    /// Rows of the word table.
    #[serde(default = "defaults::vocab_size")]
    pub vocab_size: usize,
    /// Longest input (the position tables have 2 more rows).
    #[serde(default = "defaults::max_position_embeddings")]
    pub max_position_embeddings: usize,
    /// Encoder layers.
    #[serde(default = "defaults::layers")]
    pub encoder_layers: usize,
    /// Encoder feed-forward width.
    #[serde(default = "defaults::ffn")]
    pub encoder_ffn_dim: usize,
    /// Encoder heads.
    #[serde(default = "defaults::heads")]
    pub encoder_attention_heads: usize,
    /// Decoder layers.
    #[serde(default = "defaults::layers")]
    pub decoder_layers: usize,
    /// Decoder feed-forward width.
    #[serde(default = "defaults::ffn")]
    pub decoder_ffn_dim: usize,
    /// Decoder heads.
    #[serde(default = "defaults::heads")]
    pub decoder_attention_heads: usize,
    /// Feed-forward activation.
    #[serde(default)]
    pub activation_function: HiddenAct,
    /// Hidden width.
    #[serde(default = "defaults::d_model")]
    pub d_model: usize,
    /// Whether word vectors are multiplied by √d_model.
    #[serde(default)]
    pub scale_embedding: bool,
    /// Padding id.
    #[serde(default = "defaults::pad")]
    pub pad_token_id: usize,
    /// `</s>`: the head reads the decoder at the last one.
    #[serde(default = "defaults::eos")]
    pub eos_token_id: usize,
    /// First decoder input.
    #[serde(default = "defaults::eos")]
    pub decoder_start_token_id: usize,
    /// Output index → label name.
    #[serde(default)]
    pub id2label: Option<BTreeMap<String, String>>,
    /// Number of outputs when `id2label` is absent.
    #[serde(default)]
    pub num_labels: Option<usize>,
}

mod defaults {
    pub fn vocab_size() -> usize {
        50265
    }
    pub fn max_position_embeddings() -> usize {
        1024
    }
    pub fn layers() -> usize {
        12
    }
    pub fn ffn() -> usize {
        4096
    }
    pub fn heads() -> usize {
        16
    }
    pub fn d_model() -> usize {
        1024
    }
    pub fn pad() -> usize {
        1
    }
    pub fn eos() -> usize {
        2
    }
}

impl BartConfig {
    /// Parses and checks `config.json`.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let c: Self =
            serde_json::from_slice(bytes).map_err(|e| LoadError::ConfigParse(e.to_string()))?;
        check_sizes(
            &[
                ("vocab_size", c.vocab_size, MAX_VOCAB_SIZE),
                ("d_model", c.d_model, MAX_HIDDEN_SIZE),
                ("encoder_layers", c.encoder_layers, MAX_LAYERS),
                ("decoder_layers", c.decoder_layers, MAX_LAYERS),
                (
                    "encoder_attention_heads",
                    c.encoder_attention_heads,
                    MAX_HEADS,
                ),
                (
                    "decoder_attention_heads",
                    c.decoder_attention_heads,
                    MAX_HEADS,
                ),
                ("encoder_ffn_dim", c.encoder_ffn_dim, MAX_INTERMEDIATE_SIZE),
                ("decoder_ffn_dim", c.decoder_ffn_dim, MAX_INTERMEDIATE_SIZE),
                (
                    "max_position_embeddings",
                    c.max_position_embeddings,
                    MAX_POSITIONS,
                ),
                ("num_labels", c.num_labels.unwrap_or(0), MAX_LABELS),
                (
                    "id2label",
                    c.id2label.as_ref().map_or(0, BTreeMap::len),
                    MAX_LABELS,
                ),
            ],
            &[
                ("vocab_size", c.vocab_size),
                ("d_model", c.d_model),
                ("encoder_layers", c.encoder_layers),
                ("decoder_layers", c.decoder_layers),
                ("encoder_attention_heads", c.encoder_attention_heads),
                ("decoder_attention_heads", c.decoder_attention_heads),
                ("encoder_ffn_dim", c.encoder_ffn_dim),
                ("decoder_ffn_dim", c.decoder_ffn_dim),
            ],
        )?;
        let unsupported = |key: &str, value: usize, why: String| LoadError::UnsupportedConfig {
            key: key.into(),
            value: value.to_string(),
            why,
        };
        for (key, heads) in [
            ("encoder_attention_heads", c.encoder_attention_heads),
            ("decoder_attention_heads", c.decoder_attention_heads),
        ] {
            if !c.d_model.is_multiple_of(heads) {
                return Err(unsupported(
                    key,
                    heads,
                    format!("must divide d_model = {}", c.d_model),
                ));
            }
        }
        for (key, id) in [
            ("pad_token_id", c.pad_token_id),
            ("eos_token_id", c.eos_token_id),
            ("decoder_start_token_id", c.decoder_start_token_id),
        ] {
            if id >= c.vocab_size {
                return Err(unsupported(
                    key,
                    id,
                    format!("must be below vocab_size = {}", c.vocab_size),
                ));
            }
        }
        if c.max_position_embeddings < 4 {
            return Err(unsupported(
                "max_position_embeddings",
                c.max_position_embeddings,
                "must be at least 4 to fit <s> P </s></s> H </s>".into(),
            ));
        }
        Ok(c)
    }

    /// Number of classifier outputs.
    pub fn num_labels(&self) -> usize {
        label_count(self.id2label.as_ref(), self.num_labels)
    }

    /// Every tensor the network needs, by its name without `model.` (the word table as
    /// `shared.weight`; see [`load`] for its other spellings), in PyTorch layout.
    pub fn expected_shapes(&self) -> BTreeMap<String, Vec<usize>> {
        let d = self.d_model;
        let mut m = BTreeMap::new();
        let mut dense = |name: &str, out: usize, inp: usize| {
            m.insert(weight(name), vec![out, inp]);
            m.insert(bias(name), vec![out]);
        };
        let stacks = [
            (ENCODER, self.encoder_layers, self.encoder_ffn_dim, false),
            (DECODER, self.decoder_layers, self.decoder_ffn_dim, true),
        ];
        for (stack, layers, ffn, cross) in stacks {
            for n in 0..layers {
                let mut attentions = vec![SELF_ATTENTION];
                if cross {
                    attentions.push(CROSS_ATTENTION);
                }
                for a in attentions {
                    for part in ATTENTION_PARTS {
                        dense(&layer(stack, n, &format!("{a}.{part}")), d, d);
                    }
                }
                dense(&layer(stack, n, FC1), ffn, d);
                dense(&layer(stack, n, FC2), d, ffn);
            }
        }
        dense(HEAD_DENSE, d, d);
        dense(HEAD_OUT, self.num_labels(), d);
        let mut norms = Vec::new();
        for (stack, layers, _, cross) in stacks {
            norms.push(format!("{stack}.{EMBED_NORM}"));
            for n in 0..layers {
                norms.push(layer(stack, n, &attention_norm(SELF_ATTENTION)));
                norms.push(layer(stack, n, FINAL_NORM));
                if cross {
                    norms.push(layer(stack, n, &attention_norm(CROSS_ATTENTION)));
                }
            }
            m.insert(
                format!("{stack}.{POSITIONS}"),
                vec![self.max_position_embeddings + POSITION_OFFSET, d],
            );
        }
        for name in norms {
            m.insert(weight(&name), vec![d]);
            m.insert(bias(&name), vec![d]);
        }
        m.insert(SHARED_WORDS.into(), vec![self.vocab_size, d]);
        m
    }

    /// Sizes and labels as every family reports them.
    pub fn parts(&self) -> Result<(Shape, LabelMap), LoadError> {
        let labels = LabelMap::from_labels(self.id2label.as_ref(), self.num_labels)?;
        let shape = Shape {
            family: Family::Bart,
            vocab_size: self.vocab_size,
            hidden_size: self.d_model,
            layers: self.encoder_layers + self.decoder_layers,
            heads: self
                .encoder_attention_heads
                .max(self.decoder_attention_heads),
            intermediate_size: self.encoder_ffn_dim.max(self.decoder_ffn_dim),
            max_tokens: self.max_position_embeddings,
            pad_token_id: self.pad_token_id,
            parameters: element_count(&self.expected_shapes()),
        };
        Ok((shape, labels))
    }
}

/// Embeddings and layers of one stack.
#[derive(Debug, Clone)]
pub struct Stack {
    /// Word table in row chunks (shared by both stacks when tied).
    pub word: Vec<WordChunk>,
    /// `[P + 2, D]`.
    pub positions: Tensor<2>,
    /// `layernorm_embedding`.
    pub embed_norm: LayerNorm,
    /// Layers.
    pub layers: Vec<BartLayer>,
}

/// One layer: self-attention, cross-attention (decoder only), feed-forward; each followed by
/// residual and LayerNorm.
#[derive(Debug, Clone)]
pub struct BartLayer {
    /// `self_attn` with `self_attn_layer_norm`.
    pub self_attention: Attention,
    /// `encoder_attn` with `encoder_attn_layer_norm`.
    pub cross_attention: Option<Attention>,
    /// `fc1 → act → fc2` with `final_layer_norm`.
    pub feed_forward: FeedForward,
}

/// The whole classifier, eval only.
#[derive(Debug, Clone)]
pub struct BartForSequenceClassification {
    /// The config it was built from.
    pub config: BartConfig,
    /// Encoder.
    pub encoder: Stack,
    /// Decoder.
    pub decoder: Stack,
    /// `classification_head`.
    pub head: ClassificationHead,
}

impl Stack {
    /// Word vectors (× √d when `scale_embedding`) plus positions from `POSITION_OFFSET`, then
    /// the embedding LayerNorm.
    fn embed(&self, ids: Tensor<2, Int>, scale: f64, device: &Device) -> Tensor<3> {
        let [rows, seq] = ids.dims();
        let words = word_vectors(&self.word, ids);
        let words = if scale != 1.0 { words * scale } else { words };
        let positions: Vec<i64> = (0..rows)
            .flat_map(|_| (0..seq).map(|t| (t + POSITION_OFFSET) as i64))
            .collect();
        let positions =
            Tensor::<2, Int>::from_data(TensorData::new(positions, [rows, seq]), device);
        self.embed_norm
            .forward(words + embedding(self.positions.clone(), positions))
    }
}

impl BartForSequenceClassification {
    /// Logits `[rows, num_labels]` of one padded batch. Fails when a row has no `</s>`.
    pub fn forward(&self, batch: &Batch, device: &Device) -> Result<Tensor<2>, String> {
        let c = &self.config;
        let (rows, seq) = (batch.rows.len(), batch.seq_len);
        let eos = c.eos_token_id as i64;
        let mut last_eos = Vec::with_capacity(rows);
        for (r, row) in batch.input_ids.chunks(seq.max(1)).enumerate() {
            match row.iter().rposition(|&id| id == eos) {
                Some(t) => last_eos.push(t as i64),
                None => {
                    return Err(format!(
                        "pair {} has no </s> (id {eos}); BART's head reads the decoder at the last one \
                         (does tokenizer.json add the special tokens?)",
                        batch.rows.get(r).map_or(r, |&i| i + 1)
                    ))
                }
            }
        }
        let scale = if c.scale_embedding {
            (c.d_model as f64).sqrt()
        } else {
            1.0
        };
        let inputs = batch.inputs(device, false);
        let mut x = self.encoder.embed(inputs.ids, scale, device);
        for layer in &self.encoder.layers {
            x = layer.self_attention.forward(x, inputs.mask_bias.clone());
            x = layer.feed_forward.forward(x);
        }
        // shift_tokens_right: the decoder reads [start, ids[..seq − 1]].
        let shifted: Vec<i64> = batch
            .input_ids
            .chunks(seq.max(1))
            .flat_map(|row| {
                std::iter::once(c.decoder_start_token_id as i64)
                    .chain(row[..row.len().saturating_sub(1)].iter().copied())
            })
            .collect();
        let shifted = Tensor::<2, Int>::from_data(TensorData::new(shifted, [rows, seq]), device);
        let causal: Vec<f32> = (0..seq)
            .flat_map(|i| (0..seq).map(move |j| if j > i { MASK_BIAS } else { 0.0 }))
            .collect();
        let causal = Tensor::<4>::from_data(TensorData::new(causal, [1, 1, seq, seq]), device);
        let mut y = self.decoder.embed(shifted, scale, device);
        for layer in &self.decoder.layers {
            y = layer.self_attention.forward(y, causal.clone());
            if let Some(cross) = &layer.cross_attention {
                y = cross.attend(y, x.clone(), inputs.mask_bias.clone());
            }
            y = layer.feed_forward.forward(y);
        }
        let width = c.d_model;
        let index = Tensor::<1, Int>::from_data(TensorData::new(last_eos, [rows]), device)
            .reshape([rows, 1, 1])
            .expand([rows, 1, width]);
        let at_eos = y.gather(1, index);
        Ok(self.head.forward(at_eos))
    }
}

/// Where the word table is stored: `shared.weight`, or each stack's own `embed_tokens`.
fn word_table_names(file: &WeightFile<'_>) -> (String, String) {
    let names: Vec<String> = file
        .tensors()
        .into_iter()
        .map(|(n, _)| {
            n.strip_prefix(Family::Bart.prefix())
                .map(str::to_string)
                .unwrap_or(n)
        })
        .collect();
    let pick = |stack: &str| {
        let own = format!("{stack}.{OWN_WORDS}");
        if names.contains(&own) {
            own
        } else {
            SHARED_WORDS.to_string()
        }
    };
    (pick(ENCODER), pick(DECODER))
}

/// Reads `model.safetensors` bytes into the network, checked as the other families are.
pub fn load(
    config: BartConfig,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<BartForSequenceClassification, LoadError> {
    let file = WeightFile::open(weights)?;
    let (encoder_words, decoder_words) = word_table_names(&file);
    let tied = encoder_words == decoder_words;
    let tensors = Tensors::index(&file, |stored| {
        let name = stored.strip_prefix(Family::Bart.prefix()).unwrap_or(stored);
        // A tied table may be stored under all three names; the unused spellings are skipped.
        let table = name == SHARED_WORDS || name.ends_with(&format!(".{OWN_WORDS}"));
        (!table || name == encoder_words || name == decoder_words).then(|| name.to_string())
    })?;
    let mut expected = config.expected_shapes();
    if let Some(shape) = expected.remove(SHARED_WORDS) {
        expected.insert(encoder_words.clone(), shape.clone());
        expected.insert(decoder_words.clone(), shape);
    }
    if let Some(&[v, d]) = tensors.shape(&encoder_words) {
        for (key, config_value, weights) in [
            ("vocab_size", config.vocab_size, v),
            ("d_model", config.d_model, d),
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
    check_weights_len(element_count(&config.expected_shapes()), byte_len(&file))?;
    tensors.check(&expected)?;
    let dense = |name: &str| tensors.dense(name, device);
    let norm = |name: &str| tensors.layer_norm(name, LAYER_NORM_EPS, device);
    let attention = |stack: &str, n: usize, a: &str, heads: usize| {
        let [q, k, v, out] = ATTENTION_PARTS.map(|part| layer(stack, n, &format!("{a}.{part}")));
        Ok::<_, LoadError>(Attention {
            query: dense(&q)?,
            key: dense(&k)?,
            value: dense(&v)?,
            output: dense(&out)?,
            layer_norm: norm(&layer(stack, n, &attention_norm(a)))?,
            heads,
        })
    };
    let encoder_word = tensors.word_chunks(&encoder_words, MAX_TENSOR_BYTES, device)?;
    let decoder_word = if tied {
        encoder_word.clone()
    } else {
        tensors.word_chunks(&decoder_words, MAX_TENSOR_BYTES, device)?
    };
    let stack = |stack: &str, layers: usize, heads: usize, word: Vec<WordChunk>| {
        let mut built = Vec::with_capacity(layers);
        for n in 0..layers {
            built.push(BartLayer {
                self_attention: attention(stack, n, SELF_ATTENTION, heads)?,
                cross_attention: (stack == DECODER)
                    .then(|| attention(stack, n, CROSS_ATTENTION, heads))
                    .transpose()?,
                feed_forward: FeedForward {
                    intermediate: dense(&layer(stack, n, FC1))?,
                    output: dense(&layer(stack, n, FC2))?,
                    layer_norm: norm(&layer(stack, n, FINAL_NORM))?,
                    act: config.activation_function,
                },
            });
        }
        Ok::<_, LoadError>(Stack {
            word,
            positions: tensors.matrix(&format!("{stack}.{POSITIONS}"), device)?,
            embed_norm: norm(&format!("{stack}.{EMBED_NORM}"))?,
            layers: built,
        })
    };
    let encoder = stack(
        ENCODER,
        config.encoder_layers,
        config.encoder_attention_heads,
        encoder_word,
    )?;
    let decoder = stack(
        DECODER,
        config.decoder_layers,
        config.decoder_attention_heads,
        decoder_word,
    )?;
    Ok(BartForSequenceClassification {
        head: ClassificationHead {
            dense: dense(HEAD_DENSE)?,
            out_proj: dense(HEAD_OUT)?,
            act: HeadAct::Tanh,
        },
        config,
        encoder,
        decoder,
    })
}
