#!/usr/bin/env python3
"""Checks a run's layout table on the namespace nodes of tools/cluster.

  check_layout.py LOG RANKS NODES

LOG is gfn-train's output; its layout table (" rank  host  role  manager  agent_group
trainers", torchrun's "[default<local rank>]:" prefixes removed) must list RANKS ranks on the
kernel hostnames node0..node(NODES-1), every node used, and every trainer's manager on the
trainer's own node (layout.placement: hostname). Exit 1 naming what is wrong."""
import re
import sys


def table_rows(log):
    rows, inside = [], False
    for line in open(log, errors="replace"):
        line = re.sub(r"^\[default[0-9]+\]:", "", line.rstrip("\n"))
        if re.match(r"^ rank +host +role", line):
            inside, rows = True, []
            continue
        if inside and not line.strip():
            inside = False
        elif inside:
            rows.append(line.split())
    return rows


def main():
    log, ranks, nodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = table_rows(log)
    host = {int(r[0]): r[1] for r in rows}
    bad = []
    expected = {f"node{i}" for i in range(nodes)}
    if set(host.values()) != expected or len(rows) != ranks:
        bad.append(f"hosts {sorted(set(host.values()))} over {len(rows)} ranks")
    for r in rows:
        if r[2] == "trainer" and host.get(int(r[3])) != r[1]:
            bad.append(f"trainer {r[0]} on {r[1]} has manager {r[3]} on {host.get(int(r[3]))}")
    if bad:
        print("FAIL: layout", bad, rows)
        sys.exit(1)
    print("layout: every trainer's manager on its own node", rows)


if __name__ == "__main__":
    main()
