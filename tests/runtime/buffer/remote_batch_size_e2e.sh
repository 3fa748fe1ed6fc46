#!/usr/bin/env bash
# buffer.remote_batch_size end to end: runs tests/tools/run_e2e.sh (gfn-train under mpirun +
# check_summary), then requires that the trainers' share of train.batch_size was all sampled
# forward and that every iteration after the first trained on R replayed items per trainer:
# summary.json's trajectories_sampled = train.batch_size * ITERS and remote_items_trained =
# T * R * (ITERS - 1) (the replies of the last iteration arrive after it).
#   remote_batch_size_e2e.sh RUN_E2E BATCH R GFN_TRAIN CHECK_SUMMARY NP OUTDIR ITERS T M C -- ARGS...
set -euo pipefail
run_e2e=$1 batch=$2 r=$3
shift 3
bash "$run_e2e" "$@"
out=$4 iters=$5 trainers=$6
sampled=$(jq -r '.trajectories_sampled' "$out/summary.json")
trained=$(jq -r '.remote_items_trained' "$out/summary.json")
echo "trajectories_sampled = $sampled, remote_items_trained = $trained"
want_sampled=$((batch * iters))
want_trained=$((trainers * r * (iters - 1)))
if [ "$sampled" != "$want_sampled" ]; then
  echo "FAIL: trajectories_sampled = $sampled, expected $want_sampled" >&2
  exit 1
fi
if [ "$trained" != "$want_trained" ]; then
  echo "FAIL: remote_items_trained = $trained, expected $want_trained" >&2
  exit 1
fi
