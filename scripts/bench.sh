#!/usr/bin/env bash
# The side-by-side speed benchmark (issue 17) — not part of the tests. On one random
# roberta-base-shaped checkpoint (make_golden.py --no-golden; weight values do not change speed)
# and its ONNX export (torch.onnx), it measures examples/s:
#   natively:        tabprobe's CLI (`tabprobe bench`, burn flex), PyTorch CPU, onnxruntime CPU;
#   in one Chromium: tabprobe's model worker and transformers.js (npm, onnxruntime-web, fp32)
#                    on the CPU path (wasm) and, with BACKENDS=cpu,webgpu, on WebGPU;
# then prints one table with the ratios, and the page's main-thread long tasks during a run
# (scripts/bench-longtasks.sh's benchmark; LONGTASKS=0 skips it). LARGE=1 also loads a
# roberta-large-shaped checkpoint (1.42 GB of f32 weights) through the page on the CPU path and
# times its load and the scoring of the open table.
#
# Settings (environment): THREADS (default: the machine's cores; PyTorch, onnxruntime, the CLI's
# thread pool and transformers.js' wasm threads all get it), SEQ_LENS (default 128),
# BATCH_SIZES (1,8), REPEATS (3), BACKENDS (cpu), BENCH_DIR (target/bench: the checkpoint and
# the figures, bench-<date>.jsonl). Installs its own tools first (scripts/install-tools.sh bench:
# PyPI torch, transformers, onnxruntime; npm transformers.js).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
THREADS="${THREADS:-$(nproc)}"
SEQ_LENS="${SEQ_LENS:-128}"
BATCH_SIZES="${BATCH_SIZES:-1,8}"
REPEATS="${REPEATS:-3}"
BACKENDS="${BACKENDS:-cpu}"
BENCH_DIR="${BENCH_DIR:-target/bench}"
say() { printf '[bench] %s\n' "$*" >&2; }

scripts/install-tools.sh bench
PY=.tools/bench-venv/bin/python
MODEL="$BENCH_DIR/roberta-base"
OUT="$BENCH_DIR/bench-$(date -u +%Y-%m-%dT%H%M%S).jsonl"
mkdir -p "$BENCH_DIR"

if [ ! -f "$MODEL/model.safetensors" ]; then
  say "writing a random roberta-base-shaped checkpoint to $MODEL"
  "$PY" crates/model/tests/golden/make_golden.py --hidden 768 --layers 12 --heads 12 \
    --intermediate 3072 --vocab 50265 --max-len 512 --out "$MODEL" --no-golden
fi
say "exporting it to ONNX and writing the benchmark's inputs"
"$PY" scripts/bench_native.py prepare "$MODEL" --seq-lens "$SEQ_LENS"

say "building the CLI (release) and the site (trunk, release)"
cargo build --release -p tabprobe-cli
trunk build --release --offline --dist dist

{
  printf '{"machine": "%s", "cores": %s, "threads": %s, "date": "%s", "commit": "%s"}\n' \
    "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)" "$THREADS" \
    "$(date -u +%Y-%m-%d)" "$(git rev-parse --short HEAD)"
} > "$OUT"

say "native: tabprobe CLI (flex, $THREADS threads)"
RAYON_NUM_THREADS="$THREADS" target/release/tabprobe bench --model "$MODEL" --backends flex \
  --seq-lens "$SEQ_LENS" --batch-sizes "$BATCH_SIZES" --repeats "$REPEATS" |
  awk -F'\t' -v t="$THREADS" 'NR > 1 && NF == 8 {
    printf "{\"runtime\": \"tabprobe-cli\", \"backend\": \"%s\", \"threads\": %s, \"seq_len\": %s, \"batch_size\": %s, \"median\": %s, \"best\": %s}\n", $3, t, $4, $5, $6, $7 }' |
  tee -a "$OUT"

say "native: PyTorch CPU and onnxruntime ($THREADS threads)"
"$PY" scripts/bench_native.py measure "$MODEL" --seq-lens "$SEQ_LENS" \
  --batch-sizes "$BATCH_SIZES" --threads "$THREADS" --repeats "$REPEATS" | tee -a "$OUT"

say "browser: tabprobe's worker and transformers.js in Chromium ($BACKENDS)"
BENCH_MODEL="$MODEL" SEQ_LENS="$SEQ_LENS" BATCH_SIZES="$BATCH_SIZES" REPEATS="$REPEATS" \
  THREADS="$THREADS" BACKENDS="$BACKENDS" OUT="$OUT" node tests/browser/bench_speed.mjs

"$PY" scripts/bench_native.py table "$OUT"
say "figures: $OUT"

if [ "${LARGE:-0}" = 1 ]; then
  LARGE_MODEL="$BENCH_DIR/roberta-large"
  if [ ! -f "$LARGE_MODEL/model.safetensors" ]; then
    say "writing a random roberta-large-shaped checkpoint to $LARGE_MODEL"
    "$PY" crates/model/tests/golden/make_golden.py --hidden 1024 --layers 24 --heads 16 \
      --intermediate 4096 --vocab 50265 --max-len 512 --out "$LARGE_MODEL" --no-golden
  fi
  say "browser: a roberta-large-shaped checkpoint through the page (CPU path)"
  BENCH_LARGE_MODEL="$LARGE_MODEL" node tests/browser/bench_large.mjs | tee -a "$OUT"
fi

if [ "${LONGTASKS:-1}" != 0 ]; then
  say "the page's main thread during a run (long tasks > 50 ms)"
  node tests/browser/bench_longtasks.mjs
fi
