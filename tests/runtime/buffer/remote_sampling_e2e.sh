#!/usr/bin/env bash
# Remote sampling end to end: runs tests/tools/run_e2e.sh (gfn-train under
# mpirun + check_summary), then requires that the trainers trained on replayed items
# from their manager: summary.json's remote_items_trained (backward trajectories from
# the manager's terminating states, summed over trainers) must be > 0.
#   remote_sampling_e2e.sh RUN_E2E GFN_TRAIN CHECK_SUMMARY NP OUTDIR ITERS T M C -- ARGS...
set -euo pipefail
run_e2e=$1
shift
bash "$run_e2e" "$@"
out=$4
trained=$(jq -r '.remote_items_trained' "$out/summary.json")
echo "remote_items_trained = $trained"
if ! [[ "$trained" =~ ^[0-9]+$ ]] || [ "$trained" -le 0 ]; then
  echo "FAIL: no remote item was trained on (remote_items_trained = $trained)" >&2
  exit 1
fi
