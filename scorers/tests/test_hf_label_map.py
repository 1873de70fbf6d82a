"""The parts of scorers/hf_transformers.py that need no torch: how a model's labels are put onto
the dataset's, and the longest input (standard library only, so they run everywhere).

Run: python3 -m unittest discover -s scorers/tests -v
"""

from __future__ import annotations

import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import hf_transformers as hf  # noqa: E402  (imports torch only when a model is loaded)

THREE = ("ENTAIL", "NEUTRAL", "CONTRADICT")
TWO = ("ENTAIL", "CONTRADICT")


class Labels(unittest.TestCase):
    def test_the_usual_names_in_any_order_and_case(self) -> None:
        m = hf.resolve_labels(["contradiction", "Neutral", "ENTAILMENT"], THREE)
        self.assertEqual(m.groups, {"ENTAIL": (2,), "NEUTRAL": (1,), "CONTRADICT": (0,)})
        self.assertEqual(m.probs([0.2, 0.3, 0.5]), {"ENTAIL": 0.5, "NEUTRAL": 0.3, "CONTRADICT": 0.2})
        m = hf.resolve_labels(["entailed", "refuted"], TWO)
        self.assertEqual(m.groups, {"ENTAIL": (0,), "CONTRADICT": (1,)})
        m = hf.resolve_labels(["E", "NOT ENOUGH INFO", "c"], THREE)
        self.assertEqual(m.groups, {"ENTAIL": (0,), "NEUTRAL": (1,), "CONTRADICT": (2,)})

    def test_not_entailment_is_contradict_only_for_two_way_pairs_and_says_so(self) -> None:
        m = hf.resolve_labels(["entailment", "not_entailment"], TWO)
        self.assertEqual(m.groups, {"ENTAIL": (0,), "CONTRADICT": (1,)})
        self.assertTrue(any("not_entailment" in n and "CONTRADICT" in n for n in m.notes), m.notes)
        with self.assertRaisesRegex(hf.LabelError, "two-way.*cannot score three-way"):
            hf.resolve_labels(["entailment", "not_entailment"], THREE)

    def test_unnamed_labels_ask_for_a_label_map(self) -> None:
        with self.assertRaisesRegex(hf.LabelError, r"names no label \(LABEL_0, LABEL_1, LABEL_2\).*--label-map ENTAIL=LABEL_0"):
            hf.resolve_labels(["LABEL_0", "LABEL_1", "LABEL_2"], THREE)
        with self.assertRaisesRegex(hf.LabelError, "'positive' is not a known label name.*--label-map"):
            hf.resolve_labels(["positive", "negative"], TWO)

    def test_a_three_way_model_on_two_way_pairs_is_refused_with_both_label_maps(self) -> None:
        with self.assertRaises(hf.LabelError) as e:
            hf.resolve_labels(["entailment", "neutral", "contradiction"], TWO)
        self.assertIn("three-way model", str(e.exception))
        self.assertIn("--label-map ENTAIL=entailment,CONTRADICT=neutral+contradiction", str(e.exception))
        self.assertIn("--label-map ENTAIL=entailment,CONTRADICT=contradiction", str(e.exception))

    def test_a_two_way_model_on_three_way_pairs_is_refused(self) -> None:
        with self.assertRaisesRegex(hf.LabelError, "two-way model .* no NEUTRAL"):
            hf.resolve_labels(["entailment", "contradiction"], THREE)
        with self.assertRaisesRegex(hf.LabelError, "no model label for NEUTRAL"):
            hf.resolve_labels(["entailment", "contradiction"], THREE, hf.parse_label_map("ENTAIL=entailment,CONTRADICT=contradiction"))

    def test_two_outputs_for_one_label_need_a_label_map(self) -> None:
        with self.assertRaisesRegex(hf.LabelError, "several model labels mean CONTRADICT"):
            hf.resolve_labels(["entailment", "neutral", "contradiction", "refuted"], THREE)

    def test_a_label_map_sums_outputs_without_renormalising(self) -> None:
        m = hf.resolve_labels(["entailment", "neutral", "contradiction"], TWO,
                              hf.parse_label_map("ENTAIL=Entailment,CONTRADICT=neutral+contradiction"))
        self.assertEqual((m.groups, m.dropped), ({"ENTAIL": (0,), "CONTRADICT": (1, 2)}, ()))
        p = m.probs([0.6, 0.3, 0.1])
        self.assertAlmostEqual(p["ENTAIL"], 0.6)
        self.assertAlmostEqual(p["CONTRADICT"], 0.4)

    def test_a_label_map_that_leaves_an_output_out_renormalises_and_says_so(self) -> None:
        m = hf.resolve_labels(["entailment", "neutral", "contradiction"], TWO,
                              hf.parse_label_map("ENTAIL=entailment,CONTRADICT=contradiction"))
        self.assertEqual(m.dropped, (1,))
        self.assertTrue(any("neutral" in n and "renormalised" in n for n in m.notes), m.notes)
        p = m.probs([0.6, 0.3, 0.1])
        self.assertAlmostEqual(p["ENTAIL"], 0.6 / 0.7)
        self.assertAlmostEqual(p["CONTRADICT"], 0.1 / 0.7)
        self.assertAlmostEqual(math.fsum(p.values()), 1.0)

    def test_label_map_mistakes(self) -> None:
        labels = ["LABEL_0", "LABEL_1", "LABEL_2"]
        for spec, message in {
            "ENTAIL=LABEL_0,NEUTRAL=LABEL_1,CONTRADICT=LABEL_9": "no label 'LABEL_9'",
            "ENTAIL=LABEL_0,NEUTRAL=LABEL_0,CONTRADICT=LABEL_2": "given to both ENTAIL and NEUTRAL",
            "ENTAIL=LABEL_0,NEUTRAL=LABEL_1": "no model label for CONTRADICT",
        }.items():
            with self.assertRaisesRegex(hf.LabelError, message):
                hf.resolve_labels(labels, THREE, hf.parse_label_map(spec))
        with self.assertRaisesRegex(hf.LabelError, "names NEUTRAL, but the pairs' labels are ENTAIL, CONTRADICT"):
            hf.resolve_labels(labels, TWO, hf.parse_label_map("ENTAIL=LABEL_0,NEUTRAL=LABEL_1,CONTRADICT=LABEL_2"))
        for spec in ("ENTAIL", "MAYBE=LABEL_0", "ENTAIL=LABEL_0,ENTAIL=LABEL_1", "ENTAIL=LABEL_0+"):
            with self.assertRaises(hf.LabelError, msg=spec):
                hf.parse_label_map(spec)
        m = hf.resolve_labels(labels, THREE, hf.parse_label_map("entail=LABEL_2, NEUTRAL=label_1 ,CONTRADICT=LABEL_0"))
        self.assertEqual(m.groups, {"ENTAIL": (2,), "NEUTRAL": (1,), "CONTRADICT": (0,)})


class MaxTokens(unittest.TestCase):
    """As docs/model-families.md "Where pairs are truncated" says tabprobe computes it."""

    def test_the_smaller_of_the_tokenizer_limit_and_the_position_table(self) -> None:
        bert = {"model_type": "bert", "max_position_embeddings": 512, "pad_token_id": 0}
        self.assertEqual(hf.max_tokens(bert, 512, None), 512)
        self.assertEqual(hf.max_tokens(bert, 64, None), 64)
        self.assertEqual(hf.max_tokens(bert, 4096, None), 512)
        self.assertEqual(hf.max_tokens(bert, int(1e30), None), 512)
        self.assertEqual(hf.max_tokens(bert, None, None), 512)

    def test_roberta_positions_start_after_the_padding_id(self) -> None:
        roberta = {"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1}
        self.assertEqual(hf.max_tokens(roberta, int(1e30), None), 512)
        self.assertEqual(hf.max_tokens(roberta, 512, None), 512)
        xlmr = {"model_type": "xlm-roberta", "max_position_embeddings": 98, "pad_token_id": 1}
        self.assertEqual(hf.max_tokens(xlmr, int(1e30), None), 96)
        # BART's table has two rows more than max_position_embeddings: all of it is usable.
        bart = {"model_type": "bart", "max_position_embeddings": 1024, "pad_token_id": 1}
        self.assertEqual(hf.max_tokens(bart, int(1e30), None), 1024)

    def test_max_length_overrides_within_the_table(self) -> None:
        bert = {"model_type": "bert", "max_position_embeddings": 512}
        self.assertEqual(hf.max_tokens(bert, 512, 128), 128)
        with self.assertRaisesRegex(hf.InputError, "more than the network's position table"):
            hf.max_tokens(bert, 512, 1000)
        with self.assertRaisesRegex(hf.InputError, "pass --max-length"):
            hf.max_tokens({"model_type": "mystery"}, int(1e30), None)


if __name__ == "__main__":
    unittest.main()
