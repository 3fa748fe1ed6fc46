#!/usr/bin/env bash
# End-to-end test driver: runs gfn-train (under mpirun when NP > 1), requires every
# rank to exit 0, then checks the run's summary.json with check_summary.
# GFN_E2E_WRAPPER, if set, is a command put before gfn-train on every rank;
# GFN_E2E_LAUNCHER, if set, launches the NP ranks instead of mpirun (gfn-launch).
# GFN_E2E_LOG, if set, keeps the run's output in OUTDIR.log and has check_summary require
# that its last line is the population's result (GFN_CHECK_LOG).
#   run_e2e.sh GFN_TRAIN CHECK_SUMMARY NP OUTDIR ITERATIONS TRAINERS MANAGERS COORDS -- ARGS...
set -euo pipefail
train=$1 check=$2 np=$3 out=$4 iters=$5 trainers=$6 managers=$7 coords=$8
shift 8
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
run() {
  if [ "$np" -gt 1 ] && [ -n "${GFN_E2E_LAUNCHER:-}" ]; then
    "$GFN_E2E_LAUNCHER" -n "$np" -- "$train" "$@" --set output.dir="$out"
  elif [ "$np" -gt 1 ]; then
    export OMPI_MCA_mpi_yield_when_idle=1
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
      ${GFN_E2E_WRAPPER:-} "$train" "$@" --set output.dir="$out"
  else
    "$train" "$@" --set output.dir="$out"
  fi
}
if [ -n "${GFN_E2E_LOG:-}" ]; then
  mkdir -p "$(dirname "$out")"
  run "$@" 2>&1 | tee "$out.log"
  export GFN_CHECK_LOG="$out.log"
else
  run "$@"
fi
"$check" "$out" "$np" "$iters" "$trainers" "$managers" "$coords"
