#!/usr/bin/env bash
# Joining the world is bounded by transport.rendezvous_timeout_s, not transport.timeout_s
# (transport/transport.h TransportOptions::rendezvous_timeout), torch backend, 2 ranks given
# explicit launch values on one MASTER_PORT:
#  1. rank 1 starts alone with transport.timeout_s = 1; rank 0 (which serves the TCPStore)
#     starts 4 s later: both join and finish the run;
#  2. rank 1 alone with transport.rendezvous_timeout_s = 2 fails within seconds, and its error
#     names the key.
#   rendezvous_e2e.sh GFN_TRAIN OUT_DIR
set -uo pipefail
train=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAILED: $*"; for f in "$out"/*.log; do echo "--- $f"; tail -8 "$f"; done; exit 1; }
port=$((20000 + RANDOM % 20000))
args=(--config configs/hypergrid_2d.yaml --set transport.backend=torch --set transport.timeout_s=1
      --set launch.world_size=2 --set launch.master_addr=127.0.0.1 --set launch.master_port=$port
      --set train.n_iterations=5 --set validation.n_samples=2000 --set output.progress=off)
timeout -k 5 120 "$train" "${args[@]}" --set launch.rank=1 --set output.dir="$out/late" \
  >"$out/rank1.log" 2>&1 &
r1=$!
sleep 4
kill -0 $r1 2>/dev/null || fail "rank 1 gave up before rank 0 started (timeout_s bounded the rendezvous)"
timeout -k 5 120 "$train" "${args[@]}" --set launch.rank=0 --set output.dir="$out/late" \
  >"$out/rank0.log" 2>&1
rc0=$?
wait $r1
rc1=$?
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || fail "ranks started 4 s apart: exit codes $rc0 (rank 0), $rc1 (rank 1)"
[ -f "$out/late/summary.json" ] || fail "the run started apart wrote no summary"
start=$(date +%s)
timeout -k 5 60 "$train" "${args[@]}" --set launch.rank=1 --set transport.rendezvous_timeout_s=2 \
  --set output.dir="$out/alone" >"$out/alone.log" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
[ $rc -ne 0 ] || fail "rank 1 alone succeeded"
[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "rank 1 alone still waited after 60 s"
grep -q "transport.rendezvous_timeout_s" "$out/alone.log" || fail "the error does not name transport.rendezvous_timeout_s"
echo "PASS: ranks 4 s apart joined; a rank alone gave up after ${elapsed} s naming the key"
