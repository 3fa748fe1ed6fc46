#!/usr/bin/env bash
# examples/reward_model end to end: export.py trains the proxy with python3-torch and saves it
# with torch.jit.save; gfn-train trains on it with the example's config.yaml (shortened), on
# one rank and on 2 trainers + a buffer manager under mpirun (the manager scores the log R the
# trainers computed with the module). summary.json must have exact metrics (R / Z from the
# proxy) and config.yaml the module's path; a missing module is refused with exit 2.
#   run_example.sh GFN_TRAIN OUTDIR
set -uo pipefail
train=$1 out=$2
repo=$(pwd)
rm -rf "$out"
mkdir -p "$out"
export OMPI_MCA_mpi_yield_when_idle=1
cd "$out"
/usr/bin/python3 "$repo/examples/reward_model/export.py" --out proxy.pt >export.log 2>&1 ||
  { echo "FAIL: export.py"; cat export.log; exit 1; }
short=(--config "$repo/examples/reward_model/config.yaml" --set train.n_trajectories=6400
       --set validation.interval=25 --set output.progress=off)
"$train" "${short[@]}" --set output.dir=one >one.log 2>&1 || { echo "FAIL: one rank"; cat one.log; exit 1; }
mpirun --allow-run-as-root --oversubscribe --bind-to none -np 3 "$train" "${short[@]}" \
  --set layout.num_buffers=1 --set output.dir=three >three.log 2>&1 ||
  { echo "FAIL: 3 ranks"; cat three.log; exit 1; }
"$train" "${short[@]}" --set env.reward_model=missing.pt --set output.dir=missing >missing.log 2>&1
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "env.reward_model '$PWD/missing.pt': no such file" missing.log; then
  echo "FAIL: a missing module: exit $rc"; cat missing.log; exit 1
fi
/usr/bin/python3 - <<'PY' || exit 1
import json, math, sys
bad = []
for run in ("one", "three"):
    s = json.load(open(run + "/summary.json"))
    if not (0 <= s["l1_exact"] < 2 and math.isfinite(s["logz"])):
        bad.append(f"{run}: l1_exact {s['l1_exact']}, logz {s['logz']}")
    if s["iterations"] != 50:
        bad.append(f"{run}: {s['iterations']} iterations")
    if "reward_model: proxy.pt" not in open(run + "/config.yaml").read():
        bad.append(f"{run}: config.yaml lacks env.reward_model")
s = json.load(open("three/summary.json"))
if s["items_submitted"] <= 0:
    bad.append("three: nothing submitted to the manager")
if bad:
    print("FAIL:", bad); sys.exit(1)
print("PASS: reward model example", json.load(open("one/summary.json"))["l1_exact"])
PY
