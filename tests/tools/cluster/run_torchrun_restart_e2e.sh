#!/usr/bin/env bash
# Real torchrun's own restart across two namespace nodes (tools/cluster/cluster.sh torchrun):
# one torchrun per node with --max_restarts 1, 3 ranks each (3 trainers + 2 managers +
# coordinator, torch backend), checkpointing every 20 iterations. Once the checkpoint of
# iteration 40 exists, the rank with RANK=KILL_RANK (on node1) gets SIGKILL; torchrun brings
# the world back on both nodes and gfn-train, reading TORCHELASTIC_RESTART_COUNT, resumes from
# its newest valid checkpoint by itself. Checked: the run finishes, summary.json records one
# restart that resumed from a checkpoint of 40 or later, every iteration of training.csv
# appears once (1..1000), and it ends exactly as the same run without the kill (l1_exact,
# logz, modes_found: resuming is bit-identical).
#   run_torchrun_restart_e2e.sh GFN_TRAIN OUT_DIR [KILL_RANK]
set -uo pipefail
train=$1 out=$2 kill_rank=${3:-3}
repo=$(pwd)
# shellcheck source=../restart_helpers.sh
source "$(dirname "$0")/../restart_helpers.sh"
rm -rf "$out"
mkdir -p "$out"
args=(--config "$repo/configs/hypergrid_demo.yaml" --set train.batch_size=129
      --set layout.num_buffers=2 --set layout.coordinator=true --set layout.placement=hostname
      --set transport.backend=torch --set transport.interface=eth0 --set checkpoint.every=20
      --set checkpoint.keep=1000 --set train.n_iterations=1000 --set output.log_every=1
      --set validation.interval=1000 --set validation.n_samples=20000 --set output.plots=false
      --set output.progress=off)
fail() { echo "FAILED: $*"; tail -40 "$out/run.log"; exit 1; }
start() {  # start NAME DIR: the job on a cluster of its own name, in the background
  timeout 400 bash "$repo/tools/cluster/cluster.sh" --name "$1" torchrun 2 3 --max_restarts 1 \
    --no_python "$train" "${args[@]}" --set output.dir="$2" >"$2.log" 2>&1 &
  job=$!
}
start gfnc-ref "$out/ref"
wait $job || { tail -40 "$out/ref.log"; echo "FAILED: the reference run"; exit 1; }
start gfnc-restart "$out/run"
kill_rank_after_checkpoint "$out/run" 40 "$kill_rank" "$job"
wait $job || fail "the restarted run failed"
s="$out/run/summary.json"
[ "$(jq -r '.restarts.count' "$s")" = 1 ] || fail "restarts: $(jq -c '.restarts' "$s")"
[ "$(jq -r '.restarts.attempts[0].resumed_from_iteration >= 40' "$s")" = true ] ||
  fail "resumed from: $(jq -c '.restarts' "$s")"
expect_same_as_reference "$out/ref" "$out/run" 1000
ip netns list | grep -q "^gfnc-" && fail "namespaces left behind"
jq -c '.restarts' "$s"
echo "PASS: torchrun restarted the world across the nodes, same result as without the kill"
