"""Tests of scorers/openai_chat.py against scorers/mock_openai.py (standard library only).

The mock runs in this process on an ephemeral port; the scorer runs as a user runs it, as a
subprocess. The pairs are chosen so that every misbehaviour case of the mock occurs on a
three-way and on a two-way pair; what each pair should get (label, probabilities, attempts)
is worked out from the mock's own deterministic functions, not from the scorer's code.

Run: python3 -m unittest discover -s scorers/tests -v
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SCORERS = os.path.dirname(HERE)
sys.path.insert(0, SCORERS)

import mock_openai  # noqa: E402
import openai_chat  # noqa: E402

SCRIPT = os.path.join(SCORERS, "openai_chat.py")
THREE = ["ENTAIL", "NEUTRAL", "CONTRADICT"]
TWO = ["ENTAIL", "CONTRADICT"]
WORDS = {"ENTAIL": "entailment", "NEUTRAL": "neutral", "CONTRADICT": "contradiction"}
CONCURRENCY = 4
TOP_N = 5  # the scorer's default --top-logprobs
# The scorer's summary name for each error behaviour of the mock.
CAUSE = {
    "http429": "HTTP 429", "http500": "HTTP 500", "http503": "HTTP 503", "slow": "timeout",
    "not_json": "malformed JSON body", "no_choices": "missing fields", "chatty": "unparseable answer",
}
LABEL_ONLY = {
    "no_logprobs": "no logprobs in the answer",
    "word_missing": "a label word not among the top tokens",
    "disagree": "the probabilities' argmax disagrees with the answer",
}
BRACES_PREMISE = "Zürich {population} is {{big}} — 東京 {hypothesis} {0} }{ {premise} $x %s"
UNPARSEABLE_MARK = "MARK-never-an-answer"

SENTENCES = [
    "Breakfast in America lasts less than an hour",
    "Cycling at the Games of the XXXI Olympiad had 18 events",
    "Bruno Abakanowicz died before World War I",
    "Der Künstler wurde in Köln geboren",
    "東京 is the capital of Japan",
    "The album was recorded in “Studio B”",
]


def hypothesis_for(case: str, salt: str) -> str:
    """A hypothesis the mock puts in `case`: a sentence with the first number that lands there."""
    for n in range(100_000):
        text = f"{SENTENCES[n % len(SENTENCES)]} ({salt} {n})."
        if mock_openai.case_of(text) == case:
            return text
    raise AssertionError(f"no hypothesis found for {case}")


def build_pairs() -> list[dict[str, Any]]:
    """Every case on a three-way and a two-way pair, then specials, 40 pairs in all."""
    pairs: list[dict[str, Any]] = []

    def add(hypothesis: str, labels: list[str], premise: str = "The Length of the album is 46:06.", order: str = "premise_first") -> None:
        pairs.append({"id": f"{len(pairs):04x}-id", "premise": premise, "hypothesis": hypothesis,
                      "order": order, "linearization": "infotabs_compat", "labels": labels,
                      "unknown_future_key": {"kept": False}})

    for case in mock_openai.CASE_NAMES:
        add(hypothesis_for(case, "three"), THREE)
        add(hypothesis_for(case, "two"), TWO)
    add(hypothesis_for("ok", "empty premise"), THREE, premise="")
    add(hypothesis_for("http429", "hypothesis first"), THREE, order="hypothesis_first")
    add(hypothesis_for("capitalised", "braces"), THREE, premise=BRACES_PREMISE)
    add(hypothesis_for("quoted", "two-way braces"), TWO, premise=BRACES_PREMISE + " again")
    n = 0
    while len(pairs) < 40:
        add(f"{SENTENCES[n % len(SENTENCES)]}, filler {n}.", THREE if n % 2 else TWO)
        n += 1
    return pairs


def write_jsonl(path: str, rows: list[Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_scores(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def expected_probs(pair: dict[str, Any]) -> dict[str, float]:
    """The mock's top tokens, as tagged by the mock, summed per word and renormalised."""
    words = tuple(WORDS[label] for label in pair["labels"])
    table = mock_openai.logprob_table(pair["hypothesis"], words, mock_openai.case_of(pair["hypothesis"]))[:TOP_N]
    mass = {label: sum(math.exp(t.logprob) for t in table if t.word == WORDS[label]) for label in pair["labels"]}
    total = sum(mass.values())
    return {label: m / total for label, m in mass.items()}


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without a key or proxies (a proxy would route 127.0.0.1 elsewhere)."""
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "openai_api_key")}
    env.update(extra)
    return env


class MockCase(unittest.TestCase):
    """Starts mocks and runs the scorer against them."""

    servers: list[mock_openai.MockServer] = []

    @classmethod
    def start_mock(cls, **settings: Any) -> tuple[mock_openai.Mock, int]:
        mock = mock_openai.Mock(**settings)
        server, _ = mock_openai.start(mock)
        cls.servers.append(server)
        return mock, server.server_address[1]

    @classmethod
    def tearDownClass(cls) -> None:
        for server in cls.servers:
            server.shutdown()
            server.server_close()
        cls.servers = []

    @staticmethod
    def command(port: int, pairs: str, out: str, *extra: str) -> list[str]:
        return [sys.executable, SCRIPT, "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "mock",
                "--pairs", pairs, "--out", out, "--timeout", "0.5", "--backoff-base", "0.01",
                "--concurrency", str(CONCURRENCY), *extra]

    @classmethod
    def run_scorer(cls, port: int, pairs: str, out: str, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(cls.command(port, pairs, out, *extra), capture_output=True, text=True,
                              timeout=60, env=env or clean_env())


class FullRun(MockCase):
    """One run over 40 pairs against the misbehaving mock, then resume and recovery."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempfile.mkdtemp(prefix="openai-chat-test-")
        cls.pairs = build_pairs()
        cls.by_id = {p["id"]: p for p in cls.pairs}
        cls.pairs_path = os.path.join(cls.dir, "pairs.jsonl")
        write_jsonl(cls.pairs_path, cls.pairs)
        # "slow" stalls past the client's 0.5 s timeout; the delay makes requests overlap.
        cls.mock, cls.port = cls.start_mock(slow_s=1.0, delay_s=0.02)
        cls.out = os.path.join(cls.dir, "scores.jsonl")
        cls.summary_path = os.path.join(cls.dir, "summary.json")
        started = time.monotonic()
        cls.result = cls.run_scorer(cls.port, cls.pairs_path, cls.out, "--summary", cls.summary_path)
        cls.seconds = time.monotonic() - started
        with open(cls.summary_path, encoding="utf-8") as f:
            cls.summary = json.load(f)
        cls.scores = read_scores(cls.out)
        cls.requests_after_first_run = cls.mock.requests
        # What the first run was served; later tests of this class send more requests.
        cls.log = list(cls.mock.log)
        cls.max_in_flight = cls.mock.max_in_flight

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def served_to(self, pair: dict[str, Any]) -> list[mock_openai.Served]:
        return [s for s in self.log if s.hypothesis == pair["hypothesis"]]

    def test_exit_zero_and_every_pair_scored_exactly_once(self) -> None:
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        ids = [s["id"] for s in self.scores]
        self.assertEqual(sorted(ids), sorted(self.by_id))
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(self.summary["scored_with_probs"] + self.summary["scored_label_only"], 40)
        self.assertEqual(self.summary["not_scored"], {})

    def test_labels_are_the_mocks_answers(self) -> None:
        for score in self.scores:
            pair = self.by_id[score["id"]]
            allowed = [WORDS[label] for label in pair["labels"]]
            answered = [s.answer for s in self.served_to(pair) if s.answer is not None]
            self.assertEqual(len(set(answered)), 1, pair)
            word = allowed[mock_openai.answer_index(pair["hypothesis"], len(allowed))]
            self.assertEqual(answered[0], word)
            self.assertEqual(score["label"], pair["labels"][allowed.index(word)], score)

    def test_probabilities_are_the_mocks_logprobs_renormalised(self) -> None:
        with_probs = 0
        for score in self.scores:
            pair = self.by_id[score["id"]]
            case = mock_openai.case_of(pair["hypothesis"])
            if case in LABEL_ONLY:
                self.assertNotIn("probs", score, f"{case}: {score}")
                self.assertEqual(set(score), {"id", "label"})
                continue
            with_probs += 1
            expected = expected_probs(pair)
            self.assertEqual(list(score["probs"]), pair["labels"], "probs in canonical order")
            for label, p in expected.items():
                self.assertAlmostEqual(score["probs"][label], p, delta=1e-9, msg=f"{case} {label}")
            self.assertAlmostEqual(sum(score["probs"].values()), 1.0, delta=1e-12)
            self.assertEqual(score["label"], max(pair["labels"], key=lambda l: score["probs"][l]))
        self.assertEqual(with_probs, self.summary["scored_with_probs"])

    def test_label_only_reasons_name_their_pairs(self) -> None:
        expected: dict[str, set[str]] = {}
        for pair in self.pairs:
            case = mock_openai.case_of(pair["hypothesis"])
            if case in LABEL_ONLY:
                expected.setdefault(LABEL_ONLY[case], set()).add(pair["id"])
        got = {reason: g for reason, g in self.summary["label_only"].items()}
        self.assertEqual(set(got), set(expected))
        for reason, ids in expected.items():
            self.assertEqual(got[reason]["count"], len(ids))
            self.assertEqual(set(got[reason]["first_ids"]), ids)

    def test_every_misbehaviour_occurred_and_was_retried_as_often_as_expected(self) -> None:
        cases_seen: dict[str, int] = {}
        retries: dict[str, int] = {}
        for pair in self.pairs:
            case = mock_openai.case_of(pair["hypothesis"])
            served = [s.behaviour for s in self.served_to(pair)]
            self.assertEqual(tuple(served), mock_openai.CASES[case], f"{pair['id']} ({case})")
            cases_seen[case] = cases_seen.get(case, 0) + 1
            for behaviour in served[:-1]:
                retries[CAUSE[behaviour]] = retries.get(CAUSE[behaviour], 0) + 1
        self.assertEqual(set(cases_seen), set(mock_openai.CASE_NAMES))
        self.assertEqual(self.summary["retries"], dict(sorted(retries.items())))
        self.assertEqual(self.summary["requests"], self.requests_after_first_run)

    def test_prompts_keep_braces_unicode_and_say_when_there_is_no_premise(self) -> None:
        prompts = {s.hypothesis: self.mock.prompts[s.prompt_sha] for s in self.log}
        braces = [p for p in self.pairs if p["premise"].startswith(BRACES_PREMISE)]
        self.assertEqual(len(braces), 2)
        for pair in braces:
            prompt = prompts[pair["hypothesis"]]
            self.assertIn(f"Premise: {pair['premise']}\n", prompt)
            self.assertEqual(mock_openai.hypothesis_in(prompt), pair["hypothesis"])
        empty = next(p for p in self.pairs if p["premise"] == "")
        self.assertIn(f"Premise: {openai_chat.DEFAULT_EMPTY_PREMISE}\n", prompts[empty["hypothesis"]])
        first = next(p for p in self.pairs if p["order"] == "hypothesis_first")
        prompt = prompts[first["hypothesis"]]
        self.assertLess(prompt.index("Hypothesis:"), prompt.index("Premise:"))
        two_way = next(p for p in self.pairs if p["labels"] == TWO)
        self.assertIn("one of: entailment or contradiction.", prompts[two_way["hypothesis"]])
        self.assertNotIn("neutral", prompts[two_way["hypothesis"]])
        three_way = next(p for p in self.pairs if p["labels"] == THREE)
        self.assertIn("one of: entailment, neutral or contradiction.", prompts[three_way["hypothesis"]])

    def test_concurrency_stays_within_the_bound_and_is_used(self) -> None:
        self.assertLessEqual(self.max_in_flight, CONCURRENCY)
        self.assertGreaterEqual(self.max_in_flight, 2)

    def test_the_run_is_quick(self) -> None:
        self.assertLess(self.seconds, 10, self.result.stderr)

    def test_a_second_run_sends_no_request(self) -> None:
        out = os.path.join(self.dir, "resume.jsonl")
        shutil.copy(self.out, out)
        before = self.mock.requests
        result = self.run_scorer(self.port, self.pairs_path, out, "--summary", os.path.join(self.dir, "resume.json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.mock.requests, before)
        with open(os.path.join(self.dir, "resume.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["already_scored"], 40)
        with open(self.out, "rb") as a, open(out, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_a_truncated_last_line_is_dropped_and_its_pair_scored_again(self) -> None:
        out = os.path.join(self.dir, "killed.jsonl")
        with open(self.out, encoding="utf-8") as f:
            lines = f.readlines()
        last = lines[-1]
        with open(out, "w", encoding="utf-8") as f:
            f.writelines(lines[:-1])
            f.write(last[: len(last) // 2])  # a run killed while writing its last line
        before = self.mock.requests
        result = self.run_scorer(self.port, self.pairs_path, out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("dropped an unfinished last line", result.stderr)
        self.assertGreaterEqual(self.mock.requests, before + 1)
        scores = read_scores(out)
        self.assertEqual(sorted(s["id"] for s in scores), sorted(self.by_id))
        self.assertEqual(scores[-1], json.loads(last))

    def test_a_line_ending_without_its_newline_is_kept(self) -> None:
        out = os.path.join(self.dir, "no-newline.jsonl")
        with open(self.out, encoding="utf-8") as f:
            text = f.read()
        with open(out, "w", encoding="utf-8") as f:
            f.write(text.rstrip("\n"))
        before = self.mock.requests
        result = self.run_scorer(self.port, self.pairs_path, out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.mock.requests, before)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), text)


class Stops(MockCase):
    """Runs that must end without every pair scored, or not start at all."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempfile.mkdtemp(prefix="openai-chat-stops-")
        cls.pairs = build_pairs()
        cls.pairs_path = os.path.join(cls.dir, "pairs.jsonl")
        write_jsonl(cls.pairs_path, cls.pairs)

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def path(self, name: str) -> str:
        return os.path.join(self.dir, name)

    def test_an_always_unparseable_pair_is_named_in_the_summary(self) -> None:
        mock, port = self.start_mock(always_unparseable=(UNPARSEABLE_MARK,))
        pairs = [dict(p) for p in self.pairs[:6]]
        pairs[3]["hypothesis"] = f"Nothing sensible here {UNPARSEABLE_MARK}."
        bad_id = pairs[3]["id"]
        write_jsonl(self.path("unparseable.jsonl"), pairs)
        result = self.run_scorer(port, self.path("unparseable.jsonl"), self.path("unparseable-scores.jsonl"),
                                 "--retries", "2", "--summary", self.path("unparseable-summary.json"))
        self.assertEqual(result.returncode, 1, result.stderr)
        with open(self.path("unparseable-summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
        self.assertEqual(list(summary["not_scored"]), ["unparseable answer after 3 attempts"])
        group = summary["not_scored"]["unparseable answer after 3 attempts"]
        self.assertEqual((group["count"], group["first_ids"]), (1, [bad_id]))
        self.assertIn("I cannot tell.", group["last_detail"])
        self.assertIn(bad_id, result.stderr)
        self.assertEqual(sum(1 for s in mock.log if UNPARSEABLE_MARK in s.hypothesis), 3)
        scored = {s["id"] for s in read_scores(self.path("unparseable-scores.jsonl"))}
        self.assertEqual(scored, {p["id"] for p in pairs} - {bad_id})

    def test_a_refused_key_stops_at_once(self) -> None:
        mock, port = self.start_mock(require_key="the-right-key")
        out = self.path("401.jsonl")
        result = self.run_scorer(port, self.pairs_path, out, env=clean_env(OPENAI_API_KEY="a-wrong-key"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("HTTP 401", result.stderr)
        self.assertIn("refused the key in $OPENAI_API_KEY", result.stderr)
        self.assertNotIn("a-wrong-key", result.stderr)
        # Each thread's first request is refused; none is sent after that.
        self.assertLessEqual(mock.requests, CONCURRENCY)
        self.assertEqual(read_scores(out), [])
        result = self.run_scorer(port, self.pairs_path, out)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("No key was sent ($OPENAI_API_KEY is not set)", result.stderr)
        result = self.run_scorer(port, self.pairs_path, out, "--max-pairs", "2",
                                 env=clean_env(OPENAI_API_KEY="the-right-key"))
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertEqual(len(read_scores(out)), 2)

    def test_a_wrong_model_name_stops_at_once(self) -> None:
        mock, port = self.start_mock(model="served-model")
        result = self.run_scorer(port, self.pairs_path, self.path("404.jsonl"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("HTTP 404", result.stderr)
        self.assertIn("The model `mock` does not exist.", result.stderr)
        self.assertIn("--model", result.stderr)
        self.assertLessEqual(mock.requests, CONCURRENCY)

    def test_an_endpoint_that_never_answers_stops_the_run(self) -> None:
        _, port = self.start_mock()
        server = self.servers.pop()
        server.shutdown()
        server.server_close()  # nothing listens on the port any more
        result = self.run_scorer(port, self.pairs_path, self.path("down.jsonl"), "--retries", "1")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("never answered", result.stderr)
        self.assertIn("is --endpoint right", result.stderr)
        self.assertEqual(read_scores(self.path("down.jsonl")), [])

    def test_no_logprobs_asks_for_none_and_scores_labels_only(self) -> None:
        mock, port = self.start_mock()
        out = self.path("labels-only.jsonl")
        result = self.run_scorer(port, self.pairs_path, out, "--no-logprobs", "--max-pairs", "8")
        self.assertEqual(result.returncode, 3, result.stderr)
        scores = read_scores(out)
        self.assertEqual(len(scores), 8)
        self.assertTrue(all(set(s) == {"id", "label"} for s in scores), scores)
        self.assertTrue(mock.log and not any(s.logprobs_asked for s in mock.log))

    def test_ctrl_c_keeps_what_finished_and_a_rerun_completes(self) -> None:
        mock, port = self.start_mock(delay_s=0.1)
        out = self.path("interrupted.jsonl")
        # Ctrl-C in a terminal: SIGINT at its default disposition in the scorer. A test run
        # started in the background by a non-interactive shell (`scripts/test.sh &`) has SIGINT
        # ignored, which its children inherit, and Python then never raises KeyboardInterrupt:
        # the scorer ran to the end and this test failed (2026-11-30).
        process = subprocess.Popen(self.command(port, self.pairs_path, out, "--concurrency", "2"),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(),
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (not os.path.exists(out) or len(read_scores(out)) < 3):
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=20)
        self.assertEqual(process.returncode, 130, stderr)
        self.assertIn("interrupted", stderr)
        with open(out, encoding="utf-8") as f:
            text = f.read()
        self.assertTrue(text.endswith("\n"))
        kept = [json.loads(line) for line in text.splitlines()]  # every line whole
        self.assertTrue(3 <= len(kept) < 40, len(kept))
        result = self.run_scorer(port, self.pairs_path, out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(s["id"] for s in read_scores(out)), sorted(p["id"] for p in self.pairs))


class Refusals(unittest.TestCase):
    """Bad input files are refused before any request: the file and the line are named."""

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="openai-chat-refusals-")
        self.pairs_path = os.path.join(self.dir, "pairs.jsonl")
        self.out = os.path.join(self.dir, "scores.jsonl")

    def tearDown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def good(self, i: int, **changes: Any) -> dict[str, Any]:
        return {"id": f"p{i}", "premise": "P.", "hypothesis": f"H{i}.", "labels": THREE, **changes}

    def refuse(self, lines: list[str], *expected: str) -> None:
        with open(self.pairs_path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        # Port 9 (discard) on loopback: a request would fail, and none must be needed.
        result = subprocess.run([sys.executable, SCRIPT, "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                                 "--pairs", self.pairs_path, "--out", self.out],
                                capture_output=True, text=True, timeout=30, env=clean_env())
        self.assertEqual(result.returncode, 2, result.stderr)
        for text in expected:
            self.assertIn(text, result.stderr)

    def test_a_line_that_is_not_json(self) -> None:
        self.refuse([json.dumps(self.good(1)), "{not json"], "pairs.jsonl, line 2: not JSON")

    def test_a_line_that_is_not_an_object(self) -> None:
        self.refuse([json.dumps(self.good(1)), "", json.dumps([1, 2])], "pairs.jsonl, line 3: a list where a JSON object was expected")

    def test_a_line_without_a_hypothesis(self) -> None:
        pair = self.good(1)
        del pair["hypothesis"]
        self.refuse([json.dumps(pair)], "pairs.jsonl, line 1: no 'hypothesis'")

    def test_a_line_without_labels_or_with_others(self) -> None:
        pair = self.good(1)
        del pair["labels"]
        self.refuse([json.dumps(pair)], "pairs.jsonl, line 1: no 'labels'")
        self.refuse([json.dumps(self.good(1, labels=["ENTAIL", "NEUTRAL"]))], "pairs.jsonl, line 1: 'labels' is")

    def test_a_bad_order(self) -> None:
        self.refuse([json.dumps(self.good(1, order="sideways"))], "pairs.jsonl, line 1: 'order' is \"sideways\"")

    def test_a_repeated_id(self) -> None:
        self.refuse([json.dumps(self.good(1)), json.dumps(self.good(2)), json.dumps(self.good(1))],
                    "pairs.jsonl, line 3: id 'p1' repeats line 1")

    def test_a_damaged_scores_file(self) -> None:
        with open(self.out, "w", encoding="utf-8") as f:
            f.write('{"id":"p1","label":"ENTAIL"}\n{broken\n{"id":"p2","label":"ENTAIL"}\n')
        self.refuse([json.dumps(self.good(1)), json.dumps(self.good(2)), json.dumps(self.good(3))],
                    "scores.jsonl, line 2: not a JSON line")

    def test_a_scores_file_of_other_pairs(self) -> None:
        with open(self.out, "w", encoding="utf-8") as f:
            f.write('{"id":"elsewhere","label":"ENTAIL"}\n')
        self.refuse([json.dumps(self.good(1))], "scores.jsonl, line 1: id 'elsewhere' is not in the pairs file")

    def test_two_label_words_for_three_way_pairs(self) -> None:
        with open(self.pairs_path, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.good(1)) + "\n")
        result = subprocess.run([sys.executable, SCRIPT, "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                                 "--pairs", self.pairs_path, "--out", self.out, "--label-words", "yes,no"],
                                capture_output=True, text=True, timeout=30, env=clean_env())
        self.assertEqual(result.returncode, 2)
        self.assertIn("line 1 is a three-way pair", result.stderr)


class Pieces(unittest.TestCase):
    """The scorer's parsing, in-process."""

    THREE_WORDS = {"ENTAIL": "entailment", "NEUTRAL": "neutral", "CONTRADICT": "contradiction"}

    def test_answers_are_parsed_strictly(self) -> None:
        accepted = {"entailment": "ENTAIL", "  Neutral.\n": "NEUTRAL", '"Contradiction."': "CONTRADICT",
                    "'neutral'.": "NEUTRAL", "“entailment”": "ENTAIL", "CONTRADICTION": "CONTRADICT"}
        for text, label in accepted.items():
            self.assertEqual(openai_chat.parse_answer(text, self.THREE_WORDS), label, text)
        for text in ("I think it's entailment, probably", "entailment..", "neutral!", "entail", "",
                     "entailment neutral", '"neutral', "Neutral. ."):
            self.assertIsNone(openai_chat.parse_answer(text, self.THREE_WORDS), text)
        two = {"ENTAIL": "entailment", "CONTRADICT": "contradiction"}
        self.assertIsNone(openai_chat.parse_answer("neutral", two), "neutral is no answer to a two-way pair")

    def test_prefix_tokens_count_only_for_one_word(self) -> None:
        words = {"ENTAIL": "yes", "NEUTRAL": "maybe", "CONTRADICT": "yesnt"}
        top = [("yes", math.log(0.5)), ("Y", math.log(0.2)), ("maybe", math.log(0.1)), ("ma", math.log(0.05)),
               (" yesn", math.log(0.04)), ("yesnt", math.log(0.03)), (" ", math.log(0.02))]
        choice = {"logprobs": {"content": [{"top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}]}}
        probs, why = openai_chat.label_probs(choice, words)
        self.assertIsNone(why)
        # "Y" is a prefix of two words: no one's. "yes" equals a word (and is also a prefix of
        # "yesnt", but a whole word is that word's).
        total = 0.5 + 0.15 + 0.07
        self.assertAlmostEqual(probs["ENTAIL"], 0.5 / total, delta=1e-12)
        self.assertAlmostEqual(probs["NEUTRAL"], 0.15 / total, delta=1e-12)
        self.assertAlmostEqual(probs["CONTRADICT"], 0.07 / total, delta=1e-12)

    def test_missing_or_malformed_logprobs_give_labels_only(self) -> None:
        words = {"ENTAIL": "entailment", "CONTRADICT": "contradiction"}
        cases = {
            "no logprobs in the answer": {"logprobs": None},
            "malformed logprobs": {"logprobs": {"content": []}},
            "a label word not among the top tokens": {"logprobs": {"content": [{"top_logprobs": [{"token": "entailment", "logprob": -0.1}]}]}},
        }
        for why, choice in cases.items():
            self.assertEqual(openai_chat.label_probs(choice, words), (None, why))
        bad = {"logprobs": {"content": [{"top_logprobs": [{"token": "entailment", "logprob": float("nan")}]}]}}
        self.assertEqual(openai_chat.label_probs(bad, words), (None, "malformed logprobs"))

    def test_the_template_is_filled_once_and_checked(self) -> None:
        values = {"premise": "{hypothesis} {{x}} {premise}", "hypothesis": "H {premise}"}
        self.assertEqual(openai_chat.fill("P: {premise} | H: {hypothesis} | {other} {", values),
                         "P: {hypothesis} {{x}} {premise} | H: H {premise} | {other} {")
        with self.assertRaisesRegex(openai_chat.InputError, r"unknown placeholder\(s\) \{hypotesis\}"):
            openai_chat.check_template("t.txt", "{premise} {hypotesis}", False)
        with self.assertRaisesRegex(openai_chat.InputError, "no \\{hypothesis\\}"):
            openai_chat.check_template("t.txt", "{premise} only", False)
        with self.assertRaisesRegex(openai_chat.InputError, "two-way"):
            openai_chat.check_template("t.txt", "{premise} {hypothesis} {neutral_word}", True)
        openai_chat.check_template("t.txt", '{premise} {hypothesis} {"json": {"kept": 1}}', True)
        self.assertEqual(openai_chat.join_words(["a", "b"]), "a or b")
        self.assertEqual(openai_chat.join_words(["a", "b", "c"]), "a, b or c")

    def test_retry_after(self) -> None:
        self.assertEqual(openai_chat.retry_after_seconds("0"), 0.0)
        self.assertEqual(openai_chat.retry_after_seconds("2.5"), 2.5)
        self.assertIsNone(openai_chat.retry_after_seconds(None))
        self.assertIsNone(openai_chat.retry_after_seconds("soon"))
        self.assertEqual(openai_chat.retry_after_seconds("Thu, 01 Jan 1970 00:00:00 GMT"), 0.0)


if __name__ == "__main__":
    unittest.main()
