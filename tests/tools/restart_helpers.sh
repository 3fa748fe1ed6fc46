# Sourced by the restart tests (run_restart_e2e.sh, cluster/run_torchrun_restart_e2e.sh, the
# network-fault tests cluster/run_partition_e2e.sh and cluster/run_lost_node_e2e.sh).
#   kill_rank_after_checkpoint RUN_DIR ITERATION RANK JOB_PID
# waits (up to 120 s, while JOB_PID lives) for the checkpoint of ITERATION in RUN_DIR, then
# sends SIGKILL to the gfn-train process of that run whose environment has RANK=RANK or
# OMPI_COMM_WORLD_RANK=RANK, echoes "killed rank R (pid P)" and sets killed_pid=P. Calls `fail` (the caller's)
# when the checkpoint never appears or no such rank is found.
kill_rank_after_checkpoint() {
  local dir=$1 iteration=$2 rank=$3 job=$4 pid victim=""
  wait_for_checkpoint "$dir" "$iteration" "$job"
  for pid in $(pgrep -f -- "output.dir=$dir"); do
    [ "$(basename "$(readlink "/proc/$pid/exe")")" = gfn-train ] || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
      grep -qxE "(RANK|OMPI_COMM_WORLD_RANK)=$rank" && victim=$pid
  done
  [ -n "$victim" ] || fail "rank $rank not found"
  kill -9 "$victim"
  killed_pid=$victim
  echo "killed rank $rank (pid $victim)"
}

#   wait_for_checkpoint RUN_DIR ITERATION JOB_PID
# waits (up to 120 s, while JOB_PID lives) for the checkpoint of ITERATION in RUN_DIR (its
# manifest, written last); `fail` when it never appears.
wait_for_checkpoint() {
  local manifest
  manifest=$(printf '%s/checkpoints/iteration_%08d/manifest.json' "$1" "$2")
  for _ in $(seq 1200); do
    [ -f "$manifest" ] && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.1
  done
  [ -f "$manifest" ] || fail "no checkpoint at $2"
}

#   expect_same_as_reference REF_DIR RUN_DIR ITERATIONS
# the restarted run logged every iteration 1..ITERATIONS once (training.csv) and ends exactly
# as the uninterrupted reference (l1_exact, logz, modes_found of summary.json); `fail` if not.
expect_same_as_reference() {
  local ref=$1 run=$2 n=$3 iters key a b
  iters=$(tail -n +2 "$run/training.csv" | cut -d, -f1 | tr '\n' ' ')
  [ "$iters" = "$(seq -s ' ' 1 "$n") " ] || fail "training.csv iterations are not 1..$n once each"
  for key in l1_exact logz modes_found; do
    a=$(jq -r ".$key" "$ref/summary.json") b=$(jq -r ".$key" "$run/summary.json")
    [ "$a" = "$b" ] || fail "$key: $b after the restart, $a without"
  done
}
