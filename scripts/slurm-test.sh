#!/usr/bin/env bash
# Runs the committed Slurm files on a real scheduler (issue 36): starts a private single-node
# Slurm (munged, slurmctld, slurmd from Debian's slurm-wlm and munge, which
# `scripts/install-tools.sh test` installs), submits deploy/slurm/probe-array.sbatch (3 array
# tasks) and deploy/slurm/merge.sbatch (--dependency=afterok) unchanged, requeues one array
# task mid-run with `scontrol requeue` so that it continues from its partial file (--resume),
# and checks that the merged run is byte for byte the run one process writes. Uses the tiny
# fixture model and dataset of the tests, so it takes about a minute (47 s for a debug build
# on 2 cores).
#   TABPROBE=path/to/tabprobe scripts/slurm-test.sh   (default: the debug build in target/)
# Needs root: slurmd launches the jobs, and here every daemon and job runs as root. Everything
# (configuration, state, spool, logs, munge key and socket) lives in one temporary folder; no
# system file or service is touched, and the daemons are stopped by PID on exit (also on a
# failure, Ctrl-C or SIGTERM). A run killed outright (SIGKILL) leaves its daemons and jobs
# running: the next run finds them by that run's SLURM_CONF in their environment and stops
# them, and it picks free ports anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
say() { printf '[slurm-test] %s\n' "$*"; }
die() { printf '[slurm-test] FAILED: %s\n' "$*" >&2; exit 1; }

TABPROBE=${TABPROBE:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/tabprobe}
[ -x "$TABPROBE" ] || die "no tabprobe binary at $TABPROBE (build it, or set TABPROBE)"
TABPROBE=$(realpath "$TABPROBE") # the jobs run in the scratch folder
DATASET=$ROOT/crates/cli/tests/fixtures/small.json
MODEL=$ROOT/crates/model/tests/golden/tiny-f32
[ "$(id -u)" = 0 ] || die "needs root (slurmd runs the jobs as root here)"
for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$tool" > /dev/null || die "$tool not found: scripts/install-tools.sh test installs Debian's slurm-wlm and munge"
done
# Only this script's cluster: no SLURM_*/SBATCH_* variables of a surrounding job or shell
# (SBATCH_PARTITION, SLURM_ARRAY_TASK_ID, ...), nor a Kubernetes JOB_COMPLETION_INDEX, may
# reach sbatch, the jobs or the single run.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)
unset JOB_COMPLETION_INDEX

DEADLINE_S=300 # for the jobs, after submission
N=3            # array tasks: probe-array.sbatch's shards
REQUEUED=1     # the array task requeued mid-run
# simulate-cluster.sh's run takes under a second per task, too short to catch a task
# mid-run; every probe with 300 word-order permutations per example (1601 pairs, 17 s in one
# process for a debug build on a 2-core machine) gives the requeued task (650 pairs) several
# seconds. --checkpoint-every 0 writes the partial file after every chunk (32 pairs), so the
# requeued task has one to resume from.
PROBES=all
SEED=0
EXTRA="--hypothesis-only --word-order-q 300 --checkpoint-every 0"

# --- Stopping. Every process of a run (the daemons, the jobs' slurmstepd and tabprobe, the
# single run) has that run's SLURM_CONF in its environment, exported before anything starts,
# and nothing else has it: stop_leftovers finds them by it, each by PID.
stop_pids() { # stop_pids PID...: TERM, up to 10 s, then KILL
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2> /dev/null || true
  local _ p alive
  for _ in $(seq 1 100); do
    alive=0
    for p in "$@"; do kill -0 "$p" 2> /dev/null && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  kill -KILL "$@" 2> /dev/null || true
}
stop_leftovers() { # stop_leftovers WORK WHOSE: the processes of the run in folder WORK
  local conf="SLURM_CONF=$1/slurm.conf" e p found=()
  for e in /proc/[0-9]*/environ; do
    if tr '\0' '\n' 2> /dev/null < "$e" | grep -qxF "$conf"; then
      p=${e#/proc/}
      found+=("${p%/environ}")
    fi
  done
  [ ${#found[@]} -gt 0 ] || return 0
  say "stopping ${#found[@]} processes $2 (pids ${found[*]})"
  stop_pids "${found[@]}"
}

# A run that was killed outright (SIGKILL: its EXIT trap never ran) leaves its daemons and
# jobs running; its folder is in the marker file. One still at work is left alone (free ports
# keep two runs apart).
MARKER=${TMPDIR:-/tmp}/tabprobe-slurm-test.last
if [ -f "$MARKER" ]; then
  read -r old_pid old_work < "$MARKER" || true
  if [ -n "${old_work:-}" ] && ! grep -qF slurm-test "/proc/${old_pid:-0}/cmdline" 2> /dev/null; then
    stop_leftovers "$old_work" "left by a killed run"
    rm -rf "$old_work" "$MARKER"
  fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tabprobe-slurm-test.XXXXXX")
mkdir -p "$WORK"/{pids,logs,state,spool,run,jobs}
mkdir -m 700 "$WORK/munge"
echo "$$ $WORK" > "$MARKER"
export SLURM_CONF=$WORK/slurm.conf

# Whatever happens: the jobs first (slurmd leaves running jobs alone when it stops), then
# the daemons by PID in order, then whatever of this run is still running (after a failure
# or Ctrl-C: a job step, the single run), then the folder.
stop() { # stop NAME: the process whose PID is in $WORK/pids/NAME
  [ -f "$WORK/pids/$1" ] || return 0
  stop_pids "$(cat "$WORK/pids/$1")"
  rm -f "$WORK/pids/$1"
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -f "$WORK/pids/slurmctld" ] && [ -n "$(squeue -h -o %i 2> /dev/null)" ]; then
    scancel --quiet --user=root 2> /dev/null || true # this cluster's jobs: SLURM_CONF is ours
    for _ in $(seq 1 30); do [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break; sleep 0.5; done
  fi
  stop slurmd
  stop slurmctld
  stop munged
  export -n SLURM_CONF # so that stop_leftovers' own tr and grep do not carry it
  stop_leftovers "$WORK" "of this run still running"
  rm -rf "$WORK"
  rm -f "$MARKER"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

logs() { # the daemons' and jobs' logs, for a failure
  local f
  for f in "$WORK"/logs/* "$WORK"/jobs/*.log; do
    [ -s "$f" ] || continue
    printf '[slurm-test] --- %s (last 30 lines)\n' "${f#"$WORK"/}" >&2
    tail -n 30 "$f" >&2
  done
}
fail() { logs; die "$@"; }

# --- munged: a private one (own key, socket and PID file). --force: munged would refuse a
# socket folder that not everyone may enter (mktemp's are 0700); only root uses it here.
head -c 1024 /dev/urandom > "$WORK/munge/munge.key"
chmod 400 "$WORK/munge/munge.key"
MUNGE_SOCKET=$WORK/run/munge.socket
munged --force --key-file="$WORK/munge/munge.key" --socket="$MUNGE_SOCKET" \
  --pid-file="$WORK/run/munged.pid" --seed-file="$WORK/munge/munged.seed" \
  --log-file="$WORK/logs/munged.log" > "$WORK/logs/munged.out" 2>&1 \
  || fail "munged did not start"
cp "$WORK/run/munged.pid" "$WORK/pids/munged" # munged forks; its PID file names the daemon

# --- Ports: two free ones (a bash /dev/tcp connect that fails means nothing listens there),
# above the usual 6817/6818 so that a system Slurm on this machine does not matter.
free_port() {
  local p
  for ((p = $1; p < $1 + 200; p++)); do
    [ "$p" = "${SLURMCTLD_PORT:-}" ] && continue
    if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then echo "$p"; return; fi
  done
  die "no free port in $1..$(($1 + 199))"
}
SLURMCTLD_PORT=$(free_port 16817)
SLURMD_PORT=$(free_port $((SLURMCTLD_PORT + 1)))

# --- slurm.conf: one node, this machine, under its own short name with its real CPUs and
# memory (slurmd -C), reached at 127.0.0.1 so that no DNS is needed.
HOST=$(hostname -s)
NODE=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$HOST/")
case $NODE in NodeName=*CPUs=*) ;; *) fail "slurmd -C printed no node line: $NODE" ;; esac
cat > "$SLURM_CONF" << EOF
ClusterName=tabprobe-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$SLURMCTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a requeued job waits this long before it may start again (default 120 s).
AuthInfo=socket=$MUNGE_SOCKET,cred_expire=10
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldDebug=info
SlurmdDebug=info
# Nothing of the machine's cgroups, accounting database or MPI is needed (or there, in CI).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
# A node that registers is idle at once; a job stays in scontrol's view for an hour.
ReturnToService=2
MinJobAge=3600
KillWait=5
MailProg=/bin/true
# A requeued task's log keeps its first start (Slurm truncates it by default).
JobFileAppend=1
$NODE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

# --- slurmctld and slurmd in the foreground (-D) as this script's children: $! is their PID.
slurmctld -D -f "$SLURM_CONF" > "$WORK/logs/slurmctld.log" 2>&1 &
echo $! > "$WORK/pids/slurmctld"
slurmd -D -N "$HOST" -f "$SLURM_CONF" > "$WORK/logs/slurmd.log" 2>&1 &
echo $! > "$WORK/pids/slurmd"
say "started munged ($(cat "$WORK/pids/munged")), slurmctld ($(cat "$WORK/pids/slurmctld"), port $SLURMCTLD_PORT), slurmd ($(cat "$WORK/pids/slurmd"), port $SLURMD_PORT) in $WORK"
state=""
for _ in $(seq 1 60); do
  for d in slurmctld slurmd; do kill -0 "$(cat "$WORK/pids/$d")" 2> /dev/null || fail "$d exited"; done
  state=$(sinfo -h -n "$HOST" -o %T 2> /dev/null || true)
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || fail "node $HOST not idle after 60 s (sinfo: ${state:-no answer})"
say "node: $NODE, idle"

# --- The single run: one process, no shard.
# In the background with `wait`, which a signal interrupts, so that Ctrl-C stops at once.
# EXTRA is split into words on purpose (several options).
# shellcheck disable=SC2086
"$TABPROBE" probe --dataset "$DATASET" --model "$MODEL" --probes "$PROBES" --seed "$SEED" \
  --out "$WORK/single.json" $EXTRA 2> "$WORK/logs/single.log" &
wait $! || fail "the single run failed"
say "single run: $(grep '^probe set: ' "$WORK/logs/single.log"), $(grep -o '[0-9.]*s$' "$WORK/logs/single.log" | tail -n 1)"

# --- The array and the merge, the committed files as they are; the settings by environment
# (sbatch's default --export=ALL). Command-line options override the files' #SBATCH lines:
# one CPU and 1 GB per task instead of the 8 CPUs and 8 GB (16 GB for the merge) that a real
# probe run asks for and a CI machine may not have; the fixture run needs little.
cd "$WORK/jobs" # the jobs' working folder: their logs (--output) land here
export TABPROBE DATASET MODEL PROBES SEED EXTRA OUT_DIR=$WORK/jobs/shards RUN=$WORK/jobs/run.json
jid=$(sbatch --parsable --array=0-$((N - 1)) --cpus-per-task=1 --mem=1G \
  "$ROOT/deploy/slurm/probe-array.sbatch") || fail "sbatch of probe-array.sbatch failed"
mid=$(sbatch --parsable --dependency=afterok:"$jid" --mem=1G \
  "$ROOT/deploy/slurm/merge.sbatch") || fail "sbatch of merge.sbatch failed"
say "submitted array job $jid (tasks 0-$((N - 1))) and merge job $mid (afterok:$jid)"
deadline=$((SECONDS + DEADLINE_S))

field() { # field JOB NAME: a field of `scontrol show job`
  scontrol show job "$1" 2> /dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# --- Requeue task $REQUEUED mid-run: once it runs and has written a partial file.
task=${jid}_$REQUEUED
tlog=$WORK/jobs/tabprobe-probe-${jid}_$REQUEUED.log
shard=$OUT_DIR/shard-$REQUEUED.json
while :; do
  [ $SECONDS -lt $deadline ] || fail "task $task did not get to a partial file within ${DEADLINE_S} s"
  s=$(field "$task" JobState)
  case $s in
    RUNNING) ;;
    PENDING | CONFIGURING | "") sleep 0.2; continue ;;
    *) fail "task $task is $s before it could be requeued (the run is too short to catch mid-run?)" ;;
  esac
  # A partial file: written (--checkpoint-every 0), while the task has not finished.
  if [ -f "$shard" ] && grep -q '^scored ' "$tlog" 2> /dev/null && ! grep -q '^wrote ' "$tlog"; then
    break
  fi
  sleep 0.1
done
scontrol requeue "$task" || fail "scontrol requeue $task failed"
say "requeued task $task while it ran ($(grep '^scored ' "$tlog" | tail -n 1))"

# --- Wait for the merge job (after the array); a failed task leaves it pending forever.
while :; do
  s=$(field "$mid" JobState)
  [ "$s" = COMPLETED ] && break
  case $s in
    PENDING | RUNNING | CONFIGURING | COMPLETING) ;;
    *) fail "merge job $mid is ${s:-gone}" ;;
  esac
  [ "$(field "$mid" Reason)" != DependencyNeverSatisfied ] || fail "an array task failed: the merge job will never run"
  [ $SECONDS -lt $deadline ] || fail "the jobs did not finish within ${DEADLINE_S} s (squeue: $(squeue -h -o '%i %T %r' | tr '\n' ';'))"
  sleep 1
done
for ((t = 0; t < N; t++)); do
  s=$(field "${jid}_$t" JobState)
  [ "$s" = COMPLETED ] || fail "array task ${jid}_$t is ${s:-gone}"
  grep -h '^shard ' "tabprobe-probe-${jid}_$t.log" | tail -n 1 | sed "s/^/[slurm-test] task ${jid}_$t: /" || true
done

# --- The requeue, shown: Slurm counted a restart, the log has both starts, and the second
# start resumed from the partial file with pairs left to score.
restarts=$(field "$task" Restarts)
[ "${restarts:-0}" -ge 1 ] || fail "scontrol show job $task: Restarts=${restarts:-?}, expected 1"
grep -q 'DUE TO JOB REQUEUE' "$tlog" || fail "$tlog does not show the requeue"
resumed=$(grep '^resume: [0-9][0-9]* of ' "$tlog" || true)
[ -n "$resumed" ] || fail "task $task did not resume from its partial file"
read -r kept total rest < <(sed -n 's/^resume: \([0-9]*\) of \([0-9]*\) .*scoring the other \([0-9]*\).*/\1 \2 \3/p' <<< "$resumed") || true
[ "${kept:-0}" -gt 0 ] && [ "${rest:-0}" -gt 0 ] \
  || fail "task $task resumed with nothing kept or nothing left ($resumed): not mid-run"
say "task $task: Restarts=$restarts; resumed with $kept of its $total pairs scored before the requeue; its log:"
grep -E '^(resume: |wrote )|DUE TO JOB REQUEUE' "$tlog" | sed 's/^/[slurm-test]   /' || true

grep -h '^merged ' "tabprobe-merge-$mid.log" | sed "s/^/[slurm-test] merge job $mid: /" || true

# --- The merged run is the single run, byte for byte.
if cmp -s "$WORK/single.json" "$RUN"; then
  say "merged run ($N array tasks, one requeued and resumed, merged by job $mid) is byte-identical to the single run ($(wc -c < "$RUN") bytes); ${SECONDS} s in all"
else
  cmp "$WORK/single.json" "$RUN" >&2 || true
  fail "the merged run DIFFERS from the single run"
fi
