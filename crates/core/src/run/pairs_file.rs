//! The pairs file (docs/scoring-elsewhere.md): every distinct premise/hypothesis pair of a
//! probe set — the pairs a run with the same settings scores, hypothesis-only and word-order
//! pairs included — as one JSON line each, for a model tabprobe cannot run to score elsewhere.
//!
//! A pair's id is a digest of exactly what a model sees ([`pair_id`]): the same pair has the
//! same id in every probe set, in the browser and natively, and a scores file for another
//! linearization or pair order names ids this set does not have.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::data::label::Label;
use crate::probe::ProbeSet;
use crate::scoring::{Pair, PairOrder};

/// Hex digits of a pair id (64 bits of SHA-256: among a million pairs, the chance that two
/// share an id is about 3 in 100 million).
pub const PAIR_ID_HEX: usize = 16;

/// One line of the pairs file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairLine {
    /// [`pair_id`] of the pair.
    pub id: String,
    /// The premise text (a linearized table or a plain premise; empty for hypothesis-only).
    pub premise: String,
    /// The hypothesis.
    pub hypothesis: String,
    /// Which text the model reads first (always written, unlike in run files).
    pub order: PairOrder,
    /// How tables became premise text (e.g. `infotabs_compat`).
    pub linearization: String,
    /// The dataset's labels in canonical order: what a score must be over.
    pub labels: Vec<Label>,
}

/// The name of a pair order in the pairs file.
fn order_name(order: PairOrder) -> &'static str {
    match order {
        PairOrder::PremiseFirst => "premise_first",
        PairOrder::HypothesisFirst => "hypothesis_first",
    }
}

/// The pair's id: the first [`PAIR_ID_HEX`] hex digits of the SHA-256 of
/// `tabprobe-pair-v1\n<order>\n<premise bytes>\n<premise>\n<hypothesis bytes>\n<hypothesis>`
/// (UTF-8; the byte lengths make the text unambiguous whatever the texts hold).
pub fn pair_id(pair: &Pair) -> String {
    let text = format!(
        "tabprobe-pair-v1\n{}\n{}\n{}\n{}\n{}",
        order_name(pair.order),
        pair.premise.len(),
        pair.premise,
        pair.hypothesis.len(),
        pair.hypothesis
    );
    Sha256::digest(text.as_bytes())
        .iter()
        .take(PAIR_ID_HEX / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The pairs file's lines of `set`, in the order a run scores them; `linearization` names how
/// its tables became text.
pub fn pair_lines(set: &ProbeSet, linearization: &str) -> Vec<PairLine> {
    let labels = set.label_set.labels().to_vec();
    set.pairs
        .iter()
        .map(|pair| PairLine {
            id: pair_id(pair),
            premise: pair.premise.clone(),
            hypothesis: pair.hypothesis.clone(),
            order: pair.order,
            linearization: linearization.to_string(),
            labels: labels.clone(),
        })
        .collect()
}

/// The pairs file's text: one JSON object per line, each line ending in `\n`.
pub fn pairs_jsonl(lines: &[PairLine]) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for line in lines {
        out.push_str(&serde_json::to_string(line)?);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(premise: &str, hypothesis: &str, order: PairOrder) -> Pair {
        Pair {
            premise: premise.into(),
            hypothesis: hypothesis.into(),
            order,
        }
    }

    #[test]
    fn ids_are_the_digest_of_what_the_model_sees() {
        // Worked with Python's hashlib over the same text (docs/scoring-elsewhere.md).
        let p = "Running time is 125 minutes.";
        let h = "Bridesmaids runs over two hours.";
        assert_eq!(
            pair_id(&pair(p, h, PairOrder::PremiseFirst)),
            "0c2a666adeb3885b"
        );
        assert_eq!(
            pair_id(&pair(p, h, PairOrder::HypothesisFirst)),
            "a27f9cf0247cf2de"
        );
        assert_eq!(
            pair_id(&pair("", h, PairOrder::PremiseFirst)),
            "bd9d2483218e2dc2"
        );
        // Byte lengths, not characters: "Café – “naïve”" is 21 bytes.
        assert_eq!(
            pair_id(&pair("Café – “naïve”", "x", PairOrder::PremiseFirst)),
            "2808c2092994aca1"
        );
    }

    #[test]
    fn a_line_reads_back_and_always_names_its_order() {
        let line = PairLine {
            id: "0c2a666adeb3885b".into(),
            premise: "P".into(),
            hypothesis: "H".into(),
            order: PairOrder::PremiseFirst,
            linearization: "infotabs_compat".into(),
            labels: vec![Label::Entail, Label::Neutral, Label::Contradict],
        };
        let text = pairs_jsonl(std::slice::from_ref(&line)).expect("encodes");
        assert_eq!(
            text,
            "{\"id\":\"0c2a666adeb3885b\",\"premise\":\"P\",\"hypothesis\":\"H\",\"order\":\"premise_first\",\"linearization\":\"infotabs_compat\",\"labels\":[\"ENTAIL\",\"NEUTRAL\",\"CONTRADICT\"]}\n"
        );
        let back: PairLine = serde_json::from_str(text.trim_end()).expect("reads back");
        assert_eq!(back, line);
    }
}
