#!/usr/bin/python3
"""Checks a Box run's export (roles/trainer/model_export.h) against torchgfn's Box estimators
without torchgfn, with Debian's python3-torch:
  * model_state_dict.pt holds exactly the parameter names and shapes of torchgfn's
    TBGFlowNet / DBGFlowNet over BoxCartesianPFEstimator(BoxCartesianPFMLP),
    BoxCartesianPBEstimator(BoxCartesianPBMLP) (none with a uniform PB; PF's trunk listed
    again under pb when tied) and, for db / subtb, ScalarEstimator(BoxStateFlowModule),
    derived here from the architecture (gfn.utils.modules.MLP: trunk Linear layers at
    Sequential indices 0, 2, ..., last_layer), not read from model.json's key list;
  * a tiny re-implementation of their forward (torch.nn.functional: ELU MLP on 2 s - 1 for PF
    and PB, ReLU MLP with logZ_value at s0 for log F) on model_check.pt's states matches the
    outputs gfn-runtime computed within 1e-5.
A polar Box run (N_COMPONENTS_S0 given): torchgfn's polar BoxPFMLP (last layer 1 + 3 K, and
PFs0 [1, 5 K0]) and BoxPBMLP (3 K), ELU MLPs on the states themselves, PF's raw outputs being
its last layer's and then PFs0 on every row.
Usage: check_box_export.py RUN_DIR HIDDEN_DIM N_HIDDEN N_COMPONENTS TIED UNIFORM_PB LOSS
[N_COMPONENTS_S0] (TIED, UNIFORM_PB: 0 or 1). Exit code 1 on a failure.
"""

import os
import sys

import torch
import torch.nn.functional as F

FAILURES = []


def expect(condition, what):
    if not condition:
        FAILURES.append(what)


def mlp_shapes(prefix, d, h, n_hidden, out, trunk=True):
    """{name: shape} of torchgfn's MLP(d, out, h, n_hidden) under `prefix`."""
    shapes = {}
    if trunk:
        for i in range(n_hidden):
            shapes[f"{prefix}.trunk.{2 * i}.weight"] = (h, d if i == 0 else h)
            shapes[f"{prefix}.trunk.{2 * i}.bias"] = (h,)
    shapes[f"{prefix}.last_layer.weight"] = (out, h)
    shapes[f"{prefix}.last_layer.bias"] = (out,)
    return shapes


def expected_shapes(d, h, n_hidden, k, tied, uniform_pb, loss, k0):
    if k0:  # polar: PF [exit, K logits, K alphas, K betas] + PFs0; PB [K logits, alphas, betas]
        shapes = mlp_shapes("pf.module", d, h, n_hidden, 1 + 3 * k)
        shapes["pf.module.PFs0"] = (1, 5 * k0)
        pb_out = 3 * k
    else:
        out = 1 + 3 * d * k  # exit / back-to-source logit, then k mixture logits, alphas, betas
        shapes = mlp_shapes("pf.module", d, h, n_hidden, out)
        pb_out = out
    if not uniform_pb:
        shapes.update(mlp_shapes("pb.module", d, h, n_hidden, pb_out))  # tied: PF's trunk again
    if loss in ("db", "subtb"):
        shapes.update(mlp_shapes("logF.module", d, h, n_hidden, 1))
        shapes["logF.module.logZ_value"] = ()
    else:
        shapes["logZ"] = ()
    return shapes


def mlp(state, prefix, x, n_hidden, activation):
    for i in range(n_hidden):
        x = activation(F.linear(x, state[f"{prefix}.trunk.{2 * i}.weight"],
                                state[f"{prefix}.trunk.{2 * i}.bias"]))
    return F.linear(x, state[f"{prefix}.last_layer.weight"], state[f"{prefix}.last_layer.bias"])


def main(run_dir, h, n_hidden, k, tied, uniform_pb, loss, k0):
    state = torch.load(os.path.join(run_dir, "model_state_dict.pt"))
    ref = torch.load(os.path.join(run_dir, "model_check.pt"))
    states = ref["states"]
    d = states.shape[1]
    shapes = expected_shapes(d, h, n_hidden, k, tied, uniform_pb, loss, k0)
    got = {name: tuple(t.shape) for name, t in state.items()}
    expect(set(got) == set(shapes), f"names: missing {sorted(set(shapes) - set(got))}, "
           f"unexpected {sorted(set(got) - set(shapes))}")
    for name, shape in shapes.items():
        expect(got.get(name, shape) == shape, f"{name}: shape {got.get(name)}, torchgfn {shape}")
        expect(name not in state or state[name].dtype == torch.float32, f"{name}: not float32")
    if FAILURES:
        return
    if tied and not uniform_pb:
        for name in (n for n in shapes if n.startswith("pf.module.trunk.")):
            expect(torch.equal(state[name], state["pb" + name[2:]]), f"tied {name} differs")
    expect(torch.all(states[0] == 0) and states.shape[0] > 1, "check batch: s0 and samples")
    with torch.no_grad():
        inputs = states if k0 else 2 * states - 1  # the Cartesian MLPs map to 2 s - 1
        outputs = {"pf_logits": mlp(state, "pf.module", inputs, n_hidden, F.elu)}
        if k0:
            pfs0 = state["pf.module.PFs0"].expand(states.shape[0], -1)
            outputs["pf_logits"] = torch.cat([outputs["pf_logits"], pfs0], dim=1)
        if not uniform_pb:
            outputs["pb_logits"] = mlp(state, "pb.module", inputs, n_hidden, F.elu)
        if loss in ("db", "subtb"):
            log_f = mlp(state, "logF.module", states, n_hidden, F.relu)
            log_f[torch.all(states == 0, 1)] = state["logF.module.logZ_value"]
            outputs["log_flow"] = log_f
    expect(set(outputs) == {k for k in ref if k not in ("states", "inputs")},
           f"check outputs {sorted(ref)} vs computed {sorted(outputs)}")
    for key, mine in outputs.items():
        diff = (mine - ref[key]).abs().max().item()
        print(f"{key}: {tuple(mine.shape)}, max |re-implementation - gfn-runtime| = {diff:.3g}")
        expect(mine.shape == ref[key].shape and diff <= 1e-5, f"{key}: differs by {diff}")


if __name__ == "__main__":
    run, h, n, k, tied, uniform, loss_name = sys.argv[1:8]
    k_s0 = int(sys.argv[8]) if len(sys.argv) > 8 else 0
    main(run, int(h), int(n), int(k), tied == "1", uniform == "1", loss_name, k_s0)
    for failure in FAILURES:
        print(f"check_box_export: {failure}", file=sys.stderr)
    print("check_box_export: ok" if not FAILURES else "check_box_export: FAILED")
    sys.exit(1 if FAILURES else 0)
