#!/usr/bin/env bash
# spawn.random_strategies with NoisyNet layers (docs/spawn.md "Spawn policies"): 4 trainers in 2
# agent groups, selective replacement on neg_loss, model.n_noisy_layers = 2. Runs gfn-train
# through run_e2e.sh (every rank exits 0, check_summary passes), then checks summary.json's
# spawn.agents: the two members of each agent group report the same number of noisy layers
# (their parameters combine), within 0..2, and the two groups differ (the seed is chosen so;
# runtime/distributed/spawn/strategy.h draws the count per group), while the temperature
# differs per agent.
#   run_group_noisy_e2e.sh RUN_E2E GFN_TRAIN CHECK_SUMMARY OUTDIR -- ARGS...
set -euo pipefail
run_e2e=$1 train=$2 check=$3 out=$4
shift 4
[ "${1:-}" = "--" ] && shift
bash "$run_e2e" "$train" "$check" 4 "$out" 10 4 0 0 -- "$@"
python3 - "$out" <<'PY'
import json, sys
s = json.load(open(f"{sys.argv[1]}/summary.json"))
agents = {a["rank"]: a["strategy"] for a in s["spawn"]["agents"]}
assert sorted(agents) == [0, 1, 2, 3], agents
n = {r: a["n_noisy_layers"] for r, a in agents.items()}
assert all(0 <= v <= 2 for v in n.values()), n
assert n[0] == n[1] and n[2] == n[3], f"members of a group differ: {n}"
assert n[0] != n[2], f"both groups drew {n[0]}: choose another train.seed for this test"
assert len({a["temperature"] for a in agents.values()}) == 4, agents
print("noisy layers per agent:", n)
PY
