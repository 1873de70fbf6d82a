#!/usr/bin/env bash
# Times the page's "Download the pairs" and "Import scores…" on the demo's dev split with every
# probe (docs/benchmarks.md): needs a release build in dist/ (trunk build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
node tests/browser/bench_scores.mjs
