//! Any supported network behind one type: the family is read from `config.json`, the config
//! and weights are read the family's way, and scoring sees only [`Network::forward`] and the
//! [`Shape`] every family reports the same way.

use burn::prelude::*;

use crate::blocks::classifier::RobertaForSequenceClassification;
use crate::blocks::nn::Dense;
use crate::error::LoadError;
use crate::families::bart::{self, BartConfig, BartForSequenceClassification};
use crate::families::deberta::{self, DebertaV2Config, DebertaV2ForSequenceClassification};
use crate::families::encoder::config::RobertaConfig;
use crate::families::encoder::distilbert::DistilBertConfig;
use crate::families::encoder::loader::load_weights;
use crate::families::encoder::walk::parameter_count;
use crate::families::family::Family;
use crate::families::labels::LabelMap;
use crate::loading::weight_file::WeightSource;
pub use crate::shape::Shape;
use crate::text::batch::Batch;

/// A loaded network of one of the supported families.
#[derive(Debug, Clone)]
pub enum Network {
    /// RoBERTa, XLM-RoBERTa, BERT, ELECTRA, DistilBERT.
    Encoder {
        /// The network.
        network: Box<RobertaForSequenceClassification>,
        /// Its config (the encoder families' common keys).
        config: Box<RobertaConfig>,
    },
    /// DeBERTa-v2 and v3.
    DebertaV2(Box<DebertaV2ForSequenceClassification>),
    /// BART.
    Bart(Box<BartForSequenceClassification>),
}

/// A network with its shape and label map, as [`load`] returns it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The network on its device.
    pub network: Network,
    /// Its sizes.
    pub shape: Shape,
    /// Its labels.
    pub labels: LabelMap,
}

/// A checkpoint's config, parsed the way its family reads it.
#[derive(Debug, Clone)]
enum Config {
    Encoder(RobertaConfig),
    DebertaV2(DebertaV2Config),
    Bart(BartConfig),
}

fn parse(config_json: &[u8]) -> Result<Config, LoadError> {
    let family = Family::detect(config_json)?;
    Ok(match family {
        Family::Roberta | Family::XlmRoberta | Family::Bert | Family::Electra => {
            Config::Encoder(RobertaConfig::from_json_bytes_as(config_json, family)?)
        }
        Family::DistilBert => Config::Encoder(DistilBertConfig::encoder_config(config_json)?),
        Family::DebertaV2 => Config::DebertaV2(DebertaV2Config::from_json_bytes(config_json)?),
        Family::Bart => Config::Bart(BartConfig::from_json_bytes(config_json)?),
    })
}

/// Reads and checks `config_json` (family, sizes, labels) without touching any weight.
pub fn check_config(config_json: &[u8]) -> Result<(Shape, LabelMap), LoadError> {
    match parse(config_json)? {
        Config::Encoder(c) => encoder_parts(&c),
        Config::DebertaV2(c) => deberta::walk::parts(&c),
        Config::Bart(c) => bart::walk::parts(&c),
    }
}

/// Reads the family from `config_json`, then the config and the weights the family's way.
pub fn load(
    config_json: &[u8],
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<Loaded, LoadError> {
    match parse(config_json)? {
        Config::Encoder(c) => load_encoder(c, weights, device),
        Config::DebertaV2(c) => {
            let (shape, labels) = deberta::walk::parts(&c)?;
            let network = Network::DebertaV2(Box::new(deberta::load(c, weights, device)?));
            Ok(Loaded {
                network,
                shape,
                labels,
            })
        }
        Config::Bart(c) => {
            let (shape, labels) = bart::walk::parts(&c)?;
            let network = Network::Bart(Box::new(bart::load(c, weights, device)?));
            Ok(Loaded {
                network,
                shape,
                labels,
            })
        }
    }
}

/// Checks `config`, the labels and the weights of an encoder-family checkpoint.
pub fn encoder_parts(config: &RobertaConfig) -> Result<(Shape, LabelMap), LoadError> {
    let labels = LabelMap::from_config(config)?;
    let shape = Shape {
        family: config.family,
        vocab_size: config.vocab_size,
        hidden_size: config.hidden_size,
        layers: config.num_hidden_layers,
        heads: config.num_attention_heads,
        intermediate_size: config.intermediate_size,
        max_tokens: config.max_tokens(),
        pad_token_id: config.pad_token_id,
        parameters: parameter_count(config),
    };
    Ok((shape, labels))
}

fn load_encoder(
    config: RobertaConfig,
    weights: &dyn WeightSource,
    device: &Device,
) -> Result<Loaded, LoadError> {
    let (shape, labels) = encoder_parts(&config)?;
    let network = load_weights(&config, weights, device)?;
    Ok(Loaded {
        network: Network::Encoder {
            network: Box::new(network),
            config: Box::new(config),
        },
        shape,
        labels,
    })
}

impl Network {
    /// Logits `[rows, num_labels]` of one padded batch, in the model's own label order; an
    /// error only when a batch cannot be run at all (a BART row without `</s>`).
    pub fn forward(&self, batch: &Batch, device: &Device) -> Result<Tensor<2>, String> {
        Ok(match self {
            Self::Encoder { network, config } => {
                let family = config.family;
                let inputs = batch.inputs(device, family.positions_after_padding());
                // RoBERTa-likes put every token in segment 0 (type_vocab_size is 1).
                let types = match family {
                    Family::Bert | Family::Electra => Some(inputs.types),
                    _ => None,
                };
                network.forward_typed(inputs.ids, inputs.positions, types, inputs.mask_bias)
            }
            Self::DebertaV2(network) => network.forward(batch, device),
            Self::Bart(network) => network.forward(batch, device)?,
        })
    }

    /// The dense layers of the transformer body — every attention projection and
    /// feed-forward layer — which mixed precision stores in f16. Embeddings (and ELECTRA's
    /// embedding projection), the classification head and the pooler are left out: they
    /// stay f32, as PyTorch's autocast keeps a model's inputs and outputs.
    pub fn body_dense_mut(&mut self) -> Vec<&mut Dense> {
        let mut out = Vec::new();
        match self {
            Self::Encoder { network, .. } => {
                for layer in &mut network.encoder.layers {
                    out.extend(layer.attention.dense_mut());
                    out.extend(layer.feed_forward.dense_mut());
                }
            }
            Self::DebertaV2(network) => {
                for layer in &mut network.layers {
                    let a = &mut layer.attention;
                    out.extend([&mut a.query, &mut a.key, &mut a.value, &mut a.output]);
                    out.extend(a.pos_key.as_mut());
                    out.extend(a.pos_query.as_mut());
                    out.extend(layer.feed_forward.dense_mut());
                }
            }
            Self::Bart(network) => {
                let stacks = [&mut network.encoder, &mut network.decoder];
                for layer in stacks.into_iter().flat_map(|s| s.layers.iter_mut()) {
                    out.extend(layer.self_attention.dense_mut());
                    if let Some(cross) = layer.cross_attention.as_mut() {
                        out.extend(cross.dense_mut());
                    }
                    out.extend(layer.feed_forward.dense_mut());
                }
            }
        }
        out
    }
}
