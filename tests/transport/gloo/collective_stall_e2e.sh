#!/usr/bin/env bash
# A stalled member of a Gloo collective is named (transport/gloo/gloo_group.h): 3 trainers
# averaging gradients every iteration over the torch backend (transport.timeout_s 2), started
# by gfn-launch; once they train, rank 1 gets SIGSTOP. The others' all-reduce times out after
# 2 x 2 s and they fail naming rank 1; the launcher ends the job (the stopped rank gets SIGKILL
# after the grace period). The short timeout_s does not bound the start: ranks that start
# seconds apart under load still join (transport.rendezvous_timeout_s, default 300 s).
#   collective_stall_e2e.sh GFN_LAUNCH GFN_TRAIN OUT_DIR
set -uo pipefail
launch=$1 train=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
"$launch" -n 3 --kill-grace 2 -- "$train" --config configs/hypergrid_2d.yaml \
  --set transport.backend=torch --set transport.timeout_s=2 --set train.average=gradients \
  --set train.n_trajectories=6400000 --set output.log_every=1 --set output.progress=off \
  --set output.dir="$out/run" >"$out/log" 2>&1 &
job=$!
fail() { echo "FAILED: $*"; tail -20 "$out/log"; kill -9 $job 2>/dev/null; exit 1; }
for _ in $(seq 1200); do  # up to 120 s: 3 torch-backend ranks start slowly under load
  [ "$(wc -l <"$out/run/training.csv" 2>/dev/null || echo 0)" -gt 20 ] && break
  kill -0 $job 2>/dev/null || fail "the job ended before training"
  sleep 0.1
done
[ "$(wc -l <"$out/run/training.csv" 2>/dev/null || echo 0)" -gt 20 ] || fail "not training"
victim=""
for pid in $(pgrep -f -- "output.dir=$out/run"); do
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx RANK=1 || continue
  [ "$(basename "$(readlink "/proc/$pid/exe")")" = gfn-train ] && victim=$pid
done
[ -n "$victim" ] || fail "rank 1 not found"
kill -STOP "$victim"
start=$(date +%s)
wait $job
rc=$?
elapsed=$(($(date +%s) - start))
[ $rc -ne 0 ] || fail "the job succeeded with a stopped rank"
[ $elapsed -lt 40 ] || fail "took ${elapsed}s to end"
grep -q "all_reduce on a group of 3 ranks (group rank [02]) timed out after 4 s (2 x transport.timeout_s): rank(s) 1 did not reach it" "$out/log" ||
  fail "the stalled rank is not named"
grep "did not reach it" "$out/log" | grep -v "rank(s) 1 did not" && fail "another rank named"
echo "PASS: the stalled rank named, job ended in ${elapsed}s"
