#!/usr/bin/python3
"""Runs the first ```bash block of an example's README.md as a user would, from the repository
root, and checks that it wrote nothing into the source tree.

The block's first line must choose the output directory (`out=...`); it is replaced by
`out=OUT`. `<prefix>` (an installed gfn-runtime) becomes --prefix and `build/bin/` the
--bin directory, when given; /usr/bin comes first on PATH (Debian's python3). Before and after the run, every entry of the repository root
and of the example's folder is listed: an entry the run added fails the check, naming it.
Usage: run_readme.py README OUT [--prefix DIR] [--bin DIR]; exit code 1 on a failure.
"""

import argparse
import os
import subprocess
import sys


def first_bash_block(readme):
    lines = open(readme).read().splitlines()
    start = lines.index("```bash") + 1
    return lines[start:lines.index("```", start)]


def entries(folders):
    return {os.path.join(f, e) for f in folders for e in os.listdir(f)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("readme")
    parser.add_argument("out")
    parser.add_argument("--prefix")
    parser.add_argument("--bin")
    args = parser.parse_args()
    block = first_bash_block(args.readme)
    if not block or not block[0].startswith("out="):
        print(f"run_readme: {args.readme}: the block does not start by choosing out=")
        return 1
    block[0] = f"out={args.out}"
    script = "\n".join(block)
    if args.prefix:
        script = script.replace("<prefix>", args.prefix)
    if args.bin:
        script = script.replace("build/bin/", args.bin.rstrip("/") + "/")
    repo = os.getcwd()
    watched = [repo, os.path.dirname(os.path.abspath(args.readme))]
    before = entries(watched)
    print(script, flush=True)
    # Debian's programs first (python3 = /usr/bin/python3, with python3-torch), as the READMEs
    # assume of a fresh Debian machine.
    env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))
    rc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=repo, env=env).returncode
    added = sorted(entries(watched) - before)
    if rc != 0:
        print(f"run_readme: the README's commands failed (exit {rc})")
    if added:
        print(f"run_readme: the README's commands wrote into the source tree: {added}")
    return 1 if rc != 0 or added else 0


if __name__ == "__main__":
    sys.exit(main())
