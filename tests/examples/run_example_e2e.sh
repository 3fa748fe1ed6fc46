#!/usr/bin/env bash
# End-to-end test of an example plugin: trains with its experiment (tests/tools/run_e2e.sh:
# gfn-train on one rank, then check_summary), then checks the run against torchgfn's definition
# of the environment and that it learned (check_example_run.py).
#   run_example_e2e.sh GFN_TRAIN CHECK_SUMMARY PLUGIN CONFIG OUTDIR ITERATIONS REFERENCE -- ARGS...
set -euo pipefail
train=$1 check=$2 plugin=$3 config=$4 out=$5 iters=$6 reference=$7
shift 7
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/../tools/run_e2e.sh" "$train" "$check" 1 "$out" "$iters" 1 0 0 -- \
  --config "$config" --set env.plugin="$plugin" "$@"
/usr/bin/python3 "$here/check_example_run.py" --run "$out" --reference "$reference"
