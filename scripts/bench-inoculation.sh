#!/usr/bin/env bash
# Benchmark of inoculation (paper §7) on the bundled demo model — not part of the tests:
# row-deletion items of the demo's dev split, n = 100, learning rates 1e-4, 5e-5, 1e-5, up to
# 30 epochs with early stopping. The browser (Chromium, CPU fallback) runs the probe and the
# inoculation; the release CLI then inoculates from the same run file. Prints both wall times
# and both results' tables (`tabprobe report`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
OUT=${OUT:-/tmp/tabprobe-bench-inoculation}
export OUT
cargo build --release -q -p tabprobe-cli
[ -f dist/index.html ] || trunk build --release --offline --dist dist
node tests/browser/bench_inoculation.mjs
start=$(date +%s%N)
target/release/tabprobe inoculate --model public/models/infotabs-full --run "$OUT/run.json" \
  --dataset public/demo/dataset.json --probes row_deletion --sizes 100 --out "$OUT/native" 2>/dev/null >/dev/null
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "native (release CLI, flex, $(nproc) cores): inoculation $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
echo "== browser result"
target/release/tabprobe report "$OUT/browser-inoculation.json"
echo "== native result"
target/release/tabprobe report "$OUT/native/inoculation.json"
