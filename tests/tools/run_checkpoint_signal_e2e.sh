#!/usr/bin/env bash
# checkpoint.on_signal end to end (docs/checkpoints.md "Checkpoint and resume"): SIGUSR1 (what Slurm's
# --signal=B:USR1@120 sends) to a long HyperGrid 2-D run of NP trainers (mpirun forwards it);
# the trainers agree on an iteration boundary, checkpoint, stop cleanly (exit 0,
# summary.json stopped_by_signal); then --resume finishes the run 20 iterations later.
#   run_checkpoint_signal_e2e.sh GFN_TRAIN OUTDIR NP [GFN_TRAIN_ARGS...]
set -uo pipefail
train=$1 out=$2 np=$3
shift 3
rm -rf "$out"
mkdir -p "$out"
export OMPI_MCA_mpi_yield_when_idle=1
launch=()
[ "$np" -gt 1 ] && launch=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np")
log="$out/run.log"
"${launch[@]}" "$train" --config configs/hypergrid_2d.yaml --set train.n_trajectories=100000000 \
  --set validation.enabled=false --set output.dir="$out/run" --set output.log_every=50 \
  --set output.progress=off "$@" >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  grep -q "iteration 50/" "$log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: the job ended before the signal"; cat "$log"; exit 1; }
  sleep 0.5
done
kill -USR1 "$pid"
wait "$pid"
rc=$?
fail=0
[ $rc -eq 0 ] || { echo "FAIL: exit code $rc after SIGUSR1"; fail=1; }
grep -q '"stopped_by_signal": true' "$out/run/summary.json" || { echo "FAIL: summary.json does not say stopped_by_signal"; fail=1; }
ckpt=$(ls -d "$out"/run/checkpoints/iteration_* 2>/dev/null | tail -1)
[ -n "$ckpt" ] && [ -f "$ckpt/manifest.json" ] || { echo "FAIL: no checkpoint after SIGUSR1"; cat "$log"; exit 1; }
stopped=$((10#${ckpt##*iteration_}))
# Every rank with state (trainers, buffer managers) has its file in the manifest.
python3 - "$ckpt/manifest.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))
listed = sorted(f["rank"] for f in m["files"])
stateful = [r for r, role in enumerate(m["roles"]) if role in ("trainer", "manager", "coordinator")]
if listed != stateful:
    print("FAIL: the manifest lists files of ranks", listed, "expected", stateful); sys.exit(1)
PY
grep -q "stopping after iteration $stopped" "$log" || { echo "FAIL: checkpoint $stopped is not where it stopped"; fail=1; }
target=$((stopped + 20))
"${launch[@]}" "$train" --resume "$out/run" --set train.n_trajectories=$((target * 128)) \
  >"$out/resume.log" 2>&1 || { echo "FAIL: resume"; cat "$out/resume.log"; exit 1; }
grep -q "\"iterations\": $target," "$out/run/summary.json" || { echo "FAIL: the resumed run did not reach iteration $target"; fail=1; }
grep -q '"stopped_by_signal": false' "$out/run/summary.json" || { echo "FAIL: the resumed run stopped early"; fail=1; }
# A buffer manager resumed from its file: every item counted exactly once over both runs.
for f in "$out"/run/buffer_manager_*.json; do
  [ -e "$f" ] || continue
  grep -q "resumed from" "$out/resume.log" || { echo "FAIL: no rank says it resumed"; fail=1; }
  grep -q '"exit_mismatches": 0' "$f" || { echo "FAIL: $f has exit mismatches"; fail=1; }
done
[ $fail -eq 0 ] && echo "SIGUSR1 checkpoint at iteration $stopped, resumed to $target: OK"
exit $fail
