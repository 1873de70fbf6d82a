#!/usr/bin/env bash
# Speed through Chrome's WebGPU engine (issue 33, item 2) — a benchmark, not a test. The model
# worker's own wasm (dist/, built by Trunk) runs under Node on Dawn (npm `webgpu`) and scores a
# random roberta-base-shaped checkpoint (scripts/make_random_checkpoint.py) at each sequence
# length and batch size; with NATIVE=1 the CLI's `tabprobe bench --backends wgpu` (native wgpu on
# the same machine's Vulkan driver) runs after it, and where PyTorch with CUDA is importable
# (TORCH=python3 or a venv's python) its f32 figures for the same shape follow, so one session
# prints them side by side.
#
# Which adapter Dawn uses is the Vulkan driver's choice: by default SwiftShader (what Chromium
# uses here); on a GPU machine set VK_DRIVER_FILES to the vendor's ICD file (docs/benchmarks.md
# says how this ran on a lent NVIDIA card).
#
# Settings (environment): SEQ_LENS (128), BATCH_SIZES (1,8,32,64), REPEATS (3), BENCH_MODEL (a
# checkpoint folder; default target/bench/roberta-base, written when absent), DAWN_FLAGS,
# OUT (default target/bench/dawn-<date>.jsonl), PRECISION (the native run's: f32 or f16-mixed).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
say() { printf '[bench-dawn] %s\n' "$*" >&2; }

export SEQ_LENS="${SEQ_LENS:-128}" BATCH_SIZES="${BATCH_SIZES:-1,8,32,64}" REPEATS="${REPEATS:-3}"
BENCH_DIR="target/bench"
export BENCH_MODEL="${BENCH_MODEL:-$BENCH_DIR/roberta-base}"
export OUT="${OUT:-$BENCH_DIR/dawn-$(date -u +%Y-%m-%dT%H%M%S).jsonl}"
mkdir -p "$BENCH_DIR"
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -z "${VK_ICD_FILENAMES:-}" ]; then
  export VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

if [ "${SKIP_INSTALL:-0}" != 1 ]; then scripts/install-tools.sh test; fi
if [ ! -f "$BENCH_MODEL/model.safetensors" ]; then
  VENV=.tools/interop-venv
  if [ ! -x "$VENV/bin/python" ]; then
    say "installing numpy and safetensors from PyPI into $VENV (for the random checkpoint)"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "$(grep '^numpy==' scripts/requirements-interop.txt)" \
      "$(grep '^safetensors==' scripts/requirements-interop.txt)"
  fi
  say "writing a random roberta-base-shaped checkpoint to $BENCH_MODEL"
  "$VENV/bin/python" scripts/make_random_checkpoint.py "$BENCH_MODEL"
fi
if ! ls dist/worker-*_bg.wasm >/dev/null 2>&1; then
  say "building the site (trunk build --release)"
  trunk build --release --offline --dist dist
fi

say "Dawn: the worker's wasm on ${VK_DRIVER_FILES:-${VK_ICD_FILENAMES}}"
node tests/dawn/bench.mjs

if [ "${NATIVE:-0}" = 1 ]; then
  say "native wgpu: tabprobe bench --backends wgpu"
  cargo build --release -p tabprobe-cli
  target/release/tabprobe bench --model "$BENCH_MODEL" --backends wgpu --seq-lens "$SEQ_LENS" \
    --batch-sizes "$BATCH_SIZES" --repeats "$REPEATS" --precision "${PRECISION:-f32}"
fi
TORCH="${TORCH:-python3}"
if "$TORCH" -c 'import torch, transformers, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  say "PyTorch CUDA f32 on the same checkpoint"
  "$TORCH" - "$BENCH_MODEL" "$SEQ_LENS" "$BATCH_SIZES" "$REPEATS" <<'EOF'
import json, statistics, sys, time
import torch
from transformers import AutoModelForSequenceClassification
model_dir, seqs, batches, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
model = AutoModelForSequenceClassification.from_pretrained(model_dir).cuda().eval()
for seq in map(int, seqs.split(",")):
    for batch in map(int, batches.split(",")):
        ids = torch.randint(5, 1000, (batch, seq), device="cuda")
        with torch.no_grad():
            model(input_ids=ids)
            rates = []
            for _ in range(repeats):
                torch.cuda.synchronize(); start = time.perf_counter()
                model(input_ids=ids)
                torch.cuda.synchronize(); rates.append(batch / (time.perf_counter() - start))
        print(json.dumps({"runtime": "pytorch-cuda", "dtype": "f32", "seq_len": seq, "batch_size": batch,
                          "median": statistics.median(rates), "best": max(rates),
                          "card": torch.cuda.get_device_name()}))
EOF
else
  say "no PyTorch with CUDA here (TORCH=$TORCH): its column is left out"
fi
say "figures: $OUT"
