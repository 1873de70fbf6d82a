#!/usr/bin/env bash
# The browser worker's f32 tiles alone (docs/benchmarks.md, "The browser worker's f32 product"):
# builds bench/wasm-tiles for wasm32 with SIMD128 and times burn's gemm beside SIMD128 tiles of
# several shapes in Chromium, one thread. A benchmark, not a test. Shapes (m,k,n) as arguments;
# default roberta-base's at 128 tokens.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-tools.sh test
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
RUSTFLAGS="-C target-feature=+simd128" cargo build --release --offline --target wasm32-unknown-unknown \
  --manifest-path bench/wasm-tiles/Cargo.toml --target-dir target/wasm-tiles
[ $# -gt 0 ] || set -- 128,768,768 128,768,3072 128,3072,768
node bench/wasm-tiles/run.mjs target/wasm-tiles/wasm32-unknown-unknown/release/wasm_tiles.wasm "$@"
