#!/usr/bin/env bash
# tools/replay-study/study.py end to end on a tiny budget: every variant runs (one trainer; four
# gradient-averaged trainers; four + a buffer manager replaying stored states), the CSV holds
# a validation row of each, the replaying runs trained on remote items, and the table and the
# figure are written.
#   study_smoke.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
rm -rf "$work"
table=$(/usr/bin/python3 "$here/tools/replay-study/study.py" --seeds 1 --iters 20 --interval 10 \
  --n-samples 300 --replay 4 --build "$build" --work "$work/runs" --out "$work/out")
echo "$table"
csv="$work/out/box_replay_r0_0.1.csv"
for v in "one" "four" "four+replay 4"; do
  rows=$(grep -c "^$v,0," "$csv" || true)
  [ "$rows" = 2 ] || { echo "FAIL: $rows validation rows of '$v' in $csv, expected 2" >&2; exit 1; }
  echo "$table" | grep -qF "| $v |" || { echo "FAIL: no table row of '$v'" >&2; exit 1; }
done
sampled=$(jq -r '.trajectories_sampled' "$work/runs/four_s0/summary.json")
[ "$sampled" = $((20 * 64)) ] || { echo "FAIL: four trainers sampled $sampled, not 20 x 64" >&2; exit 1; }
remote=$(jq -r '.remote_items_trained' "$work/runs/four+replay 4_s0/summary.json")
[ "$remote" -gt 0 ] || { echo "FAIL: the replaying run trained on $remote remote items" >&2; exit 1; }
[ -s "$work/out/box_replay_r0_0.1.png" ] || { echo "FAIL: no figure" >&2; exit 1; }
echo "study smoke OK ($remote remote items)"
