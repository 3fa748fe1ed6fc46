#!/usr/bin/env bash
# The README's first command: set up (install, build gfn-train and what it needs, not the
# tests or the benchmarks) and run the demo training job: HyperGrid 2D on 4 ranks
# (2 trainers, 1 buffer manager, 1 coordinator).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/tools/setup.sh" --target gfn-train
cd "$repo"
bash tools/mpirun.sh -np 4 build/bin/gfn-train --config configs/hypergrid_demo.yaml "$@"
