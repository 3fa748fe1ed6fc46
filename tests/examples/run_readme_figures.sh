#!/usr/bin/env bash
# An example's README.md as a user runs it, then its figures: the first ```bash block run from
# the repository root with out= OUT_DIR (run_readme.py: nothing written into the source tree),
# then every NAME=FIGURE checked against the run in OUT_DIR/run (check_readme_figures.py).
#   run_readme_figures.sh BIN_DIR README OUT_DIR NAME=FIGURE...
set -euo pipefail
bin=$1 readme=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
/usr/bin/python3 "$here/run_readme.py" "$readme" "$out" --bin "$bin"
/usr/bin/python3 "$here/check_readme_figures.py" "$out/run" "$@"
