#!/usr/bin/env bash
# tools/cluster/cluster.sh refuses what it cannot do, clearly and without leaving anything: run
# as an unprivileged user (nobody) it names root; a bad node count and an unknown node are
# named. Exit code 2 each time.
set -uo pipefail
cluster=$1
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect WHAT-IN-STDERR COMMAND...
  local want=$1 rc
  shift
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] && grep -qF "$want" <<<"$err" || fail "'$*': exit $rc, '$err' (want '$want')"
}
expect "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups bash "$cluster" up 2
expect "N must be 1..200" bash "$cluster" --name gfnc-refusal up 0
expect "no node 7" bash "$cluster" --name gfnc-refusal exec 7 true
ip netns list | grep -q "^gfnc-refusal" && fail "namespaces left behind"
echo "PASS: cluster.sh refusals"
