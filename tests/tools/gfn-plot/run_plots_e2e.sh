#!/usr/bin/env bash
# The demo layout (2 trainers, 1 buffer manager, 1 coordinator), shortened, with
# output.plots=true: gfn-train runs tools/gfn-plot at the end, then check_pngs.py checks
# every PNG and data file (docs/outputs.md "Plots").
# NP 1 runs gfn-train without mpirun; CHECK_ARGS go to check_pngs.py (e.g. --data FILES).
#   run_plots_e2e.sh GFN_TRAIN OUTDIR CHECK_PNGS NP [CHECK_ARGS...] -- ARGS...
set -euo pipefail
train=$1 out=$2 check=$3 np=$4
shift 4
check_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do check_args+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
mkdir -p "$(dirname "$out")"
export OMPI_MCA_mpi_yield_when_idle=1
launcher=()
[ "$np" -gt 1 ] && launcher=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np")
"${launcher[@]}" "$train" "$@" --set output.plots=true --set output.dir="$out" 2>&1 | tee "$out.log"
grep -q "plots written to $out" "$out.log" || { echo "no 'plots written' log line"; exit 1; }
/usr/bin/python3 "$check" "$out" "${check_args[@]}"
