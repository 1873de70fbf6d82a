//! `tabprobe train-tokenizer`: the demo models' byte-level BPE tokenizer, trained on
//! INFOTABS train (every hypothesis and every table's paragraph).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use tabprobe_core::linearize::{Linearization, LinearizeSettings};
use tabprobe_model::train;

use crate::infotabs_split::read_split;
use crate::io;

/// `tabprobe train-tokenizer`.
#[derive(Debug, Args)]
pub struct TokenizerArgs {
    /// The INFOTABS `data` folder.
    #[arg(long, default_value = "../shared/data/infotabs/data")]
    pub infotabs: PathBuf,
    /// Vocabulary size (specials and the 256 byte symbols included).
    #[arg(long, default_value_t = 8000)]
    pub vocab_size: usize,
    /// Keep merges seen at least this often.
    #[arg(long, default_value_t = 2)]
    pub min_frequency: u64,
    /// Where to write `tokenizer.json`.
    #[arg(long)]
    pub out: PathBuf,
}

/// Trains the tokenizer on INFOTABS train: every hypothesis and every table's paragraph.
pub fn run_tokenizer(args: &TokenizerArgs) -> Result<(), String> {
    let start = Instant::now();
    let pairs = read_split(
        &args.infotabs,
        "train",
        LinearizeSettings {
            strategy: Linearization::Paragraph,
            ..LinearizeSettings::default()
        },
        None,
    )?;
    let mut texts: Vec<String> = pairs.iter().map(|p| p.hypothesis.clone()).collect();
    let mut seen = std::collections::BTreeSet::new();
    texts.extend(
        pairs
            .iter()
            .filter(|p| seen.insert(p.premise.clone()))
            .map(|p| p.premise.clone()),
    );
    let json = train::train_tokenizer(&texts, args.vocab_size, args.min_frequency)?;
    io::write(&args.out, &json)?;
    println!(
        "wrote {}: vocabulary {} from {} texts in {:.1} s",
        args.out.display(),
        args.vocab_size,
        texts.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
