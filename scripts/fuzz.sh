#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/*.rs) for the given number of seconds each:
#   scripts/fuzz.sh <seconds-per-target> [target ...]
# Environment: JOBS (targets run at once, default 1), FUZZ_LOGS (default /work/fuzz-logs, else
# fuzz/logs), CARGO_TARGET_DIR (default fuzz/target). Needs the nightly toolchain and
# cargo-fuzz (`rustup toolchain install nightly --profile minimal`, `cargo install cargo-fuzz
# --locked`). Seeds each corpus from tests/fixtures/import (probe_set: from fuzz/seeds/probe_set,
# small datasets with the running example and the texts of issue #11, and the product-format
# fixtures; share_view: from fuzz/seeds/share_view, links, result files and raw results;
# model_load: the tiny golden checkpoints of crates/model/tests/golden (every family) in its input format, see
# model_seeds, plus earlier findings from fuzz/seeds/model_load). model_load builds without a
# sanitizer (burn under ASan builds and runs too slowly on this machine) but with debug
# assertions, so overflow is a crash. Every run asserts no panic, caps
# memory (-rss_limit_mb=2048) and any single allocation (-malloc_limit_mb=512); a crash
# leaves its input under fuzz/artifacts/<target>/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh <seconds-per-target> [target ...]}
shift
jobs=${JOBS:-1}
logs=${FUZZ_LOGS:-/work/fuzz-logs}
mkdir -p "$logs" 2>/dev/null || logs=fuzz/logs
mkdir -p "$logs"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls fuzz/fuzz_targets | sed 's/\.rs$//')
fi

# A little-endian u32, for model_load's length prefixes.
le32() {
  local n=$1 shift
  for shift in 0 8 16 24; do printf "\\$(printf %03o $((n >> shift & 255)))"; done
}

# model_load's input: mode byte (0 golden tokenizer.json, 1 tokenizer.json, 2 vocab.json +
# merges.txt), length-prefixed config.json, length-prefixed tokenizer file(s), then the weights.
model_seeds() {
  local dir=$1 g=crates/model/tests/golden tok=crates/model/tests/golden/tiny-f32
  local v mode f
  for v in tiny-f32 tiny-f16 tiny-bf16 tiny-2way tiny-noprefix; do
    for mode in 0 1 2; do
      # Every variant with the golden tokenizer; the full formats only on the small bf16 one.
      [ "$mode" != 0 ] && [ "$v" != tiny-bf16 ] && continue
      {
        printf "\\$(printf %03o "$mode")"
        le32 "$(stat -c %s "$g/$v/config.json")"
        cat "$g/$v/config.json"
        case $mode in
          1) le32 "$(stat -c %s "$tok/tokenizer.json")"; cat "$tok/tokenizer.json" ;;
          2) for f in vocab.json merges.txt; do le32 "$(stat -c %s "$tok/$f")"; cat "$tok/$f"; done ;;
        esac
        cat "$g/$v/model.safetensors"
      } >"$dir/golden-$v-mode$mode"
    done
  done
  # Every other family (BERT, DistilBERT, ELECTRA, XLM-R, DeBERTa, BART), with its own
  # tokenizer.json (mode 1).
  for f in "$g"/families/*/; do
    [ -f "$f/model.safetensors" ] || continue
    {
      printf '\001'
      le32 "$(stat -c %s "$f/config.json")"
      cat "$f/config.json"
      le32 "$(stat -c %s "$f/tokenizer.json")"
      cat "$f/tokenizer.json"
      cat "$f/model.safetensors"
    } >"$dir/family-$(basename "$f")"
  done
}

# Per-target build flags: model_load links burn (see above).
build_flags() {
  case $1 in
    model_load) echo "-O -a --sanitizer none" ;;
    *) echo "-O" ;;
  esac
}

# Seed corpora from the fixtures (by extension, so each target starts from its own format).
seed() {
  local target=$1 dir=fuzz/corpus/$1
  mkdir -p "$dir"
  local pattern
  case $target in
    product_json) pattern='*.json' ;;
    infotabs_json) pattern='*.json' ;;
    tabfact_json) pattern='*.json' ;;
    infotabs_tsv) pattern='*.tsv' ;;
    tablebert_tsv) pattern='*.[tc]sv' ;;
    tabfact_csv) pattern='*.csv' ;;
    nli_jsonl) pattern='*.jsonl' ;;
    zip) pattern='*.zip' ;;
    model_load)
      model_seeds "$dir"
      cp -n fuzz/seeds/model_load/* "$dir/" 2>/dev/null || true
      return ;;
    probe_set)
      # Small datasets (JSON) and earlier crash inputs, kept in the repository.
      cp -n fuzz/seeds/probe_set/* "$dir/" 2>/dev/null || true
      pattern='*dataset*.json' ;;
    share_view)
      # Share links, result files and raw results (a leading NUL byte) kept in the
      # repository; not the 48 KB hostile links, which would slow every execution.
      cp -n fuzz/seeds/share_view/* "$dir/" 2>/dev/null || true
      return ;;
    *) pattern='*' ;;
  esac
  find tests/fixtures -type f -name "$pattern" -size -64k -exec cp -n {} "$dir/" \; 2>/dev/null || true
}

# shellcheck disable=SC2046 # build_flags is a word list on purpose
for t in "${targets[@]}"; do cargo +nightly fuzz build $(build_flags "$t") "$t" >/dev/null; done

run_one() {
  local t=$1
  seed "$t"
  local log="$logs/$t.log"
  echo "fuzzing $t for ${seconds}s → $log"
  # shellcheck disable=SC2046
  if nice -n 10 cargo +nightly fuzz run $(build_flags "$t") "$t" -- \
      -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=512 \
      -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
    local execs cov
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    echo "$t: clean, $execs executions, coverage $cov edges"
  else
    echo "$t: FAILED — see $log and fuzz/artifacts/$t/"
    return 1
  fi
}

failed=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit $failed
