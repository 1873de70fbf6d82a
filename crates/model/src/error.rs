//! Loading errors a user can act on: what is wrong with the checkpoint folder they gave us.

use thiserror::Error;

/// Why a checkpoint (config, weights, tokenizer) could not be turned into a model.
///
/// Every variant names the file, tensor or key at fault, so the message alone tells a user
/// which file to fix or which checkpoint does not fit.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LoadError {
    /// `config.json` is not valid JSON or lacks a required key.
    #[error("config.json could not be read: {0}")]
    ConfigParse(String),
    /// `config.json` names an architecture this crate does not implement.
    #[error("config.json: {found} is not a supported architecture; supported model_type values: {supported}")]
    UnsupportedArchitecture {
        /// The `model_type` (and class) as written.
        found: String,
        /// What is supported.
        supported: String,
    },
    /// `config.json` is valid but describes something this crate cannot run.
    #[error("config.json: {key} = {value} is not supported: {why}")]
    UnsupportedConfig {
        /// The config key.
        key: String,
        /// Its value as written.
        value: String,
        /// What would be accepted instead.
        why: String,
    },
    /// `config.json` declares a size past the limit this crate accepts (far above any real
    /// checkpoint; see the `MAX_*` constants in [`crate::families::encoder::config`]).
    #[error("config.json: {key} = {value} is over the limit of {limit} (no real checkpoint is this large; is the file damaged?)")]
    ConfigOverLimit {
        /// The config key.
        key: String,
        /// Its value as written.
        value: u64,
        /// The largest value accepted.
        limit: u64,
    },
    /// `config.json` implies more weight bytes than `model.safetensors` holds.
    #[error(
        "config.json implies {} parameters, at least {} bytes of weights, but model.safetensors is {file_bytes} bytes (config from a larger model?)",
        count_or_overflow(*parameters), count_or_overflow(*implied_bytes)
    )]
    WeightsTooSmall {
        /// Parameters the config implies (`None`: more than fits in 64 bits).
        parameters: Option<u64>,
        /// Bytes those parameters take at 2 bytes each (`None`: more than fits in 64 bits).
        implied_bytes: Option<u64>,
        /// Size of `model.safetensors`.
        file_bytes: u64,
    },
    /// The labels in `id2label` do not map to ENTAIL / NEUTRAL / CONTRADICT (docs/data-formats.md#labels).
    #[error(
        "the model's labels {labels:?} do not map to ENTAIL/NEUTRAL/CONTRADICT ({why}); \
         expected names like entailment/neutral/contradiction or entailed/refuted in config.json id2label"
    )]
    UnmappedLabels {
        /// The labels in the model's own order.
        labels: Vec<String>,
        /// What exactly is wrong with them.
        why: String,
    },
    /// The weight file is not a readable safetensors file.
    #[error("model.safetensors could not be read: {0}")]
    WeightsParse(String),
    /// The weight file's bytes could not be fetched from where they are held (a picked file
    /// changed or removed since it was picked, say).
    #[error("model.safetensors could not be read from its source: {0}")]
    WeightsRead(String),
    /// A tensor the model needs is not in the weight file.
    #[error("the weights lack the tensor {name:?} (is this a …ForSequenceClassification checkpoint of the family config.json names?)")]
    MissingTensor {
        /// The Hugging Face name that was looked for (without the base model's prefix).
        name: String,
    },
    /// The weight file holds a tensor this model has no place for.
    #[error("the weights have a tensor this classifier does not use: {name:?}")]
    UnexpectedTensor {
        /// The tensor's name as stored.
        name: String,
    },
    /// A tensor has a shape that does not fit the configuration.
    #[error("tensor {name:?} has shape {found:?}, expected {expected:?}")]
    ShapeMismatch {
        /// The tensor's name as stored.
        name: String,
        /// The shape the config implies.
        expected: Vec<usize>,
        /// The shape in the file.
        found: Vec<usize>,
    },
    /// A tensor is stored in a dtype other than f32, f16 or bf16.
    #[error("tensor {name:?} is stored as {dtype}; only F32, F16 and BF16 weights are supported")]
    UnsupportedDtype {
        /// The tensor's name as stored.
        name: String,
        /// The dtype as safetensors names it.
        dtype: String,
    },
    /// `config.json` and the weights describe different models.
    #[error("config.json says {key} = {config}, but the weights have {weights} (config and weights come from different checkpoints?)")]
    ConfigWeightsMismatch {
        /// The config key that disagrees.
        key: String,
        /// Its value in config.json.
        config: usize,
        /// The value the weights imply.
        weights: usize,
    },
    /// A tokenizer can produce an id past the model's embedding table.
    #[error("{file}: token {token:?} has id {id}, but the model's vocab_size is {vocab_size}, so the embedding table has no row for it (tokenizer from another checkpoint?)")]
    TokenizerIdOutOfRange {
        /// The tokenizer file the id comes from (`tokenizer.json` or `vocab.json`).
        file: String,
        /// The token.
        token: String,
        /// Its id.
        id: u64,
        /// `vocab_size` of the model.
        vocab_size: usize,
    },
    /// The tokenizer files could not be read.
    #[error("tokenizer could not be read: {0}")]
    Tokenizer(String),
    /// The tokenizer produces ids the model's embedding table does not have.
    #[error("the tokenizer has {tokenizer} tokens but the model's vocab_size is {model} (tokenizer from another checkpoint?)")]
    TokenizerMismatch {
        /// Vocabulary size of the tokenizer, added tokens included.
        tokenizer: usize,
        /// `vocab_size` of the model.
        model: usize,
    },
}

/// A count for a message: the number, or "more than 2^64" when it overflowed.
fn count_or_overflow(n: Option<u64>) -> String {
    n.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string())
}
