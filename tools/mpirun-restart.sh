#!/usr/bin/env bash
# Automatic restart for mpirun users (docs/checkpoints.md "Automatic restart"): runs
# tools/mpirun.sh with the given arguments and, when it fails, runs it again, at most
# --max-restarts times with a backoff (doubled after each attempt shorter than 60 s, reset
# after a longer one, at most 60 s), adding `--set launch.restart_count=K --set
# launch.restart_reason=WHY` to the program's arguments, so that gfn-train continues from the
# newest valid checkpoint of its output.dir. The program must be gfn-train (the arguments
# are appended to the command line's end). An interrupted wrapper (SIGINT/SIGTERM) does not
# restart. --mpirun 'CMD WORDS' runs that instead of tools/mpirun.sh (e.g. mpirun on the nodes
# of tools/cluster/cluster.sh: --mpirun 'tools/cluster/cluster.sh mpirun-on 0,1,2').
#   tools/mpirun-restart.sh --max-restarts 3 [--restart-backoff 1] [--mpirun CMD] -- \
#       -np 4 build/bin/gfn-train --config configs/hypergrid_demo.yaml --set checkpoint.every=50
set -uo pipefail
max_restarts=0 backoff=1
here=$(cd "$(dirname "$0")" && pwd)
mpirun_cmd=(bash "$here/mpirun.sh")
while [ $# -gt 0 ]; do
  case "$1" in
    --max-restarts) max_restarts=$2; shift 2 ;;
    --restart-backoff) backoff=$2; shift 2 ;;
    --mpirun) read -ra mpirun_cmd <<<"$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "mpirun-restart: unknown option '$1' (usage: $0 --max-restarts N [--restart-backoff S] [--mpirun CMD] -- MPIRUN_ARGS...)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "mpirun-restart: no mpirun arguments after --" >&2; exit 2; }
[[ "$max_restarts" =~ ^[0-9]+$ ]] || { echo "mpirun-restart: --max-restarts '$max_restarts' is not a non-negative integer" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
interrupted=0
trap 'interrupted=1; [ -n "${child:-}" ] && kill -TERM "$child" 2>/dev/null' INT TERM
reason=""
short_failures=0
for ((attempt = 0; ; attempt++)); do
  started=$(date +%s)
  extra=()
  if [ "$attempt" -gt 0 ]; then
    extra=(--set "launch.restart_count=$attempt" --set "launch.restart_reason=$reason")
  fi
  # stderr is shown and kept: mpirun names the rank that ended the job there.
  "${mpirun_cmd[@]}" "$@" "${extra[@]}" 2> >(tee "$log" >&2) &
  child=$!
  wait "$child"
  rc=$?
  wait "$child" 2>/dev/null  # a signal interrupted the first wait: wait for mpirun's end
  child=""
  if [ "$rc" -eq 0 ] || [ "$interrupted" -eq 1 ]; then exit "$rc"; fi
  if [ "$attempt" -ge "$max_restarts" ]; then
    [ "$attempt" -gt 0 ] && echo "mpirun-restart: giving up after $attempt restart(s)" >&2
    exit "$rc"
  fi
  # Open MPI: "mpirun noticed that process rank 2 with PID 123 on node x exited on signal 9
  # (Killed)." or "Process name: [[...],2]" with its exit code.
  reason=$(grep -o 'process rank [0-9]* with PID [0-9]* on node [^ ]* exited on signal [0-9]* ([^)]*)' "$log" | head -1)
  # Open MPI names a rank killed by a signal "with PID 0": take the pid the rank logged at its
  # start ("[rank R starting] [info] pid P on host H").
  if [[ "$reason" =~ ^process\ rank\ ([0-9]+)\ with\ PID\ 0\  ]]; then
    pid=$(grep -o "\[rank ${BASH_REMATCH[1]} starting\] \[[^]]*\] pid [0-9]*" "$log" | tail -1 | grep -o '[0-9]*$')
    [ -n "$pid" ] && reason=${reason/with PID 0 /with PID $pid }
  fi
  [ -n "$reason" ] || reason=$(grep -o 'gfn-train failed on rank [0-9]*: .*\|rank [0-9]* ([a-z ]*) failed: .*' "$log" | head -1)
  [ -n "$reason" ] || reason="mpirun exited with code $rc"
  [ $(($(date +%s) - started)) -ge 60 ] && short_failures=0
  wait_s=$(awk -v b="$backoff" -v k="$short_failures" 'BEGIN { w = b * 2 ^ k; print (w > 60 ? 60 : w) }')
  short_failures=$((short_failures + 1))
  echo "mpirun-restart: restart $((attempt + 1)) of $max_restarts in $wait_s s after: $reason" >&2
  sleep "$wait_s"
done
