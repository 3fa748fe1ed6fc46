#!/usr/bin/env bash
# examples/reward_model end to end: its README's commands as written (export.py trains the
# proxy with python3-torch and saves it with torch.jit.save, gfn-train trains on it; outputs
# outside the checkout) and the README's figures; gfn-train with config.yaml (shortened), on
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
# The README's commands as written (run_readme.py: out= a directory outside the checkout,
# nothing written into the source tree), then its numbers (below).
/usr/bin/python3 "$repo/tests/examples/run_readme.py" "$repo/examples/reward_model/README.md" \
  "$out/readme" --bin "$(dirname "$train")" >"$out/readme.log" 2>&1 ||
  { echo "FAIL: examples/reward_model/README.md"; tail -40 "$out/readme.log"; exit 1; }
cd "$out"
cp readme/proxy.pt proxy.pt
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
# The README's figures (the full config: 32,000 trajectories in batches of 128): BitSequence's
# 4 modes all found, exact validation over the 65,536 sequences of 16 bits, l1_exact 0.46 and
# Spearman 0.88 (within 0.05).
r = json.load(open("readme/run/summary.json"))
rows = sum(1 for _ in open("readme/run/distribution.csv")) - 1
want = {"iterations": (r["iterations"], 250), "n_modes": (r["n_modes"], 4),
        "modes_found": (r["modes_found"], 4), "sequences": (rows, 2 ** 16)}
bad += [f"README run: {k} {got} != {exp}" for k, (got, exp) in want.items() if got != exp]
if abs(r["l1_exact"] - 0.46) > 0.05 or abs(r["spearman_logp_logr"] - 0.88) > 0.05:
    bad.append(f"README run: l1_exact {r['l1_exact']}, Spearman {r['spearman_logp_logr']}")
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
