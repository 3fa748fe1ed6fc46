#!/usr/bin/env bash
# Tests of tools/cmake/layers.cmake (docs/architecture.md "Libraries"):
#   fixture CASE MESSAGE   configure tests/tools/layers/project with PLANT=CASE; CASE none must
#                          configure, every other case must fail with MESSAGE in its output
#   project                configure the whole project with -DGFN_PLANT_LAYER_VIOLATION=ON
#                          (gfn_config linking gfn_core): must fail naming both
# Usage: check_layers.sh SOURCE_DIR fixture CASE [MESSAGE] | SOURCE_DIR project
set -uo pipefail
src="$1"
mode="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ "$mode" = fixture ]; then
  case_name="$3"
  expect="${4:-}"
  cmake -S "$src/tests/tools/layers/project" -B "$work" -G Ninja -DPLANT="$case_name" \
    -DGFN_TOOLS_CMAKE="$src/tools/cmake" >"$work/log" 2>&1
  rc=$?
else
  case_name="planted"
  expect="layers: gfn_config links gfn_core, which it does not declare"
  cmake -S "$src" -B "$work" -G Ninja -DGFN_PLANT_LAYER_VIOLATION=ON -DBUILD_TESTING=OFF \
    >"$work/log" 2>&1
  rc=$?
fi
if [ "$case_name" = none ]; then
  if [ "$rc" -ne 0 ]; then
    cat "$work/log"
    echo "FAIL: the fixture without a violation did not configure"
    exit 1
  fi
  echo "OK: configures"
  exit 0
fi
if [ "$rc" -eq 0 ]; then
  echo "FAIL: case $case_name configured, but it must be refused"
  exit 1
fi
# CMake wraps long messages: compare with the line breaks and indentation removed.
if ! tr '\n' ' ' <"$work/log" | tr -s ' ' | grep -qF "$expect"; then
  cat "$work/log"
  echo "FAIL: case $case_name was refused without the expected message: $expect"
  exit 1
fi
echo "OK: case $case_name refused: $expect"
