#!/usr/bin/env bash
# Checkpoint and resume with a spawn policy whose decisions depend on timing (README
# "Checkpoint and resume"): spawn.mode async (metrics and parameters travel without a
# barrier) and donor_pull (one-sided reads of the donors' windows), where bit-identical
# parameters cannot be asked for. A run of 20 iterations is stopped after 10 (its checkpoint)
# and resumed for 10 more; then summary.json's `spawn` object must continue the first half's:
# every agent's metrics and replacements of the first half are a prefix of the final ones,
# every decision point of the 20 iterations is there once, and the replacement count is the
# number of replacements. With --same-replacements (donor_pull, replacement_mode age: who
# respawns when, and from which donors, depends only on the iteration and the seeds) the
# replacements' iterations and donors must equal those of the same 20 iterations in one go,
# which fails if the maximum age or the donor draws were not restored.
#   run_checkpoint_spawn_e2e.sh GFN_TRAIN OUTDIR NP AVERAGE_EVERY [--same-replacements]
#                               [GFN_TRAIN_ARGS...]
set -uo pipefail
train=$1 out=$2 np=$3 every=$4
shift 4
same=0
if [ "${1:-}" = "--same-replacements" ]; then
  same=1
  shift
fi
rm -rf "$out"
mkdir -p "$out"
export OMPI_MCA_mpi_yield_when_idle=1
run() { mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" "$train" "$@"; }
common=(--config configs/hypergrid_2d.yaml --set output.log_every=5 --set output.progress=off
        --set validation.interval=10 --set validation.n_samples=2000 --set checkpoint.every=10
        --set train.average_every="$every" "$@")
run "${common[@]}" --set train.n_trajectories=2560 --set output.dir="$out/straight" \
  >"$out/straight.log" 2>&1 || { echo "FAIL: straight run"; cat "$out/straight.log"; exit 1; }
run "${common[@]}" --set train.n_trajectories=1280 --set output.dir="$out/split" \
  >"$out/first_half.log" 2>&1 || { echo "FAIL: first half"; cat "$out/first_half.log"; exit 1; }
cp "$out/split/summary.json" "$out/first_half_summary.json"
run --resume "$out/split" --set train.n_trajectories=2560 >"$out/second_half.log" 2>&1 ||
  { echo "FAIL: resume"; cat "$out/second_half.log"; exit 1; }
grep -q "resumed from" "$out/second_half.log" || { echo "FAIL: the resumed run does not say so"; exit 1; }
python3 - "$out" "$every" "$same" <<'PY'
import json, sys
out, every, same = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
first = json.load(open(out + "/first_half_summary.json"))["spawn"]["agents"]
final = json.load(open(out + "/split/summary.json"))["spawn"]
straight = json.load(open(out + "/straight/summary.json"))["spawn"]
bad = []
points = [every * k for k in range(1, 20 // every + 1)]
for f, a in zip(first, final["agents"]):
    if a["metric"][:len(f["metric"])] != f["metric"]: bad.append(f"rank {a['rank']}: metrics")
    if [m[0] for m in a["metric"]] != points: bad.append(f"rank {a['rank']}: decision points")
    if a["replacements"][:len(f["replacements"])] != f["replacements"]:
        bad.append(f"rank {a['rank']}: replacements of the first half")
    if a["times_replaced"] != len(a["replacements"]): bad.append(f"rank {a['rank']}: count")
if final["replacements"] != sum(a["times_replaced"] for a in final["agents"]):
    bad.append("total replacements")
if sum(f["times_replaced"] for f in first) == 0: bad.append("no replacement in the first half")
if final["replacements"] <= sum(f["times_replaced"] for f in first):
    bad.append("no replacement after the resume")
if same:
    def who(sp): return [[(r["iteration"], r["donors"]) for r in a["replacements"]] for a in sp["agents"]]
    if who(final) != who(straight): bad.append(f"replacements {who(final)} vs straight {who(straight)}")
if bad:
    print("FAIL:", bad); sys.exit(1)
print("spawn state resumed:", final["replacements"], "replacements,",
      sum(f["times_replaced"] for f in first), "before the checkpoint")
PY
