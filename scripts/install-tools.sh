#!/usr/bin/env bash
# Installs what tabprobe needs, from the Rust crate registry, npm, PyPI and Debian only — never
# a binary from elsewhere. Idempotent: each tool is checked first and installed only when missing or at the
# wrong version, so a second run installs nothing.
#   scripts/install-tools.sh build   Rust wasm target, Trunk, wasm-bindgen-cli, npm packages
#   scripts/install-tools.sh test    the same, plus Debian's chromium and chromium-driver, and
#                                    kubernetes-validate from PyPI (in .tools/)
#   scripts/install-tools.sh bench   the same as test, plus scripts/bench.sh's own: PyPI torch,
#                                    transformers, onnxruntime … (.tools/bench-venv) and npm
#                                    transformers.js (bench/node_modules)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-build}"

TRUNK_VERSION="0.21.14" # 0.22 needs rustc >= 1.96.1
# wasm-bindgen-cli must equal the wasm-bindgen crate that Cargo.lock resolves.
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
export PATH="$HOME/.cargo/bin:$PATH"

# Trunk and wasm-bindgen-cli only move files and rewrite one wasm module each per build: built
# at opt-level 1 without LTO they compile in about half the time of their own release profile
# (measured in docs/benchmarks.md), which a fresh machine's first scripts/run.sh waits for.
tool_install() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=0 cargo install "$@"
}

say() { printf '[install-tools] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The toolchain and target come from rust-toolchain.toml; rustup fetches them if absent.
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  # Without default features: no TLS stack and no update check. Trunk runs offline here
  # (Trunk.toml), so it never downloads anything and needs neither.
  say "installing trunk $TRUNK_VERSION from the Rust crate registry (several minutes on 2 cores)"
  tool_install trunk --locked --version "$TRUNK_VERSION" --no-default-features
fi

if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION from the Rust crate registry (a few minutes)"
  # Not --locked: its lockfile asks for a webpki-roots version the Rust crate registry no longer has.
  # No default features: its TLS client only serves the test runner's browser downloads, which
  # this project never does (wasm tests run under Node).
  tool_install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force --no-default-features
fi

# npm packages from the committed lockfile: binaryen (wasm-opt for Trunk) and playwright-core.
lock_stamp="node_modules/.tabprobe-lock.sha256"
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$lock_stamp" ] || [ "$(cat "$lock_stamp")" != "$lock_sum" ]; then
  say "installing npm dev dependencies from package-lock.json"
  npm ci --no-audit --no-fund
  echo "$lock_sum" > "$lock_stamp"
fi

if [ "$mode" = "test" ] || [ "$mode" = "bench" ]; then
  # Chromium for the browser tests; Mesa's lavapipe gives native burn-wgpu a Vulkan adapter.
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || ! dpkg -s mesa-vulkan-drivers >/dev/null 2>&1; then
    say "installing Debian's chromium, chromium-driver and mesa-vulkan-drivers"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver mesa-vulkan-drivers
  fi
  # A single-node Slurm for scripts/slurm-test.sh (slurmctld, slurmd, the client commands)
  # and munge, its authentication; the script starts private daemons itself. Both packages
  # fully installed (not merely known to dpkg, e.g. removed with their configuration kept).
  if [ "$(dpkg-query -W -f='${Status}\n' slurm-wlm munge 2>/dev/null | grep -c '^install ok installed$')" != 2 ]; then
    say "installing Debian's slurm-wlm and munge"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge
  fi
fi
# A venv needs Debian's python3-venv (ensurepip); install it where the image lacks it.
need_venv() {
  if ! python3 -c 'import ensurepip' 2>/dev/null; then
    say "installing python3-venv from Debian"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv
  fi
}
if [ "$mode" = "test" ] || [ "$mode" = "bench" ]; then
  # kubernetes-validate (PyPI, pinned) checks deploy/kubernetes/ against the Kubernetes JSON
  # schemas it ships (about 22 MB to download, 110 MB installed; it works offline after).
  KV_VERSION="1.37.0"
  KV=.tools/kubernetes-validate
  if [ "$("$KV/bin/kubernetes-validate" --version 2>/dev/null || true)" != "$KV_VERSION" ]; then
    say "installing kubernetes-validate $KV_VERSION from PyPI into $KV"
    rm -rf "$KV"
    need_venv
    python3 -m venv "$KV"
    "$KV/bin/pip" install --quiet "kubernetes-validate==$KV_VERSION"
  fi
fi
if [ "$mode" = "bench" ]; then
  BV=.tools/bench-venv
  req_sum="$(sha256sum scripts/requirements-bench.txt | cut -d' ' -f1)"
  if [ "$(cat "$BV/.tabprobe-req.sha256" 2>/dev/null || true)" != "$req_sum" ]; then
    say "installing scripts/requirements-bench.txt from PyPI into $BV (torch pulls about 3 GB)"
    rm -rf "$BV"
    need_venv
    python3 -m venv "$BV"
    "$BV/bin/pip" install --quiet -r scripts/requirements-bench.txt
    echo "$req_sum" > "$BV/.tabprobe-req.sha256"
  fi
  bench_stamp="bench/node_modules/.tabprobe-lock.sha256"
  bench_sum="$(sha256sum bench/package-lock.json | cut -d' ' -f1)"
  if [ ! -f "$bench_stamp" ] || [ "$(cat "$bench_stamp")" != "$bench_sum" ]; then
    say "installing transformers.js from bench/package-lock.json (npm)"
    # --ignore-scripts: onnxruntime-node's install script downloads binaries from outside the
    # registries; the benchmark uses only onnxruntime-web's files, which the package carries.
    npm ci --prefix bench --ignore-scripts --no-audit --no-fund
    echo "$bench_sum" > "$bench_stamp"
  fi
fi
say "all tools present"
