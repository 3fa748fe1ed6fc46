#!/usr/bin/env bash
# examples/continuous_env/ring_box.yaml with gfn-train, shortened to 5 iterations of batch 16
# (world of one), its plugin given on the command line: the run ends with summary.json
# (5 iterations, 80 trajectories, the continuous engine, a finite logZ) and model.pt; a
# refused option (the local replay buffer) is named before any training.
#   run_ring_box_e2e.sh GFN_TRAIN RING_BOX_PLUGIN OUT_DIR
set -euo pipefail
train=$1 plugin=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
args=(--config examples/continuous_env/ring_box.yaml --set env.plugin="$plugin"
      --set train.n_iterations=5 --set train.batch_size=16 --set model.hidden_dim=32
      --set validation.interval=5 --set output.log_every=5)
"$train" "${args[@]}" --set output.dir="$out/run" >"$out/run.log" 2>&1 || { cat "$out/run.log"; exit 1; }
[ -s "$out/run/model.pt" ] || { echo "no model.pt"; exit 1; }
/usr/bin/python3 - "$out/run/summary.json" <<'PY'
import json, math, sys
s = json.load(open(sys.argv[1]))
problems = [what for what, ok in (
    ("iterations == 5", s["iterations"] == 5),
    ("trajectories == 80", s["trajectories"] == 80),
    ("engine.evaluator continuous", s["engine"]["evaluator"] == "continuous"),
    ("finite logz", isinstance(s["logz"], float) and math.isfinite(s["logz"])),
    ("n_modes == 0", s["n_modes"] == 0)) if not ok]
print("summary:", "ok" if not problems else "FAILED: " + ", ".join(problems))
sys.exit(1 if problems else 0)
PY
if "$train" "${args[@]}" --set replay.kind=prioritized --set output.dir="$out/refused" \
  >"$out/refused.log" 2>&1; then
  echo "a local replay buffer was accepted with a continuous plugin"; exit 1
fi
grep -q "replay.kind.*continuous environments (env.name ring_box) do not support it" \
  "$out/refused.log" || { cat "$out/refused.log"; exit 1; }
echo "ring_box e2e: ok"
