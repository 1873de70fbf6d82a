#!/usr/bin/env python3
"""Score a tabprobe pairs file with any OpenAI-compatible chat endpoint (standard library only).

Each pair becomes one prompt (a plain-text template the user edits), sent to
`{endpoint}/chat/completions` at temperature 0. The answer must be exactly one label word; the
probabilities come from the first answer token's `top_logprobs` where the server returns them,
else the pair is scored with its label only. Scores are appended to a JSONL file as each pair
finishes, so a run can be killed and started again: pairs already in the file are skipped.

    python scorers/openai_chat.py --endpoint http://127.0.0.1:8000/v1 --model NAME \\
        --pairs pairs.jsonl --out scores.jsonl

Formats, template and summary: scorers/README.md and docs/scoring-elsewhere.md.
Exit status: 0 every pair scored; 1 some pairs not scored (the summary says which and why);
2 bad input or the endpoint refused the request (HTTP 4xx other than 429); 3 stopped by
--max-pairs with pairs left; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import email.utils
import http.client
import json
import math
import os
import queue
import random
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scorefiles import (  # noqa: E402  (the scorers' shared module sits beside this file)
    CONTRADICT,
    ENTAIL,
    NEUTRAL,
    THREE_WAY,
    InputError,
    Pair,
    ScoresFile,
    argmax_label,
    read_pairs,
)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TEMPLATE = os.path.join(HERE, "prompt-template.txt")
DEFAULT_TEMPLATE_HYPOTHESIS_FIRST = os.path.join(HERE, "prompt-template-hypothesis-first.txt")
DEFAULT_EMPTY_PREMISE = "(none is given: judge the hypothesis on its own)"
PLACEHOLDERS = ("premise", "hypothesis", "label_words", "entail_word", "neutral_word", "contradict_word")
# `{name}`-shaped text: a placeholder if known, a typo to refuse if not. Any other brace (JSON
# in the template, braces in table text) is left alone.
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
QUOTES = "\"'`\u2018\u2019\u201c\u201d"
# Retry-After values beyond this are taken as this: a run should not sleep for hours unasked.
RETRY_AFTER_CAP_S = 600.0

EXIT_OK, EXIT_NOT_SCORED, EXIT_INPUT, EXIT_MAX_PAIRS, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


# ---------------------------------------------------------------------------------------------
# Prompt


def join_words(words: list[str]) -> str:
    """`a or b`, `a, b or c`: the allowed answers as the prompt states them."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def fill(template: str, values: dict[str, str]) -> str:
    """Replaces each known `{name}` of the template in one pass.

    One pass over the template only, so a premise holding `{hypothesis}` or any other braces is
    inserted verbatim and never substituted again (str.format would choke on table text).
    """
    return PLACEHOLDER_RE.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def check_template(path: str, text: str, two_way_present: bool) -> None:
    """Refuses a template with an unknown placeholder, without the texts, or asking for the
    neutral word where two-way pairs (which have none) are to be scored."""
    names = PLACEHOLDER_RE.findall(text)
    unknown = sorted({n for n in names if n not in PLACEHOLDERS})
    if unknown:
        raise InputError(
            f"{path}: unknown placeholder(s) {', '.join('{' + n + '}' for n in unknown)}; "
            f"known: {', '.join('{' + n + '}' for n in PLACEHOLDERS)}"
        )
    for needed in ("premise", "hypothesis"):
        if needed not in names:
            raise InputError(f"{path}: the template has no {{{needed}}}")
    if two_way_present and "neutral_word" in names:
        raise InputError(
            f"{path}: the template uses {{neutral_word}}, but some pairs are two-way (no NEUTRAL); "
            "state the allowed words with {label_words} instead"
        )


@dataclass(frozen=True)
class LabelWords:
    """The word the model answers for each canonical label."""

    by_label: dict[str, str]

    @staticmethod
    def parse(spec: str) -> "LabelWords":
        words = [w.strip() for w in spec.split(",")]
        if len(words) not in (2, 3) or any(not w or any(c.isspace() for c in w) for w in words):
            raise InputError(
                f"--label-words {spec!r}: expected 3 words (ENTAIL, NEUTRAL, CONTRADICT) or 2 "
                "(ENTAIL, CONTRADICT) separated by commas, each without spaces"
            )
        if len({w.casefold() for w in words}) != len(words):
            raise InputError(f"--label-words {spec!r}: the words must differ (case is ignored)")
        labels = THREE_WAY if len(words) == 3 else (ENTAIL, CONTRADICT)
        return LabelWords(dict(zip(labels, words)))

    def for_pair(self, pair: Pair) -> dict[str, str]:
        """The pair's labels (canonical order) to their words."""
        return {label: self.by_label[label] for label in pair.labels}


def prompt_for(pair: Pair, templates: dict[str, str], words: LabelWords, empty_premise: str) -> str:
    pair_words = words.for_pair(pair)
    values = {
        "premise": pair.premise if pair.premise != "" else empty_premise,
        "hypothesis": pair.hypothesis,
        "label_words": join_words(list(pair_words.values())),
        "entail_word": words.by_label[ENTAIL],
        "neutral_word": words.by_label.get(NEUTRAL, ""),
        "contradict_word": words.by_label[CONTRADICT],
    }
    return fill(templates[pair.order], values)


# ---------------------------------------------------------------------------------------------
# Answer


def parse_answer(content: str, pair_words: dict[str, str]) -> str | None:
    """The label whose word the answer is, or None.

    Strict on purpose: whitespace, surrounding quotes and one trailing period are forgiven,
    case is ignored, and nothing else — "I think it's entailment" is not an answer.
    """
    text = content.strip()
    period = text.endswith(".")
    if period:
        text = text[:-1].rstrip()
    # Quotes around the word, with its period inside them ("Neutral.") or outside ("Neutral").
    if len(text) >= 2 and text[0] in QUOTES and text[-1] in QUOTES:
        text = text[1:-1].strip()
        if not period and text.endswith("."):
            text = text[:-1].rstrip()
    matches = [label for label, word in pair_words.items() if text.casefold() == word.casefold()]
    return matches[0] if len(matches) == 1 else None


def _prefix_owner(token: str, pair_words: dict[str, str]) -> str | None:
    """The label a top token stands for: the token (stripped, lower case) equals a word, or is a
    non-empty prefix of exactly one word; a prefix two words share says nothing."""
    t = token.strip().casefold()
    if not t:
        return None
    for label, word in pair_words.items():
        if t == word.casefold():
            return label  # a whole word is that word's, even when it begins another
    owners = [label for label, word in pair_words.items() if word.casefold().startswith(t)]
    return owners[0] if len(owners) == 1 else None


def label_probs(choice: dict[str, Any], pair_words: dict[str, str]) -> tuple[dict[str, float] | None, str | None]:
    """Probabilities over the pair's labels from the first answer token's top_logprobs,
    renormalised over the label words; or None and why the pair is label-only."""
    logprobs = choice.get("logprobs")
    if logprobs is None:
        return None, "no logprobs in the answer"
    try:
        top = logprobs["content"][0]["top_logprobs"]
        entries = [(e["token"], e["logprob"]) for e in top]
    except (KeyError, IndexError, TypeError):
        return None, "malformed logprobs"
    mass = {label: 0.0 for label in pair_words}
    for token, logprob in entries:
        if not isinstance(token, str) or isinstance(logprob, bool) or not isinstance(logprob, (int, float)):
            return None, "malformed logprobs"
        # A log-probability is <= 0; a hair above is rounding, more is a broken server.
        if math.isnan(logprob) or logprob > 1e-6:
            return None, "malformed logprobs"
        owner = _prefix_owner(token, pair_words)
        if owner is not None:
            mass[owner] += math.exp(min(logprob, 0.0))
    missing = [pair_words[label] for label, m in mass.items() if m <= 0.0]
    if missing:
        return None, "a label word not among the top tokens"
    total = math.fsum(mass.values())
    return {label: m / total for label, m in mass.items()}, None


# ---------------------------------------------------------------------------------------------
# HTTP


class Retryable(Exception):
    """A failure worth another attempt: `cause` groups it in the summary."""

    def __init__(self, cause: str, detail: str = "", retry_after: float | None = None) -> None:
        super().__init__(f"{cause}: {detail}" if detail else cause)
        self.cause, self.detail, self.retry_after = cause, detail, retry_after


class Fatal(Exception):
    """A refusal no retry can fix (wrong model name, bad key): the run stops at once."""


def retry_after_seconds(value: str | None) -> float | None:
    """`Retry-After` as seconds: a number, or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP_S)


def server_message(body: bytes) -> str:
    """The error message an OpenAI-style body carries, else the body's start."""
    text = body.decode("utf-8", errors="replace")
    try:
        message = json.loads(text)["error"]["message"]
        if isinstance(message, str):
            return message
    except (ValueError, KeyError, TypeError):
        pass
    text = " ".join(text.split())
    return text[:300] + ("…" if len(text) > 300 else "")


def fatal_message(status: int, url: str, body: bytes, key_env: str, key_sent: bool) -> str:
    said = server_message(body)
    head = f"HTTP {status} from {url}" + (f": {said}" if said else "")
    if status in (401, 403):
        if key_sent:
            return f"{head}\nThe endpoint refused the key in ${key_env}; check it (or name another variable with --api-key-env)."
        return f"{head}\nNo key was sent (${key_env} is not set); set it, or name another variable with --api-key-env."
    if status == 404:
        return f"{head}\nCheck the model name (--model) and that --endpoint is the API's base URL (most end in /v1)."
    if status == 400:
        return f"{head}\nThe server refused the request; if it cannot return logprobs, run with --no-logprobs."
    return head


@dataclass
class Settings:
    url: str
    model: str
    timeout: float
    retries: int
    logprobs: bool
    top_logprobs: int
    max_tokens: int
    key_env: str
    key: str | None
    backoff_base: float
    backoff_max: float


def request_once(settings: Settings, prompt: str) -> dict[str, Any]:
    """One POST; the parsed first choice. Raises Retryable or Fatal."""
    body: dict[str, Any] = {
        "model": settings.model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0,
        "max_tokens": settings.max_tokens,
    }
    if settings.logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = settings.top_logprobs
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if settings.key:
        headers["Authorization"] = f"Bearer {settings.key}"
    request = urllib.request.Request(
        settings.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as e:
        error_body = e.read() if e.fp is not None else b""
        if e.code == 429 or 500 <= e.code <= 599:
            raise Retryable(f"HTTP {e.code}", server_message(error_body), retry_after_seconds(e.headers.get("Retry-After"))) from None
        raise Fatal(fatal_message(e.code, settings.url, error_body, settings.key_env, bool(settings.key))) from None
    except urllib.error.URLError as e:
        if isinstance(e.reason, (TimeoutError, socket.timeout)):
            raise Retryable("timeout", f"no answer within {settings.timeout:g} s") from None
        raise Retryable("connection error", str(e.reason)) from None
    except (TimeoutError, socket.timeout):
        raise Retryable("timeout", f"no answer within {settings.timeout:g} s") from None
    except (ConnectionError, http.client.HTTPException, OSError) as e:
        raise Retryable("connection error", f"{type(e).__name__}: {e}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise Retryable("malformed JSON body", server_message(raw)) from None
    try:
        choice = data["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise Retryable("missing fields", "no choices[0].message.content") from None
    if not isinstance(content, str):
        raise Retryable("missing fields", "choices[0].message.content is not a string")
    return choice


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class Tally:
    """What happened, for the summary; every change under `lock`."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    with_probs: int = 0
    label_only: dict[str, list[str]] = field(default_factory=dict)
    not_scored: dict[str, list[str]] = field(default_factory=dict)
    last_detail: dict[str, str] = field(default_factory=dict)
    retries: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    finished: int = 0

    def add(self, groups: dict[str, list[str]], reason: str, pair_id: str) -> None:
        with self.lock:
            groups.setdefault(reason, []).append(pair_id)


class Run:
    """Scores pairs on a fixed number of threads; one lock guards the file, one the tally."""

    def __init__(self, settings: Settings, templates: dict[str, str], words: LabelWords,
                 empty_premise: str, scores: ScoresFile, concurrency: int, seed: int) -> None:
        self.settings, self.templates, self.words = settings, templates, words
        self.empty_premise, self.scores, self.concurrency = empty_premise, scores, concurrency
        self.tally = Tally()
        self.stop = threading.Event()
        self.fatal: str | None = None
        # Whether the endpoint has ever answered (any HTTP status counts). Until it has, a pair
        # that runs out of retries on connection errors means a wrong --endpoint or a server
        # that is down, and the run stops instead of failing every pair the same slow way.
        self.answered = threading.Event()
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._todo: queue.Queue[Pair] = queue.Queue()
        self._threads: list[threading.Thread] = []

    def backoff(self, retry: int, retry_after: float | None) -> float:
        """Seconds before retry number `retry` (1-based): the server's Retry-After when it
        gives one, else exponential with jitter (half fixed, half from the seeded RNG)."""
        if retry_after is not None:
            return retry_after
        ceiling = min(self.settings.backoff_max, self.settings.backoff_base * 2 ** (retry - 1))
        with self._rng_lock:
            return ceiling * (0.5 + 0.5 * self._rng.random())

    def score(self, pair: Pair) -> None:
        pair_words = self.words.for_pair(pair)
        prompt = prompt_for(pair, self.templates, self.words, self.empty_premise)
        last: Retryable | None = None
        for attempt in range(self.settings.retries + 1):
            if attempt:
                delay = self.backoff(attempt, last.retry_after if last else None)
                if self.stop.wait(delay):
                    return
            if self.stop.is_set():
                return
            with self.tally.lock:
                self.tally.requests += 1
            try:
                choice = request_once(self.settings, prompt)
                label = parse_answer(choice["message"]["content"], pair_words)
                if label is None:
                    raise Retryable("unparseable answer", repr(choice["message"]["content"][:200]))
            except Retryable as e:
                last = e
                if e.cause != "connection error":
                    self.answered.set()
                if attempt < self.settings.retries:
                    with self.tally.lock:
                        self.tally.retries[e.cause] = self.tally.retries.get(e.cause, 0) + 1
                continue
            except Fatal as e:
                self.answered.set()
                with self.tally.lock:
                    if self.fatal is None:
                        self.fatal = str(e)
                self.stop.set()
                return
            self.answered.set()
            self.record(pair, choice, label, pair_words)
            return
        assert last is not None
        if last.cause == "connection error" and not self.answered.is_set():
            with self.tally.lock:
                if self.fatal is None:
                    self.fatal = (f"{self.settings.url} never answered ({last.detail}) in "
                                  f"{self.settings.retries + 1} attempts; is --endpoint right and the server up?")
            self.stop.set()
            return
        reason = f"{last.cause} after {self.settings.retries + 1} attempts"
        self.tally.add(self.tally.not_scored, reason, pair.id)
        with self.tally.lock:
            self.tally.last_detail.setdefault(reason, last.detail)
            self.tally.finished += 1

    def record(self, pair: Pair, choice: dict[str, Any], label: str, pair_words: dict[str, str]) -> None:
        probs, why = (None, "logprobs not asked for (--no-logprobs)")
        if self.settings.logprobs:
            probs, why = label_probs(choice, pair_words)
        if probs is not None and argmax_label(probs, pair.labels) != label:
            # The answer is what the model said; probabilities that disagree with it are wrong
            # somewhere (another token's mass, a quote before the word), so they are dropped.
            probs, why = None, "the probabilities' argmax disagrees with the answer"
        if not self.scores.append(pair, probs, label):
            return  # the file was closed (Ctrl-C): the pair stays unscored
        if probs is None:
            self.tally.add(self.tally.label_only, why or "", pair.id)
        with self.tally.lock:
            self.tally.with_probs += probs is not None
            self.tally.finished += 1

    def _worker(self) -> None:
        while not self.stop.is_set():
            try:
                pair = self._todo.get_nowait()
            except queue.Empty:
                return
            try:
                self.score(pair)
            except Exception as e:  # noqa: BLE001  a bug must cost one pair, visibly, not a thread
                reason = f"internal error ({type(e).__name__})"
                self.tally.add(self.tally.not_scored, reason, pair.id)
                with self.tally.lock:
                    self.tally.last_detail.setdefault(reason, str(e))
                    self.tally.finished += 1

    def start(self, pairs: list[Pair]) -> None:
        for pair in pairs:
            self._todo.put(pair)
        for _ in range(min(self.concurrency, len(pairs))):
            # Daemon threads: Ctrl-C must not wait out a request in flight.
            thread = threading.Thread(target=self._worker, daemon=True)
            thread.start()
            self._threads.append(thread)

    def alive(self) -> bool:
        return any(t.is_alive() for t in self._threads)


def progress(run: Run, total: int, started: float, last_print: float) -> float:
    """A progress line on stderr every 5 s; returns when it last printed."""
    now = time.monotonic()
    if now - last_print < 5.0:
        return last_print
    with run.tally.lock:
        done, retries = run.tally.finished, sum(run.tally.retries.values())
    rate = done / max(now - started, 1e-9)
    print(f"openai_chat: {done}/{total} pairs done ({rate:.1f} pairs/s), {retries} retries", file=sys.stderr)
    return now


# ---------------------------------------------------------------------------------------------
# Summary


def summary_dict(args: argparse.Namespace, pairs: list[Pair], already: int, run: Run | None,
                 stopped: str | None, exit_code: int) -> dict[str, Any]:
    tally = run.tally if run else Tally()

    def groups(g: dict[str, list[str]]) -> dict[str, Any]:
        return {reason: {"count": len(ids), "first_ids": ids[:10]} for reason, ids in sorted(g.items())}

    not_scored = groups(tally.not_scored)
    for reason, entry in not_scored.items():
        entry["last_detail"] = tally.last_detail.get(reason, "")
    label_only = sum(len(v) for v in tally.label_only.values())
    failed = sum(len(v) for v in tally.not_scored.values())
    return {
        "pairs_file": args.pairs,
        "scores_file": args.out,
        "pairs": len(pairs),
        "already_scored": already,
        "scored_with_probs": tally.with_probs,
        "scored_label_only": label_only,
        "label_only": groups(tally.label_only),
        "not_scored": not_scored,
        "not_attempted": len(pairs) - already - tally.with_probs - label_only - failed,
        "requests": tally.requests,
        "retries": dict(sorted(tally.retries.items())),
        "stopped": stopped,
        "exit_code": exit_code,
    }


def _ids(group: dict[str, Any]) -> str:
    """A group's first ids, and how many more there are."""
    ids = group["first_ids"][:5]
    more = group["count"] - len(ids)
    return ", ".join(ids) + (f" and {more} more" if more > 0 else "")


def print_summary(s: dict[str, Any]) -> None:
    out = sys.stderr
    print(f"openai_chat: summary ({s['pairs_file']} -> {s['scores_file']})", file=out)
    print(f"  pairs in the file:          {s['pairs']}", file=out)
    print(f"  already scored (skipped):   {s['already_scored']}", file=out)
    print(f"  scored with probabilities:  {s['scored_with_probs']}", file=out)
    print(f"  scored with a label only:   {s['scored_label_only']}", file=out)
    for reason, g in s["label_only"].items():
        print(f"    label only: {reason}: {g['count']} ({_ids(g)})", file=out)
    failed = sum(g["count"] for g in s["not_scored"].values())
    print(f"  not scored:                 {failed}", file=out)
    for reason, g in s["not_scored"].items():
        print(f"    {reason}: {g['count']} ({_ids(g)}); last: {g['last_detail']}", file=out)
    if s["not_attempted"]:
        print(f"  not attempted:              {s['not_attempted']} ({s['stopped']})", file=out)
    causes = ", ".join(f"{c}: {n}" for c, n in s["retries"].items()) or "none"
    print(f"  requests: {s['requests']}; retries: {sum(s['retries'].values())} ({causes})", file=out)


# ---------------------------------------------------------------------------------------------
# Command line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Score a tabprobe pairs file with an OpenAI-compatible chat endpoint.",
        epilog="Exit status: 0 all scored, 1 some not scored, 2 bad input or refused, 3 --max-pairs reached, 130 interrupted.",
    )
    p.add_argument("--endpoint", required=True, help="the API's base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", required=True, help="the model name the endpoint serves")
    p.add_argument("--pairs", required=True, help="the pairs file tabprobe exported (JSONL)")
    p.add_argument("--out", required=True, help="the scores file to write or resume (JSONL)")
    p.add_argument("--template", default=DEFAULT_TEMPLATE, help="prompt template for premise-first pairs")
    p.add_argument("--template-hypothesis-first", default=DEFAULT_TEMPLATE_HYPOTHESIS_FIRST,
                   help="prompt template for hypothesis-first pairs")
    p.add_argument("--empty-premise", default=DEFAULT_EMPTY_PREMISE,
                   help="what {premise} becomes for a pair without a premise (hypothesis-only)")
    p.add_argument("--label-words", default="entailment,neutral,contradiction",
                   help="the answer words for ENTAIL,NEUTRAL,CONTRADICT (or ENTAIL,CONTRADICT)")
    p.add_argument("--concurrency", type=int, default=4, help="requests in flight at most")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for an answer")
    p.add_argument("--retries", type=int, default=5, help="retries per pair after its first attempt")
    p.add_argument("--backoff-base", type=float, default=1.0, help="first retry's delay ceiling in seconds (doubles each retry)")
    p.add_argument("--backoff-max", type=float, default=60.0, help="largest delay between retries in seconds")
    p.add_argument("--seed", type=int, default=0, help="seed of the retry jitter")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key (sent as a Bearer token when set)")
    p.add_argument("--no-logprobs", action="store_true", help="do not ask for logprobs: every pair is scored with its label only")
    p.add_argument("--top-logprobs", type=int, default=5, help="top tokens asked for (the endpoint's limit applies)")
    p.add_argument("--max-tokens", type=int, default=5, help="answer tokens at most")
    p.add_argument("--max-pairs", type=int, default=None, help="score at most N new pairs this run")
    p.add_argument("--summary", default=None, help="also write the summary as JSON to this file")
    args = p.parse_args(argv)
    for name in ("concurrency", "top_logprobs", "max_tokens"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.retries < 0 or (args.max_pairs is not None and args.max_pairs < 0):
        p.error("--retries and --max-pairs cannot be negative")
    if not args.endpoint.startswith(("http://", "https://")):
        p.error(f"--endpoint {args.endpoint!r}: expected an http:// or https:// URL, e.g. http://127.0.0.1:8000/v1")
    if not (args.timeout > 0 and args.backoff_base >= 0 and args.backoff_max >= 0):
        p.error("--timeout must be positive and the backoff delays not negative")
    return args


def load_inputs(args: argparse.Namespace) -> tuple[list[Pair], dict[str, str], LabelWords]:
    pairs = read_pairs(args.pairs)
    words = LabelWords.parse(args.label_words)
    if NEUTRAL not in words.by_label and any(not p.two_way for p in pairs):
        first = next(p for p in pairs if not p.two_way)
        raise InputError(f"--label-words gives 2 words, but {args.pairs}, line {first.line} is a three-way pair; give 3")
    templates: dict[str, str] = {}
    for order, path in (("premise_first", args.template), ("hypothesis_first", args.template_hypothesis_first)):
        if not any(p.order == order for p in pairs):
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as e:
            raise InputError(f"{path}: cannot be read ({e.strerror})") from None
        check_template(path, text, any(p.two_way for p in pairs))
        templates[order] = text
    return pairs, templates, words


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        pairs, templates, words = load_inputs(args)
        scores = ScoresFile(args.out, pairs)
    except InputError as e:
        print(f"openai_chat: {e}", file=sys.stderr)
        return EXIT_INPUT
    already = sum(1 for p in pairs if p.id in scores.done)
    todo = [p for p in pairs if p.id not in scores.done]
    limited = args.max_pairs is not None and len(todo) > args.max_pairs
    if limited:
        todo = todo[: args.max_pairs]
    key = os.environ.get(args.api_key_env) or None
    settings = Settings(
        url=args.endpoint.rstrip("/") + "/chat/completions", model=args.model, timeout=args.timeout,
        retries=args.retries, logprobs=not args.no_logprobs, top_logprobs=args.top_logprobs,
        max_tokens=args.max_tokens, key_env=args.api_key_env, key=key,
        backoff_base=args.backoff_base, backoff_max=args.backoff_max,
    )
    print(f"openai_chat: {len(pairs)} pairs, {already} already in {args.out}, scoring {len(todo)}", file=sys.stderr)
    run = Run(settings, templates, words, args.empty_premise, scores, args.concurrency, args.seed)
    stopped: str | None = None
    started = last_print = time.monotonic()
    try:
        run.start(todo)
        while run.alive():
            time.sleep(0.05)
            last_print = progress(run, len(todo), started, last_print)
    except KeyboardInterrupt:
        run.stop.set()
        stopped = "interrupted"
    # Closing under the write lock: a thread still in flight can no longer half-write a line.
    scores.close()
    if run.fatal:
        print(f"openai_chat: stopped: {run.fatal}", file=sys.stderr)
        stopped = "refused: " + run.fatal.splitlines()[0]
    elif limited and stopped is None:
        stopped = f"--max-pairs {args.max_pairs}"
    failed = any(run.tally.not_scored.values())
    if run.fatal:
        code = EXIT_INPUT
    elif stopped == "interrupted":
        code = EXIT_INTERRUPTED
    elif failed:
        code = EXIT_NOT_SCORED
    elif limited:
        code = EXIT_MAX_PAIRS
    else:
        code = EXIT_OK
    summary = summary_dict(args, pairs, already, run, stopped, code)
    print_summary(summary)
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
