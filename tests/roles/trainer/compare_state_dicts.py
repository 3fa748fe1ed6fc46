#!/usr/bin/python3
"""Exit code 0 when two torch.save files hold the same names and equal tensors (exactly),
1 otherwise, printing the first difference.

  compare_state_dicts.py A.pt B.pt
"""

import sys

import torch


def main():
    a, b = (torch.load(p) for p in sys.argv[1:3])
    if set(a) != set(b):
        print(f"different names: only in {sys.argv[1]}: {sorted(set(a) - set(b))}; "
              f"only in {sys.argv[2]}: {sorted(set(b) - set(a))}")
        return 1
    for name in a:
        if a[name].shape != b[name].shape or not torch.equal(a[name].float(), b[name].float()):
            print(f"tensor {name} differs")
            return 1
    print(f"{len(a)} tensors equal: {', '.join(sorted(a))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
