#!/usr/bin/python3
"""Writes a state dict as Python users of torchgfn would (model.init_from's input, README
"Export to PyTorch and torchgfn"): a module with pf / pb / logF estimators (torchgfn's MLP,
or the same structure without torchgfn: gfn_runtime.export.make_mlp, python/gfn_runtime; one shared
trunk when the model is tied) and a logZ parameter, freshly initialised with a seed, saved with torch.save(dict(model.state_dict()))
(a plain dict: LibTorch cannot read the OrderedDict state_dict() returns; --ordered writes
that one too, to check it is refused with a clear message).

  write_torchgfn_state_dict.py MODEL_JSON OUT.pt [--seed N] [--ordered ORDERED.pt]

MODEL_JSON: the model.json of a gfn-runtime export of the same configuration (architecture).
"""

import argparse
import json
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "python"))
from gfn_runtime.export import make_mlp  # noqa: E402


class Wrapped(nn.Module):
    """torchgfn's estimators keep their network in `.module` (pf.module.trunk.0.weight)."""

    def __init__(self, module):
        super().__init__()
        self.module = module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_json")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--ordered", help="also save the OrderedDict itself there")
    args = parser.parse_args()
    with open(args.model_json) as f:
        sidecar = json.load(f)
    torch.manual_seed(args.seed)
    gflownet = nn.Module()
    for name in ("pf", "pb", "logF"):
        if sidecar.get(name) is not None:
            setattr(gflownet, name, Wrapped(make_mlp(sidecar[name])))
    if sidecar.get("tied"):  # one trunk shared by every estimator, as torchgfn ties them
        for name in ("pb", "logF"):
            if hasattr(gflownet, name):
                getattr(gflownet, name).module.trunk = gflownet.pf.module.trunk
    gflownet.logZ = nn.Parameter(torch.tensor(1.25))
    state = gflownet.state_dict()
    torch.save(dict(state), args.out)  # LibTorch's torch::pickle_load reads no OrderedDict
    print(f"wrote {len(state)} tensors to {args.out}: {', '.join(state)}")
    if args.ordered:
        torch.save(state, args.ordered)
    return 0


if __name__ == "__main__":
    sys.exit(main())
