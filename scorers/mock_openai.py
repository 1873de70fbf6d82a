#!/usr/bin/env python3
"""A local stand-in for an OpenAI-compatible chat endpoint that answers NLI prompts
deterministically and misbehaves deterministically (standard library only).

It exists to test `openai_chat.py` (scorers/tests/test_openai_chat.py) and to try a template
or a run's settings without a real model:

    python scorers/mock_openai.py --port 0          # prints "port N"; Ctrl-C stops it
    python scorers/openai_chat.py --endpoint http://127.0.0.1:N/v1 --model mock ...

What it reads from a prompt (the shipped templates write both lines):
  * the hypothesis: the rest of the last line starting with "Hypothesis:";
  * the allowed answers: the configured label words found in the last line starting with
    "Answer" (all of them when there is no such line), so two-way prompts get two-way answers.

What it answers: the label word with index sha256("answer", hypothesis) mod the number of
allowed words, with top_logprobs for the first token made from the same hash: the answer word,
the other words, a unique prefix of one word (e.g. "Contr") and a decoy token ("The"); their
probabilities sum to less than 1 (the rest of the vocabulary).

How it misbehaves: each hypothesis falls into one CASE (sha256("case", hypothesis) mod the
number of cases); the case lists what the 1st, 2nd, … attempt with that prompt gets, the last
entry repeating for every later attempt. Attempts are counted per prompt (its sha256), so a
retry is recognised whichever thread sends it. Everything served is recorded (`Mock.log`,
`Mock.max_in_flight`; GET /mock/stats when run standalone) so a test can check the retries.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_WORDS = ("entailment", "neutral", "contradiction")

# What each attempt of a prompt gets, per case; the last entry repeats. Behaviours:
#   ok            the answer word, with logprobs
#   http429       429 with Retry-After: 0          http500   500, no Retry-After
#   http503       503 with Retry-After: 0          slow      no reply before SLOW seconds
#   not_json      200 with an HTML body            no_choices 200, JSON without "choices"
#   chatty        "I think it's <word>, probably" (not a label: unparseable)
#   no_logprobs   the answer word, "logprobs": null
#   capitalised   "Neutral." (capital, a period; the top token "Neutral")
#   quoted        '  "contradiction"\n' (quotes and whitespace around the word)
#   word_missing  logprobs where one allowed word has no top token
#   disagree      logprobs whose most probable word is not the answer
CASES: dict[str, tuple[str, ...]] = {
    "ok": ("ok",),
    "http429": ("http429", "ok"),
    "http500": ("http500", "ok"),
    "http503": ("http503", "ok"),
    "slow": ("slow", "ok"),
    "not_json": ("not_json", "ok"),
    "no_choices": ("no_choices", "ok"),
    "chatty": ("chatty", "ok"),
    "twice": ("http500", "http429", "ok"),
    "no_logprobs": ("no_logprobs",),
    "capitalised": ("capitalised",),
    "quoted": ("quoted",),
    "word_missing": ("word_missing",),
    "disagree": ("disagree",),
}
CASE_NAMES = tuple(CASES)
# The behaviours that answer with a label (the others are errors to retry).
ANSWERS = ("ok", "no_logprobs", "capitalised", "quoted", "word_missing", "disagree")


def _digest(kind: str, text: str) -> bytes:
    return hashlib.sha256(f"{kind}\0{text}".encode("utf-8")).digest()


def case_of(hypothesis: str) -> str:
    """The misbehaviour case a hypothesis falls into."""
    return CASE_NAMES[int.from_bytes(_digest("case", hypothesis)[:8], "big") % len(CASE_NAMES)]


def answer_index(hypothesis: str, allowed: int) -> int:
    """Which of the allowed words (in canonical order) the mock answers."""
    return int.from_bytes(_digest("answer", hypothesis)[:8], "big") % allowed


def unique_prefix(word: str, words: tuple[str, ...]) -> str | None:
    """The shortest prefix of `word` (at least 3 letters, shorter than the word) that no other
    word starts with; None when there is none."""
    others = [w.casefold() for w in words if w != word]
    for n in range(3, len(word)):
        if not any(o.startswith(word[:n].casefold()) for o in others):
            return word[:n]
    return None


@dataclass(frozen=True)
class TopToken:
    token: str
    logprob: float
    word: str | None  # the label word this token stands for (None: a decoy)


def logprob_table(hypothesis: str, words: tuple[str, ...], behaviour: str) -> list[TopToken]:
    """The first answer token's top logprobs, most probable first.

    The answer word gets 0.5–0.8 of the mass, so it stays the most probable word whatever the
    other tokens add — except in `disagree`, where another word is given more than it. The
    tokens listed always leave some mass to the rest of the vocabulary.
    """
    u = [b / 255 for b in _digest("logprobs", hypothesis)]
    answer = words[answer_index(hypothesis, len(words))]
    others = [w for w in words if w != answer]
    if behaviour == "disagree":
        mass = {answer: 0.3 + 0.1 * u[0], others[0]: 0.45 + 0.1 * u[0]}
    else:
        mass = {answer: 0.5 + 0.3 * u[0]}
    rest = 1.0 - sum(mass.values())
    for i, w in enumerate(others):
        mass.setdefault(w, rest * 0.25 * (0.2 + 0.8 * u[1 + i]))
    first = answer.capitalize() if behaviour == "capitalised" else answer
    table = [TopToken(first if w == answer else " " + w, math.log(p), w) for w, p in mass.items()]
    # A prefix token ("Contr") counts for its word; at most 0.15 of the rest, so it never
    # changes which word is the most probable.
    prefixed = words[int(u[5] * 255) % len(words)]
    prefix = unique_prefix(prefixed, words)
    if prefix is not None:
        table.append(TopToken(prefix.capitalize(), math.log(rest * 0.15 * (0.2 + 0.8 * u[6])), prefixed))
    table.append(TopToken("The", math.log(rest * 0.1 * (0.2 + 0.8 * u[7])), None))
    if behaviour == "word_missing":
        table = [t for t in table if t.word != others[0]]
    return sorted(table, key=lambda t: -t.logprob)


def hypothesis_in(prompt: str) -> str:
    """The rest of the prompt's last line starting with 'Hypothesis:'."""
    found = ""
    for line in prompt.splitlines():
        if line.startswith("Hypothesis:"):
            found = line[len("Hypothesis:"):].strip()
    return found


def allowed_words(prompt: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """The configured words named on the prompt's last 'Answer…' line (all without one)."""
    line = ""
    for candidate in prompt.splitlines():
        if candidate.startswith("Answer"):
            line = candidate.casefold()
    if not line:
        return words
    return tuple(w for w in words if w.casefold() in line) or words


@dataclass
class Served:
    """One request as the mock saw it."""

    prompt_sha: str
    hypothesis: str
    attempt: int
    behaviour: str
    answer: str | None
    logprobs_asked: bool


@dataclass
class Mock:
    """The mock's settings and its record of what it served (all under `lock`)."""

    words: tuple[str, ...] = DEFAULT_WORDS
    model: str | None = None          # other model names get 404
    require_key: str | None = None    # requests without "Bearer <key>" get 401
    always_unparseable: tuple[str, ...] = ()  # hypotheses containing one always get "I cannot tell."
    slow_s: float = 2.0               # how long "slow" keeps the client waiting
    delay_s: float = 0.0              # added to every answer, so concurrent requests overlap
    lock: threading.Lock = field(default_factory=threading.Lock)
    attempts: dict[str, int] = field(default_factory=dict)
    log: list[Served] = field(default_factory=list)
    prompts: dict[str, str] = field(default_factory=dict)
    in_flight: int = 0
    max_in_flight: int = 0
    requests: int = 0

    def enter(self) -> None:
        with self.lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def behaviour_for(self, prompt: str, hypothesis: str) -> tuple[str, int, str]:
        sha = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
        with self.lock:
            attempt = self.attempts.get(sha, 0) + 1
            self.attempts[sha] = attempt
            self.prompts[sha] = prompt
        if any(s in hypothesis for s in self.always_unparseable):
            return sha, attempt, "unparseable"
        steps = CASES[case_of(hypothesis)]
        return sha, attempt, steps[min(attempt, len(steps)) - 1]

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": self.requests,
                "max_in_flight": self.max_in_flight,
                "served": [s.__dict__ for s in self.log],
            }


def completion(model: str, content: str, logprobs: list[TopToken] | None, top_n: int) -> dict[str, Any]:
    """A chat.completion body as OpenAI's API shapes it."""
    lp = None
    if logprobs is not None:
        top = [{"token": t.token, "logprob": t.logprob, "bytes": list(t.token.encode("utf-8"))} for t in logprobs[:top_n]]
        lp = {"content": [{**top[0], "top_logprobs": top}]}
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "logprobs": lp, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 1, "total_tokens": 1},
    }


class Handler(BaseHTTPRequestHandler):
    """POST …/chat/completions; GET /mock/stats."""

    server: "MockServer"
    counted: bool  # whether this request is still in the mock's in-flight count

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        pass  # quiet: tests read their own output

    def _send(self, status: int, body: bytes, content_type: str = "application/json", headers: dict[str, str] | None = None) -> None:
        # A request leaves the in-flight count as its answer starts out, not after: once the
        # client has read the answer it may send its next request before this thread gets back
        # to do_POST's `finally`, which counted one request too many (5 of a bound of 4).
        if getattr(self, "counted", False):
            self.server.mock.leave()
            self.counted = False
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the "slow" case): nothing to do

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"), headers=headers)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._json(status, {"error": {"message": message, "type": "mock_error", "code": status}}, headers)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.rstrip("/") == "/mock/stats":
            self._json(200, self.server.mock.stats())
        else:
            self._error(404, f"no such path {self.path}")

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        mock = self.server.mock
        mock.enter()
        self.counted = True
        try:
            self._post(mock)
        finally:
            if self.counted:
                mock.leave()

    def _post(self, mock: Mock) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._error(404, f"no such path {self.path}")
        if mock.require_key is not None and self.headers.get("Authorization") != f"Bearer {mock.require_key}":
            return self._error(401, "Incorrect API key provided.")
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            prompt = request["messages"][-1]["content"]
            model = request["model"]
        except (ValueError, KeyError, IndexError, TypeError):
            return self._error(400, "the request is not a chat completion request")
        if mock.model is not None and model != mock.model:
            return self._error(404, f"The model `{model}` does not exist.")
        hypothesis = hypothesis_in(prompt)
        words = allowed_words(prompt, mock.words)
        sha, attempt, behaviour = mock.behaviour_for(prompt, hypothesis)
        answer = words[answer_index(hypothesis, len(words))] if behaviour in ANSWERS else None
        with mock.lock:
            mock.log.append(Served(sha, hypothesis, attempt, behaviour, answer, bool(request.get("logprobs"))))
        self._serve(mock, behaviour, hypothesis, words, answer, model, request)

    def _serve(self, mock: Mock, behaviour: str, hypothesis: str, words: tuple[str, ...],
               answer: str | None, model: str, request: dict[str, Any]) -> None:
        if behaviour == "slow":
            # Out of the in-flight count while it stalls: the client has given up on it and
            # may have its next request out, which is what the concurrency bound is about.
            mock.leave()
            self.counted = False
            time.sleep(mock.slow_s)
            return self._error(500, "too late")
        if mock.delay_s:
            time.sleep(mock.delay_s)
        if behaviour == "http429":
            return self._error(429, "Rate limit reached.", {"Retry-After": "0"})
        if behaviour == "http500":
            return self._error(500, "The server had an error while processing your request.")
        if behaviour == "http503":
            return self._error(503, "The engine is currently overloaded.", {"Retry-After": "0"})
        if behaviour == "not_json":
            return self._send(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
        if behaviour == "no_choices":
            return self._json(200, {"id": "chatcmpl-mock", "object": "chat.completion", "model": model})
        if behaviour == "chatty":
            return self._json(200, completion(model, f"I think it's {words[0]}, probably", None, 0))
        if behaviour == "unparseable":
            return self._json(200, completion(model, "I cannot tell.", None, 0))
        assert answer is not None
        content = {"capitalised": answer.capitalize() + ".", "quoted": f'  "{answer}"\n'}.get(behaviour, answer)
        wants = bool(request.get("logprobs")) and behaviour != "no_logprobs"
        top_n = int(request.get("top_logprobs") or 0)
        table = logprob_table(hypothesis, words, behaviour) if wants and top_n > 0 else None
        self._json(200, completion(model, content, table, top_n))


class MockServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mock: Mock, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.mock = mock


def start(mock: Mock, port: int = 0) -> tuple[MockServer, threading.Thread]:
    """Serves `mock` on a background thread; returns the server (its port: server_address[1])."""
    server = MockServer(mock, port)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server, thread


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="A deterministic, deterministically misbehaving OpenAI-compatible chat endpoint.")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port (printed)")
    p.add_argument("--label-words", default=",".join(DEFAULT_WORDS))
    p.add_argument("--model", default=None, help="answer 404 for any other model name")
    p.add_argument("--require-key", default=None, help="answer 401 unless this Bearer key is sent")
    p.add_argument("--always-unparseable", action="append", default=[], metavar="TEXT",
                   help="hypotheses containing TEXT are always answered 'I cannot tell.' (repeatable)")
    p.add_argument("--slow", type=float, default=2.0, help="seconds the 'slow' case stalls")
    p.add_argument("--delay", type=float, default=0.0, help="seconds added to every answer")
    args = p.parse_args(argv)
    mock = Mock(words=tuple(w.strip() for w in args.label_words.split(",")), model=args.model,
                require_key=args.require_key, always_unparseable=tuple(args.always_unparseable),
                slow_s=args.slow, delay_s=args.delay)
    server = MockServer(mock, args.port)
    print(f"port {server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
