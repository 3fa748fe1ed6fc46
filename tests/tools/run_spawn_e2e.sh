#!/usr/bin/env bash
# End-to-end test of spawn.policy selective (docs/spawn.md "Spawn policies"): runs gfn-train through
# run_e2e.sh (every rank exits 0, check_summary passes), then checks summary.json's `spawn`
# object and modes_timeline.csv:
#  - every decision point replaced exactly one agent (3 trainers, ratio 0.34, no cooldown):
#    replacements = iterations / average_every, and each agent's metric has one entry per
#    decision point;
#  - spawn.mode async: every replacement was applied at or after its decision point, with
#    one donor iteration per donor, none before the decision point;
#  - modes_timeline.csv has its header, and as many `total` rows as summary modes_found.
#   run_spawn_e2e.sh RUN_E2E GFN_TRAIN CHECK_SUMMARY NP OUTDIR ITERS TRAINERS MANAGERS COORDS
#                    AVERAGE_EVERY -- ARGS...
set -euo pipefail
run_e2e=$1 train=$2 check=$3 np=$4 out=$5 iters=$6 trainers=$7 managers=$8 coords=$9
average_every=${10}
shift 10
[ "${1:-}" = "--" ] && shift
bash "$run_e2e" "$train" "$check" "$np" "$out" "$iters" "$trainers" "$managers" "$coords" -- \
  "$@" --set train.average_every="$average_every"
python3 - "$out" "$iters" "$trainers" "$average_every" <<'PY'
import csv, json, sys
out, iters, trainers, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = json.load(open(f"{out}/summary.json"))
sp = s["spawn"]
points = iters // every
assert sp["policy"] == "selective", sp["policy"]
assert len(sp["agents"]) == trainers, sp["agents"]
assert sp["replacements"] == points, f"replacements {sp['replacements']} != {points}"
for a in sp["agents"]:
    assert len(a["metric"]) == points, a
    for r in a["replacements"]:
        assert a["rank"] not in r["donors"], r
        assert abs(sum(r["weights"]) - 1.0) < 1e-9, r
        if sp["mode"] == "async":
            assert r["applied_at"] >= r["iteration"], r
            assert len(r["donor_iterations"]) == len(r["donors"]), r
            assert all(i >= r["iteration"] for i in r["donor_iterations"]), r
        else:
            assert "applied_at" not in r, r
assert sum(a["times_replaced"] for a in sp["agents"]) == points
rows = list(csv.reader(open(f"{out}/modes_timeline.csv")))
assert rows[0] == ["agent", "modes_found", "iteration", "trajectories", "wall_s"], rows[0]
total = [r for r in rows[1:] if r[0] == "total"]
assert len(total) == s["modes_found"], f"{len(total)} total rows, modes_found {s['modes_found']}"
for r in total:
    assert int(r[3]) == int(r[2]) * s["trajectories"] // s["iterations"], r
print(f"spawn e2e ok: {sp['replacements']} replacements, {len(total)} modes in the timeline")
PY
