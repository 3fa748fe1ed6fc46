#!/usr/bin/env bash
# A small cluster on this machine: N nodes, each a network namespace with its own UTS namespace
# (the kernel hostname nodeI), its own address 10.77.0.(I+1)/24 on eth0, and /etc/hosts naming
# every node (ip netns exec binds /etc/netns/<namespace>/hosts). The nodes' links meet on a
# bridge inside a namespace of its own: no interface of the machine is touched, there is no
# default route, no NAT and no forwarding, so no packet leaves the nodes (docs/launchers.md
# "A cluster of network namespaces").
#
#   cluster.sh [--name NAME] up N          create nodes node0..node(N-1) (stale ones of NAME removed first)
#   cluster.sh [--name NAME] down          remove everything NAME made (namespaces, files, mounts)
#   cluster.sh [--name NAME] exec I CMD..  run CMD on node I (its network, hostname and /etc/hosts)
#   cluster.sh [--name NAME] rsh-agent HOST CMD..   Open MPI's plm_rsh_agent: CMD on node HOST
#   cluster.sh [--name NAME] mpirun N ARGS..        up N, then mpirun ARGS from node0 over the
#                                          nodes (hostfile node0..node(N-1), TCP on eth0 between
#                                          nodes, shared memory within one), always down after;
#                                          prints each node's eth0 byte counters at the end
#
# Needs root, iproute2 (ip netns), util-linux (unshare, nsenter); refuses clearly otherwise.
# NAME (default gfnc) prefixes every namespace and file, so two names can coexist; two runs of
# the same name cannot (a test using it runs serially).
set -euo pipefail

name=gfnc
if [ "${1:-}" = "--name" ]; then name=$2; shift 2; fi
run=/run/$name
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "cluster.sh: $*" >&2; exit 2; }

check_can() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network and UTS namespaces); run it as root"
  for tool in ip unshare nsenter mountpoint; do
    command -v "$tool" >/dev/null || die "needs '$tool' (Debian: iproute2, util-linux)"
  done
  ip netns add "$name-probe" 2>/dev/null || die "cannot create a network namespace here" \
    "(ip netns add failed: no CAP_SYS_ADMIN, or the kernel lacks network namespaces)"
  ip netns del "$name-probe"
}

down() {
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-(sw|n[0-9]+)$" || true); do
    ip netns del "$ns"
  done
  if [ -d "$run" ]; then
    for f in "$run"/uts-*; do [ -e "$f" ] && { umount "$f" 2>/dev/null || true; }; done
    mountpoint -q "$run" && umount "$run"
    rm -rf "$run"
  fi
  rm -rf /etc/netns/"$name"-n*
  rmdir /etc/netns 2>/dev/null || true  # only if nothing else uses it
}

node() {  # node I: its bridge port, its address, its hostname (UTS namespace kept in $run)
  local i=$1 ns=$name-n$1
  ip netns add "$ns"
  ip link add "$name-e$i" type veth peer name "$name-s$i"
  ip link set "$name-e$i" netns "$ns"
  ip link set "$name-s$i" netns "$name-sw"
  ip -n "$name-sw" link set "$name-s$i" master br0 up
  ip -n "$ns" link set "$name-e$i" name eth0
  ip -n "$ns" addr add "10.77.0.$((i + 1))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  touch "$run/uts-n$i"
  unshare --uts="$run/uts-n$i" hostname "node$i"
}

up() {
  local n=$1 i j
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "up: N must be 1..200, got '$n'"
  check_can
  down  # a previous run of this name that died
  mkdir -p "$run"
  mount --bind "$run" "$run"
  mount --make-private "$run"
  ip netns add "$name-sw"
  ip -n "$name-sw" link add br0 type bridge
  ip -n "$name-sw" link set br0 up
  for i in $(seq 0 $((n - 1))); do node "$i"; done
  for i in $(seq 0 $((n - 1))); do
    mkdir -p "/etc/netns/$name-n$i"
    { echo "127.0.0.1 localhost"
      for j in $(seq 0 $((n - 1))); do echo "10.77.0.$((j + 1)) node$j"; done
    } >"/etc/netns/$name-n$i/hosts"
  done
  echo "$n" >"$run/nodes"
}

exec_on() {
  local i=$1
  shift
  [ -e "$run/uts-n$i" ] || die "no node $i (cluster.sh --name $name up N first)"
  exec nsenter --uts="$run/uts-n$i" ip netns exec "$name-n$i" "$@"
}

cluster_mpirun() {
  local n=$1 i
  shift
  trap down EXIT INT TERM
  up "$n"
  for i in $(seq 0 $((n - 1))); do echo "node$i slots=64"; done >"$run/hostfile"
  local rc=0
  nsenter --uts="$run/uts-n0" ip netns exec "$name-n0" mpirun --allow-run-as-root \
    --hostfile "$run/hostfile" --mca plm_rsh_agent "$here/cluster.sh --name $name rsh-agent" \
    --mca btl tcp,vader,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 "$@" ||
    rc=$?
  for i in $(seq 0 $((n - 1))); do  # what crossed the bridge, per node
    echo "cluster.sh: node$i eth0 rx_bytes $(ip netns exec "$name-n$i" cat /sys/class/net/eth0/statistics/rx_bytes)" \
      "tx_bytes $(ip netns exec "$name-n$i" cat /sys/class/net/eth0/statistics/tx_bytes)" >&2
  done
  return "$rc"
}

case "${1:-}" in
  up) up "${2:?up N}" ;;
  down) down ;;
  exec) shift; exec_on "${1:?exec I CMD...}" "${@:2}" ;;
  rsh-agent) host=${2:?rsh-agent HOST CMD...}; shift 2; exec_on "${host#node}" /bin/sh -c "$*" ;;
  mpirun) shift; cluster_mpirun "${1:?mpirun N ARGS...}" "${@:2}" ;;
  *) sed -n '2,22p' "$0" >&2; exit 2 ;;
esac
