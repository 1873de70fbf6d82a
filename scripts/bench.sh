#!/usr/bin/env bash
# The side-by-side speed benchmark (issue 17) — not part of the tests. On one random
# roberta-base-shaped checkpoint (make_golden.py --no-golden; weight values do not change speed),
# its ONNX export (torch.onnx) and that export quantized to int8 as transformers.js' own
# conversion makes its default q8 files (onnx/model_quantized.onnx: onnxruntime's dynamic
# quantizer, int8 weights per tensor; scripts/bench_native.py quantize_q8), it measures
# examples/s:
#   natively:        tabprobe's CLI (`tabprobe bench`, burn flex) at f32 and at int8, PyTorch CPU,
#                    onnxruntime CPU on the f32 export and on the q8 file (their logits' gap is
#                    printed and recorded, never checked);
#   in one Chromium: tabprobe's model worker and transformers.js (npm, onnxruntime-web, dtype
#                    fp32) on the CPU path (wasm) and, with BACKENDS=cpu,webgpu, on WebGPU
#                    (tests/browser/bench_speed.mjs);
#   in a second one: transformers.js at dtype q8 (its default on wasm) and tabprobe's worker at
#                    precision int8, on the CPU path (scripts/bench_int8.mjs);
# then prints the tables with the ratios (bench_native.py table: CLI f32 ÷ PyTorch and ÷
# onnxruntime f32, CLI int8 ÷ onnxruntime int8, worker f32 ÷ transformers.js fp32 and worker
# int8 ÷ transformers.js q8, at THREADS and on one thread), and the page's main-thread long
# tasks during a run (scripts/bench-longtasks.sh's benchmark; LONGTASKS=0 skips it). tabprobe's
# int8 rows are tried, not assumed: a CLI whose `bench --help` names no int8 or that fails at
# it, or a worker that refuses the choice, gives a row "not available in this build" and the
# rest still runs. LARGE=1 also loads a roberta-large-shaped checkpoint (1.42 GB of f32
# weights) through the page on the CPU path and times its load and the scoring of the open
# table.
#
# Settings (environment): THREADS (default: the machine's cores; PyTorch, onnxruntime, the CLI's
# thread pool and transformers.js' wasm threads all get it), SEQ_LENS (default 128),
# BATCH_SIZES (1,8), REPEATS (3), BACKENDS (cpu), BENCH_DIR (target/bench: the checkpoint and
# the figures, bench-<date>.jsonl), BUILD (1; 0 skips the CLI's and the site's release builds
# and measures target/release/tabprobe and dist/ as they are — CLI rows are recorded as
# unavailable when there is no binary), INT8 (1; 0 leaves out every int8/q8 row), ROUNDS (3:
# the native runtimes run one after another, round after round, and the table gives each native
# row the median of its rounds and each ratio the range of the rounds' own: a shared VM's speed
# drifts by tens of percent over minutes, which one pass of each runtime, minutes apart, turned
# into the ratio), BROWSER (1; 0 measures the native runtimes only). Installs its own tools first
# (scripts/install-tools.sh bench: PyPI torch, transformers, onnxruntime; npm transformers.js).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
THREADS="${THREADS:-$(nproc)}"
SEQ_LENS="${SEQ_LENS:-128}"
BATCH_SIZES="${BATCH_SIZES:-1,8}"
REPEATS="${REPEATS:-3}"
BACKENDS="${BACKENDS:-cpu}"
BENCH_DIR="${BENCH_DIR:-target/bench}"
BUILD="${BUILD:-1}"
INT8="${INT8:-1}"
ROUNDS="${ROUNDS:-3}"
BROWSER="${BROWSER:-1}"
if ! [[ "$ROUNDS" =~ ^[0-9]{1,4}$ ]] || ((10#$ROUNDS < 1)); then
  echo "bench.sh: ROUNDS must be a whole number of rounds from 1 to 9999 (got '$ROUNDS')" >&2
  exit 2
fi
CLI=target/release/tabprobe
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

if [ "$BUILD" != 0 ]; then
  say "building the CLI (release) and the site (trunk, release)"
  cargo build --release -p tabprobe-cli
  trunk build --release --offline --dist dist
else
  say "BUILD=0: measuring $CLI and dist/ as they are, not rebuilt"
fi

{
  printf '{"machine": "%s", "cores": %s, "threads": %s, "date": "%s", "commit": "%s"}\n' \
    "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)" "$THREADS" \
    "$(date -u +%Y-%m-%d)" "$(git rev-parse --short HEAD)"
} > "$OUT"

unavailable() { # RUNTIME BACKEND PRECISION REASON: a row the table prints as "not available in this build"
  say "$1 $3: not available in this build: $4"
  "$PY" scripts/bench_native.py unavailable "$1" "$2" "$3" "$THREADS" "$4" | tee -a "$OUT"
}

# One `tabprobe bench` run at PRECISION in round ROUND: its rows, or (int8 only) an unavailable
# row when this build's CLI does not offer it or fails at it; an f32 failure stops the benchmark.
cli_rows() {
  local precision="$1" round="$2" rows err status=0 help reason
  if [ ! -x "$CLI" ]; then
    unavailable tabprobe-cli flex "$precision" "no $CLI (BUILD=0 and never built)"
    return
  fi
  help="$("$CLI" bench --help 2>&1 || true)"
  if [ "$precision" != f32 ] && [[ "$help" != *"$precision"* ]]; then
    unavailable tabprobe-cli flex "$precision" "\`tabprobe bench --help\` names no $precision precision"
    return
  fi
  say "native, round $round of $ROUNDS: tabprobe CLI (flex, $precision, $THREADS threads)"
  rows="$(mktemp)" err="$(mktemp)"
  RAYON_NUM_THREADS="$THREADS" "$CLI" bench --model "$MODEL" --backends flex --seq-lens "$SEQ_LENS" \
    --batch-sizes "$BATCH_SIZES" --repeats "$REPEATS" --precision "$precision" >"$rows" 2>"$err" || status=$?
  cat "$err" >&2
  awk -F'\t' -v t="$THREADS" -v round="$round" 'NR > 1 && NF == 8 {
    printf "{\"runtime\": \"tabprobe-cli\", \"backend\": \"%s\", \"precision\": \"%s\", \"threads\": %s, \"seq_len\": %s, \"batch_size\": %s, \"median\": %s, \"best\": %s, \"round\": %s}\n", $3, $8, t, $4, $5, $6, $7, round }' \
    "$rows" | tee -a "$OUT"
  if [ "$status" != 0 ] || ! awk -F'\t' -v p="$precision" 'NR > 1 && NF == 8 && $8 == p { found = 1 } END { exit !found }' "$rows"; then
    [ "$precision" = f32 ] && { say "tabprobe bench failed (exit $status)"; exit 1; }
    reason="$(grep -m 1 -i 'error' "$err" || tail -n 1 "$err")"
    unavailable tabprobe-cli flex "$precision" "tabprobe bench --precision $precision: ${reason:-exit $status, no rows at $precision}"
  fi
  rm -f "$rows" "$err"
}
ORT_PRECISIONS=f32
if [ "$INT8" != 0 ]; then ORT_PRECISIONS=f32,int8; fi
for round in $(seq "$ROUNDS"); do
  cli_rows f32 "$round"
  if [ "$INT8" != 0 ]; then cli_rows int8 "$round"; fi
  say "native, round $round of $ROUNDS: PyTorch CPU and onnxruntime ($THREADS threads)"
  "$PY" scripts/bench_native.py measure "$MODEL" --seq-lens "$SEQ_LENS" --batch-sizes "$BATCH_SIZES" \
    --threads "$THREADS" --repeats "$REPEATS" --ort-precisions "$ORT_PRECISIONS" --round "$round" | tee -a "$OUT"
done

if [ "$BROWSER" = 0 ]; then
  "$PY" scripts/bench_native.py table "$OUT"
  say "BROWSER=0: the browser runtimes left out; figures: $OUT"
  exit 0
fi
say "browser: tabprobe's worker and transformers.js in Chromium ($BACKENDS)"
BENCH_MODEL="$MODEL" SEQ_LENS="$SEQ_LENS" BATCH_SIZES="$BATCH_SIZES" REPEATS="$REPEATS" \
  THREADS="$THREADS" BACKENDS="$BACKENDS" OUT="$OUT" node tests/browser/bench_speed.mjs
if [ "$INT8" != 0 ]; then
  say "browser: transformers.js q8 and tabprobe's worker at int8 in Chromium (CPU path)"
  BENCH_MODEL="$MODEL" SEQ_LENS="$SEQ_LENS" BATCH_SIZES="$BATCH_SIZES" REPEATS="$REPEATS" \
    THREADS="$THREADS" OUT="$OUT" node scripts/bench_int8.mjs ||
    say "scripts/bench_int8.mjs failed; its rows so far are in $OUT"
fi

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
