//! Loading from a [`WeightSource`] that hands over one byte range at a time (what the browser
//! worker does with a `Blob`): the model equals the one loaded from the whole file in memory,
//! bit for bit, and no read asks for more than one tensor's bytes.

mod common;

use std::borrow::Cow;
use std::cell::RefCell;

use common::{golden, load_variant, read};
use tabprobe_model::loading::weight_file::weights_sha256_of;
use tabprobe_model::{Device, ModelSources, NliModel, TokenizerFiles, WeightSource};

/// A file in memory that hands out copies of the ranges asked for and records them.
struct Recorded {
    bytes: Vec<u8>,
    reads: RefCell<Vec<(u64, u64)>>,
}

impl WeightSource for Recorded {
    fn byte_len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
        self.reads.borrow_mut().push((start, end));
        let range = start as usize..end as usize;
        self.bytes
            .get(range)
            .map(|b| Cow::Owned(b.to_vec()))
            .ok_or_else(|| format!("{start}..{end} is past the end"))
    }
}

#[test]
fn a_model_read_a_tensor_at_a_time_scores_exactly_as_one_read_whole() {
    let device = Device::flex();
    for variant in ["tiny-f32", "tiny-bf16"] {
        let config = read(&format!("{variant}/config.json"));
        let tokenizer = read("tiny-f32/tokenizer.json");
        let source = Recorded {
            bytes: read(&format!("{variant}/model.safetensors")),
            reads: RefCell::new(Vec::new()),
        };
        let sources = ModelSources {
            config_json: &config,
            tokenizer: TokenizerFiles::Json(&tokenizer),
            tokenizer_config_json: None,
            weights: &source,
        };
        let streamed = NliModel::load_unhashed_from(variant, sources, &device)
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        let reads = source.reads.borrow().clone();
        let sha256 = weights_sha256_of(&source).expect("hashes");
        let streamed = streamed.with_sha256(sha256);
        let whole = load_variant(variant, &device);
        assert_eq!(streamed.id(), whole.id(), "{variant}: same identity");

        let pairs = golden().pairs();
        let a = streamed.score_blocking(&pairs).expect("scores");
        let b = whole.score_blocking(&pairs).expect("scores");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.logits, y.logits, "{variant}: bit-identical logits");
        }

        // The header's length and the header, then one range per tensor (the tiny word table
        // fits one chunk), none overlapping and none past the file.
        let n = u64::from_le_bytes(source.bytes[..8].try_into().expect("8 bytes"));
        assert_eq!(reads[..2], [(0, 8), (8, 8 + n)], "{variant}");
        let mut data = reads[2..].to_vec();
        data.sort();
        assert!(
            data.windows(2).all(|w| w[0].1 <= w[1].0),
            "{variant}: no byte read twice"
        );
        assert!(data
            .iter()
            .all(|&(s, e)| s >= 8 + n && e <= source.byte_len()));
        // The largest read is one tensor — the word table, 1200 × 32 — and there is a read
        // per tensor (the tiny model has 2 layers of 16 tensors, embeddings and head: over 30).
        let largest = data.iter().map(|(s, e)| e - s).max().expect("reads");
        let width = if variant == "tiny-f32" { 4 } else { 2 };
        assert_eq!(largest, 1200 * 32 * width, "{variant}");
        assert!(data.len() > 30, "{variant}: {} reads", data.len());
    }
}

#[test]
fn a_source_that_fails_is_an_error_naming_the_tensor() {
    struct Failing(Vec<u8>);
    impl WeightSource for Failing {
        fn byte_len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read(&self, start: u64, end: u64) -> Result<Cow<'_, [u8]>, String> {
            // The header reads; the data does not (a picked file removed after picking).
            if start < 1024 {
                Ok(Cow::Borrowed(&self.0[start as usize..end as usize]))
            } else {
                Err("NotReadableError".into())
            }
        }
    }
    let config = read("tiny-f32/config.json");
    let tokenizer = read("tiny-f32/tokenizer.json");
    let source = Failing(read("tiny-f32/model.safetensors"));
    let sources = ModelSources {
        config_json: &config,
        tokenizer: TokenizerFiles::Json(&tokenizer),
        tokenizer_config_json: None,
        weights: &source,
    };
    let e = NliModel::load_unhashed_from("x", sources, &Device::flex())
        .expect_err("the data cannot be read");
    let message = e.to_string();
    assert!(
        message.starts_with("model.safetensors could not be read from its source: tensor \"")
            && message.ends_with("NotReadableError"),
        "{message}"
    );
}
