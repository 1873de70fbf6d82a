#!/usr/bin/env bash
# Installs what is missing, builds the site and serves it with the bundled demo dataset on
# http://127.0.0.1:8080 (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-tools.sh build
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# --offline also skips Trunk's own update check. A separate dist keeps the test build intact.
exec trunk serve --release --offline --dist dist-serve
