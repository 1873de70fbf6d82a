#!/usr/bin/env bash
# Runs the cluster files without a cluster (issue 14) and checks the merged shards are the
# single run, byte for byte:
#   * deploy/slurm/probe-array.sbatch once per array task, with the variables Slurm sets
#     (SLURM_ARRAY_TASK_ID 0..n-1, SLURM_ARRAY_TASK_COUNT), then deploy/slurm/merge.sbatch;
#   * the command of deploy/kubernetes/probe-indexed-job.yaml once per completion index, with
#     JOB_COMPLETION_INDEX set and $(JOB_COMPLETION_INDEX) expanded as Kubernetes does, its
#     volume paths mapped to a scratch folder, then `tabprobe merge`;
# each against the same run done by one process. Uses the tiny fixture model and dataset of
# the tests, so it takes seconds. Validates the Job against the Kubernetes schema with
# kubernetes-validate (PyPI) when scripts/install-tools.sh has installed it.
#   TABPROBE=path/to/tabprobe scripts/simulate-cluster.sh   (default: a debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
say() { printf '[simulate-cluster] %s\n' "$*"; }

if [ -z "${TABPROBE:-}" ]; then
  cargo build -q -p tabprobe-cli
  TABPROBE="${CARGO_TARGET_DIR:-$ROOT/target}/debug/tabprobe"
fi
DATASET=$ROOT/crates/cli/tests/fixtures/small.json
MODEL=$ROOT/crates/model/tests/golden/tiny-f32
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

same() { # same FILE FILE WHAT
  if cmp -s "$1" "$2"; then
    say "$3: merged run is byte-identical to the single run ($(wc -c < "$1") bytes)"
  else
    say "$3: merged run DIFFERS from the single run"; exit 1
  fi
}

# --- Slurm: the array's tasks, then the merge job.
N=3
PROBES=table
EXTRA="--cap-per-example 3 --hypothesis-only --checkpoint-every 0"
"$TABPROBE" probe --dataset "$DATASET" --model "$MODEL" --probes "$PROBES" --seed 0 \
  --out "$WORK/slurm-single.json" $EXTRA 2>/dev/null
for ((task = 0; task < N; task++)); do
  env -u JOB_COMPLETION_INDEX SLURM_ARRAY_JOB_ID=1 SLURM_ARRAY_TASK_ID=$task \
    SLURM_ARRAY_TASK_COUNT=$N SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=$((N - 1)) \
    TABPROBE="$TABPROBE" DATASET="$DATASET" MODEL="$MODEL" PROBES="$PROBES" SEED=0 \
    OUT_DIR="$WORK/slurm-shards" EXTRA="$EXTRA" \
    bash deploy/slurm/probe-array.sbatch 2> "$WORK/slurm-task-$task.log" \
    || { cat "$WORK/slurm-task-$task.log"; exit 1; }
  grep -h "^shard " "$WORK/slurm-task-$task.log" | sed 's/^/[simulate-cluster] slurm task '"$task"': /'
done
(cd "$WORK" && TABPROBE="$TABPROBE" OUT_DIR=slurm-shards RUN=slurm-run.json \
  bash "$ROOT/deploy/slurm/merge.sbatch" > slurm-report.txt)
same "$WORK/slurm-single.json" "$WORK/slurm-run.json" "slurm ($N array tasks)"

# --- Kubernetes: the Indexed Job's command per completion index.
JOB=deploy/kubernetes/probe-indexed-job.yaml
PY=python3
[ -x .tools/kubernetes-validate/bin/python ] && PY=.tools/kubernetes-validate/bin/python
if [ -x .tools/kubernetes-validate/bin/kubernetes-validate ]; then
  .tools/kubernetes-validate/bin/kubernetes-validate --strict "$JOB"
else
  say "kubernetes-validate not installed (scripts/install-tools.sh test installs it): schema not checked"
fi
# completions, then the command one word per line (PyYAML reads the file as Kubernetes does).
mapfile -t JOB_LINES < <("$PY" - "$JOB" <<'PY'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed", "not an Indexed Job"
(container,) = spec["template"]["spec"]["containers"]
print(spec["completions"])
for word in container["command"] + container.get("args", []):
    assert "\n" not in word
    print(word)
PY
)
COMPLETIONS=${JOB_LINES[0]}
mkdir -p "$WORK/k8s/inputs" "$WORK/k8s/out"
cp "$DATASET" "$WORK/k8s/inputs/dataset.json"
ln -s "$MODEL" "$WORK/k8s/inputs/model"
# The container's paths (/inputs, /out) inside the scratch folder; `tabprobe` is the binary.
map() {
  local w=$1
  w=${w//\/inputs\//$WORK/k8s/inputs/}
  w=${w//\/out\//$WORK/k8s/out/}
  [ "$w" = tabprobe ] && w=$TABPROBE
  printf '%s' "$w"
}
COMMAND=()
for w in "${JOB_LINES[@]:1}"; do COMMAND+=("$(map "$w")"); done
# The single run: the same command without --shards, --resume and the per-index output.
SINGLE=()
skip=0
for w in "${COMMAND[@]}"; do
  if [ $skip = 1 ]; then skip=0; continue; fi
  case $w in
    --shards | --out) skip=1 ;;
    --resume) ;;
    *) SINGLE+=("$w") ;;
  esac
done
env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT -u JOB_COMPLETION_INDEX \
  "${SINGLE[@]}" --out "$WORK/k8s-single.json" 2>/dev/null
for ((index = 0; index < COMPLETIONS; index++)); do
  RUN=()
  for w in "${COMMAND[@]}"; do RUN+=("${w//\$(JOB_COMPLETION_INDEX)/$index}"); done
  env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT JOB_COMPLETION_INDEX=$index \
    "${RUN[@]}" 2> "$WORK/k8s-$index.log" || { cat "$WORK/k8s-$index.log"; exit 1; }
  grep -h "^shard " "$WORK/k8s-$index.log" | sed 's/^/[simulate-cluster] k8s index '"$index"': /'
done
"$TABPROBE" merge "$WORK"/k8s/out/shard-*.json -o "$WORK/k8s-run.json"
same "$WORK/k8s-single.json" "$WORK/k8s-run.json" "kubernetes ($COMPLETIONS completion indexes)"
