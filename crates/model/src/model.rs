//! [`NliModel`]: a loaded checkpoint (config, labels, tokenizer, weights on a device) that
//! scores premise/hypothesis pairs — synchronously for native code ([`PairScorer`]) and
//! asynchronously for the browser, where WebGPU results can only be read back with `await`.

use burn::prelude::*;
use burn::tensor::FloatDType;
use tabprobe_core::checkpoint::{CheckpointFiles, TokenizerConfig};
use tabprobe_core::scoring::{
    ModelId, NonFinite, Pair, PairOrder, PairScore, PairScorer, Precision, ScoreError,
};

use crate::blocks::activation::is_plain_flex;
use crate::blocks::nn::Int8Error;
use crate::error::LoadError;
use crate::families::encoder::config::RobertaConfig;
use crate::families::labels::LabelMap;
use crate::loading::weight_file::weights_sha256;
use crate::loading::weight_file::WeightSource;
use crate::network::{self, Network, Shape};
use crate::text::batch::{
    max_rows_within, plan_batches, plan_batches_padded, Batch, MAX_TENSOR_BYTES,
};
use crate::text::tokenize::{EncodedPair, PairTokenizer, TokenizeError};

/// Pairs per forward pass unless [`NliModel::set_batch_size`] says otherwise (core's, shared
/// with the page, which does not link this crate).
pub use tabprobe_core::scoring::DEFAULT_BATCH_SIZE;

pub use tabprobe_core::checkpoint::TokenizerFiles;

/// The bytes of the files of a Hugging Face checkpoint folder (no filesystem needed): core's
/// one checkpoint type, borrowing the bytes.
pub type ModelFiles<'a> = CheckpointFiles<&'a [u8]>;

/// A checkpoint's files for [`NliModel::load_unhashed_from`]: config and tokenizer in memory,
/// the weights wherever a [`WeightSource`] reads them from (the browser's model worker: a
/// `Blob` read a tensor at a time, never held whole in its memory).
#[derive(Clone, Copy)]
pub struct ModelSources<'a> {
    /// `config.json`.
    pub config_json: &'a [u8],
    /// The tokenizer's file(s).
    pub tokenizer: TokenizerFiles<&'a [u8]>,
    /// `tokenizer_config.json`, where the checkpoint has one (its `model_max_length`).
    pub tokenizer_config_json: Option<&'a [u8]>,
    /// `model.safetensors`.
    pub weights: &'a dyn WeightSource,
}

/// Why [`NliModel::set_precision`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrecisionError {
    /// The device cannot compute in f16.
    #[error("f16-mixed needs f16 arithmetic on the device (a WebGPU adapter with shader-f16, or a Vulkan GPU with 16-bit float support); this device has none")]
    Unsupported,
    /// The weights were rounded to f16 already.
    #[error("the weights were rounded to f16 when f16-mixed was chosen; load the checkpoint again to run in f32")]
    AlreadyRounded,
    /// int8 runs on the CPU path only.
    #[error("int8 runs on the CPU path only (burn's flex backend); this model is on a GPU: load it on the CPU for int8")]
    Int8NeedsCpu,
    /// A dense layer could not be quantized.
    #[error("int8: {0}")]
    Int8(#[from] Int8Error),
}

/// A model loaded by [`NliModel::load_unhashed`], waiting for the SHA-256 of its weights (its
/// identity in results and share links) before it can be used.
#[derive(Debug)]
pub struct Unhashed(NliModel);

impl Unhashed {
    /// The model, identified by `weights_sha256`: the lower-case hex SHA-256 of exactly the
    /// weights it was loaded from.
    pub fn with_sha256(self, weights_sha256: String) -> NliModel {
        let mut model = self.0;
        model.id.weights_sha256 = weights_sha256;
        model
    }
}

/// An NLI classifier of any supported family, ready to score pairs on one device.
#[derive(Debug, Clone)]
pub struct NliModel {
    id: ModelId,
    shape: Shape,
    labels: LabelMap,
    tokenizer: PairTokenizer,
    network: Network,
    device: Device,
    batch_size: usize,
    pad_multiple: Option<usize>,
    /// Bytes the largest activation of a forward pass may take ([`NliModel::set_tensor_budget`]).
    tensor_budget: usize,
}

impl NliModel {
    /// Loads a checkpoint from bytes onto `device`. `name` is the human name kept in
    /// [`ModelId`] (e.g. the folder name); the identity proper is the weights' SHA-256.
    ///
    /// In the browser, initialise a WebGPU device first (`Device::wgpu_options().init_async()`);
    /// loading only uploads, it never reads back, so it is safe there.
    ///
    /// The weights are hashed last, once everything else has loaded: a file that fails its
    /// checks is refused without the hashing's cost (about 29 MB/s in wasm).
    pub fn load(name: &str, files: ModelFiles<'_>, device: &Device) -> Result<Self, LoadError> {
        let unhashed = Self::load_unhashed(name, files, device)?;
        Ok(unhashed.with_sha256(weights_sha256(files.weights)))
    }

    /// [`NliModel::load`] for a caller that has already hashed `files.weights`:
    /// `weights_sha256` must be the lower-case hex SHA-256 of exactly those bytes.
    pub fn load_with_sha256(
        name: &str,
        files: ModelFiles<'_>,
        weights_sha256: String,
        device: &Device,
    ) -> Result<Self, LoadError> {
        Ok(Self::load_unhashed(name, files, device)?.with_sha256(weights_sha256))
    }

    /// [`NliModel::load`] without the hash: the caller supplies it with
    /// [`Unhashed::with_sha256`]. The browser's model worker starts Web Crypto's digest (native
    /// code, off the worker's thread) before this and awaits it after, so hashing overlaps the
    /// load, where this crate's `sha2` would run in wasm at about 29 MB/s (49 s of a 1.42 GB
    /// checkpoint's 53 s load).
    pub fn load_unhashed(
        name: &str,
        files: ModelFiles<'_>,
        device: &Device,
    ) -> Result<Unhashed, LoadError> {
        let weights = files.weights;
        let sources = ModelSources {
            config_json: files.config_json,
            tokenizer: files.tokenizer,
            tokenizer_config_json: files.tokenizer_config,
            weights: &weights,
        };
        Self::load_unhashed_from(name, sources, device)
    }

    /// [`NliModel::load_unhashed`] with the weights read from `files.weights` a tensor at a
    /// time: only the header and one tensor's bytes are held by this call at once (the largest
    /// table in pieces of at most the tensor budget). The caller hashes the same bytes
    /// ([`crate::loading::weight_file::weights_sha256_of`] reads them in pieces too).
    pub fn load_unhashed_from(
        name: &str,
        files: ModelSources<'_>,
        device: &Device,
    ) -> Result<Unhashed, LoadError> {
        // Config and labels are checked inside `network::load` before any weight is read;
        // the tokenizer is checked against the config before the weights are converted.
        let (shape, _) = network::check_config(files.config_json)?;
        // Truncate where `transformers` does: `tokenizer_config.json`'s `model_max_length`
        // when it is below what the position table holds (a folder saved with a shorter limit
        // than its network's would otherwise score long pairs on text Python never shows it).
        let tokenizer_config = match files.tokenizer_config_json {
            Some(bytes) => {
                TokenizerConfig::parse(bytes).map_err(|e| LoadError::Tokenizer(e.to_string()))?
            }
            None => TokenizerConfig::default(),
        };
        let max_tokens = tokenizer_config.max_tokens(shape.max_tokens);
        let (tokenizer, tokenizer_file) = match files.tokenizer {
            TokenizerFiles::Json(bytes) => (
                PairTokenizer::from_json_bytes_with(
                    bytes,
                    max_tokens,
                    &tokenizer_config,
                    model_type(files.config_json).as_deref(),
                )?,
                "tokenizer.json",
            ),
            TokenizerFiles::VocabMerges {
                vocab_json,
                merges_txt,
            } => (
                PairTokenizer::from_vocab_merges(vocab_json, merges_txt, max_tokens)?,
                "vocab.json",
            ),
        };
        // An id past the embedding table would index out of bounds on the device (a panic on
        // the CPU, a silently wrong row on WebGPU). The count says "from another checkpoint"
        // most plainly; the largest id also catches sparse ids and post-processor specials.
        if tokenizer.vocab_size() > shape.vocab_size {
            return Err(LoadError::TokenizerMismatch {
                tokenizer: tokenizer.vocab_size(),
                model: shape.vocab_size,
            });
        }
        if let Some((id, token)) = tokenizer.largest_id() {
            if id as usize >= shape.vocab_size {
                return Err(LoadError::TokenizerIdOutOfRange {
                    file: tokenizer_file.to_string(),
                    token,
                    id: id.into(),
                    vocab_size: shape.vocab_size,
                });
            }
        }
        let network::Loaded {
            network,
            mut shape,
            labels,
        } = network::load(files.config_json, files.weights, device)?;
        // Everything after the tokenizer (batch plans, the model bar's "at most N tokens")
        // goes by the length pairs are truncated to.
        shape.max_tokens = max_tokens;
        Ok(Unhashed(Self {
            id: ModelId {
                name: name.to_string(),
                weights_sha256: String::new(),
                label_set: labels.label_set,
                precision: Default::default(),
                label_only: false,
                scores_file: false,
            },
            shape,
            labels,
            tokenizer,
            network,
            device: device.clone(),
            batch_size: DEFAULT_BATCH_SIZE,
            pad_multiple: None,
            tensor_budget: MAX_TENSOR_BYTES,
        }))
    }

    /// Which model this is (name, SHA-256 of the weights, label set).
    pub fn id(&self) -> &ModelId {
        &self.id
    }

    /// The architecture and sizes (every family).
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The parsed `config.json` of an encoder-family checkpoint (RoBERTa, XLM-RoBERTa, BERT,
    /// ELECTRA, DistilBERT); `None` for the others.
    pub fn encoder_config(&self) -> Option<&RobertaConfig> {
        match &self.network {
            Network::Encoder { config, .. } => Some(config),
            _ => None,
        }
    }

    /// How the model's outputs map to ENTAIL / NEUTRAL / CONTRADICT.
    pub fn labels(&self) -> &LabelMap {
        &self.labels
    }

    /// The pair tokenizer (for callers that tokenize once and score several times).
    pub fn tokenizer(&self) -> &PairTokenizer {
        &self.tokenizer
    }

    /// The network itself.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The device the weights live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Pairs per forward pass (at least 1). Larger batches are faster per pair until memory
    /// or padding waste wins; pairs are length-sorted, so padding waste stays small. Long
    /// sequences get smaller batches anyway, so that no activation exceeds the tensor budget
    /// ([`NliModel::set_tensor_budget`]; [`crate::text::batch::MAX_TENSOR_BYTES`] unless set).
    pub fn set_batch_size(&mut self, batch_size: usize) {
        self.batch_size = batch_size.max(1);
    }

    /// `Some(m)`: pad every pair to its own length rounded up to a multiple of `m` (at most
    /// the model's maximum) and batch only pairs of one padded length, so a pair's scores are
    /// the same bits whichever pairs share its batch: a probe run cut into shards then merges
    /// to exactly the single run's file. `None` (the default): pad each batch to its longest
    /// pair, the least padding. Padding is masked either way; it only moves rounding (in the
    /// last bits) through the order of floating-point sums.
    pub fn set_pad_to_multiple(&mut self, multiple: Option<usize>) {
        self.pad_multiple = multiple.filter(|&m| m > 0);
    }

    /// Bytes the largest activation of one forward pass may take (default
    /// [`MAX_TENSOR_BYTES`], half of WebGPU's default storage-binding limit); a batch whose
    /// activations would be larger runs as several passes. A GPU with larger limits can take
    /// more rows per pass: `tabprobe bench --tensor-budget-mib` measures what that gives.
    pub fn set_tensor_budget(&mut self, bytes: usize) {
        self.tensor_budget = bytes;
    }

    /// Runs the model at `precision` from now on; its [`ModelId`] says so, so results, run
    /// files and merges keep the precisions apart.
    /// - [`Precision::F16Mixed`]: the transformer body's dense weights are rounded to f16 on
    ///   the device (see [`Network::body_dense_mut`] and [`crate::blocks::nn::Dense::forward`]).
    ///   Refused where the device has no f16 arithmetic (a WebGPU adapter without
    ///   `shader-f16`), and back to f32 once rounded: reload for f32.
    /// - [`Precision::Int8`]: the same layers quantized to int8 on the host
    ///   ([`crate::blocks::int8`]), on the CPU path only; back to f32 (or on to f16-mixed) at
    ///   any time, since the f32 weights are kept.
    pub fn set_precision(&mut self, precision: Precision) -> Result<(), PrecisionError> {
        if precision == self.id.precision {
            return Ok(());
        }
        match (self.id.precision, precision) {
            (Precision::F16Mixed, _) => return Err(PrecisionError::AlreadyRounded),
            (_, Precision::Int8) => {
                if !is_plain_flex(&self.device) {
                    return Err(PrecisionError::Int8NeedsCpu);
                }
                for dense in self.network.body_dense_mut() {
                    dense.quantize_int8()?;
                }
            }
            (_, Precision::F32) => {
                for dense in self.network.body_dense_mut() {
                    dense.drop_int8();
                }
            }
            (_, Precision::F16Mixed) => {
                if !self.device.supports_dtype(FloatDType::F16) {
                    return Err(PrecisionError::Unsupported);
                }
                for dense in self.network.body_dense_mut() {
                    dense.drop_int8();
                    dense.set_weight_dtype(FloatDType::F16);
                }
            }
        }
        self.id.precision = precision;
        Ok(())
    }

    /// The precision the model runs at.
    pub fn precision(&self) -> Precision {
        self.id.precision
    }

    /// The current batch size.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// Tokenizes one pair in its order (only the premise is ever truncated). An id past the
    /// embedding table is an error here rather than an out-of-bounds read on the device (the
    /// load-time check covers the vocabulary; this covers anything else a tokenizer emits).
    pub fn encode_pair(&self, pair: &Pair) -> Result<EncodedPair, TokenizeError> {
        let encoded = self
            .tokenizer
            .encode_ordered(&pair.premise, &pair.hypothesis, pair.order)?;
        let vocab_size = self.shape.vocab_size;
        match encoded.ids.iter().find(|&&id| id as usize >= vocab_size) {
            Some(id) => Err(TokenizeError::Tokenizer(format!(
                "token id {id} is past the model's vocab_size {vocab_size}"
            ))),
            None => Ok(encoded),
        }
    }

    /// Tokenizes every pair (only premises are ever truncated).
    pub fn encode(&self, pairs: &[Pair]) -> Result<Vec<EncodedPair>, ScoreError> {
        pairs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                self.encode_pair(p)
                    .map_err(|e| ScoreError::Failed(format!("pair {}: {e}", i + 1)))
            })
            .collect()
    }

    /// Scores pairs, blocking on each batch's result. Native only in practice: on WebGPU in
    /// the browser the blocking read panics — use [`NliModel::score_async`] there.
    /// A pair whose logits are not all finite ends the call with [`ScoreError::NonFinite`]
    /// naming the model, the pair and its hypothesis (as every scoring method here does).
    pub fn score_blocking(&self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        let encoded = self.encode(pairs)?;
        self.score_encoded_blocking(&encoded)
            .map_err(|e| with_hypothesis(e, pairs))
    }

    /// Scores already tokenized pairs, blocking.
    pub fn score_encoded_blocking(
        &self,
        encoded: &[EncodedPair],
    ) -> Result<Vec<PairScore>, ScoreError> {
        let mut out = vec![None; encoded.len()];
        for batch in self.plan(encoded) {
            let data = self
                .forward(&batch)?
                .try_into_data()
                .map_err(|e| ScoreError::Failed(format!("reading logits failed: {e:?}")))?;
            self.collect(&batch, data, encoded, &mut out)?;
        }
        finish(out)
    }

    /// Scores pairs with asynchronous readback; works on every device, the browser's WebGPU
    /// included. Batches run one after another, so the caller can interleave progress.
    pub async fn score_async(&self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        let encoded = self.encode(pairs)?;
        self.score_encoded_async(&encoded)
            .await
            .map_err(|e| with_hypothesis(e, pairs))
    }

    /// Scores already tokenized pairs with asynchronous readback.
    pub async fn score_encoded_async(
        &self,
        encoded: &[EncodedPair],
    ) -> Result<Vec<PairScore>, ScoreError> {
        let mut out = vec![None; encoded.len()];
        for batch in self.plan(encoded) {
            let data = self
                .forward(&batch)?
                .into_data_async()
                .await
                .map_err(|e| ScoreError::Failed(format!("reading logits failed: {e:?}")))?;
            self.collect(&batch, data, encoded, &mut out)?;
        }
        finish(out)
    }

    /// Runs one short pair so shaders are compiled and buffers allocated before the user waits
    /// on real work. Only a failure to run is an error here: non-finite outputs on this
    /// made-up pair are not, because the error for them must name a pair and example of the
    /// user's own (it comes from the first run, as in every caller that scores).
    pub async fn warm_up(&self) -> Result<(), ScoreError> {
        let pair = Pair {
            premise: "The sky is blue.".into(),
            hypothesis: "The sky has a colour.".into(),
            order: PairOrder::PremiseFirst,
        };
        match self.score_async(std::slice::from_ref(&pair)).await {
            Ok(_) | Err(ScoreError::NonFinite(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The batches [`NliModel::score_encoded_async`] runs `encoded` in, each as its rows
    /// (positions in `encoded`, in the batch's order). Scoring one batch's rows on their own,
    /// in this order, runs exactly that batch again — same rows, same padding — so workers
    /// that each score whole batches compute every pair as a single worker would, to the bit.
    pub fn batch_rows(&self, encoded: &[EncodedPair]) -> Vec<Vec<usize>> {
        self.plan(encoded).into_iter().map(|b| b.rows).collect()
    }

    fn plan(&self, encoded: &[EncodedPair]) -> Vec<Batch> {
        let c = &self.shape;
        let max_len = c.max_tokens;
        let pad_len = self
            .pad_multiple
            .map(|m| move |n: usize| n.div_ceil(m).saturating_mul(m).min(max_len.max(n)));
        let budget = |seq| {
            max_rows_within(
                self.tensor_budget,
                seq,
                c.heads,
                c.intermediate_size,
                c.hidden_size,
            )
        };
        match &pad_len {
            Some(f) => plan_batches_padded(
                encoded,
                self.batch_size,
                c.pad_token_id as u32,
                budget,
                Some(f),
            ),
            None => plan_batches(encoded, self.batch_size, c.pad_token_id as u32, budget),
        }
    }

    fn forward(&self, batch: &Batch) -> Result<Tensor<2>, ScoreError> {
        self.network
            .forward(batch, &self.device)
            .map_err(ScoreError::Failed)
    }

    /// Turns one batch's logits into scores at the rows' original positions.
    fn collect(
        &self,
        batch: &Batch,
        data: TensorData,
        encoded: &[EncodedPair],
        out: &mut [Option<PairScore>],
    ) -> Result<(), ScoreError> {
        let values = data
            .try_into_vec_as::<f32>()
            .map_err(|e| ScoreError::Failed(format!("logits have an unexpected type: {e:?}")))?;
        let n = self.labels.labels.len();
        if values.len() != batch.rows.len() * n {
            return Err(ScoreError::Failed(format!(
                "expected {} logits, got {}",
                batch.rows.len() * n,
                values.len()
            )));
        }
        for (logits, &row) in values.chunks_exact(n).zip(&batch.rows) {
            let probs = softmax(logits);
            let score = PairScore {
                probs: self.labels.to_canonical(&probs),
                logits: logits.to_vec(),
                truncated: encoded[row].truncated,
                premise_tokens_dropped: encoded[row].premise_tokens_dropped,
            };
            // Refused here, where the model scores, so no caller can pass a NaN on (JSON would
            // write it as `null`, which no run file, reply or report can read back).
            if !score.is_finite() {
                return Err(ScoreError::NonFinite(NonFinite {
                    model: self.id.name.clone(),
                    index: row,
                    hypothesis: None,
                    owner: None,
                    logits: score.logits,
                }));
            }
            out[row] = Some(score);
        }
        Ok(())
    }
}

/// `config.json`'s `model_type` (which tokenizer class `transformers` builds when
/// `tokenizer_config.json` names none); `None` when absent (the config was checked already).
fn model_type(config_json: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(config_json).ok()?;
    value["model_type"].as_str().map(str::to_string)
}

/// Softmax in f64 (then f32), stable for any logit range.
fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let exps: Vec<f64> = logits.iter().map(|&l| (l as f64 - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| (e / sum) as f32).collect()
}

/// A non-finite score's error with its pair's hypothesis (the encoded methods see only ids).
fn with_hypothesis(e: ScoreError, pairs: &[Pair]) -> ScoreError {
    match e {
        ScoreError::NonFinite(nf) => {
            let hypothesis = pairs.get(nf.index).map(|p| p.hypothesis.as_str());
            ScoreError::NonFinite(nf.with_hypothesis(hypothesis))
        }
        other => other,
    }
}

fn finish(out: Vec<Option<PairScore>>) -> Result<Vec<PairScore>, ScoreError> {
    out.into_iter()
        .enumerate()
        .map(|(i, s)| s.ok_or_else(|| ScoreError::Failed(format!("pair {} was not scored", i + 1))))
        .collect()
}

impl PairScorer for NliModel {
    fn score(&mut self, pairs: &[Pair]) -> Result<Vec<PairScore>, ScoreError> {
        self.score_blocking(pairs)
    }

    fn model_id(&self) -> ModelId {
        self.id.clone()
    }
}
