#!/usr/bin/env bash
# End-to-end test of spawn.policy donor_pull (docs/spawn.md "Spawn policies"): runs gfn-train through
# run_e2e.sh (every rank exits 0, check_summary passes) with replacement_mode age and
# age_range [A, A] where A = AVERAGE_EVERY, so every agent is dying at every decision point;
# then checks summary.json's `spawn` object: every agent respawned at every decision point,
# from min(num_donors, trainers - 1) distinct donors other than itself, with the donors'
# iterations recorded (none in the future).
#   run_donor_pull_e2e.sh RUN_E2E GFN_TRAIN CHECK_SUMMARY NP OUTDIR ITERS TRAINERS MANAGERS
#                         COORDS AVERAGE_EVERY -- ARGS...
set -euo pipefail
run_e2e=$1 train=$2 check=$3 np=$4 out=$5 iters=$6 trainers=$7 managers=$8 coords=$9
every=${10}
shift 10
[ "${1:-}" = "--" ] && shift
bash "$run_e2e" "$train" "$check" "$np" "$out" "$iters" "$trainers" "$managers" "$coords" -- \
  "$@" --set train.average_every="$every" --set spawn.policy=donor_pull \
  --set spawn.replacement_mode=age --set "spawn.age_range=[$every,$every]"
python3 - "$out" "$iters" "$trainers" "$every" <<'PY'
import json, sys
out, iters, trainers, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sp = json.load(open(f"{out}/summary.json"))["spawn"]
points = iters // every
assert sp["policy"] == "donor_pull", sp["policy"]
assert len(sp["agents"]) == trainers, sp["agents"]
assert sp["replacements"] == trainers * points, f"{sp['replacements']} != {trainers * points}"
k = min(2, trainers - 1)
for a in sp["agents"]:
    assert a["times_replaced"] == points, a
    for r in a["replacements"]:
        assert len(r["donors"]) == k and len(set(r["donors"])) == k, r
        assert a["rank"] not in r["donors"], r
        assert r["applied_at"] == r["iteration"], r
        assert len(r["donor_iterations"]) == k, r
        assert all(0 <= i <= iters for i in r["donor_iterations"]), r
print(f"donor_pull e2e ok: {sp['replacements']} respawns")
PY
