#!/usr/bin/env bash
# A node lost for good on three namespace nodes (tools/cluster/cluster.sh --name gfnf), then a
# restart on the two that remain. 6 ranks, 2 per node (mpirun --map-by ppr:2:node: trainers
# 0-3 on node0 and node1, the buffer manager 4 and the coordinator 5 on node2; arithmetic
# placement, so the roles do not depend on the nodes), transport.timeout_s 8, a checkpoint
# every 200 of 1000 iterations, BACKEND mpi or torch under mpirun. Once the checkpoint of
# iteration 200 exists, node2's link goes down and stays down. A lost node is noticed by
# TCP: every node's net.ipv4.tcp_retries2 is 5 (about 13 s of retransmissions) and mpirun's
# connections to its daemons send keepalives (oob_tcp_keepalive_*), so mpirun ends instead
# of waiting for node2's daemon for the default 15 minutes.
# Checked: the job ends (not 0) within 60 s of the cut, a rank of node0 or node1 naming a
# rank of node2 (4 or 5) within 2 x timeout_s + 5 s; then, when RESTART is 1, the same job
# on node0 and node1 (--map-by ppr:3:node, launch.restart_count 1, as a launcher's restart
# or a requeue) continues from the newest checkpoint (200 or later) and ends as the same job
# run first without the fault on three nodes: every iteration once, the same l1_exact, logZ
# and modes, the same manager counts and coordinator modes. RESTART 0 (no recovery) must fail.
#   run_lost_node_e2e.sh GFN_TRAIN OUT_DIR BACKEND [RESTART]
set -uo pipefail
train=$1 out=$2 backend=$3 restart=${4:-1}
repo=$(pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=fault_helpers.sh
source "$here/fault_helpers.sh"
up_fault_cluster "$out"
for i in 0 1 2; do ip netns exec "gfnf-n$i" sysctl -qw net.ipv4.tcp_retries2=5; done
timeout_s=8
args=(--config "$repo/configs/hypergrid_demo.yaml" --set train.batch_size=129
      --set layout.num_buffers=1 --set layout.coordinator=true --set layout.placement=arithmetic
      --set transport.backend="$backend" --set transport.interface=eth0
      --set transport.timeout_s=$timeout_s --set buffer.drain_timeout_s=$timeout_s
      --set checkpoint.every=200 --set train.n_iterations=1000 --set output.log_every=1
      --set validation.interval=1000 --set validation.n_samples=5000 --set output.plots=false
      --set output.progress=off)
run_on() {  # run_on NODES RANKS_PER_NODE DIR ARGS..: the job on those nodes, its log DIR.log
  local nodes=$1 per=$2 dir=$3
  shift 3
  timeout 300 "${cluster[@]}" mpirun-on "$nodes" --mca oob_tcp_keepalive_time 5 \
    --mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3 --oversubscribe \
    --bind-to none -x OMPI_MCA_mpi_yield_when_idle=1 -np 6 --map-by "ppr:$per:node" "$train" \
    "${args[@]}" --set output.dir="$dir" "$@" >>"$dir.log" 2>&1
}
t_ref=$(date +%s.%N)
run_on 0,1,2 2 "$out/ref" || { tail -30 "$out/ref.log"; echo "FAILED: the reference run"; exit 1; }
t_ref=$(echo "$(date +%s.%N) - $t_ref" | bc)
t_run=$(date +%s.%N)
run_on 0,1,2 2 "$out/run" &
job=$!
wait_for_checkpoint "$out/run" 200 "$job"
cut=$(date +%T.%3N) t0=$(date +%s.%N)
"${cluster[@]}" link 2 down
echo "$cut node2's link down for good"
wait $job && fail "the job ended well without node2"
printf 'the job ended %.1f s after the cut\n' "$(echo "$(date +%s.%N) - $t0" | bc)"
expect_fault_named "$out/run.log" "$cut" "4 5" $((2 * timeout_s + 5))  # node2's ranks
[ "$(echo "$(date +%s.%N) - $t0 < 60" | bc)" = 1 ] || fail "the job took over 60 s to end"
[ "$restart" = 1 ] || fail "no restart on the remaining nodes (RESTART 0)"
echo "$(date +%T.%3N) restart on node0 and node1, 3 ranks each"
run_on 0,1 3 "$out/run" --set launch.restart_count=1 --set launch.restart_reason="node2 lost" ||
  fail "the restart on node0 and node1"
s="$out/run/summary.json"
[ "$(jq -r '.restarts.attempts[0].resumed_from_iteration >= 200' "$s")" = true ] ||
  fail "resumed from: $(jq -c '.restarts' "$s")"
echo "restart: $(jq -c '.restarts.attempts[0] | {ended_by, resumed_from_iteration, iterations_redone}' "$s")"
expect_same_as_reference "$out/ref" "$out/run" 1000
expect_same_counts "$out/ref" "$out/ref.log" "$out/run" "$out/run.log"
printf 'wall time %.1f s without the fault, %.1f s with it and the restart\n' "$t_ref" \
  "$(echo "$(date +%s.%N) - $t_run" | bc)"
echo "PASS: the job lost node2, named its ranks and continued on node0 and node1 ($backend)"
