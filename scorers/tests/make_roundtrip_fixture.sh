#!/usr/bin/env bash
# The round trip's committed fixture (issue 44 item 5): the scores scorers/hf_transformers.py
# gives, with Hugging Face transformers on the CPU, to the pairs of the CLI tests' probe set
# (crates/cli/tests/fixtures/small.json, --probes all --seed 7 --word-order-q 3
# --hypothesis-only: 151 pairs) by the tiny random RoBERTa checkpoint the CLI tests run
# (crates/model/tests/golden/tiny-f32).
#
# crates/cli/tests/scores_roundtrip.rs imports it with `tabprobe probe --scores` and checks
# that it gives the labels, probabilities (within 1e-4) and report tables of tabprobe's own
# run of that checkpoint. Regenerate it when the probe set's pairs change (that test then
# fails, naming this script) — from the repository root, with a Python that has the pins of
# scripts/requirements-interop.txt (torch 2.15.0, transformers 5.23.0):
#
#     PYTHON=.tools/interop-venv/bin/python scorers/tests/make_roundtrip_fixture.sh
#
# Deterministic: float32 on the CPU, batches of 16 in the pairs file's order; two runs (with
# OMP_NUM_THREADS=1 or not) write the same bytes.
set -euo pipefail

cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3}"
OUT=crates/cli/tests/fixtures/scores-tiny-f32.jsonl
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$PYTHON" -c 'import torch, transformers' 2>/dev/null || {
    echo "make_roundtrip_fixture.sh: $PYTHON has no torch/transformers; set PYTHON (see the header)" >&2
    exit 2
}

# The pairs, exported by the CLI as the test exports them.
cargo run --quiet -p tabprobe-cli -- pairs \
    --dataset crates/cli/tests/fixtures/small.json \
    --probes all --seed 7 --word-order-q 3 --hypothesis-only \
    --out "$work/pairs.jsonl"

# The scorer appends to (resumes) an existing file: start from nothing.
OMP_NUM_THREADS=1 "$PYTHON" scorers/hf_transformers.py \
    --model crates/model/tests/golden/tiny-f32 \
    --pairs "$work/pairs.jsonl" --out "$work/scores.jsonl" \
    --device cpu --batch-size 16
mv "$work/scores.jsonl" "$OUT"
echo "wrote $OUT ($(wc -l <"$OUT") lines, $(wc -c <"$OUT") bytes)" >&2
