#!/usr/bin/env bash
# Diffusion with remote replay and local search (local_search.mode langevin;
# runtime/gfn/continuous/langevin.h) end to end: runs run_e2e.sh (gfn-train + check_summary),
# then requires from summary.json that every iteration after the first trained on R replayed
# states per trainer (remote_items_trained = T R (ITERS - 1)), that each of them took S MALA
# steps (local_search_proposals = T R (ITERS - 1) S) of which some were accepted, that the
# searched states reached the manager (items_submitted = BATCH ITERS + T R (ITERS - 1): the fresh
# terminating states and the searched ones), and that the target evaluations cover the
# trajectories' log R and MALA's evaluations (target_evaluations >= items_submitted +
# local_search_proposals).
#   run_diffusion_local_search_e2e.sh RUN_E2E BATCH R S GFN_TRAIN CHECK_SUMMARY NP OUTDIR ITERS T M C
#                                     -- ARGS...
set -euo pipefail
run_e2e=$1 batch=$2 r=$3 s=$4
shift 4
bash "$run_e2e" "$@"
out=$4 iters=$5 trainers=$6
/usr/bin/python3 - "$out/summary.json" "$batch" "$r" "$s" "$iters" "$trainers" <<'PY'
import json, sys
path, batch, r, s, iters, t = sys.argv[1], *map(int, sys.argv[2:])
j = json.load(open(path))
keys = ("remote_items_trained", "local_search_proposals", "local_search_accepted",
        "items_submitted", "target_evaluations", "trajectories_sampled")
print(", ".join(f"{k} = {j[k]}" for k in keys))
replayed = t * r * (iters - 1)
assert j["trajectories_sampled"] == batch * iters, "fresh trajectories"
assert j["remote_items_trained"] == replayed, f"remote_items_trained, expected {replayed}"
assert j["local_search_proposals"] == replayed * s, f"proposals, expected {replayed * s}"
assert 0 < j["local_search_accepted"] < j["local_search_proposals"], "acceptance"
assert j["items_submitted"] == batch * iters + replayed, "the searched states are submitted"
assert j["target_evaluations"] >= j["items_submitted"] + j["local_search_proposals"], \
    "target evaluations"
PY
