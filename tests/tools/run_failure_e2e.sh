#!/usr/bin/env bash
# Failure-of-a-peer test (docs/protocol.md "Shutdown and failures"): starts the demo layout (4 ranks:
# 0, 1 trainers, 2 the buffer manager, 3 the coordinator; --np 3 with
# --set layout.coordinator=false leaves the coordinator out) under mpirun or
# gfn-launch with a small transport.timeout_s, waits until it trains, sends SIGKILL or
# SIGSTOP to one rank's process, and requires that the whole job ends, non-zero, within
# the bound, with lines in its output matching every --expect regex (naming the rank).
# A stopped rank gets SIGCONT and SIGKILL afterwards; nothing of the job is left behind.
#   run_failure_e2e.sh --train GFN_TRAIN [--launch GFN_LAUNCH] [--np N] --out OUTDIR
#       --launcher mpirun|gfn-launch --backend mpi|torch --signal KILL|STOP --rank R
#       --timeout-s T --bound S --expect REGEX [--expect REGEX ...] [-- GFN_TRAIN_ARGS...]
set -uo pipefail

np=4 train="" launch="" out="" launcher="" backend="" sig="" victim_rank="" timeout_s="" bound=""
expects=() extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --train) train=$2; shift 2 ;;
    --launch) launch=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --signal) sig=$2; shift 2 ;;
    --rank) victim_rank=$2; shift 2 ;;
    --timeout-s) timeout_s=$2; shift 2 ;;
    --bound) bound=$2; shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run_failure_e2e.sh: unknown argument '$1'"; exit 2 ;;
  esac
done
for v in train out launcher backend sig victim_rank timeout_s bound; do
  [ -n "${!v}" ] || { echo "run_failure_e2e.sh: missing --${v//_/-}"; exit 2; }
done

rm -rf "$out"
mkdir -p "$(dirname "$out")"
log="$out.log"
args=(--config configs/hypergrid_demo.yaml --set train.n_trajectories=100000000
  --set validation.enabled=false --set transport.backend="$backend"
  --set transport.timeout_s="$timeout_s" --set buffer.drain_timeout_s="$timeout_s"
  --set output.log_every=5 --set output.progress=off --set output.dir="$out" "${extra[@]}")
case "$launcher" in
  mpirun)
    export OMPI_MCA_mpi_yield_when_idle=1
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" "$train" "${args[@]}" \
      >"$log" 2>&1 &
    rank_var=OMPI_COMM_WORLD_RANK
    ;;
  gfn-launch)
    "$launch" -n "$np" -- "$train" "${args[@]}" >"$log" 2>&1 &
    rank_var=RANK
    ;;
  *) echo "run_failure_e2e.sh: --launcher mpirun|gfn-launch"; exit 2 ;;
esac
job=$!
train_exe=$(readlink -f "$train")

# The job's gfn-train processes: the launcher's descendants, by rank.
declare -A pid_of=()
find_ranks() {
  local p c r queue=("$job")
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do
      queue+=("$c")
      [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$train_exe" ] || continue
      r=$(tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | sed -n "s/^$rank_var=//p")
      [ -n "$r" ] && pid_of[$r]=$c
    done
  done
}
cleanup() {
  for p in "${pid_of[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  kill -KILL "$job" 2>/dev/null
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- last lines of $log"; tail -40 "$log"; exit 1; }

for _ in $(seq 1 240); do
  grep -q "iteration 10/" "$log" 2>/dev/null && break
  kill -0 "$job" 2>/dev/null || fail "the job ended before the signal"
  sleep 0.25
done
grep -q "iteration 10/" "$log" || fail "the job did not reach iteration 10 within 60 s"
find_ranks
victim=${pid_of[$victim_rank]:-}
[ -n "$victim" ] || fail "no process for rank $victim_rank (found ranks ${!pid_of[*]})"

start=$(date +%s.%N)
kill "-$sig" "$victim"
echo "sent SIG$sig to rank $victim_rank (pid $victim) at iteration $(grep -o 'iteration [0-9]*/' "$log" | tail -1)"
ended=0
for _ in $(seq 1 $((bound * 10))); do
  kill -0 "$job" 2>/dev/null || { ended=1; break; }
  sleep 0.1
done
elapsed=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }')
[ $ended -eq 1 ] || fail "the job was still running ${bound} s after SIG$sig to rank $victim_rank"
wait "$job"
rc=$?
echo "the job ended ${elapsed} s after the signal, exit code $rc"
[ $rc -ne 0 ] || fail "the job exited 0 after SIG$sig to rank $victim_rank"
for re in "${expects[@]}"; do
  line=$(grep -E -m1 -- "$re" "$log") || fail "no line matches '$re'"
  echo "  matched: $line"
done
echo "PASS"
