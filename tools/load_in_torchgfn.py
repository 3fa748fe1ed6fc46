#!/usr/bin/python3
"""Loads the estimators gfn-train exported into PyTorch modules with torchgfn's names.

The files come from output.export: true or gfn-export, and --check compares the logits with
gfn-runtime's (docs/export.md "load_in_torchgfn.py").

  tools/load_in_torchgfn.py RUN_DIR [--check] [--sample N]

RUN_DIR holds model_state_dict.pt (torchgfn's TBGFlowNet / DBGFlowNet state-dict names),
model.json (architecture) and model_check.pt. With torchgfn installed, the PF / PB / logF
estimators are torchgfn's gfn.utils.modules.MLP; without it, a module with the same
structure and parameter names (trunk = Sequential of Linear/ReLU, last_layer), so
load_state_dict(strict=True) checks every name and shape either way. A continuous run (Box)
names torchgfn's Box estimators in model.json (BoxCartesianPFMLP, BoxCartesianPBMLP: ELU
trunks on 2 s - 1; BoxStateFlowModule: a ReLU MLP whose value at s0 is its logZ_value), a
polar Box run its polar ones (box_polar_utils.py BoxPFMLP with PFs0, BoxPBMLP: ELU trunks on
the states); without torchgfn, modules of the same names and forward (PlainBoxMLP,
PlainBoxPolarMLP, PlainStateFlow).
--check: the PF / PB logits (continuous: raw outputs; and log F) of model_check.pt's states
must match gfn-runtime's within 1e-5 (exit code 1 otherwise). --sample N: PF logits of N initial states, softmax, and the
first action sampled (a smoke test of using the policy). Needs Debian's python3-torch. The
modules and the check are the gfn_runtime package's (python/gfn_runtime/export.py,
docs/python.md).
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from gfn_runtime.export import check, load  # noqa: E402


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog='The files and the checks: docs/export.md "load_in_torchgfn.py".')
    parser.add_argument("run_dir", help="directory with model_state_dict.pt, model.json and "
                        "model_check.pt (a run directory with output.export: true, or gfn-export's --out)")
    parser.add_argument("--check", action="store_true",
                        help="require the PF / PB logits of model_check.pt's states to match "
                        "gfn-runtime's within 1e-5 (exit code 1 otherwise)")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="print the first actions PF samples from N initial states (a smoke "
                        "test of using the policy; default 0: none)")
    args = parser.parse_args()
    estimators, sidecar = load(args.run_dir)
    print(f"loaded {', '.join(k for k in ('pf', 'pb', 'logF') if estimators[k] is not None)}"
          f" and logZ = {float(estimators['logZ']):.4f} for {sidecar['env']['name']}")
    if args.sample and sidecar["env"].get("continuous"):
        print("--sample: not for a continuous environment (its PF outputs parametrise Beta "
              "mixtures)")
    elif args.sample:
        ref = torch.load(os.path.join(args.run_dir, sidecar["check"]))
        x = ref["inputs"][:1].expand(args.sample, -1)
        with torch.no_grad():
            probs = torch.softmax(estimators["pf"](x), dim=-1)
        print("first actions sampled from PF:", torch.multinomial(probs, 1).view(-1).tolist())
    if args.check and not check(args.run_dir, estimators, sidecar):
        print("check FAILED: PyTorch does not compute what gfn-runtime computed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
