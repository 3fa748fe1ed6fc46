#!/usr/bin/env bash
# A restarted world whose launcher counted the restart on some ranks only (torchrun restarts
# the workers of a node that were still running, after a network partition, as a membership
# change with TORCHELASTIC_RESTART_COUNT 0; roles/run_job.cc agree_on_start): the demo
# layout (4 ranks, mpi) checkpointing every 20 iterations, rank 2 killed once the checkpoint
# of iteration 40 exists; then the job again under mpirun with launch.restart_count 1 on
# ranks 0-1 and none on ranks 2-3. Checked: the ranks started afresh say they continue from
# the restarted ranks' checkpoint, the job finishes, and it ends exactly as the same job
# without the kill (every iteration once, l1_exact, logZ, modes). Before the agreement the
# world mixed iterations 40 and 0 and failed on its first collective.
#   run_mixed_restart_e2e.sh GFN_TRAIN OUT_DIR
set -uo pipefail
# shellcheck source=restart_helpers.sh
source "$(dirname "$0")/restart_helpers.sh"
train=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
args=(--config configs/hypergrid_demo.yaml --set checkpoint.every=20 --set output.log_every=1
      --set validation.interval=1000 --set validation.n_samples=20000 --set output.progress=off
      --set train.n_iterations=600 --set checkpoint.keep=1000 --set transport.timeout_s=10)
fail() { echo "FAILED: $*"; tail -30 "$out/run.log"; exit 1; }
bash tools/mpirun.sh -np 4 "$train" "${args[@]}" --set output.dir="$out/ref" >"$out/ref.log" 2>&1 ||
  { tail -30 "$out/ref.log"; echo "FAILED: the reference run"; exit 1; }
bash tools/mpirun.sh -np 4 "$train" "${args[@]}" --set output.dir="$out/run" >"$out/run.log" 2>&1 &
kill_rank_after_checkpoint "$out/run" 40 2 $!
wait $! && fail "the run survived the kill"
bash tools/mpirun.sh -np 2 "$train" "${args[@]}" --set output.dir="$out/run" \
  --set launch.restart_count=1 --set launch.restart_reason="rank 2 killed" : \
  -np 2 "$train" "${args[@]}" --set output.dir="$out/run" >>"$out/run.log" 2>&1 ||
  fail "the restart with counts 1, 1, 0, 0"
for r in 2 3; do
  grep -q "rank $r: its launcher started rank(s) 2, 3 afresh (restart count 0) .* continuing from" \
    "$out/run.log" || fail "rank $r did not say it continues from the checkpoint"
done
expect_same_as_reference "$out/ref" "$out/run" 600
echo "PASS: ranks started afresh joined the restart from its checkpoint, same result as without"
