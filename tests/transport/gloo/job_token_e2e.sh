#!/usr/bin/env bash
# Who may join (docs/security.md), on this machine, torch backend under gfn-launch:
#  1. job A runs on a fixed MASTER_PORT; job B is started on the same port (gfn-launch gives
#     each job its own random GFN_JOB_TOKEN): B is refused with a clear error (its rank 0
#     cannot bind the port, or its other ranks find A's store with another job token,
#     whichever comes first);
#  2. a stray rank of another job (explicit launch values, rank 1 of 3 at A's port, another
#     token of another length, another token of the same length, or none) is refused by the
#     job token while A runs (checked before and after each: A trains until this script stops
#     it with SIGTERM, so a slow machine cannot end it before the last stray); each stray run
#     has its own time limit ($stray_limit s), so a stray rank that gets in fails this test in
#     seconds, by name; A, stopped, has trained every iteration it logged, undisturbed;
#  3. while A runs, a raw TCP client sends garbage to the store port: A is not disturbed;
#  4. transport.interface: lo works, an interface that does not exist is refused naming it.
#   job_token_e2e.sh GFN_LAUNCH GFN_TRAIN OUT_DIR
set -uo pipefail
launch=$1 train=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAILED: $*"; for f in "$out"/*.log; do echo "--- $f"; tail -8 "$f"; done; exit 1; }
port=$((20000 + RANDOM % 20000))
args=(--config configs/hypergrid_demo.yaml --set transport.backend=torch --set layout.num_buffers=1
      --set layout.coordinator=false --set output.progress=off --set validation.n_samples=2000)
token_a=jobAtoken0123456789
"$launch" -n 3 --master-port $port --job-token $token_a -- "$train" "${args[@]}" \
  --set train.n_iterations=1000000 --set validation.interval=1000000 --set output.log_every=1 \
  --set output.dir="$out/a" >"$out/a.log" 2>&1 &
a=$!
for _ in $(seq 300); do [ -f "$out/a/training.csv" ] && break; sleep 0.1; done
[ -f "$out/a/training.csv" ] || fail "job A did not start"
"$launch" -n 3 --master-port $port -- "$train" "${args[@]}" --set train.n_iterations=10 \
  --set output.dir="$out/b" >"$out/b.log" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "job B joined job A's port"
grep -qE "belongs to another job|Another job on this port\?" "$out/b.log" || fail "job B's error is unclear"
[ -f "$out/b/summary.json" ] && fail "job B wrote a summary"
stray=(--set launch.rank=1 --set launch.world_size=3 --set launch.master_addr=127.0.0.1
       --set launch.master_port=$port --set train.n_iterations=10)
stray_limit=30
# Runs one stray rank under its own time limit: it must exit non-zero, refused by the token.
run_stray() {
  local name=$1 what=$2
  shift 2
  kill -0 $a 2>/dev/null || fail "job A ended before the stray rank with $what"
  timeout -k 5 $stray_limit env "$@" "$train" "${args[@]}" "${stray[@]}" \
    --set output.dir="$out/$name" >"$out/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 124 ] || [ $rc -eq 137 ] &&
    fail "a stray rank with $what got in: still running after ${stray_limit} s"
  [ $rc -ne 0 ] || fail "a stray rank with $what joined"
  grep -q "refused the TCPStore at 127.0.0.1: it belongs to another job" "$out/$name.log" ||
    fail "stray rank $name ($what) not refused by the job token"
  kill -0 $a 2>/dev/null || fail "job A ended while the stray rank with $what ran"
}
run_stray s1 "another token of another length" GFN_JOB_TOKEN=another
run_stray s2 "no token" -u GFN_JOB_TOKEN
same_length=jobBtoken9876543210
[ ${#same_length} -eq ${#token_a} ] && [ "$same_length" != "$token_a" ] ||
  fail "the same-length token is not of the same length as job A's"
run_stray s3 "another token of the same length" GFN_JOB_TOKEN=$same_length
(head -c 65536 /dev/urandom >"/dev/tcp/127.0.0.1/$port") 2>/dev/null
(printf 'GET / HTTP/1.0\r\n\r\n' >"/dev/tcp/127.0.0.1/$port") 2>/dev/null
sleep 1
kill -0 $a 2>/dev/null || fail "job A ended before it was stopped"
kill -TERM $a
wait $a || fail "job A failed"
done_iterations=$(jq -r .iterations "$out/a/summary.json")
[ "$(jq -r .stopped_by_signal "$out/a/summary.json")" = true ] || fail "job A was not stopped by SIGTERM"
[ "$(tail -n +2 "$out/a/training.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq -s ' ' 1 "$done_iterations") " ] ||
  fail "job A's training.csv is not iterations 1..$done_iterations once each"
"$launch" -n 2 -- "$train" "${args[@]}" --set layout.num_buffers=0 --set train.n_iterations=5 \
  --set transport.interface=lo --set output.dir="$out/lo" >"$out/lo.log" 2>&1 ||
  fail "transport.interface=lo"
"$launch" -n 2 -- "$train" "${args[@]}" --set layout.num_buffers=0 --set train.n_iterations=5 \
  --set transport.interface=nosuchif0 --set output.dir="$out/bad" >"$out/bad.log" 2>&1 &&
  fail "a missing interface was accepted"
grep -q "transport.interface 'nosuchif0' cannot be used" "$out/bad.log" || fail "the bad interface is not named"
echo "PASS"
