#!/usr/bin/env bash
# tools/replay-study/study.py on a diffusion target, tiny budget: ΔlogZ against target
# evaluations for one trainer and one trainer + a buffer manager whose replayed states the
# trainer moves by Langevin local search; the CSV's budget column is the target evaluations,
# larger for the searching run than for the plain one at the same iteration.
#   diffusion_smoke.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
rm -rf "$work"
table=$(/usr/bin/python3 "$here/tools/replay-study/study.py" --seeds 1 --iters 6 --interval 3 \
  --n-samples 200 --batch 32 --replay 8 --variants one "one+replay 8" \
  --config "$here/configs/diffusion_hard_funnel.yaml" --name hf --metric delta_logz \
  --x target_evaluations --set env.n_steps=8 --set local_search.mode=langevin \
  --set local_search.langevin_steps=5 --build "$build" --work "$work/runs" --out "$work/out")
echo "$table"
csv="$work/out/hf.csv"
head -1 "$csv" | tr -d "\r" | grep -qx "variant,seed,target_evaluations,delta_logz,modes_found" ||
  { echo "FAIL: header $(head -1 "$csv")" >&2; exit 1; }
plain=$(awk -F, '$1 == "one" && NR > 1 {x = $3} END {print x}' "$csv")
search=$(awk -F, '$1 == "one+replay 8" {x = $3} END {print x}' "$csv")
awk -v p="$plain" -v s="$search" 'BEGIN {exit !(p > 0 && s > p)}' ||
  { echo "FAIL: target evaluations plain $plain, searching $search" >&2; exit 1; }
proposals=$(jq -r '.local_search_proposals' "$work/runs/one+replay 8_s0/summary.json")
[ "$proposals" -gt 0 ] || { echo "FAIL: $proposals local search proposals" >&2; exit 1; }
echo "$table" | grep -qF "| one+replay 8 |" || { echo "FAIL: no table row" >&2; exit 1; }
[ -s "$work/out/hf.png" ] || { echo "FAIL: no figure" >&2; exit 1; }
echo "diffusion study smoke OK (target evaluations $plain plain, $search searching; $proposals proposals)"
