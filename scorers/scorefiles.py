"""The two files every tabprobe scorer shares: the pairs file it reads and the scores file it writes.

A pairs file is what tabprobe exports from a probe set (JSONL, one pair a line); a scores file is
what tabprobe imports as if it were a model's predictions (JSONL, one scored pair a line). Both
formats are described in docs/scoring-elsewhere.md; this module is the scorers' one reading of
them, so `hf_transformers.py` and `openai_chat.py` refuse and resume identically.

Standard library only: `openai_chat.py` must run with nothing installed.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, Iterable, TextIO

ENTAIL, NEUTRAL, CONTRADICT = "ENTAIL", "NEUTRAL", "CONTRADICT"
THREE_WAY: tuple[str, ...] = (ENTAIL, NEUTRAL, CONTRADICT)
TWO_WAY: tuple[str, ...] = (ENTAIL, CONTRADICT)
LABEL_SETS: tuple[tuple[str, ...], ...] = (THREE_WAY, TWO_WAY)
ORDERS = ("premise_first", "hypothesis_first")

# Why a scores-file line is refused when it does not parse (a killed write, when it is last).
NOT_JSON = "not a JSON line"

# The bound docs/scoring-elsewhere.md promises tabprobe's import checks.
SUM_TOLERANCE = 1e-3


class InputError(Exception):
    """A pairs or scores file that cannot be used; the message names the file and the line."""


@dataclass(frozen=True)
class Pair:
    """One premise/hypothesis pair as exported by tabprobe."""

    id: str
    premise: str
    hypothesis: str
    order: str
    labels: tuple[str, ...]
    line: int

    @property
    def two_way(self) -> bool:
        return self.labels == TWO_WAY


def _where(path: str, line: int) -> str:
    return f"{path}, line {line}"


def _decode_lines(path: str) -> Iterable[tuple[int, str]]:
    """Yields (line number, text) for every line; bytes that are not UTF-8 are refused by line."""
    try:
        handle = open(path, "rb")
    except OSError as e:
        raise InputError(f"{path}: cannot be read ({e.strerror})") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError(f"{_where(path, number)}: not UTF-8 ({e.reason} at byte {e.start})") from None
            if number == 1:
                # Windows editors write a byte-order mark; it is not part of the JSON.
                text = text.removeprefix("\ufeff")
            yield number, text


def _parse_pair(path: str, number: int, text: str) -> Pair:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{_where(path, number)}: not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(obj, dict):
        raise InputError(f"{_where(path, number)}: a {type(obj).__name__} where a JSON object was expected")
    for key in ("id", "premise", "hypothesis"):
        if key not in obj:
            raise InputError(f"{_where(path, number)}: no {key!r}")
        if not isinstance(obj[key], str):
            raise InputError(f"{_where(path, number)}: {key!r} is not a string")
    if obj["id"] == "":
        raise InputError(f"{_where(path, number)}: 'id' is empty")
    if "labels" not in obj:
        raise InputError(f"{_where(path, number)}: no 'labels'")
    labels = obj["labels"]
    if not isinstance(labels, list) or tuple(labels) not in LABEL_SETS:
        raise InputError(
            f"{_where(path, number)}: 'labels' is {json.dumps(labels)}; expected "
            f"{json.dumps(list(THREE_WAY))} or {json.dumps(list(TWO_WAY))}"
        )
    # `order` is optional: a pair without it is read premise first, as tabprobe scores it.
    order = obj.get("order", "premise_first")
    if order not in ORDERS:
        raise InputError(f"{_where(path, number)}: 'order' is {json.dumps(order)}; expected one of {', '.join(ORDERS)}")
    return Pair(obj["id"], obj["premise"], obj["hypothesis"], order, tuple(labels), number)


def read_pairs(path: str) -> list[Pair]:
    """Every pair of a pairs file, in file order. Blank lines are skipped; unknown keys ignored.

    Raises InputError for a line that is not a JSON object, lacks a required key, has a label
    set other than the two canonical ones, or repeats an earlier id.
    """
    pairs: list[Pair] = []
    first_line: dict[str, int] = {}
    for number, text in _decode_lines(path):
        if not text.strip():
            continue
        pair = _parse_pair(path, number, text)
        if pair.id in first_line:
            raise InputError(f"{_where(path, number)}: id {pair.id!r} repeats line {first_line[pair.id]}")
        first_line[pair.id] = number
        pairs.append(pair)
    return pairs


def argmax_label(probs: dict[str, float], labels: tuple[str, ...]) -> str:
    """The most probable label; a tie goes to the label earlier in canonical order."""
    best = labels[0]
    for label in labels[1:]:
        if probs[label] > probs[best]:
            best = label
    return best


def check_probs(probs: Any, labels: tuple[str, ...]) -> str | None:
    """Why `probs` is not a valid distribution over `labels`, or None when it is."""
    if not isinstance(probs, dict):
        return "'probs' is not an object"
    if set(probs) != set(labels):
        return f"'probs' has labels {sorted(probs)}; the pair's labels are {list(labels)}"
    for label, p in probs.items():
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or p < 0:
            return f"'probs' gives {label} {p!r}; expected a finite number >= 0"
    total = math.fsum(probs.values())
    if abs(total - 1.0) > SUM_TOLERANCE:
        return f"'probs' sums to {total!r}, not 1 within {SUM_TOLERANCE}"
    return None


def check_record(obj: Any, pair: Pair) -> str | None:
    """Why a scores-file object is not a valid score for `pair`, or None when it is."""
    if "probs" not in obj and "label" not in obj:
        return "neither 'probs' nor 'label'"
    if "probs" in obj:
        why = check_probs(obj["probs"], pair.labels)
        if why:
            return why
    if "label" in obj:
        if obj["label"] not in pair.labels:
            return f"'label' is {json.dumps(obj['label'])}; the pair's labels are {list(pair.labels)}"
        if "probs" in obj and obj["label"] != argmax_label(obj["probs"], pair.labels):
            return f"'label' {obj['label']} is not the argmax of 'probs'"
    return None


def score_line(pair_id: str, labels: tuple[str, ...], probs: dict[str, float] | None, label: str | None) -> str:
    """One scores-file line (newline included): probs in canonical order, then the label."""
    record: dict[str, Any] = {"id": pair_id}
    if probs is not None:
        # Python's float repr is the shortest text that reads back to the same double.
        record["probs"] = {name: float(probs[name]) for name in labels}
        if label is None:
            label = argmax_label(record["probs"], labels)
    if label is not None:
        record["label"] = label
    if len(record) == 1:
        raise ValueError("a score needs probs or a label")
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


class ScoresFile:
    """An append-only scores file opened for resuming.

    On open it reads what an earlier run wrote: the ids found there are `done`. A last line
    without its newline that is not a whole valid record is a run killed mid-write; it is
    dropped (the file rewritten without it) and `dropped_line` says so. Anything else wrong —
    a bad line before the last, an id not in the pairs file, an id twice — is refused, since
    appending to such a file would only hide the problem.
    """

    def __init__(self, path: str, pairs: list[Pair], log: TextIO = sys.stderr) -> None:
        self.path = path
        self.done: set[str] = set()
        self.dropped_line: str | None = None
        self._lock = threading.Lock()
        self._closed = False
        by_id = {p.id: p for p in pairs}
        needs_newline = self._read_existing(by_id, log)
        self._handle = open(path, "a", encoding="utf-8", newline="\n")
        if needs_newline:
            self._handle.write("\n")
            self._handle.flush()

    def _read_existing(self, by_id: dict[str, Pair], log: TextIO) -> bool:
        """Loads the earlier run's ids; True when the file's last line lacks its newline."""
        try:
            with open(self.path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return False
        except OSError as e:
            raise InputError(f"{self.path}: cannot be read ({e.strerror})") from None
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            why, pair_id = self._check_line(raw, by_id)
            if why:
                raise InputError(f"{_where(self.path, number)}: {why} (the file is damaged or was written for another pairs file; use another --out)")
            self.done.add(pair_id)
        if not tail.strip():
            return False
        why, pair_id = self._check_line(tail, by_id)
        if why is None:
            self.done.add(pair_id)
            return True
        if why != NOT_JSON:
            # Whole JSON but wrong: not a killed write, so not ours to delete.
            raise InputError(f"{_where(self.path, len(lines) + 1)}: {why} (the file is damaged or was written for another pairs file; use another --out)")
        # A killed run: the line was being written. Keep every whole line, drop this one.
        self.dropped_line = tail.decode("utf-8", errors="replace")
        kept = data[: len(data) - len(tail)]
        temporary = self.path + ".tmp"
        with open(temporary, "wb") as handle:
            handle.write(kept)
        os.replace(temporary, self.path)
        print(
            f"{self.path}: dropped an unfinished last line ({len(tail)} bytes, {why}); "
            f"its pair is scored again",
            file=log,
        )
        return False

    def _check_line(self, raw: bytes, by_id: dict[str, Pair]) -> tuple[str | None, str]:
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return NOT_JSON, ""
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
            return "not a JSON object with a string 'id'", ""
        pair_id = obj["id"]
        pair = by_id.get(pair_id)
        if pair is None:
            return f"id {pair_id!r} is not in the pairs file", pair_id
        if pair_id in self.done:
            return f"id {pair_id!r} is scored twice", pair_id
        why = check_record(obj, pair)
        return (f"id {pair_id!r}: {why}" if why else None), pair_id

    def append(self, pair: Pair, probs: dict[str, float] | None, label: str | None) -> bool:
        """Writes one score and flushes it; False (nothing written) once the file is closed."""
        line = score_line(pair.id, pair.labels, probs, label)
        with self._lock:
            if self._closed:
                return False
            self._handle.write(line)
            self._handle.flush()
            self.done.add(pair.id)
            return True

    def close(self) -> None:
        """Closes the file; later appends are refused, so a straggling thread cannot half-write."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._handle.close()


def first_ids(ids: list[str], limit: int = 5) -> str:
    """`a, b, c and 4 more`: the first few ids of a group for a summary line."""
    shown = ", ".join(ids[:limit])
    return shown if len(ids) <= limit else f"{shown} and {len(ids) - limit} more"
