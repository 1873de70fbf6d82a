#!/usr/bin/env bash
# Benchmark of the page's main thread — not part of the tests: import the whole INFOTABS dev
# split, run the row-deletion probe on it (tiny test model) and reopen the report, in Chromium,
# with a PerformanceObserver('longtask'); prints per phase the long tasks (> 50 ms), the
# longest and their sum. Needs ../shared/data (or INFOTABS=<infotabs data folder>).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
[ -f dist/index.html ] || trunk build --release --offline --dist dist
node tests/browser/bench_longtasks.mjs
