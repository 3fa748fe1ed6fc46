#!/usr/bin/env bash
# Trains the Python HyperGrid (examples/python_env/hypergrid.yaml) and the built-in HyperGrid
# with the same settings and seed, on NP ranks over BACKEND, then compares the two run
# directories (compare_with_builtin.py: same trajectories, metrics and l1_exact).
#   run_same_as_builtin.sh GFN_TRAIN NP BACKEND OUT -- ARGS...   (from the repository root)
set -euo pipefail
train=$1 np=$2 backend=$3 out=$4
shift 4
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
mkdir -p "$out"
config=examples/python_env/hypergrid.yaml
# 25 iterations, exact validation every 10, the example's other settings.
common=(--set transport.backend="$backend" --set train.n_trajectories=3200
  --set validation.interval=10 --set validation.n_samples=20000 --set output.log_every=5 "$@")
builtin=(--set env.python= --set 'env.options={}' --set env.name=hypergrid --set env.ndim=2
  --set env.height=8 --set env.reward=original --set env.R0=0.1 --set env.R1=0.5 --set env.R2=2.0)
run() {
  if [ "$np" -gt 1 ]; then
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" "$train" "$@"
  else
    "$train" "$@"
  fi
}
run --config "$config" "${common[@]}" "${builtin[@]}" --set output.dir="$out/builtin"
run --config "$config" "${common[@]}" --set output.dir="$out/python"
grep -q 'python: "\?hypergrid:HyperGrid' "$out/python/config.yaml" || {
  echo "the Python run's config.yaml does not name hypergrid:HyperGrid"
  exit 1
}
if grep -q 'python: "\?hypergrid:HyperGrid' "$out/builtin/config.yaml"; then
  echo "the built-in run's config.yaml names the Python class"
  exit 1
fi
python3 "$(dirname "$0")/compare_with_builtin.py" "$out/builtin" "$out/python" py_hypergrid
