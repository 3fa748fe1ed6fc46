#!/usr/bin/env bash
# Tests of tools/gfn-launch. Usage: launch_test.sh <gfn-launch binary> <case>
# Cases: success, environment, prefix, first_failure, killed, signal, usage, restart,
# restart_backoff_reset, restart_exhausted, hosts.
set -uo pipefail
launcher=$1
case_name=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($case_name): $*"; echo "--- stdout"; cat "$work/out" 2>/dev/null; echo "--- stderr"; cat "$work/err" 2>/dev/null; exit 1; }
expect_line() {  # file, exact line
  grep -qxF -- "$2" "$1" || fail "missing line '$2' in $(basename "$1")"
}

case "$case_name" in
success)
  # N children that all exit 0: the launcher exits 0 and every rank ran once.
  "$launcher" -n 4 -- bash -c 'echo "ran $RANK"' >"$work/out" 2>"$work/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit code $rc, want 0"
  for r in 0 1 2 3; do expect_line "$work/out" "[rank $r] ran $r"; done
  [ "$(grep -c ' ran ' "$work/out")" -eq 4 ] || fail "want exactly 4 'ran' lines"
  ;;
environment)
  # Each child sees the torchrun variables; a given --master-port is passed through.
  "$launcher" -n 3 --master-port 29733 -- \
    bash -c 'echo "env $RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE $MASTER_ADDR $MASTER_PORT"' \
    >"$work/out" 2>"$work/err" || fail "exit code $?"
  for r in 0 1 2; do expect_line "$work/out" "[rank $r] env $r $r 3 3 127.0.0.1 29733"; done
  # Without --master-port: one free port, the same for every rank.
  "$launcher" -n 2 -- bash -c 'echo "port $MASTER_PORT"' >"$work/out" 2>"$work/err" ||
    fail "exit code $?"
  ports=$(sed -n 's/^\[rank [01]\] port \([0-9]*\)$/\1/p' "$work/out" | sort -u)
  [ "$(echo "$ports" | wc -l)" -eq 1 ] || fail "ranks saw different ports: $ports"
  [ "$ports" -ge 1 ] && [ "$ports" -le 65535 ] || fail "bad port '$ports'"
  ;;
prefix)
  # stdout lines go to stdout and stderr lines to stderr, each with its rank prefix;
  # a last line without a newline is still forwarded whole.
  "$launcher" -n 2 -- bash -c 'echo "out a $RANK"; echo "err b $RANK" >&2; printf "tail $RANK"' \
    >"$work/out" 2>"$work/err" || fail "exit code $?"
  for r in 0 1; do
    expect_line "$work/out" "[rank $r] out a $r"
    expect_line "$work/out" "[rank $r] tail $r"
    expect_line "$work/err" "[rank $r] err b $r"
  done
  grep -q 'err b' "$work/out" && fail "stderr line on stdout"
  grep -vq '^\[rank [01]\] ' "$work/out" && fail "unprefixed stdout line"
  ;;
first_failure)
  # Rank 1 exits 3: the launcher exits 3 and the others (sleeping 60 s, in a
  # grandchild too) are killed quickly.
  start=$(date +%s)
  "$launcher" -n 3 --kill-grace 2 -- bash -c \
    'echo $$ > '"$work"'/pid.$RANK; if [ "$RANK" = 1 ]; then sleep 0.5; exit 3; fi; sleep 60; echo survived' \
    >"$work/out" 2>"$work/err"
  rc=$?
  elapsed=$(($(date +%s) - start))
  [ $rc -eq 3 ] || fail "exit code $rc, want 3"
  [ $elapsed -lt 20 ] || fail "took ${elapsed}s: the other ranks were not killed"
  grep -q survived "$work/out" && fail "a rank survived"
  grep -q "rank 1 (pid [0-9]*) failed with exit code 3; stopping" "$work/err" ||
    fail "no failure message"
  grep -q "killed by signal" "$work/err" && fail "an exit code named as a signal"
  for r in 0 2; do
    pid=$(cat "$work/pid.$r")
    kill -0 "$pid" 2>/dev/null && fail "rank $r (pid $pid) still running"
  done
  ;;
killed)
  # Rank 1 is killed by SIGKILL (kill -9): the launcher exits 128 + 9, names the rank, its
  # pid and the signal, and ends the others within the grace period.
  start=$(date +%s)
  "$launcher" -n 3 --kill-grace 2 -- bash -c \
    'if [ "$RANK" = 1 ]; then echo $$ > '"$work"'/pid.1; sleep 0.5; kill -9 $$; fi; sleep 60' \
    >"$work/out" 2>"$work/err"
  rc=$?
  elapsed=$(($(date +%s) - start))
  [ $rc -eq 137 ] || fail "exit code $rc, want 137"
  [ $elapsed -lt 20 ] || fail "took ${elapsed}s: the other ranks were not killed"
  expect_line "$work/err" "gfn-launch: rank 1 (pid $(cat "$work/pid.1")) failed with exit code 137 (killed by signal 9: SIGKILL); stopping the other ranks"
  ;;
signal)
  # SIGTERM to the launcher reaches every child; the launcher exits with the
  # first child's code (7).
  "$launcher" -n 2 -- bash -c 'trap "echo got TERM; exit 7" TERM; echo ready; sleep 60 & wait' \
    >"$work/out" 2>"$work/err" &
  lp=$!
  for _ in $(seq 100); do
    [ "$(grep -c ready "$work/out" 2>/dev/null)" -eq 2 ] && break
    sleep 0.1
  done
  kill -TERM $lp
  wait $lp
  rc=$?
  [ $rc -eq 7 ] || fail "exit code $rc, want 7"
  for r in 0 1; do expect_line "$work/out" "[rank $r] got TERM"; done
  ;;
restart)
  # --max-restarts: rank 1 fails in attempts 0 and 1 (killed, then exit 5); the whole world
  # is started again each time with TORCHELASTIC_RESTART_COUNT and, from attempt 1 on,
  # GFN_RESTART_REASON naming what ended the previous attempt; attempt 2 succeeds.
  "$launcher" -n 2 --kill-grace 1 --max-restarts 3 --restart-backoff 0.1 -- bash -c '
    echo "attempt $RANK $TORCHELASTIC_RESTART_COUNT $TORCHELASTIC_MAX_RESTARTS port=$MASTER_PORT"
    echo "reason $RANK $TORCHELASTIC_RESTART_COUNT ${GFN_RESTART_REASON:-none}"
    if [ "$RANK" = 1 ] && [ "$TORCHELASTIC_RESTART_COUNT" = 0 ]; then sleep 0.3; kill -9 $$; fi
    if [ "$RANK" = 1 ] && [ "$TORCHELASTIC_RESTART_COUNT" = 1 ]; then sleep 0.3; exit 5; fi
    if [ "$TORCHELASTIC_RESTART_COUNT" != 2 ]; then sleep 30; fi' >"$work/out" 2>"$work/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit code $rc, want 0"
  for a in 0 1 2; do
    for r in 0 1; do grep -q "^\[rank $r\] attempt $r $a 3 " "$work/out" || fail "rank $r did not run attempt $a"; done
  done
  [ "$(grep -c ' attempt ' "$work/out")" -eq 6 ] || fail "want exactly 6 starts"
  expect_line "$work/out" "[rank 0] reason 0 0 none"
  grep -q "^\[rank 0\] reason 0 1 rank 1 (pid [0-9]*) failed with exit code 137 (killed by signal 9: SIGKILL)$" "$work/out" ||
    fail "attempt 1 was not told what ended attempt 0"
  grep -q "^\[rank 1\] reason 1 2 rank 1 (pid [0-9]*) failed with exit code 5$" "$work/out" ||
    fail "attempt 2 was not told what ended attempt 1"
  grep -q "gfn-launch: restart 1 of 3 in 0.1 s after: rank 1" "$work/err" || fail "no restart message"
  grep -q "gfn-launch: restart 2 of 3 in 0.2 s after: rank 1" "$work/err" || fail "no backoff doubling"
  for a in 0 1 2; do  # one free port per attempt, the same for both ranks
    [ "$(sed -n "s/.* attempt [01] $a 3 port=\([0-9]*\)$/\1/p" "$work/out" | sort -u | wc -l)" -eq 1 ] ||
      fail "the ranks of attempt $a saw different ports"
  done
  ;;
restart_backoff_reset)
  # Attempts 0 and 2 run 1.5 s (longer than --restart-reset 1), attempt 1 fails at once: the
  # waits are 0.1 (first), 0.2 (after a short attempt: doubled), 0.1 (after a long one: reset).
  "$launcher" -n 1 --max-restarts 3 --restart-backoff 0.1 --restart-reset 1 -- bash -c '
    case $TORCHELASTIC_RESTART_COUNT in 0|2) sleep 1.5; exit 3 ;; 1) exit 3 ;; esac' \
    >"$work/out" 2>"$work/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit code $rc, want 0"
  waits=$(sed -n 's/^gfn-launch: restart [0-9] of 3 in \([0-9.]*\) s after.*/\1/p' "$work/err" | tr '\n' ' ')
  [ "$waits" = "0.1 0.2 0.1 " ] || fail "waits '$waits', want '0.1 0.2 0.1 '"
  ;;
restart_exhausted)
  # Every attempt fails: after --max-restarts 1 the launcher gives up with the last code.
  "$launcher" -n 2 --max-restarts 1 --restart-backoff 0 -- bash -c \
    'echo "attempt $TORCHELASTIC_RESTART_COUNT"; [ "$RANK" = 0 ] && sleep 0.3 && exit 4; sleep 30' \
    >"$work/out" 2>"$work/err"
  rc=$?
  [ $rc -eq 4 ] || fail "exit code $rc, want 4"
  [ "$(grep -c 'attempt 1' "$work/out")" -eq 2 ] || fail "attempt 1 not run by both ranks"
  grep -q "attempt 2" "$work/out" && fail "ran a third attempt"
  grep -q "gfn-launch: giving up after 1 restart(s)" "$work/err" || fail "no give-up message"
  ;;
hosts)
  # --hosts a:2,b:1: ranks in host order, local values per host, GROUP_* and GFN_HOSTNAME.
  "$launcher" --hosts a:2,b:1 -- bash -c \
    'echo "host $RANK $LOCAL_RANK $LOCAL_WORLD_SIZE $WORLD_SIZE $GROUP_RANK $GROUP_WORLD_SIZE $GFN_HOSTNAME"' \
    >"$work/out" 2>"$work/err" || fail "exit code $?"
  expect_line "$work/out" "[rank 0] host 0 0 2 3 0 2 a"
  expect_line "$work/out" "[rank 1] host 1 1 2 3 0 2 a"
  expect_line "$work/out" "[rank 2] host 2 0 1 3 1 2 b"
  "$launcher" -n 4 --hosts a:2,b:1 -- true >"$work/out" 2>"$work/err" && fail "-n 4 with 3 host ranks accepted"
  grep -q "differs from the 3 ranks of --hosts" "$work/err" || fail "no -n mismatch message"
  for bad in a:0 a a:x a:1,a:1 :2; do
    "$launcher" --hosts "$bad" -- true >"$work/out" 2>"$work/err" && fail "--hosts $bad accepted"
  done
  grep -q "names host 'a' twice" "$work/err" || true
  ;;
usage)
  "$launcher" -n 0 -- true >"$work/out" 2>"$work/err" && fail "-n 0 accepted"
  "$launcher" -n 2 >"$work/out" 2>"$work/err" && fail "missing command accepted"
  "$launcher" -n 2 -- /nonexistent/program >"$work/out" 2>"$work/err"
  rc=$?
  [ $rc -eq 127 ] || fail "missing program: exit code $rc, want 127"
  grep -q "/nonexistent/program" "$work/err" || fail "missing program not named"
  ;;
*)
  echo "unknown case $case_name"
  exit 2
  ;;
esac
echo "PASS ($case_name)"
