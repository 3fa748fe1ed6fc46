#!/usr/bin/env bash
# A network partition on three namespace nodes (tools/cluster/cluster.sh --name gfnf): node2's
# link is cut at the bridge for CUT_S seconds once the checkpoint of iteration 200 exists, then
# restored. 9 ranks, 3 per node (5 trainers, a manager per node by hostname placement, a
# coordinator), transport.timeout_s 8 (collectives 16 s), a checkpoint every 200 of 1000
# iterations, started by
#  * mpirun (mpi backend) under tools/mpirun-restart.sh --max-restarts MAX_RESTARTS, or
#  * torchrun on every node (torch backend) with --max_restarts MAX_RESTARTS.
# Checked: a rank names a rank across the cut within 2 x timeout_s + 5 s of the cut (the log's
# timestamps), the launcher restarted the job once (summary.json restarts), and it ends as the
# same job without the cut, run first on the same nodes: every iteration once in training.csv,
# the same l1_exact, logZ and modes (resuming is bit-identical), the same manager counts and
# coordinator modes. Prints the seconds from the cut to the first named failure and to the
# restarted world's resume. With MAX_RESTARTS 0 (no recovery) it must fail.
#   run_partition_e2e.sh GFN_TRAIN OUT_DIR mpirun|torchrun [MAX_RESTARTS] [CUT_S]
set -uo pipefail
train=$1 out=$2 launcher=$3 max_restarts=${4:-1} cut_s=${5:-20}
repo=$(pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=fault_helpers.sh
source "$here/fault_helpers.sh"
up_fault_cluster "$out"
timeout_s=8
args=(--config "$repo/configs/hypergrid_demo.yaml" --set train.batch_size=129
      --set layout.num_buffers=3 --set layout.coordinator=true --set layout.placement=hostname
      --set transport.interface=eth0 --set transport.timeout_s=$timeout_s
      --set buffer.drain_timeout_s=$timeout_s --set checkpoint.every=200
      --set train.n_iterations=1000 --set output.log_every=1 --set validation.interval=1000
      --set validation.n_samples=5000 --set output.plots=false --set output.progress=off)
start() {  # start DIR RESTARTS: the job in the background, its pid in $job, its log DIR.log
  if [ "$launcher" = mpirun ]; then
    timeout 400 bash "$repo/tools/mpirun-restart.sh" --max-restarts "$2" --restart-backoff 1 \
      --mpirun "${cluster[*]} mpirun-on 0,1,2" -- --oversubscribe --bind-to none \
      -x OMPI_MCA_mpi_yield_when_idle=1 -np 9 --map-by node "$train" "${args[@]}" \
      --set transport.backend=mpi --set output.dir="$1" >"$1.log" 2>&1 &
  else
    # A rendezvous id of its own per launch: torchrun refused a second one of the same id on
    # the same nodes (RendezvousClosedError).
    timeout 400 "${cluster[@]}" torchrun-on 0,1,2 3 --max_restarts "$2" --monitor_interval 1 \
      --rdzv_id "gfnf-$(basename "$1")" --no_python "$train" "${args[@]}" --set transport.backend=torch --set output.dir="$1" \
      >"$1.log" 2>&1 &
  fi
  job=$!
}
t_ref=$(date +%s.%N)
start "$out/ref" 0
wait $job || { tail -30 "$out/ref.log"; echo "FAILED: the reference run"; exit 1; }
t_ref=$(echo "$(date +%s.%N) - $t_ref" | bc)
t_run=$(date +%s.%N)
start "$out/run" "$max_restarts"
wait_for_checkpoint "$out/run" 200 "$job"
cut=$(date +%T.%3N)
"${cluster[@]}" link 2 down
echo "$cut node2's link down for $cut_s s"
sleep "$cut_s"
"${cluster[@]}" link 2 up
echo "$(date +%T.%3N) node2's link up"
wait $job
rc=$?
t_run=$(echo "$(date +%s.%N) - $t_run" | bc)
expect_fault_named "$out/run.log" "$cut" "$(ranks_on_node "$out/run.log" node2 | tr '\n' ' ')" \
  $((2 * timeout_s + 5))
[ $rc -eq 0 ] || fail "the job did not finish after the partition (exit code $rc)"
s="$out/run/summary.json"
[ "$(jq -r '.restarts.count' "$s")" -ge 1 ] || fail "restarts: $(jq -c '.restarts' "$s")"
resumed=$(sed -E 's/^\[default[0-9]+\]://' "$out/run.log" |
  grep -m1 -o '^\[[0-9:.]*\] \[rank 0 trainer\] \[info\] resumed from' | cut -c2-13)
echo "restart: resumed at $resumed, $(jq -c '.restarts.attempts[0] | {resumed_from_iteration, iterations_redone}' "$s")"
expect_same_as_reference "$out/ref" "$out/run" 1000
expect_same_counts "$out/ref" "$out/ref.log" "$out/run" "$out/run.log"
printf 'wall time %.1f s without the cut, %.1f s with it (the cut %s s)\n' "$t_ref" "$t_run" "$cut_s"
echo "PASS: $launcher restarted the job after node2's partition, same result as without it"
