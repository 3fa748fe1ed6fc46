#!/usr/bin/env bash
# Environment plugins that cannot be used (docs/environments.md "Plugins"): a missing file
# and an unknown option are refused by each rank of a world of 3 (torch backend, explicit
# launch values) started ALONE, with exit code 2 and a message naming the file: a rank that
# checked after its rendezvous would wait there for its missing peers instead (the timeout
# makes that a failure). A resumed run may not change env.options.
#   refusals.sh GFN_TRAIN PLUGIN OUTDIR
set -uo pipefail
train=$1 plugin=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
export OMPI_MCA_mpi_yield_when_idle=1
fail=0
port=$((20000 + RANDOM % 20000))
alone() {  # alone RANK ARGS...: rank RANK of a world of 3 whose peers never start
  local rank=$1
  shift
  timeout 60 "$train" "$@" --set transport.backend=torch --set launch.world_size=3 \
    --set launch.rank="$rank" --set launch.master_addr=127.0.0.1 --set launch.master_port=$port
}
expect_refusal() {  # expect_refusal WHAT PATTERN COUNT ARGS...: COUNT ranks print PATTERN
  local what=$1 pattern=$2 count=$3
  shift 3
  "$@" >"$out/refusal.log" 2>&1
  local rc=$? n
  n=$(grep -c -- "$pattern" "$out/refusal.log")
  if [ $rc -ne 2 ] || [ "$n" -ne "$count" ]; then
    echo "FAIL: $what: exit $rc, $n message(s) with '$pattern', expected $count"
    cat "$out/refusal.log"
    fail=1
  fi
  if grep -q "Gloo\|MPI_ERR\|rendezvous" "$out/refusal.log"; then
    echo "FAIL: $what: communication started"; cat "$out/refusal.log"; fail=1
  fi
}
common=(--config examples/custom_env/coins.yaml --set output.progress=off)
for rank in 0 1 2; do
  expect_refusal "missing plugin, rank $rank" "env.plugin '$out/missing.so': no such file" 1 \
    alone $rank "${common[@]}" --set env.plugin="$out/missing.so" --set output.dir="$out/missing"
  expect_refusal "unknown option, rank $rank" "unknown key 'env.options.colour'.*$plugin" 1 \
    alone $rank "${common[@]}" --set env.plugin="$plugin" --set env.options.colour=red \
    --set output.dir="$out/unknown"
done
# A run with a checkpoint, then a resume that changes an option of the plugin.
"$train" "${common[@]}" --set env.plugin="$plugin" --set train.n_trajectories=1280 \
  --set checkpoint.every=10 --set output.dir="$out/run" >"$out/run.log" 2>&1 ||
  { echo "FAIL: the run"; cat "$out/run.log"; exit 1; }
grep -q "capacity: 12" "$out/run/config.yaml" || { echo "FAIL: config.yaml lacks the options"; fail=1; }
expect_refusal "resume changing env.options" "env.options" 1 \
  "$train" --resume "$out/run" --set train.n_trajectories=2560 --set env.options.capacity=8
[ $fail -eq 0 ] && echo "PASS: plugin refusals"
exit $fail
