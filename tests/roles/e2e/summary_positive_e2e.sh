#!/usr/bin/env bash
# The protocol options end to end: runs tests/tools/run_e2e.sh (gfn-train under mpirun + check_summary,
# which checks every submitted item was counted once), then requires each summary.json
# field named in FIELDS (space-separated) to be a positive integer, e.g.
# "remote_trajectories_trained" (trainers trained on remote full trajectories as given)
# or "items_filtered baseline_updates" (fire-and-forget baseline filtering happened).
#   summary_positive_e2e.sh "FIELDS" RUN_E2E GFN_TRAIN CHECK_SUMMARY NP OUTDIR ITERS T M C -- ARGS...
set -euo pipefail
fields=$1
run_e2e=$2
shift 2
bash "$run_e2e" "$@"
out=$4
for f in $fields; do
  v=$(jq -r ".$f" "$out/summary.json")
  echo "$f = $v"
  if ! [[ "$v" =~ ^[0-9]+$ ]] || [ "$v" -le 0 ]; then
    echo "FAIL: summary.json $f = $v, expected > 0" >&2
    exit 1
  fi
done
