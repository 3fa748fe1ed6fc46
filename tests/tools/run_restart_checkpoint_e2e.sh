#!/usr/bin/env bash
# Which checkpoint an automatic restart continues from (docs/checkpoints.md "Automatic
# restart"), on a world of one with launch.restart_count set as tools/mpirun-restart.sh sets it:
#  - a restart whose experiment differs in a key a resumed run may not change is refused
#    (exit 2, naming the key);
#  - a corrupted newest checkpoint is skipped for the previous one, named in the log and in
#    summary.json's restarts;
#  - a restart that finds no checkpoint starts afresh.
#   run_restart_checkpoint_e2e.sh GFN_TRAIN OUT_DIR
set -uo pipefail
train=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
args=(--config configs/hypergrid_2d.yaml --set train.n_trajectories=1280 --set checkpoint.every=5
      --set validation.n_samples=2000 --set output.progress=off --set output.dir="$out/run")
fail() { echo "FAILED: $*"; cat "$out/log" 2>/dev/null | tail -20; exit 1; }
"$train" "${args[@]}" >"$out/log" 2>&1 || fail "the first run"
[ -f "$out/run/checkpoints/iteration_00000010/manifest.json" ] || fail "no checkpoint at 10"
# Another learning rate: refused before training.
"$train" "${args[@]}" --set launch.restart_count=1 --set train.lr=0.01 >"$out/log" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "a changed train.lr: exit code $rc, want 2"
grep -q "restart 1 (launch.restart_count): .*differs in train.lr" "$out/log" || fail "train.lr not named"
# The newest checkpoint corrupted (one byte of the trainer's file): the one of iteration 5.
printf '#' | dd of="$out/run/checkpoints/iteration_00000010/rank_0.pt" bs=1 seek=100 conv=notrunc 2>/dev/null
"$train" "${args[@]}" --set train.n_trajectories=2560 --set launch.restart_count=1 \
  --set launch.restart_reason="the test" >"$out/log" 2>&1 || fail "the restart"
grep -q "skipping checkpoint .*iteration_00000010: checkpoint file .*rank_0.pt' is corrupted" "$out/log" ||
  fail "the skipped checkpoint is not named in the log"
s="$out/run/summary.json"
[ "$(jq -r '.restarts.attempts[0] | .resumed_from_iteration == 5 and .ended_by == "the test"
      and (.skipped_checkpoints | length) == 1 and (.skipped_checkpoints[0] | test("iteration_00000010"))' "$s")" = true ] ||
  fail "summary.json restarts: $(jq -c .restarts "$s")"
[ "$(jq -r '.iterations' "$s")" = 20 ] || fail "did not train to iteration 20"
# No checkpoint at all: a restart starts afresh.
"$train" "${args[@]}" --set output.dir="$out/empty" --set launch.restart_count=2 >"$out/log" 2>&1 ||
  fail "a restart without checkpoint"
grep -q "no valid checkpoint under .*starting afresh" "$out/log" || fail "no 'starting afresh' log"
[ "$(jq -r '.restarts.count == 2 and .restarts.attempts[0].resumed_from_iteration == null' "$out/empty/summary.json")" = true ] ||
  fail "summary.json restarts of a fresh start: $(jq -c .restarts "$out/empty/summary.json")"
echo PASS
