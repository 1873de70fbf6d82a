#!/usr/bin/env bash
# Builds the site for a static host (GitHub Pages or any web server) into dist-deploy/ (or the
# folder given as $1): the same `trunk build --release` as the tests, with fat LTO and one
# codegen unit turned back on for both wasm files through cargo's CARGO_PROFILE_* variables.
# Slow: on a 2-core machine the worker alone took 45 min this way (the tests' build skips it).
#   scripts/build-deploy.sh [OUT]         OUT defaults to dist-deploy
#   PUBLIC_URL=/tabprobe/ scripts/build-deploy.sh   the path the site is served under
#                                                   (default ./: relative links, any path)
#   FAT_LTO=0 scripts/build-deploy.sh     the tests' faster profiles (a quick deploy check)
# Its own target folder (target/deploy) keeps the tests' build from being recompiled each time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-tools.sh build
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
OUT="${1:-dist-deploy}"
PUBLIC_URL="${PUBLIC_URL:-./}"
if [ "${FAT_LTO:-1}" != 0 ]; then
  export CARGO_PROFILE_WEB_LTO=fat CARGO_PROFILE_WEB_CODEGEN_UNITS=1
  export CARGO_PROFILE_WORKER_LTO=fat CARGO_PROFILE_WORKER_CODEGEN_UNITS=1
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/deploy}"
fi
start=$SECONDS
trunk build --release --offline --dist "$OUT" --public-url "$PUBLIC_URL"
printf '[build-deploy] %s built in %dm%02ds (fat LTO: %s); serve it with any static web server\n' \
  "$OUT" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "${FAT_LTO:-1}"
