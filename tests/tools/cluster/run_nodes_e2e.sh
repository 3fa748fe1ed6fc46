#!/usr/bin/env bash
# gfn-train across three nodes of tools/cluster/cluster.sh (network + UTS namespaces on a private
# bridge), 5 trainers + 3 managers + the coordinator with layout.placement hostname (a manager
# per node), started by
#  * mpirun from node0 with a hostfile of the nodes and the cluster's rsh agent, ranks on
#    different nodes talking TCP over eth0 (shared memory only within a node), or
#  * torchrun (python3 -m torch.distributed.run), one per node, 3 ranks each, c10d rendezvous
#    at node0 (torch backend).
# The run's layout table must name the kernel hostnames node0..node2 and give every trainer
# a manager on its own node; check_summary checks the run; node1's eth0 carried the traffic;
# the cluster is gone afterwards.
#   run_nodes_e2e.sh GFN_TRAIN CHECK_SUMMARY OUT_DIR mpirun|torchrun BACKEND
set -euo pipefail
train=$1 check=$2 out=$3 launcher=$4 backend=$5
repo=$(pwd)
name=gfnc-test
rm -rf "$out"
mkdir -p "$out"
log=$out/run.log
if [ "$launcher" = mpirun ]; then
  start=(mpirun 3 --oversubscribe --bind-to none -x OMPI_MCA_mpi_yield_when_idle=1 -np 9
         --map-by node)
else
  start=(torchrun 3 3 --no_python)
fi
timeout 240 bash "$repo/tools/cluster/cluster.sh" --name "$name" "${start[@]}" \
  "$train" --config "$repo/configs/hypergrid_demo.yaml" --set train.n_iterations=10 \
  --set train.batch_size=129 --set layout.num_buffers=3 --set layout.coordinator=true \
  --set layout.placement=hostname --set transport.backend="$backend" \
  --set transport.interface=eth0 --set output.plots=false --set output.progress=off \
  --set validation.n_samples=5000 --set output.dir="$out/run" >"$log" 2>&1 ||
  { echo "FAIL: the run across the nodes"; tail -40 "$log"; exit 1; }
"$check" "$out/run" 9 10 5 3 1
# The layout table names node0..node2, every trainer's manager on its own node.
python3 "$(dirname "$0")/check_layout.py" "$log" 9 3 || exit 1
# The ranks on node1 talked to node0's over the bridge: its eth0 carried the trainers'
# submissions and all-reduces (well over 100 kB for these 10 iterations).
rx=$(sed -n 's/^cluster.sh: node1 eth0 rx_bytes \([0-9]*\) .*/\1/p' "$log")
[ -n "$rx" ] && [ "$rx" -gt 100000 ] || { echo "FAIL: node1 received ${rx:-?} bytes over eth0"; exit 1; }
if ip netns list | grep -q "^$name-"; then echo "FAIL: namespaces left behind"; exit 1; fi
echo "PASS: three namespace nodes, $launcher, $backend backend"
