#!/usr/bin/env bash
# run_json_smoke.sh CHECK JSON TOOL MIN_CASES "FIGURES" -- COMMAND...
# The --json smoke test of a benchmark tool: runs COMMAND (which must write JSON through
# --json), then checks that file with CHECK (check_bench_json): the common report schema
# (tools/common/harness/report.h) from TOOL, at least MIN_CASES cases, each with every
# figure of the space-separated FIGURES measured. Exits 0 only when both succeed.
set -euo pipefail
check=$1 json=$2 tool=$3 min_cases=$4 figures=$5
shift 5
if [[ ${1:-} == -- ]]; then shift; fi
rm -f "$json"
mkdir -p "$(dirname "$json")"
"$@"
# shellcheck disable=SC2086  # FIGURES is a list
"$check" "$json" "$tool" "$min_cases" $figures
echo "json report of $tool OK"
