#!/usr/bin/env bash
# Automatic restart end to end (docs/checkpoints.md "Automatic restart"): the demo layout
# (2 trainers, 1 buffer manager, 1 coordinator; HyperGrid 2-D, sync submission) checkpointing
# every 20 iterations; once the checkpoint of iteration 40 exists, rank KILL_RANK gets
# SIGKILL. The launcher restarts the world, which continues from the newest valid
# checkpoint. Checked:
#  - the run finishes (exit 0) and summary.json's "restarts" names one restart, what ended
#    the first attempt (the rank and the signal) and where it resumed;
#  - every iteration of training.csv (logged every iteration) appears exactly once, 1..1000;
#  - it ends exactly like the same run without the kill (l1_exact, logZ, modes found):
#    resuming is bit-identical, so the restart lost and repeated nothing;
#  - its run directory is the fault-free run's (tests/tools/compare_run_dirs.py: every file,
#    the same bits where the run is deterministic, the same rows and keys otherwise: every
#    role's timeline, counts and time report across both attempts);
#  - the killed rank's real pid is named (Open MPI says "PID 0"), summary.json's wall_s is
#    both attempts' and "attempts" has each one's, and the log has no terminal escape codes.
#   run_restart_e2e.sh gfn-launch|mpirun GFN_TRAIN OUT_DIR GFN_LAUNCH [KILL_RANK]
set -uo pipefail
# shellcheck source=restart_helpers.sh
source "$(dirname "$0")/restart_helpers.sh"
kind=$1 train=$2 out=$3 launch=$4 kill_rank=${5:-2}
rm -rf "$out"
mkdir -p "$out"
backend=torch
[ "$kind" = mpirun ] && backend=mpi
args=(--config configs/hypergrid_demo.yaml --set transport.backend=$backend
      --set checkpoint.every=20 --set output.log_every=1 --set validation.interval=1000
      --set validation.n_samples=20000 --set output.progress=off
      # Long enough that the kill lands mid-run, and every checkpoint kept: the 250 iterations
      # of the demo ran in 1 s, so the poll below could miss iteration 40's checkpoint
      # (rotated away by checkpoint.keep) or the whole run.
      --set train.n_iterations=1000 --set checkpoint.keep=1000)
fail() { echo "FAILED: $*"; tail -40 "$out/run.log"; exit 1; }
start() {  # start DIR MAX_RESTARTS: the job in the background, its pid in $job
  if [ "$kind" = gfn-launch ]; then
    "$launch" -n 4 --max-restarts "$2" --restart-backoff 0.5 -- "$train" "${args[@]}" \
      --set output.dir="$1" >"$1.log" 2>&1 &
  else
    bash tools/mpirun-restart.sh --max-restarts "$2" --restart-backoff 0.5 -- -np 4 "$train" \
      "${args[@]}" --set output.dir="$1" >"$1.log" 2>&1 &
  fi
  job=$!
}
# The reference: the same run, uninterrupted.
start "$out/ref" 0
wait $job || { cat "$out/ref.log"; echo "FAILED: the reference run"; exit 1; }
# The run that loses a rank.
start "$out/run" 2
kill_rank_after_checkpoint "$out/run" 40 "$kill_rank" "$job"
wait $job || fail "the restarted run failed"
s="$out/run/summary.json"
check() {  # check JQ_EXPRESSION DESCRIPTION
  [ "$(jq -r "$1" "$s")" = "true" ] || fail "$2: $(jq -c '.restarts' "$s")"
}
check '.restarts.count == 1 and (.restarts.attempts | length) == 1' "one restart recorded"
check '.restarts.attempts[0].resumed_from_iteration >= 40' "resumed from the checkpoint of 40 or later"
check '.restarts.attempts[0].resumed_from_iteration % 20 == 0' "resumed from a checkpoint"
check ".restarts.attempts[0].ended_by | test(\"rank $kill_rank\")" "the rank that ended attempt 1"
check '.restarts.attempts[0].ended_by | test("signal 9")' "the signal that ended attempt 1"
check '.restarts.attempts[0].iterations_redone >= 0' "iterations redone"
expect_same_as_reference "$out/ref" "$out/run" 1000
/usr/bin/python3 "$(dirname "$0")/compare_run_dirs.py" "$out/ref" "$out/run" ||
  fail "the run directory differs from the fault-free run's"
check ".restarts.attempts[0].ended_by | test(\"(pid|PID) $killed_pid\\\\b\")" \
  "the killed rank's pid $killed_pid named"
check '(.attempts | length) == 2 and (.attempts | map(.started)) == ["start", "restart"]' \
  "both attempts' wall times"
check '(.wall_s - (.attempts | map(.wall_s) | add) | fabs) < 1e-6 and .wall_s > .attempts[1].wall_s' \
  "wall_s: the whole job's"
if grep -q $'\e' "$out/run.log"; then fail "terminal escape codes in the log"; fi
jq -c '.restarts' "$s"
echo "PASS: restarted after rank $kill_rank was killed, same result as without"
