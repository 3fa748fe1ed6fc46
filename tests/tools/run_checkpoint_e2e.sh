#!/usr/bin/env bash
# Checkpoint and resume, end to end (docs/checkpoints.md "Checkpoint and resume"): a short HyperGrid 2-D
# run of 20 iterations in one go, and the same run stopped after 10 (its checkpoint) and
# resumed for 10 more, must end with bit-identical trainer state (compare_checkpoints:
# parameters, optimizer, generators, counters) and the same summary metrics and
# metrics.csv rows (elapsed time aside). Then the refusals: a --set of a non-resumable key,
# a corrupted rank file (naming the older checkpoint to resume from), another world size;
# each exits 2 naming the key / file / layout. Resumed once more from its last checkpoint, the
# split run (a copy of its run directory) reports the same summary in the copy (the final
# validation's metrics are in the checkpoint) and leaves the original alone.
# NP > 1: NP ranks under mpirun (trainers averaging every iteration); extra arguments go to
# every gfn-train run (e.g. --set transport.backend=torch). With a buffer manager
# (--set layout.num_buffers=1, sync submission) the manager's rank file is in the manifest,
# the trainers' files are compared as above and the managers' counts in
# buffer_manager_<rank>.json (submissions, items received, buffer size, modes, ...) and the
# summary's submission totals must be the same; with a coordinator (layout.coordinator=true)
# its file is in the manifest too and its final mode count is the straight run's.
# A continuous run's samples/validation_*.npy must be the straight run's byte for byte, and the
# resume removes a sample file planted after the checkpoint.
# GFN_CHECKPOINT_CONFIG (optional) replaces the config (e.g. the continuous
# configs/bench/torchgfn/tb_box_2d.yaml; 20 iterations need its batch size of 128).
#   run_checkpoint_e2e.sh GFN_TRAIN COMPARE OUTDIR NP [GFN_TRAIN_ARGS...]
set -uo pipefail
train=$1 compare=$2 out=$3 np=$4
shift 4
rm -rf "$out"
mkdir -p "$out"
export OMPI_MCA_mpi_yield_when_idle=1
run() {  # run NP ARGS...: gfn-train on NP ranks
  local n=$1
  shift
  if [ "$n" -gt 1 ]; then
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" "$train" "$@"
  else
    "$train" "$@"
  fi
}
config=${GFN_CHECKPOINT_CONFIG:-configs/hypergrid_2d.yaml}
common=(--set validation.interval=5 --set validation.n_samples=5000 --set output.log_every=5
        --set output.progress=off --set checkpoint.every=10 "$@")
fail=0
run "$np" --config "$config" "${common[@]}" --set train.n_trajectories=2560 \
  --set output.dir="$out/straight" >"$out/straight.log" 2>&1 || { echo "FAIL: straight run"; cat "$out/straight.log"; exit 1; }
run "$np" --config "$config" "${common[@]}" --set train.n_trajectories=1280 \
  --set output.dir="$out/split" >"$out/first_half.log" 2>&1 || { echo "FAIL: first half"; cat "$out/first_half.log"; exit 1; }
[ -f "$out/split/checkpoints/iteration_00000010/manifest.json" ] || { echo "FAIL: no checkpoint after the first half"; exit 1; }
# A sample file after the checkpoint (a previous attempt's) is removed by the resume.
mkdir -p "$out/split/samples" && : >"$out/split/samples/validation_00000099.npy"
run "$np" --resume "$out/split" --set train.n_trajectories=2560 >"$out/second_half.log" 2>&1 || { echo "FAIL: resume"; cat "$out/second_half.log"; exit 1; }
grep -q "resumed from" "$out/second_half.log" || { echo "FAIL: the resumed run does not say so"; fail=1; }
[ ! -e "$out/split/samples/validation_00000099.npy" ] || { echo "FAIL: the resume kept a sample file after its checkpoint"; fail=1; }
# Continuous environments with exact samples: each validation's samples/*.npy (learned and
# exact samples) are the straight run's, byte for byte.
if [ -d "$out/straight/samples" ]; then
  straight_files=$(cd "$out/straight/samples" && ls) split_files=$(cd "$out/split/samples" && ls)
  [ -n "$straight_files" ] && [ "$straight_files" = "$split_files" ] ||
    { echo "FAIL: sample files differ: [$straight_files] vs [$split_files]"; fail=1; }
  for f in $straight_files; do
    cmp -s "$out/straight/samples/$f" "$out/split/samples/$f" || { echo "FAIL: samples/$f differs"; fail=1; }
  done
fi

# Every rank with state has its file in the manifest; the trainers' files are compared.
roles=$(python3 - "$out/split/checkpoints/iteration_00000020/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
listed = {f["rank"] for f in m["files"]}
stateful = {r for r, role in enumerate(m["roles"]) if role in ("trainer", "manager", "coordinator")}
if listed != stateful:
    print("FAIL: the manifest lists files of ranks", sorted(listed), "expected", sorted(stateful),
          file=sys.stderr)
print(" ".join(m["roles"]))
PY
)
[ -n "$roles" ] || { echo "FAIL: no roles in the manifest"; fail=1; }
r=0
for role in $roles; do
  if [ "$role" = trainer ]; then
    "$compare" "$out/straight/checkpoints/iteration_00000020/rank_$r.pt" \
      "$out/split/checkpoints/iteration_00000020/rank_$r.pt" || { echo "FAIL: rank $r state differs"; fail=1; }
  fi
  r=$((r + 1))
done
# The comparison can fail: two checkpoints of one run differ.
"$compare" "$out/straight/checkpoints/iteration_00000010/rank_0.pt" \
  "$out/straight/checkpoints/iteration_00000020/rank_0.pt" >/dev/null
[ $? -eq 1 ] || { echo "FAIL: compare_checkpoints does not see iterations 10 and 20 differ"; fail=1; }
compare_runs() {  # compare_runs DIR_A DIR_B: the summaries, CSVs and managers' counts agree
python3 - "$1" "$2" <<'PY'
import csv, json, sys
a, b = (json.load(open(d + "/summary.json")) for d in sys.argv[1:3])
keys = ["l1_exact", "l1_sampled", "l1_visited", "jsd", "logz_error", "logz", "modes_found",
        "iterations", "trajectories"]
bad = [k for k in keys if a.get(k) != b.get(k)]
if a["iterations"] != 20: bad.append("iterations != 20")
def rows(d, name):  # without the elapsed_s column
    with open(d + "/" + name) as f:
        return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in csv.DictReader(f)]
for name in ["metrics.csv", "training.csv"]:
    ra, rb = rows(sys.argv[1], name), rows(sys.argv[2], name)
    if ra != rb or not ra: bad.append(name)
for k in ["submissions", "items_submitted", "items_filtered"]:  # all trainers' submitters
    if a.get(k) != b.get(k): bad.append(k)
# A spawn policy (selective sync): the same decisions, replacements and strategies.
if a.get("spawn") != b.get("spawn"): bad.append("spawn")
if "spawn" in a: print("spawn report identical:", a["spawn"]["replacements"], "replacements")
# Remote sampling: the same replayed items trained on.
for k in ["remote_items_trained", "remote_trajectories_trained"]:
    if a.get(k) != b.get(k): bad.append(k)
# Buffer managers: the same counts at the end (the resumed manager started from its file).
import glob, os
for fa in sorted(glob.glob(sys.argv[1] + "/buffer_manager_*.json")):
    fb = sys.argv[2] + "/" + os.path.basename(fa)
    if not os.path.exists(fb):
        bad.append(os.path.basename(fa)); continue
    ma, mb = json.load(open(fa)), json.load(open(fb))
    for k in ["submissions", "items_received", "buffer_size", "modes_found",
              "trajectories_received", "rejected_messages", "exit_mismatches"]:
        if ma.get(k) != mb.get(k): bad.append(os.path.basename(fa) + ":" + k)
    if ma["exit_mismatches"] != 0 or ma["submissions"] == 0:
        bad.append(os.path.basename(fa) + ": exit mismatches or no submissions")
    print(os.path.basename(fa), "identical counts:", {k: ma[k] for k in
          ["submissions", "items_received", "buffer_size", "modes_found"]})
if bad:
    print("FAIL: the resumed run differs in", bad); sys.exit(1)
print("summary and CSVs identical: l1_exact", a["l1_exact"], "logz", a["logz"])
PY
}
compare_runs "$out/straight" "$out/split" || fail=1

# A coordinator resumed from its file reports the modes of both halves, as the straight run
# (the number of MODE_REPORTs may differ: with several trainers, which DATA first brings a
# mode depends on arrival order).
if grep -q "coordinator done" "$out/straight.log"; then
  a=$(grep -o "[0-9]* modes found over" "$out/straight.log")
  b=$(grep -o "[0-9]* modes found over" "$out/second_half.log")
  [ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: coordinator: '$a' vs resumed '$b'"; fail=1; }
fi

# Refusals, before any training (exit code 2), naming what differs.
expect_refusal() {  # expect_refusal WHAT PATTERN NP ARGS...
  local what=$1 pattern=$2 n=$3
  shift 3
  run "$n" "$@" >"$out/refusal.log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] || ! grep -q -- "$pattern" "$out/refusal.log"; then
    echo "FAIL: $what: exit $rc, expected a message with '$pattern'"; cat "$out/refusal.log"; fail=1
  fi
}
expect_refusal "non-resumable --set" "train.lr" "$np" --resume "$out/split" --set train.lr=0.5
cp -r "$out/split" "$out/corrupt"
printf 'X' | dd of="$out/corrupt/checkpoints/iteration_00000020/rank_0.pt" bs=1 seek=100 \
  conv=notrunc status=none
expect_refusal "corrupted file" "iteration_00000020/rank_0.pt" "$np" --resume "$out/corrupt" \
  --set train.n_trajectories=3840
# ... naming the older checkpoint that verifies and the --resume that uses it (absolute).
grep -qF -- "--resume $(cd "$out" && pwd)/corrupt/checkpoints/iteration_00000010" \
  "$out/refusal.log" || { echo "FAIL: the refusal names no older checkpoint"; cat "$out/refusal.log"; fail=1; }
expect_refusal "a checkpoint beyond the run's end" "larger train.n_trajectories" "$np" \
  --resume "$out/split" --set train.n_trajectories=640
expect_refusal "another world size" "world of $np" $((np + 1)) --resume "$out/split" \
  --set train.n_trajectories=3840
# A job killed after its last checkpoint, before its summary: resumed from that checkpoint, it
# trains nothing and reports the final validation's metrics (they are in the checkpoint). The
# run directory is a copy: the resumed run writes into the copy, and the original is untouched.
cp -r "$out/split" "$out/final_again"
rm "$out/final_again/summary.json"
before=$(md5sum "$out/split/summary.json")
run "$np" --resume "$out/final_again" >"$out/final_again.log" 2>&1 || { echo "FAIL: resume from the last checkpoint"; cat "$out/final_again.log"; fail=1; }
compare_runs "$out/straight" "$out/final_again" || { echo "FAIL: resumed from the last checkpoint"; fail=1; }
[ "$(md5sum "$out/split/summary.json")" = "$before" ] || { echo "FAIL: resuming a copy rewrote the original run directory"; fail=1; }
[ $fail -eq 0 ] && echo "checkpoint / resume OK ($np rank(s))"
exit $fail
