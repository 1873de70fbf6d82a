//! Pair order: a hypothesis-first pair is encoded `<s> H </s></s> P </s>`, and when it is too
//! long the premise is cut, never the hypothesis — the same tokens survive as in the
//! premise-first encoding, only the segments trade places.

mod common;

use common::{golden, load_variant, read, GoldenPair};
use tabprobe_core::scoring::{Pair, PairOrder};
use tabprobe_model::{Device, PairTokenizer};

/// `</s>`: RoBERTa's separator, never produced by ordinary text.
const SEP: u32 = 2;

/// Splits golden premise-first ids `<s> P </s></s> H </s>` into (P tokens kept, H tokens).
fn segments(p: &GoldenPair) -> (&[u32], &[u32]) {
    let ids = &p.input_ids;
    let sep = ids
        .windows(2)
        .position(|w| w == [SEP, SEP])
        .expect("</s></s> between the segments");
    (&ids[1..sep], &ids[sep + 2..ids.len() - 1])
}

#[test]
fn hypothesis_first_long_pair_truncates_the_premise_and_keeps_the_hypothesis() {
    let g = golden();
    let tok =
        PairTokenizer::from_json_bytes(&read("tiny-f32/tokenizer.json"), g.max_length).unwrap();
    let long: Vec<&GoldenPair> = g.pairs.iter().filter(|p| p.truncated).collect();
    assert!(long.len() >= 3);
    for p in long {
        let (premise_kept, hypothesis) = segments(p);
        let e = tok
            .encode_ordered(&p.premise, &p.hypothesis, PairOrder::HypothesisFirst)
            .unwrap();
        let h = hypothesis.len();
        assert_eq!(e.ids.len(), g.max_length);
        assert_eq!(
            (e.truncated, e.premise_tokens_dropped),
            (true, p.premise_tokens_dropped)
        );
        assert_eq!(e.ids[0], 0, "<s>");
        // The hypothesis whole, right after <s>.
        assert_eq!(&e.ids[1..1 + h], hypothesis, "{:?}", p.hypothesis);
        assert_eq!(&e.ids[1 + h..3 + h], [SEP, SEP]);
        // Then the premise, cut from the right to exactly the tokens premise-first keeps.
        assert_eq!(&e.ids[3 + h..e.ids.len() - 1], premise_kept);
        assert_eq!(e.ids.last(), Some(&SEP));
    }
}

#[test]
fn hypothesis_first_short_pair_is_the_swapped_pair() {
    let g = golden();
    let tok =
        PairTokenizer::from_json_bytes(&read("tiny-f32/tokenizer.json"), g.max_length).unwrap();
    let short: Vec<&GoldenPair> = g.pairs.iter().filter(|p| !p.truncated).collect();
    assert!(!short.is_empty());
    assert!(short.iter().any(|p| p.premise.is_empty()));
    for p in short {
        if p.premise.is_empty() {
            // transformers' `tokenizer(h, "")` drops the empty second text: `<s> H </s>`.
            let e = tok
                .encode_ordered("", &p.hypothesis, PairOrder::HypothesisFirst)
                .unwrap();
            let (_, hypothesis) = segments(p);
            assert_eq!(e.ids, [&[0][..], hypothesis, &[SEP]].concat());
            continue;
        }
        let (premise, hypothesis) = segments(p);
        let e = tok
            .encode_ordered(&p.premise, &p.hypothesis, PairOrder::HypothesisFirst)
            .unwrap();
        let want: Vec<u32> = [&[0][..], hypothesis, &[SEP, SEP], premise, &[SEP]].concat();
        assert_eq!(e.ids, want);
        assert!(!e.truncated);
        // The premise-first path is unchanged.
        let f = tok.encode(&p.premise, &p.hypothesis).unwrap();
        assert_eq!(f.ids, p.input_ids);
    }
}

#[test]
fn model_scores_a_long_hypothesis_first_pair_with_its_premise_cut() {
    let g = golden();
    let model = load_variant("tiny-f32", &Device::flex());
    let p = g
        .pairs
        .iter()
        .find(|p| p.truncated)
        .expect("a truncated golden pair");
    let pair = |order| Pair {
        premise: p.premise.clone(),
        hypothesis: p.hypothesis.clone(),
        order,
    };
    let scores = model
        .score_blocking(&[
            pair(PairOrder::HypothesisFirst),
            pair(PairOrder::PremiseFirst),
        ])
        .unwrap();
    assert!(scores[0].truncated && scores[1].truncated);
    assert_eq!(scores[0].premise_tokens_dropped, p.premise_tokens_dropped);
    // Different inputs to the network, so different logits.
    assert_ne!(scores[0].logits, scores[1].logits);
    let encoded = model
        .encode_pair(&pair(PairOrder::HypothesisFirst))
        .unwrap();
    let direct = model.score_encoded_blocking(&[encoded]).unwrap();
    assert_eq!(direct[0], scores[0]);
}
