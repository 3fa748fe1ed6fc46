#!/usr/bin/env bash
# gfn-bench-train --suite on configs/bench/torchgfn (tools/gfn-bench-train/suite.h): every
# scenario of the directory at two batch sizes is timed and reported (text and JSON), each with
# the parameter count its config's comment states ("N trainable parameters", torchgfn's count),
# and the suite's refusals name what is wrong. A third argument names another suite directory
# (configs/bench/torchgfn_python: the Python HyperGrid; run from the source directory).
# Usage: suite_test.sh <gfn-bench-train> <source dir> [<suite dir>]
set -euo pipefail
bench=$1
src=$2
suite=${3:-$src/configs/bench/torchgfn}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bench" --suite "$suite" --quick --warmup 1 --iters 3 --batch-sizes 4 8 \
  --set output.dir="$work/runs" --json "$work/suite.json" > "$work/out.txt"
cat "$work/out.txt"

n_files=$(ls "$suite"/*.yaml | wc -l)
n_cases=$(jq '.cases | length' "$work/suite.json")
[[ $n_cases -eq $((2 * n_files)) ]] || fail "$n_cases cases for $n_files scenarios x 2 batch sizes"
for f in "$suite"/*.yaml; do
  name=$(basename "$f" .yaml)
  stated=$(grep -o '[0-9][0-9,]* trainable parameters' "$f" | head -1 | cut -d' ' -f1 | tr -d ,)
  [[ -n $stated ]] || fail "$f states no parameter count"
  for b in 4 8; do
    got=$(jq -r --arg c "$name/b$b" '.cases[] | select(.name == $c) | .parameters.n_params' \
      "$work/suite.json")
    [[ $got == "$stated" ]] || fail "$name batch $b: $got parameters, the config says $stated"
    ms=$(jq -r --arg c "$name/b$b" '.cases[] | select(.name == $c) |
      .figures.ms_per_iteration.mean' "$work/suite.json")
    awk -v m="$ms" 'BEGIN { exit !(m > 0) }' || fail "$name batch $b: ms/iteration $ms"
    grep -Eq "^ +$name +$b +$stated +[0-9]+\.[0-9]{3} ± [0-9]+\.[0-9]{3}( +[0-9]+\.[0-9]{3}){4}$" \
      "$work/out.txt" || fail "no table row for $name batch $b"
  done
done

# Refusals: exit code 2 and the reason.
set +e
msg=$("$bench" --suite "$work/none" 2>&1); rc=$?
[[ $rc -eq 2 && $msg == *"no directory $work/none"* ]] || fail "missing directory: rc $rc: $msg"
first=$(basename "$(ls "$suite"/*.yaml | head -1)" .yaml)
msg=$("$bench" --suite "$suite" --scenario no_such 2>&1); rc=$?
[[ $rc -eq 2 && $msg == *"no no_such.yaml"*"$first"* ]] || fail "unknown scenario: rc $rc: $msg"
msg=$("$bench" --batch-sizes 8 2>&1); rc=$?
[[ $rc -ne 0 && $msg == *"--suite"* ]] || fail "--batch-sizes without --suite: rc $rc: $msg"
echo "suite_test: passed ($n_files scenarios)"
