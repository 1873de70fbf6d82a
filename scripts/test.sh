#!/usr/bin/env bash
# Installs what is missing, then runs every test: native `cargo test` of all crates, then the
# browser tests (Playwright driving Debian's Chromium) against a fresh release build of the site.
# Screenshots of each browser state are written to tests/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase prints its start time since the script began, and the script ends (passing or
# not) with every phase's duration, so a CI log shows where time goes.
PHASE_NAMES=()
PHASE_STARTS=()
phase() {
  PHASE_NAMES+=("$*")
  PHASE_STARTS+=("$SECONDS")
  printf '== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"
}
durations() {
  local status=$? i end took
  echo "== phase durations (exit status $status)"
  for i in "${!PHASE_NAMES[@]}"; do
    end=${PHASE_STARTS[$((i + 1))]:-$SECONDS}
    took=$((end - PHASE_STARTS[i]))
    printf '%4dm%02ds  %s\n' $((took / 60)) $((took % 60)) "${PHASE_NAMES[$i]%% (*}"
  done
  printf '%4dm%02ds  in all\n' $((SECONDS / 60)) $((SECONDS % 60))
  if [ -s "$TEST_TIMES" ]; then
    echo "== the slowest test binaries (cargo's own 'finished in')"
    awk '/^ *Running /{bin=substr($0, index($0, "Running ") + 8)}
         /^test result:/{n=split($0, a, "finished in "); if (n > 1) {t=a[2]; sub(/s.*$/, "", t); printf "%8.1fs  %s\n", t, bin}}' \
      "$TEST_TIMES" | sort -rn | head -8
  fi
}
trap durations EXIT
# Panics keep their backtraces (RUST_BACKTRACE), but errors do not capture one: the SPIR-V
# compiler of the `--features vulkan` build (pliron) makes errors with `Backtrace::capture` on
# its normal path, and with RUST_BACKTRACE=1 unwinding took about 7 % of that phase's CPU
# time (perf, 2026-12-02).
export RUST_LIB_BACKTRACE=0
# What every `cargo test` below printed, for the slowest binaries at the end.
TEST_TIMES="$(mktemp)"
phase "installing what is missing"
scripts/install-tools.sh test
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

phase "documentation links (every relative link in README.md and docs/ points at a file and heading that exist)"
node --test tests/docs/

phase "architecture (no two files of a crate import each other, directly or through a chain)"
node --test tests/architecture/

phase "scorers (scorers/: pairs and scores files, openai_chat.py against the mock endpoint; stdlib python3)"
# The torch test of hf_transformers.py prints one SKIP line here: CI has no torch.
python3 -m unittest discover -s scorers/tests -v

phase "disk before the build"
df -h .
# A clean run writes about 14 GB under target/ (73 debug test binaries of 230-280 MB each, burn
# linked into every one). When the disk fills, the linker dies with "signal 7 [Bus error]"
# minutes into the build, which names no cause: say it here first.
free_gb=$(df -Pk . | awk 'NR == 2 {print int($4 / 1048576)}')
if [ "$free_gb" -lt 16 ]; then
  echo "WARNING: $free_gb GB free here; a clean run needs about 16 GB (14 GB under target/," \
    "1.4 GB for the roberta-large browser test). Free disk space if the build fails with" \
    "'ld terminated with signal 7 [Bus error]'."
fi
# On a fresh checkout cargo's incremental caches only cost: 1.4 GB and time for nothing reused.
if [ ! -d "${CARGO_TARGET_DIR:-target}/debug" ]; then
  export CARGO_INCREMENTAL=0
fi

phase "native tests (cargo test --workspace; the GPU tests on Mesa's lavapipe, WGSL as in a browser)"
# lavapipe is installed above, so a GPU test that finds no adapter fails instead of skipping.
export TABPROBE_REQUIRE_GPU=1
cargo test --workspace --exclude tabprobe 2>&1 | tee -a "$TEST_TIMES"

phase "the page's own logic, natively (routes, run requests, drill-downs, bundled models)"
cargo test -p tabprobe --lib 2>&1 | tee -a "$TEST_TIMES"

phase "cluster files without a cluster (Slurm array, Kubernetes Indexed Job: shards merged = single run)"
# The CLI the native tests just built (cargo test builds it for the CLI's integration tests);
# a plain `cargo build -p tabprobe-cli` would compile burn again with other features.
TABPROBE="${CARGO_TARGET_DIR:-$PWD/target}/debug/tabprobe" scripts/simulate-cluster.sh

phase "a real scheduler: single-node Slurm runs the sbatch files unchanged, one task requeued mid-run (merged = single run)"
TABPROBE="${CARGO_TARGET_DIR:-$PWD/target}/debug/tabprobe" scripts/slurm-test.sh

phase "the native GPU path for clusters (--features vulkan: SPIR-V on lavapipe; every family within 1e-4 of transformers, f16-mixed, shards stamped vulkan)"
# A build of its own: with the feature every Vulkan adapter runs SPIR-V, so the default build
# above keeps testing the browser's WGSL. It overwrites target/debug/tabprobe, which the
# cluster phases above have used already. Runs the GPU tests only (names with native_gpu or
# vulkan); the roberta-base-shaped f16 check was run above on WGSL.
cargo test -p tabprobe-model -p tabprobe-cli --features tabprobe-model/vulkan,tabprobe-cli/vulkan \
  --test golden --test families --test precision --test vulkan -- native_gpu vulkan 2>&1 | tee -a "$TEST_TIMES"

phase "same seed, same bytes in wasm32 (core's determinism test under Node)"
cargo test -p tabprobe-core --target wasm32-unknown-unknown --test determinism

phase "release build of the site (trunk build --release --offline --features test-hooks)"
# With the worker's test hook, which the worker-crash tests use (a fixture's config.json makes
# it panic); the site users get (scripts/run.sh, scripts/build-deploy.sh) is built without it.
trunk build --release --offline --dist dist --features test-hooks

phase "the worker's wasm on Chrome's WebGPU engine (Dawn in Node, SwiftShader): every family within 1e-4 of transformers"
node --test --test-concurrency=1 tests/dawn/

phase "browser tests (node --test, playwright-core, /usr/bin/chromium)"
# Disk left for the tests' own files (the roberta-large-shaped checkpoint takes 1.42 GB).
df -h "${TMPDIR:-/tmp}" .
node --test --test-concurrency=1 tests/browser/
phase "all tests done"
