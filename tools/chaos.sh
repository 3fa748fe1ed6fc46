#!/usr/bin/env bash
# Chaos test of automatic restart (docs/checkpoints.md "Automatic restart"; local processes
# only, bounded in faults and time). For each backend: a fault-free reference run, then the
# same run under faults: every --interval seconds a random rank of any role gets SIGKILL
# (--kills of them), and once (the second fault) a random rank gets SIGSTOP for 3 x
# transport.timeout_s, so that its peers' timeouts name it. The launcher (gfn-launch
# --max-restarts for torch, tools/mpirun-restart.sh for mpi) restarts the world, which
# continues from the newest valid checkpoint. The run is the demo layout with 3 trainers, 1
# buffer manager and a coordinator (HyperGrid 2-D, sync submission, checkpoint every 10).
# Checked (the automatic-restart guarantees):
#   - the run finishes every iteration, and training.csv has each iteration exactly once;
#   - the buffer manager's counts (items and DATA received, buffer_manager_<r>.json) and the
#     coordinator's modes equal the reference's: nothing a checkpoint held was lost, and the
#     iterations redone replaced the lost ones exactly;
#   - l1_exact is within 10 % of the reference's.
# Prints the faults, restarts, iterations redone and the wall-time overhead. Exit 0 when
# every check passes.
#   tools/chaos.sh [--backend mpi|torch|both] [--iterations N] [--interval S] [--kills K]
#                  [--seed S] [--out DIR] [--build BUILD_DIR]
# Example (10 minutes): tools/chaos.sh --iterations 12000 --interval 20 --kills 12
set -uo pipefail
backends=both iterations=1200 interval=6 kills=3 seed=1 out=runs/chaos timeout_s=3 build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backends=$2 ;; --iterations) iterations=$2 ;; --interval) interval=$2 ;;
    --kills) kills=$2 ;; --seed) seed=$2 ;; --out) out=$2 ;; --build) build=$2 ;;
    *) echo "chaos: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
[ "$backends" = both ] && backends="mpi torch"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${build:-$root/build}
train=$build/bin/gfn-train launch=$build/bin/gfn-launch
cd "$root"
RANDOM=$seed
# Checkpoints every 10 iterations; the last iteration is not a checkpoint's.
args=(--config configs/hypergrid_demo.yaml --set layout.num_buffers=1 --set train.batch_size=192
      --set train.n_iterations="$iterations" --set checkpoint.every=10 --set output.log_every=1
      --set validation.interval=1000000 --set validation.n_samples=20000 --set output.progress=off
      --set transport.timeout_s="$timeout_s" --set buffer.drain_timeout_s="$timeout_s")
start_job() {  # start_job BACKEND DIR MAX_RESTARTS: the job in the background, pid in $job
  local b=$1 dir=$2 restarts=$3
  if [ "$b" = torch ]; then
    "$launch" -n 5 --max-restarts "$restarts" --restart-backoff 0.5 --kill-grace 2 -- "$train" \
      "${args[@]}" --set transport.backend=torch --set output.dir="$dir" >"$dir.log" 2>&1 &
  else
    bash "$here/mpirun-restart.sh" --max-restarts "$restarts" --restart-backoff 0.5 -- -np 5 \
      "$train" "${args[@]}" --set transport.backend=mpi --set output.dir="$dir" >"$dir.log" 2>&1 &
  fi
  job=$!
}
rank_pid() {  # rank_pid DIR RANK: the pid of that rank's gfn-train, or nothing
  local pid
  for pid in $(pgrep -f -- "output.dir=$1( |\$)"); do
    [ "$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)")" = gfn-train ] || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
      grep -qxE "(RANK|OMPI_COMM_WORLD_RANK)=$2" && { echo "$pid"; return; }
  done
}
coordinator_modes() { grep -o 'coordinator done .*: [0-9]* modes found' "$1" | tail -1 | grep -o '[0-9]* modes' ; }
manager_counts() { jq -c '{items_received, submissions, trajectories_received, exit_mismatches}' "$1"/buffer_manager_*.json; }
failed=0
check() {  # check CONDITION_TEXT DESCRIPTION
  if eval "$1"; then echo "  ok: $2"; else echo "  FAILED: $2"; failed=1; fi
}
for b in $backends; do
  dir=$out/$b
  rm -rf "$dir" "$dir.ref" && mkdir -p "$out"
  echo "== $b backend: $iterations iterations, a fault every ${interval} s ($kills kills, 1 stop)"
  t0=$(date +%s.%N)
  start_job "$b" "$dir.ref" 0
  wait $job || { echo "the reference run failed ($dir.ref.log)"; exit 1; }
  ref_s=$(echo "$(date +%s.%N) - $t0" | bc)
  t0=$(date +%s.%N)
  start_job "$b" "$dir" $((kills + 3))
  faults=0 stopped=0
  while [ $faults -lt $((kills + 1)) ]; do
    sleep "$interval"
    kill -0 $job 2>/dev/null || break
    victim_rank=$((RANDOM % 5))
    pid=$(rank_pid "$dir" $victim_rank)
    [ -n "$pid" ] || continue  # between attempts
    if [ $faults -eq 1 ]; then
      # The stop lands in training, not in a restart's rendezvous: a rank alive for 3 s.
      [ "$(ps -o etimes= -p "$pid" 2>/dev/null | tr -d ' ')" -ge 3 ] 2>/dev/null || continue
      kill -STOP "$pid" && echo "  $(date +%T) SIGSTOP rank $victim_rank (pid $pid) for $((3 * timeout_s)) s"
      sleep $((3 * timeout_s))
      kill -CONT "$pid" 2>/dev/null
    else
      kill -9 "$pid" && echo "  $(date +%T) SIGKILL rank $victim_rank (pid $pid)"
    fi
    faults=$((faults + 1))
  done
  wait $job
  rc=$?
  chaos_s=$(echo "$(date +%s.%N) - $t0" | bc)
  s=$dir/summary.json
  restarts=$(jq -r '.restarts.count' "$s" 2>/dev/null)
  redone=$(jq -r '[.restarts.attempts[].iterations_redone] | add // 0' "$s" 2>/dev/null)
  echo "  faults $faults, restarts $restarts, iterations redone $redone"
  jq -r '.restarts.attempts[] | "    restart \(.restart): \(.ended_by) -> resumed from \(.resumed_from_iteration)"' "$s" 2>/dev/null
  printf '  wall time %.1f s without faults, %.1f s with (overhead %+.0f %%)\n' "$ref_s" "$chaos_s" \
    "$(echo "100 * ($chaos_s - $ref_s) / $ref_s" | bc -l)"
  check "[ $rc -eq 0 ]" "the run finished (exit code $rc)"
  check "[ \"\$(jq -r .iterations $s)\" = $iterations ]" "all $iterations iterations trained"
  check "[ \"\$(tail -n +2 $dir/training.csv | cut -d, -f1 | tr '\n' ' ')\" = \"\$(seq -s ' ' 1 $iterations) \" ]" \
    "training.csv has every iteration exactly once"
  check "[ \"\$(manager_counts $dir)\" = \"\$(manager_counts $dir.ref)\" ]" \
    "the manager's counts equal the reference's: $(manager_counts "$dir" 2>/dev/null)"
  check "[ \"\$(coordinator_modes $dir.log)\" = \"\$(coordinator_modes $dir.ref.log)\" ]" \
    "the coordinator's modes equal the reference's: $(coordinator_modes "$dir.log")"
  l1=$(jq -r .l1_exact "$s" 2>/dev/null) l1_ref=$(jq -r .l1_exact "$dir.ref/summary.json")
  check "awk -v a='$l1' -v b='$l1_ref' 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.1 * b) }'" \
    "l1_exact $l1 within 10 % of the reference's $l1_ref"
done
[ $failed -eq 0 ] && echo "chaos: PASS" || echo "chaos: FAILED"
exit $failed
