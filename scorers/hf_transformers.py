#!/usr/bin/env python3
"""Score a tabprobe pairs file with a Hugging Face `transformers` sequence-classification model.

The pairs are tokenized exactly as tabprobe tokenizes them (only the premise is ever cut, at
the length tabprobe and `transformers` use), run in float32 in batches, and each pair's
softmax over the model's logits is written to a JSONL scores file, mapped onto the dataset's
labels by the model's `id2label`. The file is appended to and flushed batch by batch, so a
killed run is resumed by running the same command again.

    python scorers/hf_transformers.py --model path/or/hub-name --pairs pairs.jsonl --out scores.jsonl

Needs torch and transformers (from PyPI). Formats: scorers/README.md, docs/scoring-elsewhere.md.
Exit status: 0 every pair scored; 1 some pairs not scored (the summary says which and why);
2 bad input, labels that cannot be mapped, or a model that cannot be loaded; 130 interrupted.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scorefiles import (  # noqa: E402  (the scorers' shared module sits beside this file)
    CONTRADICT,
    ENTAIL,
    NEUTRAL,
    TWO_WAY,
    InputError,
    Pair,
    ScoresFile,
    first_ids,
    read_pairs,
)

EXIT_OK, EXIT_NOT_SCORED, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130

# Model label names, lower case, spaces and hyphens as underscores. tabprobe's own aliases
# (docs/data-formats.md#labels) plus FEVER's NOT ENOUGH INFO.
ALIASES = {
    "entailment": ENTAIL, "entail": ENTAIL, "entailed": ENTAIL, "e": ENTAIL,
    "neutral": NEUTRAL, "n": NEUTRAL, "not_enough_info": NEUTRAL,
    "contradiction": CONTRADICT, "contradict": CONTRADICT, "refuted": CONTRADICT, "c": CONTRADICT,
}
# RTE-style "not entailed": the contradiction side only where there are two sides.
TWO_WAY_ALIASES = {"not_entailment": CONTRADICT, "non_entailment": CONTRADICT, "not_entailed": CONTRADICT}
# Families whose positions start after the padding id, so the table holds
# max_position_embeddings - pad_token_id - 1 tokens (tabprobe's config.rs, `max_tokens`).
POSITIONS_AFTER_PADDING = {"roberta", "xlm-roberta", "camembert"}
# `transformers` writes int(1e30) for "no limit"; tabprobe reads >= 1e18 as no limit.
NO_LIMIT = 10**18


class LabelError(Exception):
    """The model's labels cannot be put onto the dataset's; the message says what to pass."""


def normalise(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().casefold())


def parse_label_map(spec: str) -> dict[str, list[str]]:
    """`ENTAIL=entailment,CONTRADICT=neutral+contradiction` → dataset label → model labels."""
    out: dict[str, list[str]] = {}
    for part in spec.split(","):
        if "=" not in part:
            raise LabelError(f"--label-map {spec!r}: {part!r} is not LABEL=model_label")
        key, _, value = part.partition("=")
        label = key.strip().upper()
        if label not in (ENTAIL, NEUTRAL, CONTRADICT):
            raise LabelError(f"--label-map {spec!r}: {key.strip()!r} is not ENTAIL, NEUTRAL or CONTRADICT")
        if label in out:
            raise LabelError(f"--label-map {spec!r}: {label} is given twice")
        names = [n.strip() for n in value.split("+")]
        if not all(names):
            raise LabelError(f"--label-map {spec!r}: {label} maps to an empty model label")
        out[label] = names
    return out


@dataclass(frozen=True)
class LabelMapping:
    """How the model's outputs become the dataset's probabilities: each dataset label sums the
    softmax of its model outputs; `dropped` outputs (only ever by --label-map) are left out
    and the rest renormalised."""

    groups: dict[str, tuple[int, ...]]
    dropped: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    def probs(self, softmax: list[float]) -> dict[str, float]:
        kept = {label: math.fsum(softmax[i] for i in idx) for label, idx in self.groups.items()}
        if not self.dropped:
            return kept
        total = math.fsum(kept.values())
        return {label: p / total for label, p in kept.items()}


def _names(model_labels: list[str]) -> str:
    return ", ".join(model_labels)


def _map_hint(model_labels: list[str], dataset: tuple[str, ...]) -> str:
    example = ",".join(f"{label}={model_labels[i] if i < len(model_labels) else '?'}" for i, label in enumerate(dataset))
    return f"pass --label-map (e.g. --label-map {example}, after checking the model card)"


def resolve_labels(model_labels: list[str], dataset: tuple[str, ...],
                   label_map: dict[str, list[str]] | None = None) -> LabelMapping:
    """The mapping from the model's outputs (`id2label` in index order) onto `dataset`'s labels,
    or LabelError saying why there is none and what to pass."""
    if label_map is not None:
        return _from_label_map(model_labels, dataset, label_map)
    return _from_aliases(model_labels, dataset)


def _from_aliases(model_labels: list[str], dataset: tuple[str, ...]) -> LabelMapping:
    two_way = dataset == TWO_WAY
    if all(re.fullmatch(r"LABEL_\d+", n) for n in model_labels):
        raise LabelError(
            f"config.json's id2label names no label ({_names(model_labels)}), so which output is "
            f"which cannot be known; {_map_hint(model_labels, dataset)}"
        )
    groups: dict[str, list[int]] = {}
    notes: list[str] = []
    for i, name in enumerate(model_labels):
        key = normalise(name)
        label = ALIASES.get(key)
        if label is None and key in TWO_WAY_ALIASES:
            if not two_way:
                raise LabelError(
                    f"the model is two-way ({_names(model_labels)}): its {name!r} lumps NEUTRAL and "
                    "CONTRADICT together, so it cannot score three-way pairs"
                )
            label = TWO_WAY_ALIASES[key]
            notes.append(f"the model's {name!r} is read as CONTRADICT (the pairs are two-way: entailed or not)")
        if label is None:
            raise LabelError(f"the model's label {name!r} is not a known label name (labels: {_names(model_labels)}); {_map_hint(model_labels, dataset)}")
        groups.setdefault(label, []).append(i)
    doubled = [label for label, idx in groups.items() if len(idx) > 1]
    if doubled:
        raise LabelError(
            f"several model labels mean {doubled[0]} ({_names(model_labels)}); say which with --label-map "
            f"(outputs can be summed: {doubled[0]}=a+b)"
        )
    if NEUTRAL in groups and two_way:
        if ENTAIL not in groups or CONTRADICT not in groups:
            raise LabelError(f"the model's labels ({_names(model_labels)}) do not fit two-way pairs; {_map_hint(model_labels, dataset)}")
        e, n, c = (model_labels[groups[label][0]] for label in (ENTAIL, NEUTRAL, CONTRADICT))
        raise LabelError(
            f"a three-way model ({_names(model_labels)}) on two-way pairs: its NEUTRAL probability has no "
            f"label here, and it is not renormalised away unasked. Pass --label-map ENTAIL={e},CONTRADICT={n}+{c} "
            f"to count NEUTRAL as not entailed, or --label-map ENTAIL={e},CONTRADICT={c} to drop it and renormalise"
        )
    missing = [label for label in dataset if label not in groups]
    if missing:
        if missing == [NEUTRAL]:
            raise LabelError(f"a two-way model ({_names(model_labels)}) cannot score three-way pairs: it has no NEUTRAL output")
        raise LabelError(f"no model label means {', '.join(missing)} (labels: {_names(model_labels)}); {_map_hint(model_labels, dataset)}")
    return LabelMapping({label: tuple(groups[label]) for label in dataset}, (), tuple(notes))


def _from_label_map(model_labels: list[str], dataset: tuple[str, ...], label_map: dict[str, list[str]]) -> LabelMapping:
    index: dict[str, int] = {}
    for i, name in enumerate(model_labels):
        if name.casefold() in index:
            raise LabelError(f"the model's labels {_names(model_labels)} differ only in case; --label-map cannot tell them apart")
        index[name.casefold()] = i
    extra = [label for label in label_map if label not in dataset]
    if extra:
        raise LabelError(f"--label-map names {', '.join(extra)}, but the pairs' labels are {', '.join(dataset)}")
    missing = [label for label in dataset if label not in label_map]
    if missing:
        raise LabelError(f"--label-map gives no model label for {', '.join(missing)} (the pairs' labels are {', '.join(dataset)})")
    groups: dict[str, tuple[int, ...]] = {}
    used: dict[int, str] = {}
    for label in dataset:
        idx = []
        for name in label_map[label]:
            i = index.get(name.casefold())
            if i is None:
                raise LabelError(f"--label-map: the model has no label {name!r} (its labels: {_names(model_labels)})")
            if i in used:
                raise LabelError(f"--label-map: the model's {model_labels[i]!r} is given to both {used[i]} and {label}")
            used[i] = label
            idx.append(i)
        groups[label] = tuple(idx)
    dropped = tuple(i for i in range(len(model_labels)) if i not in used)
    notes = []
    for label, idx in groups.items():
        if len(idx) > 1:
            notes.append(f"{label} is the sum of the model's {' + '.join(model_labels[i] for i in idx)}")
    if dropped:
        notes.append(
            f"the model's {', '.join(model_labels[i] for i in dropped)} is in no label: its probability is "
            "dropped and the rest renormalised, as --label-map asks"
        )
    return LabelMapping(groups, dropped, tuple(notes))


def max_tokens(config: dict[str, Any], model_max_length: Any, override: int | None) -> int:
    """The most tokens a pair may take, as tabprobe computes it (docs/model-families.md,
    "Where pairs are truncated"): the smaller of the tokenizer's `model_max_length` (when it is
    a real limit) and what the network's position table holds; `--max-length` overrides."""
    network = None
    positions = config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        if config.get("model_type") in POSITIONS_AFTER_PADDING:
            pad = config.get("pad_token_id")
            network = positions - (pad if isinstance(pad, int) else 1) - 1
        else:
            network = positions
    if override is not None:
        if network is not None and override > network:
            raise InputError(f"--max-length {override} is more than the network's position table holds ({network} tokens)")
        return override
    limit = model_max_length if isinstance(model_max_length, int) and 1 <= model_max_length < NO_LIMIT else None
    candidates = [n for n in (limit, network) if n is not None]
    if not candidates or min(candidates) < 4:
        raise InputError("cannot tell the model's longest input (no model_max_length, no max_position_embeddings); pass --max-length")
    return min(candidates)


# ---------------------------------------------------------------------------------------------
# Tokenizing and scoring (torch and transformers from here on)


@dataclass
class Encoded:
    pair: Pair
    features: dict[str, list[int]]
    cut: int  # premise tokens dropped


def encode(tokenizer: Any, pair: Pair, limit: int) -> Encoded | str:
    """The pair's model input, cut as tabprobe cuts it; or why it cannot be scored.

    As tabprobe (crates/model/src/text/tokenize.rs): the premise-first pair is `(premise,
    hypothesis)` even with an empty premise; hypothesis first is `(hypothesis, premise)`, which
    `transformers` makes a single text when the premise is empty. Only the premise is cut.
    """
    first, second = (pair.premise, pair.hypothesis) if pair.order == "premise_first" else (pair.hypothesis, pair.premise)
    full = tokenizer(first, second)
    length = len(full["input_ids"])
    if length <= limit:
        return Encoded(pair, dict(full), 0)
    segment = 0 if pair.order == "premise_first" else 1
    try:
        premise_tokens = sum(1 for s in full.sequence_ids() if s == segment)
    except (ValueError, AttributeError):
        # A tokenizer without sequence ids: count the premise on its own.
        premise_tokens = len(tokenizer(pair.premise, add_special_tokens=False)["input_ids"])
    hypothesis_tokens = length - premise_tokens
    if hypothesis_tokens > limit:
        return f"the hypothesis alone is {hypothesis_tokens} tokens with special tokens; the model takes at most {limit}"
    truncation = "only_first" if pair.order == "premise_first" else "only_second"
    cut = tokenizer(first, second, truncation=truncation, max_length=limit)
    return Encoded(pair, dict(cut), length - len(cut["input_ids"]))


def softmax(logits: list[float]) -> list[float]:
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = math.fsum(exps)
    return [e / total for e in exps]


@dataclass
class Tally:
    scored: int = 0
    cut: int = 0
    not_scored: dict[str, list[str]] = field(default_factory=dict)


def score_batch(torch: Any, model: Any, tokenizer: Any, batch: list[Encoded], device: Any) -> list[list[float]]:
    """Logits (float32, as lists) for one batch padded to its longest pair."""
    padded = tokenizer.pad([e.features for e in batch], padding=True, return_tensors="pt")
    inputs = {k: v.to(device) for k, v in padded.items()}
    with torch.no_grad():
        logits = model(**inputs).logits
    return logits.float().cpu().tolist()


def batches(encoded: list[Encoded], size: int, eos_id: int | None) -> list[list[Encoded]]:
    """Batches of at most `size`, longest pairs first so padding is small (and running out of
    memory shows at once); only pairs with as many `eos_id` tokens share a batch."""
    def eos(e: Encoded) -> int:
        return 0 if eos_id is None else e.features["input_ids"].count(eos_id)

    ordered = sorted(encoded, key=lambda e: (eos(e), -len(e.features["input_ids"])))
    out: list[list[Encoded]] = []
    for e in ordered:
        if out and len(out[-1]) < size and eos(out[-1][0]) == eos(e):
            out[-1].append(e)
        else:
            out.append([e])
    return out


def pick_device(torch: Any, wanted: str) -> Any:
    if wanted == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if wanted == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda: torch sees no CUDA device (use --device cpu, or a CUDA build of torch)")
    return torch.device(wanted)


def load(args: argparse.Namespace) -> tuple[Any, Any, Any, Any]:
    """torch, the tokenizer, the model (float32, eval mode, on its device) and the device."""
    try:
        import torch
        import transformers
    except ImportError as e:
        raise InputError(f"needs torch and transformers from PyPI ({e}); see scorers/README.md") from None
    transformers.logging.set_verbosity_error()  # no "sequence longer than" warnings: we check
    device = pick_device(torch, args.device)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(args.model)
        model = transformers.AutoModelForSequenceClassification.from_pretrained(args.model)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot load {args.model}: {e}") from None
    # Padding on the right, as tabprobe batches: with left padding, families that count
    # positions from 0 would see every shorter pair at other positions than alone.
    tokenizer.padding_side = "right"
    model = model.float().eval().to(device)
    return torch, tokenizer, model, device


def model_labels(model: Any) -> list[str]:
    id2label = model.config.id2label or {}
    n = model.config.num_labels
    return [str(id2label.get(i, id2label.get(str(i), f"LABEL_{i}"))) for i in range(n)]


def mappings_for(labels: list[str], pairs: list[Pair], spec: str | None) -> dict[tuple[str, ...], LabelMapping]:
    label_map = parse_label_map(spec) if spec else None
    out: dict[tuple[str, ...], LabelMapping] = {}
    for dataset in sorted({p.labels for p in pairs}, key=len, reverse=True):
        try:
            out[dataset] = resolve_labels(labels, dataset, label_map)
        except LabelError as e:
            kind = "two-way" if dataset == TWO_WAY else "three-way"
            raise LabelError(f"{kind} pairs ({', '.join(dataset)}): {e}") from None
    return out


class Progress:
    """A line on stderr at most every 2 s: pairs done and pairs per second."""

    def __init__(self, total: int) -> None:
        self.total, self.started, self.last = total, time.monotonic(), 0.0

    def update(self, done: int, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last >= 2.0:
            self.last = now
            rate = done / max(now - self.started, 1e-9)
            print(f"hf_transformers: {done}/{self.total} pairs ({rate:.1f} pairs/s)", file=sys.stderr)


def run(args: argparse.Namespace, todo: list[Pair], scores: ScoresFile, tally: Tally) -> None:
    torch, tokenizer, model, device = load(args)
    labels = model_labels(model)
    mappings = mappings_for(labels, todo, args.label_map)
    for note in sorted({n for m in mappings.values() for n in m.notes}):
        print(f"hf_transformers: {note}", file=sys.stderr)
    limit = max_tokens(model.config.to_dict(), getattr(tokenizer, "model_max_length", None), args.max_length)
    print(f"hf_transformers: {args.model} on {device}; labels {', '.join(labels)}; pairs cut to at most {limit} tokens", file=sys.stderr)
    # BART's head reads the last </s> and refuses a batch whose rows hold different numbers of
    # </s> (a hypothesis-first pair without a premise has one, a pair three): batch them apart.
    eos_id = model.config.eos_token_id if getattr(model.config, "is_encoder_decoder", False) else None
    progress = Progress(len(todo))
    done = 0
    # Chunks of many batches: sorted by length inside a chunk so batches pad little, and never
    # all pairs tokenized at once (memory).
    chunk = args.batch_size * 32
    for start in range(0, len(todo), chunk):
        encoded: list[Encoded] = []
        for pair in todo[start:start + chunk]:
            result = encode(tokenizer, pair, limit)
            if isinstance(result, str):
                print(f"hf_transformers: not scored: {pair.id} ({args.pairs}, line {pair.line}): {result}", file=sys.stderr)
                reason = f"the hypothesis alone, with special tokens, is longer than the model's {limit} tokens"
                tally.not_scored.setdefault(reason, []).append(pair.id)
                continue
            encoded.append(result)
        for batch in batches(encoded, args.batch_size, eos_id):
            for e, logits in zip(batch, score_batch(torch, model, tokenizer, batch, device)):
                if len(logits) != len(labels):
                    raise InputError(f"the model gives {len(logits)} logits for {len(labels)} labels in config.json")
                probs = mappings[e.pair.labels].probs(softmax(logits))
                scores.append(e.pair, probs, None)
                tally.scored += 1
                tally.cut += e.cut > 0
            done += len(batch)
            progress.update(done)
    progress.update(done, force=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Score a tabprobe pairs file with a Hugging Face transformers model.",
                                epilog="Exit status: 0 all scored, 1 some not scored, 2 bad input or labels, 130 interrupted.")
    p.add_argument("--model", required=True, help="a checkpoint folder or a Hub name")
    p.add_argument("--pairs", required=True, help="the pairs file tabprobe exported (JSONL)")
    p.add_argument("--out", required=True, help="the scores file to write or resume (JSONL)")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="auto", help="auto: cuda when torch sees one")
    p.add_argument("--label-map", default=None,
                   help="dataset label to model label(s), e.g. ENTAIL=entailment,NEUTRAL=neutral,CONTRADICT=contradiction; "
                        "a+b sums outputs; model labels left out are dropped and the rest renormalised")
    p.add_argument("--max-length", type=int, default=None, help="tokens per pair at most (default: as tabprobe reads the checkpoint)")
    args = p.parse_args(argv)
    if args.batch_size < 1 or (args.max_length is not None and args.max_length < 4):
        p.error("--batch-size must be at least 1 and --max-length at least 4")
    return args


def print_summary(args: argparse.Namespace, total: int, already: int, tally: Tally, stopped: str | None) -> None:
    out = sys.stderr
    failed = sum(len(v) for v in tally.not_scored.values())
    print(f"hf_transformers: summary ({args.pairs} -> {args.out})", file=out)
    print(f"  pairs in the file:         {total}", file=out)
    print(f"  already scored (skipped):  {already}", file=out)
    print(f"  scored now:                {tally.scored} ({tally.cut} with the premise cut to fit)", file=out)
    print(f"  not scored:                {failed}", file=out)
    for reason, ids in sorted(tally.not_scored.items()):
        print(f"    {reason}: {len(ids)} ({first_ids(ids)})", file=out)
    left = total - already - tally.scored - failed
    if left:
        print(f"  not reached:               {left} ({stopped})", file=out)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        pairs = read_pairs(args.pairs)
        scores = ScoresFile(args.out, pairs)
    except InputError as e:
        print(f"hf_transformers: {e}", file=sys.stderr)
        return EXIT_INPUT
    already = sum(1 for p in pairs if p.id in scores.done)
    todo = [p for p in pairs if p.id not in scores.done]
    print(f"hf_transformers: {len(pairs)} pairs, {already} already in {args.out}, scoring {len(todo)}", file=sys.stderr)
    tally = Tally()
    stopped = None
    try:
        if todo:
            run(args, todo, scores, tally)
    except (InputError, LabelError) as e:
        scores.close()
        print(f"hf_transformers: {e}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        stopped = "interrupted"
    scores.close()
    print_summary(args, len(pairs), already, tally, stopped)
    if stopped:
        return EXIT_INTERRUPTED
    return EXIT_NOT_SCORED if tally.not_scored else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
