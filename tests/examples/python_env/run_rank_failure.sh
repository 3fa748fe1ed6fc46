#!/usr/bin/env bash
# A Python exception on one rank of a job (fails_on_rank_1.py, 2 trainers + 1 manager): the job
# must stop with a non-zero exit code, and the rank that raised it must log the class, the
# member and the Python traceback.
#   run_rank_failure.sh GFN_TRAIN OUT   (from the repository root)
set -uo pipefail
train=$1 out=$2
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$out" "$out.log"
mkdir -p "$(dirname "$out")"
timeout 240 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 3 "$train" \
  --config examples/python_env/hypergrid.yaml --set layout.num_buffers=1 \
  --set layout.coordinator=false --set env.python=fails_on_rank_1:FailsOnRank1 \
  --set env.python_path="$here:examples/python_env" --set train.n_trajectories=3200 \
  --set output.dir="$out" >"$out.log" 2>&1
rc=$?
status=0
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
  echo "exit code $rc: the job did not stop on the rank's failure"
  status=1
fi
for expected in \
  "rank 1 (trainer) failed: env.python 'fails_on_rank_1:FailsOnRank1': FailsOnRank1.step raised:" \
  "Traceback (most recent call last):" \
  "fails_on_rank_1.py\", line 10, in step" \
  "RuntimeError: rank 1 refuses to step"; do
  grep -qF "$expected" "$out.log" || { echo "not in the log: $expected"; status=1; }
done
[ "$status" -eq 0 ] && echo "the job stopped (exit code $rc) with rank 1's Python traceback"
[ "$status" -eq 0 ] || cat "$out.log"
exit "$status"
