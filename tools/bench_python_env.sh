#!/usr/bin/env bash
# The Python HyperGrid (examples/python_env/hypergrid.py, env.python) against the built-in
# HyperGrid under gfn-train (docs/performance.md "Python environments"): one rank, one thread,
# batch 128, TB, validation off, 2-D and 4-D (height 8), the two runs interleaved round by round;
# prints each run's ms per iteration (summary.json) and the median ratio, then the cost per call
# of each batched member (gfn-bench-python-env). Run it on a quiet machine, from the repository
# root, after tools/setup.sh:
#   bash tools/bench_python_env.sh [ROUNDS=3] [N_TRAJECTORIES=25600]
set -euo pipefail
rounds=${1:-3} n=${2:-25600}
bin=build/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--config examples/python_env/hypergrid.yaml --set layout.num_buffers=0
  --set layout.coordinator=false --set validation.enabled=false --set train.batch_size=128
  --set train.n_trajectories="$n" --set train.num_threads=1 --set output.log_every=1000)
ms() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ms_per_iteration'])" "$1"; }
echo "date: $(date -u +%F), host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for ndim in 2 4; do
  builtin=(--set env.python= --set 'env.options={}' --set env.name=hypergrid --set env.ndim="$ndim"
    --set env.height=8)
  python=(--set env.options.ndim="$ndim" --set env.options.height=8)
  ratios=()
  for r in $(seq "$rounds"); do
    "$bin/gfn-train" "${common[@]}" "${builtin[@]}" --set output.dir="$out/b$ndim$r" >/dev/null 2>&1
    "$bin/gfn-train" "${common[@]}" "${python[@]}" --set output.dir="$out/p$ndim$r" >/dev/null 2>&1
    b=$(ms "$out/b$ndim$r/summary.json") p=$(ms "$out/p$ndim$r/summary.json")
    ratios+=("$(python3 -c "print($p / $b)")")
    printf 'ndim %s round %s: built-in %.3f ms/iteration, Python %.3f ms/iteration\n' "$ndim" "$r" "$b" "$p"
  done
  printf 'ndim %s: Python / built-in, median of %s rounds: %s\n' "$ndim" "$rounds" \
    "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}')"
  "$bin/gfn-bench-python-env" --ndim "$ndim" --height 8 --batch 128
done
