#!/usr/bin/env bash
# Graceful-stop test: starts a long 4-rank run, sends SIGTERM to mpirun once training
# is under way, and requires that the trainers stopped at an iteration boundary, sent
# EXIT (the manager and coordinator finished), and that summary.json says so.
# Extra arguments go to gfn-train (e.g. a spawn policy: then the log must show a replacement
# before the signal).
#   run_signal_e2e.sh GFN_TRAIN OUTDIR [GFN_TRAIN_ARGS...]
set -uo pipefail
train=$1 out=$2
shift 2
rm -rf "$out"
mkdir -p "$(dirname "$out")"  # the log lives beside OUTDIR; a fresh build has no e2e/ yet
export OMPI_MCA_mpi_yield_when_idle=1
log="$out.log"
mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 "$train" \
  --config configs/hypergrid_demo.yaml --set train.n_trajectories=100000000 \
  --set validation.enabled=false --set output.dir="$out" --set output.log_every=50 "$@" \
  >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  grep -q "iteration 50/" "$log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: the job ended before the signal"; cat "$log"; exit 1; }
  sleep 0.5
done
kill -TERM "$pid"
wait "$pid"
fail=0
grep -q '"stopped_by_signal": true' "$out/summary.json" || { echo "FAIL: summary.json does not say stopped_by_signal"; fail=1; }
grep -q "buffer manager done" "$log" || { echo "FAIL: the buffer manager did not finish"; fail=1; }
grep -q "coordinator done" "$log" || { echo "FAIL: the coordinator did not finish"; fail=1; }
if [[ " $* " == *"spawn.policy=selective"* || " $* " == *"spawn.policy=donor_pull"* ]]; then
  grep -q "spawn at iteration" "$log" || { echo "FAIL: no replacement was logged"; fail=1; }
fi
if [ $fail -ne 0 ]; then tail -40 "$log"; exit 1; fi
echo "graceful stop OK: $(grep -o '"iterations": [0-9]*' "$out/summary.json")"
