"""The JSON Schemas of the two files (public/schema/pairs-v1.json, scores-v1.json; issue 44 item
6), each describing one line of its JSONL file, against what is written: every line both
scorers write — openai_chat.py against the mock endpoint, hf_transformers.py's in the committed
round-trip fixture (and live, in test_hf_transformers.py, where torch is installed) — and what
tabprobe's `pairs` writes when the CLI is built (crates/cli/tests/file_schemas.rs checks that
always, and checks the schemas against core's reading). Standard library only: the validator
below covers the JSON Schema keywords the two schemas use and refuses any other, so a keyword
added to a schema cannot be silently ignored here.

Run: python3 -m unittest discover -s scorers/tests -v
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import shutil
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SCORERS = os.path.dirname(HERE)
REPO = os.path.dirname(SCORERS)
sys.path.insert(0, SCORERS)
sys.path.insert(0, HERE)

import scorefiles  # noqa: E402

SCHEMAS = os.path.join(REPO, "public", "schema")
ROUNDTRIP_FIXTURE = os.path.join(REPO, "crates", "cli", "tests", "fixtures", "scores-tiny-f32.jsonl")
SMALL = os.path.join(REPO, "crates", "cli", "tests", "fixtures", "small.json")

# Annotations (no effect on validity) and the keywords `errors` checks.
ANNOTATIONS = {"$schema", "title", "description"}
KEYWORDS = {"type", "properties", "required", "additionalProperties", "anyOf", "enum", "pattern",
            "items", "propertyNames", "minProperties", "maxProperties", "minimum", "maximum"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def load_schema(name: str) -> dict[str, Any]:
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as f:
        return json.load(f)


def errors(schema: dict[str, Any], value: Any, at: str = "") -> list[str]:
    """Why `value` does not satisfy `schema` (empty when it does)."""
    unknown = set(schema) - KEYWORDS - ANNOTATIONS
    if unknown:
        raise AssertionError(f"the test's validator does not know {sorted(unknown)} (at {at or '/'})")
    out: list[str] = []
    if "type" in schema and not TYPES[schema["type"]](value):
        return [f"{at or '/'}: not of type {schema['type']}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{at or '/'}: {value!r} not in {schema['enum']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        out.append(f"{at or '/'}: {value!r} does not match {schema['pattern']}")
    if "minimum" in schema and value < schema["minimum"]:
        out.append(f"{at or '/'}: {value} < {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        out.append(f"{at or '/'}: {value} > {schema['maximum']}")
    if "items" in schema:
        for i, item in enumerate(value):
            out += errors(schema["items"], item, f"{at}/{i}")
    if isinstance(value, dict):
        if len(value) < schema.get("minProperties", 0) or len(value) > schema.get("maxProperties", len(value)):
            out.append(f"{at or '/'}: {len(value)} properties")
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{at or '/'}: no {key!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if "propertyNames" in schema:
                out += errors(schema["propertyNames"], key, f"{at}/{key} (name)")
            if key in props:
                out += errors(props[key], item, f"{at}/{key}")
            elif extra is False:
                out.append(f"{at or '/'}: {key!r} is not allowed")
            elif isinstance(extra, dict):
                out += errors(extra, item, f"{at}/{key}")
    if "anyOf" in schema and all(errors(s, value, at) for s in schema["anyOf"]):
        out.append(f"{at or '/'}: matches none of anyOf")
    return out


def check_lines(test: unittest.TestCase, schema: dict[str, Any], path: str) -> int:
    """Asserts every non-blank line of `path` satisfies `schema`; returns how many there are."""
    n = 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                n += 1
                test.assertEqual(errors(schema, json.loads(line)), [], f"{path}, line {number}")
    return n


def pair_id(premise: str, hypothesis: str, order: str = "premise_first") -> str:
    """docs/scoring-elsewhere.md's definition of a pair's id."""
    text = f"tabprobe-pair-v1\n{order}\n{len(premise.encode())}\n{premise}\n{len(hypothesis.encode())}\n{hypothesis}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def built_cli() -> str | None:
    for target in (os.environ.get("CARGO_TARGET_DIR"), os.path.join(REPO, "target")):
        if target and os.access(os.path.join(target, "debug", "tabprobe"), os.X_OK):
            return os.path.join(target, "debug", "tabprobe")
    return None


class Schemas(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.pairs = load_schema("pairs-v1.json")
        cls.scores = load_schema("scores-v1.json")

    def test_the_schemas_say_what_the_scorers_read_and_write(self) -> None:
        p, s = self.pairs["properties"], self.scores["properties"]
        # The id of core's pair_id (worked example of crates/core/src/run/pairs_file.rs).
        self.assertEqual(pair_id("Running time is 125 minutes.", "Bridesmaids runs over two hours."), "0c2a666adeb3885b")
        self.assertEqual(p["id"]["pattern"], "^[0-9a-f]{16}$")
        self.assertEqual(s["id"]["pattern"], p["id"]["pattern"])
        self.assertEqual(tuple(p["order"]["enum"]), scorefiles.ORDERS)
        self.assertEqual([tuple(l) for l in p["labels"]["enum"]], list(scorefiles.LABEL_SETS))
        self.assertEqual(tuple(s["label"]["enum"]), scorefiles.THREE_WAY)
        self.assertEqual(tuple(s["probs"]["propertyNames"]["enum"]), scorefiles.THREE_WAY)
        # What the scorers need of a pairs line is required; a scores line is closed.
        self.assertLessEqual({"id", "premise", "hypothesis", "labels"}, set(self.pairs["required"]))
        self.assertEqual(set(self.pairs["required"]), set(p))
        self.assertIs(self.scores["additionalProperties"], False)
        self.assertEqual(self.scores["required"], ["id"])

    def test_score_lines_of_the_shared_writer(self) -> None:
        # scorefiles.score_line writes every line of both scorers.
        i = pair_id("P", "H")
        for line in (scorefiles.score_line(i, scorefiles.THREE_WAY, {"ENTAIL": 0.2, "NEUTRAL": 0.5, "CONTRADICT": 0.3}, None),
                     scorefiles.score_line(i, scorefiles.TWO_WAY, {"ENTAIL": 1.0, "CONTRADICT": 0.0}, None),
                     scorefiles.score_line(i, scorefiles.TWO_WAY, None, "CONTRADICT"),
                     scorefiles.score_line(i, scorefiles.THREE_WAY, None, "NEUTRAL")):
            self.assertEqual(errors(self.scores, json.loads(line)), [], line)

    def test_what_tabprobe_refuses_the_schema_refuses(self) -> None:
        i = pair_id("P", "H")
        probs = {"ENTAIL": 0.2, "NEUTRAL": 0.5, "CONTRADICT": 0.3}
        for bad in ({"id": i},  # neither probs nor label
                    {"id": i, "label": "NEUTRAL", "score": 1},  # a key core does not know
                    {"id": i.upper(), "label": "NEUTRAL"}, {"id": i[:15], "label": "NEUTRAL"}, {"id": 7, "label": "NEUTRAL"},
                    {"id": i, "label": "entailment"}, {"id": i, "label": None},
                    {"id": i, "probs": {**probs, "ENTAIL": -0.1}}, {"id": i, "probs": {**probs, "ENTAIL": "0.2"}},
                    {"id": i, "probs": {"entailment": 0.2, "NEUTRAL": 0.5, "CONTRADICT": 0.3}},
                    {"id": i, "probs": {"ENTAIL": 1.0}}, {"id": i, "probs": [0.2, 0.5, 0.3]}):
            self.assertNotEqual(errors(self.scores, bad), [], bad)
        for bad in ({"id": "x", "premise": "", "hypothesis": "H", "order": "premise_first", "linearization": "none", "labels": ["ENTAIL", "CONTRADICT"]},
                    {"id": i, "premise": "", "hypothesis": "H", "order": "first", "linearization": "none", "labels": ["ENTAIL", "CONTRADICT"]},
                    {"id": i, "premise": "", "hypothesis": "H", "order": "premise_first", "linearization": "none", "labels": ["CONTRADICT", "ENTAIL"]},
                    {"id": i, "premise": "", "hypothesis": "H", "order": "premise_first", "linearization": "none"}):
            self.assertNotEqual(errors(self.pairs, bad), [], bad)

    def test_the_transformers_scorers_lines(self) -> None:
        # Written by hf_transformers.py (scorers/tests/make_roundtrip_fixture.sh).
        self.assertEqual(check_lines(self, self.scores, ROUNDTRIP_FIXTURE), 151)

    def test_tabprobe_pairs_lines(self) -> None:
        cli = built_cli()
        if cli is None:
            self.skipTest("the CLI is not built (crates/cli/tests/file_schemas.rs checks its lines)")
        work = tempfile.mkdtemp(prefix="schema-pairs-")
        self.addCleanup(shutil.rmtree, work, True)
        for extra in ([], ["--order", "hypothesis_first"], ["--linearization", "none"]):
            out = os.path.join(work, "pairs.jsonl")
            result = subprocess.run([cli, "pairs", "--dataset", SMALL, "--probes", "all", "--hypothesis-only", *extra, "--out", out],
                                    capture_output=True, text=True, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertGreater(check_lines(self, self.pairs, out), 10)


class OpenAiChatLines(unittest.TestCase):
    """openai_chat.py against the misbehaving mock, on the mock test's 40 pairs with tabprobe ids:
    lines with probabilities and lines with a label alone, three-way and two-way."""

    def test_every_line_satisfies_the_schemas(self) -> None:
        import test_openai_chat as t

        pairs = t.build_pairs()
        for p in pairs:
            p["id"] = pair_id(p["premise"], p["hypothesis"], p["order"])
            del p["unknown_future_key"]
        schema_pairs, schema_scores = load_schema("pairs-v1.json"), load_schema("scores-v1.json")
        for p in pairs:
            self.assertEqual(errors(schema_pairs, p), [], p)
        work = tempfile.mkdtemp(prefix="schema-openai-")
        self.addCleanup(shutil.rmtree, work, True)
        pairs_path, out = os.path.join(work, "pairs.jsonl"), os.path.join(work, "scores.jsonl")
        t.write_jsonl(pairs_path, pairs)
        mock = t.mock_openai.Mock(slow_s=1.0)
        server, _ = t.mock_openai.start(mock)
        try:
            result = t.MockCase.run_scorer(server.server_address[1], pairs_path, out)
        finally:
            server.shutdown()
            server.server_close()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(check_lines(self, schema_scores, out), len(pairs))
        scores = t.read_scores(out)
        self.assertTrue(any("probs" not in s for s in scores), "label-only lines are among them")
        self.assertTrue(any(len(s.get("probs", {})) == 2 for s in scores), "two-way lines are among them")


if __name__ == "__main__":
    unittest.main()
