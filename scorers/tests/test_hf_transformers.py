"""scorers/hf_transformers.py run as a user runs it, on the tiny checkpoints of tabprobe's golden
tests (crates/model/tests/golden/families/): its probabilities must be `transformers`' own.

Needs torch and transformers from PyPI (scripts/requirements-interop.txt pins them). Without
them this file prints one SKIP line and its tests are skipped, so the standard-library run of
scripts/test.sh passes; run it with a Python that has them:

    .tools/interop-venv/bin/python -m unittest discover -s scorers/tests -v
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(REPO, "scorers", "hf_transformers.py")
FAMILIES = os.path.join(REPO, "crates", "model", "tests", "golden", "families")
TINY = os.path.join(REPO, "crates", "model", "tests", "golden", "tiny-f32")
SMALL = os.path.join(REPO, "crates", "cli", "tests", "fixtures", "small.json")
ROUNDTRIP_FIXTURE = os.path.join(REPO, "crates", "cli", "tests", "fixtures", "scores-tiny-f32.jsonl")
# The CLI tests' probe set (crates/cli/tests/cli.rs's probe_all; scores_roundtrip.rs).
PROBE_SET = ["--dataset", SMALL, "--probes", "all", "--seed", "7", "--word-order-q", "3", "--hypothesis-only"]
THREE = ["ENTAIL", "NEUTRAL", "CONTRADICT"]
TWO = ["ENTAIL", "CONTRADICT"]
CANONICAL = {"entailment": "ENTAIL", "neutral": "NEUTRAL", "contradiction": "CONTRADICT"}
# golden.json's references are transformers at batch 1; the scorer pads batches of 16, which
# moves float32 logits by ~1e-6 (measured: at most 3.6e-6 in probability over seven families).
TOLERANCE = 1e-5

try:
    import torch
    import transformers
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False
    print("SKIP: hf_transformers scorer test needs PyPI torch and transformers (see scorers/README.md)")


def built_cli() -> str | None:
    """The debug `tabprobe` binary, when one is built ($CARGO_TARGET_DIR or target/)."""
    for target in (os.environ.get("CARGO_TARGET_DIR"), os.path.join(REPO, "target")):
        if target:
            path = os.path.join(target, "debug", "tabprobe")
            if os.access(path, os.X_OK):
                return path
    return None


CLI = built_cli()
if HAVE_TORCH and CLI is None:
    print("SKIP: the live round trip needs the CLI built (cargo build -p tabprobe-cli)")


def softmax(logits: list[float]) -> list[float]:
    top = max(logits)
    e = [math.exp(x - top) for x in logits]
    return [x / sum(e) for x in e]


def read_scores(path: str) -> dict[str, dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return {r["id"]: r for r in (json.loads(line) for line in f)}


@unittest.skipUnless(HAVE_TORCH, "needs PyPI torch and transformers")
class HfScorer(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempfile.mkdtemp(prefix="hf-scorer-test-")
        with open(os.path.join(FAMILIES, "golden.json"), encoding="utf-8") as f:
            cls.golden = json.load(f)
        # golden.json's 34 pairs premise first (13-15 cut at 96 tokens, one without a
        # premise) and 9 of them hypothesis first (the premise-less one included).
        cls.pairs = [{"id": f"pf-{i}", "premise": p["premise"], "hypothesis": p["hypothesis"],
                      "order": "premise_first", "labels": THREE} for i, p in enumerate(cls.golden["pairs"])]
        cls.hf_indices = cls.golden["families"]["bert"]["hypothesis_first"]["indices"]
        cls.pairs += [{"id": f"hf-{i}", "premise": cls.golden["pairs"][i]["premise"],
                       "hypothesis": cls.golden["pairs"][i]["hypothesis"], "order": "hypothesis_first",
                       "labels": THREE} for i in cls.hf_indices]
        cls.pairs_path = cls.write("pairs.jsonl", cls.pairs)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def write(cls, name: str, rows: list[dict[str, Any]]) -> str:
        path = os.path.join(cls.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        return path

    def score(self, model: str, pairs: str, out: str, *extra: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        return subprocess.run([sys.executable, SCRIPT, "--model", model, "--pairs", pairs, "--out", out,
                               "--device", "cpu", "--batch-size", "16", *extra],
                              capture_output=True, text=True, timeout=300, env=env)

    _scored: dict[str, str] = {}

    def scored(self, family: str) -> str:
        """The scores file of golden.json's pairs by one family's fixture (scored once)."""
        if family not in self._scored:
            out = os.path.join(self.dir, f"{family}.jsonl")
            result = self.score(os.path.join(FAMILIES, family), self.pairs_path, out)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("pairs cut to at most 96 tokens", result.stderr)
            self._scored[family] = out
        return self._scored[family]

    def golden_probs(self, family: str) -> dict[str, dict[str, float]]:
        f = self.golden["families"][family]
        labels = [CANONICAL[f["id2label"][str(i)].lower()] for i in range(len(f["id2label"]))]
        out = {f"pf-{i}": dict(zip(labels, softmax(l))) for i, l in enumerate(f["logits"])}
        for i, l in zip(f["hypothesis_first"]["indices"], f["hypothesis_first"]["logits"]):
            out[f"hf-{i}"] = dict(zip(labels, softmax(l)))
        return out

    def test_probabilities_are_transformers_own_for_three_families(self) -> None:
        # BERT (token types), XLM-RoBERTa (positions after the padding id: 98 - 2 = 96 tokens),
        # BART (reversed id2label; premise-less pairs batched apart by their </s> count).
        for family in ("bert", "xlm-roberta", "bart"):
            scores = read_scores(self.scored(family))
            golden = self.golden_probs(family)
            self.assertEqual(set(scores), set(golden))
            for pair_id, want in golden.items():
                got = scores[pair_id]
                self.assertEqual(list(got["probs"]), THREE)
                for label in THREE:
                    self.assertAlmostEqual(got["probs"][label], want[label], delta=TOLERANCE, msg=f"{family} {pair_id}")
                self.assertEqual(got["label"], max(THREE, key=lambda l: got["probs"][l]))

    def test_probabilities_match_a_direct_transformers_call(self) -> None:
        folder = os.path.join(FAMILIES, "bert")
        scores = read_scores(self.scored("bert"))
        transformers.utils.logging.disable_progress_bar()
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
        model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).float().eval()
        for pair in self.pairs:
            if pair["order"] == "premise_first":
                enc = tokenizer(pair["premise"], pair["hypothesis"], truncation="only_first", return_tensors="pt")
            else:
                enc = tokenizer(pair["hypothesis"], pair["premise"], truncation="only_second", return_tensors="pt")
            with torch.no_grad():
                probs = torch.softmax(model(**enc).logits[0], -1).tolist()
            for i, label in enumerate(THREE):  # the bert fixture's id2label is in canonical order
                self.assertAlmostEqual(scores[pair["id"]]["probs"][label], probs[i], delta=TOLERANCE)

    def test_resume_recovers_a_torn_line_then_scores_nothing_new(self) -> None:
        folder = os.path.join(FAMILIES, "bert")
        out = os.path.join(self.dir, "resume.jsonl")
        shutil.copy(self.scored("bert"), out)
        with open(out, encoding="utf-8") as f:
            lines = f.readlines()
        with open(out, "w", encoding="utf-8") as f:
            f.writelines(lines[:-1])
            f.write(lines[-1][:20])
        result = self.score(folder, self.pairs_path, out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("dropped an unfinished last line", result.stderr)
        self.assertIn(f"{len(self.pairs) - 1} already in", result.stderr)
        result = self.score(folder, self.pairs_path, out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"{len(self.pairs)} already in {out}, scoring 0", result.stderr)
        self.assertEqual(len(read_scores(out)), len(self.pairs))

    def test_a_hypothesis_too_long_alone_is_not_scored(self) -> None:
        long = " ".join(["the album was recorded in the studio"] * 30)
        pairs = self.write("long.jsonl", [
            {"id": "fits", "premise": "A premise.", "hypothesis": "It fits.", "labels": THREE},
            {"id": "too-long", "premise": "A premise.", "hypothesis": long, "labels": THREE},
        ])
        out = os.path.join(self.dir, "long-scores.jsonl")
        result = self.score(os.path.join(FAMILIES, "bert"), pairs, out)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertRegex(result.stderr, r"too-long .*the hypothesis alone is \d+ tokens with special tokens; the model takes at most 96")
        self.assertEqual(set(read_scores(out)), {"fits"})

    def test_unnamed_labels_need_a_label_map(self) -> None:
        folder = os.path.join(self.dir, "bert-unnamed")
        shutil.copytree(os.path.join(FAMILIES, "bert"), folder)
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        config["id2label"] = {str(i): f"LABEL_{i}" for i in range(3)}
        config["label2id"] = {f"LABEL_{i}": i for i in range(3)}
        with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f)
        out = os.path.join(self.dir, "unnamed.jsonl")
        result = self.score(folder, self.pairs_path, out)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("pass --label-map", result.stderr)
        result = self.score(folder, self.pairs_path, out, "--label-map", "ENTAIL=LABEL_0,NEUTRAL=LABEL_1,CONTRADICT=LABEL_2")
        self.assertEqual(result.returncode, 0, result.stderr)
        golden = self.golden_probs("bert")
        for pair_id, got in read_scores(out).items():
            for label in THREE:
                self.assertAlmostEqual(got["probs"][label], golden[pair_id][label], delta=TOLERANCE)

    def test_a_three_way_model_on_two_way_pairs(self) -> None:
        pairs = self.write("two-way.jsonl", [{**p, "labels": TWO} for p in self.pairs])
        out = os.path.join(self.dir, "two-way-scores.jsonl")
        result = self.score(os.path.join(FAMILIES, "bert"), pairs, out)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("three-way model", result.stderr)
        result = self.score(os.path.join(FAMILIES, "bert"), pairs, out, "--label-map", "ENTAIL=entailment,CONTRADICT=neutral+contradiction")
        self.assertEqual(result.returncode, 0, result.stderr)
        golden = self.golden_probs("bert")
        for pair_id, got in read_scores(out).items():
            self.assertEqual(list(got["probs"]), TWO)
            want = golden[pair_id]
            self.assertAlmostEqual(got["probs"]["ENTAIL"], want["ENTAIL"], delta=TOLERANCE)
            self.assertAlmostEqual(got["probs"]["CONTRADICT"], want["NEUTRAL"] + want["CONTRADICT"], delta=TOLERANCE)


@unittest.skipUnless(HAVE_TORCH and CLI is not None, "needs PyPI torch and transformers and the built CLI")
class RoundTrip(unittest.TestCase):
    """Issue 44 item 5, live: `tabprobe pairs`, this scorer on the tiny checkpoint the CLI tests
    run, `tabprobe probe --scores` — the run `tabprobe probe --model` gives, within 1e-4 (the
    committed-fixture half is crates/cli/tests/scores_roundtrip.rs)."""

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="hf-roundtrip-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def cli(self, *args: str) -> None:
        result = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, f"tabprobe {' '.join(args)}:\n{result.stderr}")

    def test_imported_scores_give_tabprobes_own_run(self) -> None:
        pairs, scores = os.path.join(self.dir, "pairs.jsonl"), os.path.join(self.dir, "scores.jsonl")
        self.cli("pairs", *PROBE_SET, "--out", pairs)
        result = subprocess.run([sys.executable, SCRIPT, "--model", TINY, "--pairs", pairs, "--out", scores,
                                 "--device", "cpu", "--batch-size", "16"],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        # Both files as their schemas (public/schema/) say.
        from test_file_schemas import check_lines, load_schema
        self.assertEqual(check_lines(self, load_schema("pairs-v1.json"), pairs),
                         check_lines(self, load_schema("scores-v1.json"), scores))
        own, imported = os.path.join(self.dir, "own.json"), os.path.join(self.dir, "imported.json")
        self.cli("probe", *PROBE_SET, "--model", TINY, "--batch-size", "16", "--out", own)
        self.cli("probe", *PROBE_SET, "--scores", scores, "--scores-name", "tiny-f32", "--out", imported)
        with open(own, encoding="utf-8") as f:
            a = json.load(f)
        with open(imported, encoding="utf-8") as f:
            b = json.load(f)
        self.assertEqual(a["items"], b["items"])
        self.assertEqual(len(a["pairs"]), len(b["pairs"]))
        self.assertGreater(len(a["pairs"]), 100)
        max_dp = 0.0
        for x, y in zip(a["pairs"], b["pairs"]):
            self.assertEqual(x["pair"], y["pair"])
            px, py = x["score"]["probs"], y["score"]["probs"]
            # Canonical order; argmax, a tie to the earlier label (as core's predicted()).
            self.assertEqual(px.index(max(px)), py.index(max(py)), f"{x['pair']['hypothesis']!r}: {px} vs {py}")
            max_dp = max(max_dp, *(abs(p - q) for p, q in zip(px, py)))
        print(f"\nlive round trip: {len(a['pairs'])} pairs, same labels, max |dp| = {max_dp:.2e}", file=sys.stderr)
        self.assertLessEqual(max_dp, 1e-4)

        # The committed fixture of scores_roundtrip.rs is what the scorer writes now.
        fixture, live = read_scores(ROUNDTRIP_FIXTURE), read_scores(scores)
        self.assertEqual(set(fixture), set(live),
                         "the committed fixture is stale: scorers/tests/make_roundtrip_fixture.sh regenerates it")
        drift = max(abs(fixture[i]["probs"][l] - live[i]["probs"][l]) for i in live for l in THREE)
        self.assertLessEqual(drift, 1e-6, "the scorer now differs from the committed fixture")


if __name__ == "__main__":
    unittest.main()
